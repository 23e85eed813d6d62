package serviceaccount_test

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/apiserver/serviceaccount"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
)

func TestTokens(t *testing.T) {
	ctx := context.Background()
	clk := clock.NewFake(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	srv, err := apiserver.New(apiserver.Config{Clock: clk, Rand: rand.New(rand.NewPCG(1, 2))})
	require.NoError(t, err)
	sa, err := client.For[*api.ServiceAccount](srv).Create(ctx, &api.ServiceAccount{Metadata: api.ObjectMeta{Namespace: "default", Name: "robot"}})
	require.NoError(t, err)
	pod, err := client.For[*api.Pod](srv).Create(ctx, &api.Pod{Metadata: api.ObjectMeta{Namespace: "default", Name: "web"},
		Spec: api.PodSpec{ServiceAccountName: "robot", Containers: []api.Container{{Name: "app", Image: "nginx"}}}})
	require.NoError(t, err)
	issuer, err := serviceaccount.New(serviceaccount.Config{Key: serviceaccount.KeyFromSeed(rand.New(rand.NewPCG(3, 4))), Clock: clk, Client: srv})
	require.NoError(t, err)
	other, err := serviceaccount.New(serviceaccount.Config{Key: serviceaccount.KeyFromSeed(rand.New(rand.NewPCG(5, 6))), Clock: clk, Client: srv})
	require.NoError(t, err)

	issue := func(t *testing.T, pod *api.Pod) string {
		token, exp, err := issuer.Issue(serviceaccount.Request{Account: sa, Pod: pod, Audiences: []string{"api", "vault"}, Duration: time.Hour})
		require.NoError(t, err)
		assert.Equal(t, clk.Now().Add(time.Hour), exp)
		return token
	}
	tests := []struct {
		name  string
		token func(t *testing.T) string
		ok    bool
	}{
		{name: "fresh", token: func(t *testing.T) string { return issue(t, nil) }, ok: true},
		{name: "bound to a pod", token: func(t *testing.T) string { return issue(t, pod) }, ok: true},
		{name: "within the leeway after exp", token: func(t *testing.T) string {
			tok := issue(t, nil)
			clk.Step(time.Hour + 30*time.Second)
			return tok
		}, ok: true},
		{name: "expired", token: func(t *testing.T) string {
			tok := issue(t, nil)
			clk.Step(time.Hour + 2*time.Minute)
			return tok
		}},
		{name: "another key", token: func(t *testing.T) string {
			tok, _, err := other.Issue(serviceaccount.Request{Account: sa, Audiences: []string{"api"}, Duration: time.Hour})
			require.NoError(t, err)
			return tok
		}},
		{name: "tampered", token: func(t *testing.T) string {
			parts := strings.Split(issue(t, nil), ".")
			return parts[0] + "." + parts[1] + "x." + parts[2]
		}},
		{name: "not a JWT", token: func(*testing.T) string { return "s3cret" }},
		{name: "its pod recreated", token: func(t *testing.T) string {
			stale := *pod
			stale.Metadata.UID = "other"
			return issue(t, &stale)
		}},
		{name: "its account recreated", token: func(t *testing.T) string {
			stale := sa.DeepCopy()
			stale.Metadata.UID = "other"
			tok, _, err := issuer.Issue(serviceaccount.Request{Account: stale, Audiences: []string{"api"}, Duration: time.Hour})
			require.NoError(t, err)
			return tok
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u, aud, ok := issuer.AuthenticateToken(ctx, tt.token(t))
			require.Equal(t, tt.ok, ok)
			if ok {
				assert.Equal(t, "system:serviceaccount:default:robot", u.Name)
				assert.Equal(t, string(sa.Metadata.UID), u.UID)
				assert.Equal(t, []string{"system:serviceaccounts", "system:serviceaccounts:default", "system:authenticated"}, u.Groups)
				assert.Equal(t, []string{"api", "vault"}, aud)
			}
		})
	}
}

func TestAudiences(t *testing.T) {
	assert.Equal(t, []string{"b"}, serviceaccount.Audiences([]string{"a", "b"}, []string{"c", "b"}))
	assert.Empty(t, serviceaccount.Audiences([]string{"a"}, []string{"c"}))
}

func FuzzAuthenticateToken(f *testing.F) {
	clk := clock.NewFake(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	srv, err := apiserver.New(apiserver.Config{Clock: clk, Rand: rand.New(rand.NewPCG(1, 2))})
	require.NoError(f, err)
	issuer, err := serviceaccount.New(serviceaccount.Config{Key: serviceaccount.KeyFromSeed(rand.New(rand.NewPCG(3, 4))), Clock: clk, Client: srv})
	require.NoError(f, err)
	f.Add("a.b.c")
	f.Add("eyJhbGciOiJFUzI1NiJ9.e30.AAAA")
	f.Fuzz(func(t *testing.T, token string) {
		_, _, ok := issuer.AuthenticateToken(context.Background(), token)
		assert.False(t, ok, "no forged token authenticates")
	})
}

// TestTokenExtras: a token authenticates with the extras kube-apiserver
// gives it, which the ServiceAccounts conformance test reads from a
// TokenReview: its jti as the credential id, and the pod and node it is
// bound to.
func TestTokenExtras(t *testing.T) {
	ctx := context.Background()
	clk := clock.NewFake(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	srv, err := apiserver.New(apiserver.Config{Clock: clk, Rand: rand.New(rand.NewPCG(1, 2))})
	require.NoError(t, err)
	sa, err := client.For[*api.ServiceAccount](srv).Create(ctx, &api.ServiceAccount{Metadata: api.ObjectMeta{Namespace: "default", Name: "robot"}})
	require.NoError(t, err)
	pod, err := client.For[*api.Pod](srv).Create(ctx, &api.Pod{Metadata: api.ObjectMeta{Namespace: "default", Name: "web"},
		Spec: api.PodSpec{ServiceAccountName: "robot", Containers: []api.Container{{Name: "app", Image: "nginx"}}}})
	require.NoError(t, err)
	node := &api.Node{Metadata: api.ObjectMeta{Name: "node-0", UID: "node-uid"}}
	issuer, err := serviceaccount.New(serviceaccount.Config{Key: serviceaccount.KeyFromSeed(rand.New(rand.NewPCG(3, 4))), Clock: clk, Client: srv})
	require.NoError(t, err)
	for _, tt := range []struct {
		name string
		req  serviceaccount.Request
		want map[string][]string
	}{
		{"no jti, no pod", serviceaccount.Request{Account: sa, Duration: time.Hour}, nil},
		{"a jti", serviceaccount.Request{Account: sa, Duration: time.Hour, ID: "abc"},
			map[string][]string{serviceaccount.ExtraCredentialID: {"JTI=abc"}}},
		{"bound to a pod on a node", serviceaccount.Request{Account: sa, Pod: pod, Node: node, Duration: time.Hour, ID: "abc"},
			map[string][]string{serviceaccount.ExtraCredentialID: {"JTI=abc"},
				serviceaccount.ExtraPodName: {"web"}, serviceaccount.ExtraPodUID: {string(pod.Metadata.UID)},
				serviceaccount.ExtraNodeName: {"node-0"}, serviceaccount.ExtraNodeUID: {"node-uid"}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tok, _, err := issuer.Issue(tt.req)
			require.NoError(t, err)
			u, _, ok := issuer.AuthenticateToken(ctx, tok)
			require.True(t, ok)
			assert.Equal(t, tt.want, u.Extra)
		})
	}
}
