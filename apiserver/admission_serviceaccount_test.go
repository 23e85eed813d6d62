package apiserver_test

import (
	"math/rand/v2"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
)

// newAdmittingServer returns a server with ServiceAccount admission on,
// waiting wait for a missing "default" account, and an account "builder"
// in namespace "default" (but no "default" account anywhere).
func newAdmittingServer(t *testing.T, wait time.Duration) (*apiserver.Server, *clock.Fake) {
	t.Helper()
	clk := clock.NewFake(epoch)
	s, err := apiserver.New(apiserver.Config{Clock: clk, Rand: rand.New(rand.NewPCG(1, 2)), ServiceAccounts: true, DefaultServiceAccountWait: wait})
	require.NoError(t, err)
	_, err = s.Create(ctx, &api.ServiceAccount{Metadata: api.ObjectMeta{Namespace: "default", Name: "builder"}})
	require.NoError(t, err)
	return s, clk
}

func TestServiceAccountAdmission(t *testing.T) {
	withAccount := func(name, deprecated string) *api.Pod {
		p := pod("default", "p", nil)
		p.Spec.ServiceAccountName, p.Spec.DeprecatedServiceAccount = name, deprecated
		return p
	}
	tests := []struct {
		name        string
		pod         *api.Pod
		makeDefault bool
		wantAccount string // on success
		wantMessage string // on refusal
	}{
		{name: "no account named: default", pod: withAccount("", ""), makeDefault: true, wantAccount: "default"},
		{name: "an existing account", pod: withAccount("builder", ""), wantAccount: "builder"},
		{name: "the deprecated field alone names it", pod: withAccount("", "builder"), wantAccount: "builder"},
		{name: "serviceAccountName wins over the deprecated field", pod: withAccount("builder", "other"), wantAccount: "builder"},
		{name: "a missing account is refused", pod: withAccount("ghost", ""), makeDefault: true,
			wantMessage: `pods "p" is forbidden: error looking up service account default/ghost: serviceaccount "ghost" not found`},
		{name: "a missing default account is refused", pod: withAccount("", ""),
			wantMessage: `pods "p" is forbidden: error looking up service account default/default: serviceaccount "default" not found`},
		{name: "a missing account named by the deprecated field is refused", pod: withAccount("", "ghost"),
			wantMessage: `pods "p" is forbidden: error looking up service account default/ghost: serviceaccount "ghost" not found`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newAdmittingServer(t, 0)
			if tt.makeDefault {
				_, err := s.Create(ctx, &api.ServiceAccount{Metadata: api.ObjectMeta{Namespace: "default", Name: "default"}})
				require.NoError(t, err)
			}
			for _, dryRun := range []bool{true, false} {
				var opts []client.WriteOption
				if dryRun {
					opts = append(opts, client.DryRun())
				}
				got, err := s.Create(ctx, tt.pod, opts...)
				if tt.wantMessage != "" {
					require.Error(t, err)
					st := apierrors.StatusOf(err)
					assert.Equal(t, int32(http.StatusForbidden), st.Code)
					assert.Equal(t, api.StatusReasonForbidden, st.Reason)
					assert.Equal(t, tt.wantMessage, st.Message)
					_, getErr := s.Get(ctx, client.Pods, "default", "p", client.GetOptions{})
					assert.True(t, apierrors.IsNotFound(getErr), "a refused pod is not stored")
					continue
				}
				require.NoError(t, err)
				p := got.(*api.Pod)
				assert.Equal(t, tt.wantAccount, p.Spec.ServiceAccountName)
				assert.Equal(t, tt.wantAccount, p.Spec.DeprecatedServiceAccount, "the deprecated field mirrors the name")
			}
		})
	}
}

// TestServiceAccountAdmissionNamesAGeneratedPodByItsPrefix: admission runs
// before names are generated, so kube-apiserver names the pod by its
// generateName.
func TestServiceAccountAdmissionNamesAGeneratedPodByItsPrefix(t *testing.T) {
	s, _ := newAdmittingServer(t, 0)
	p := pod("default", "", nil)
	p.Metadata.GenerateName = "web-"
	_, err := s.Create(ctx, p)
	require.Error(t, err)
	assert.Equal(t, `pods "web-" is forbidden: error looking up service account default/default: serviceaccount "default" not found`, err.Error())
}

// TestServiceAccountAdmissionOff: a bare server admits a pod whatever its
// account, and leaves the name as sent.
func TestServiceAccountAdmissionOff(t *testing.T) {
	s, _ := newServer(t)
	p := pod("default", "p", nil)
	p.Spec.ServiceAccountName = "ghost"
	got, err := s.Create(ctx, p)
	require.NoError(t, err)
	assert.Equal(t, "ghost", got.(*api.Pod).Spec.ServiceAccountName)
	got, err = s.Create(ctx, pod("default", "q", nil))
	require.NoError(t, err)
	assert.Empty(t, got.(*api.Pod).Spec.ServiceAccountName)
}

// TestServiceAccountAdmissionWaitsForDefault: a pod create in a namespace
// whose "default" account is not there yet waits for it, as
// kube-apiserver's lookup retries; past the wait it is refused.
func TestServiceAccountAdmissionWaitsForDefault(t *testing.T) {
	t.Run("the account arrives", func(t *testing.T) {
		s, _ := newAdmittingServer(t, 2*time.Second)
		errc := make(chan error, 1)
		go func() { _, err := s.Create(ctx, pod("default", "p", nil)); errc <- err }()
		_, err := s.Create(ctx, &api.ServiceAccount{Metadata: api.ObjectMeta{Namespace: "default", Name: "default"}})
		require.NoError(t, err)
		require.NoError(t, <-errc)
	})
	t.Run("the wait ends", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s, clk := newAdmittingServer(t, 2*time.Second)
			errc := make(chan error, 1)
			go func() { _, err := s.Create(ctx, pod("default", "p", nil)); errc <- err }()
			synctest.Wait() // the create waits on its timer
			clk.Step(time.Second)
			synctest.Wait()
			select {
			case err := <-errc:
				t.Fatalf("the create gave up before its wait ended: %v", err)
			default:
			}
			clk.Step(time.Second)
			err := <-errc
			require.True(t, apierrors.IsForbidden(err), "got %v", err)
		})
	})
	t.Run("only the default account is waited for", func(t *testing.T) {
		s, _ := newAdmittingServer(t, time.Hour)
		p := pod("default", "p", nil)
		p.Spec.ServiceAccountName = "ghost"
		_, err := s.Create(ctx, p)
		require.True(t, apierrors.IsForbidden(err), "got %v", err)
	})
}
