package apiserver

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
)

// TestGenerateKey checks the name and key made in one string against the
// plain way: the name drawn from an identically seeded source (base,
// truncated, and five characters of the alphabet) and the key k.key makes of
// it; and that the name is the key's tail, not a copy.
func TestGenerateKey(t *testing.T) {
	long := strings.Repeat("a", 70)
	tests := []struct {
		name, resource, namespace, base string
		seeded                          bool
	}{
		{name: "namespaced", resource: "pods", namespace: "default", base: "web-"},
		{name: "cluster-scoped ignores a namespace", resource: "nodes", namespace: "default", base: "node-"},
		{name: "truncated", resource: "pods", namespace: "ns", base: long},
		{name: "seeded names", resource: "pods", namespace: "ns", base: "web-", seeded: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := New(Config{Clock: clock.NewFake(time.Date(2026, 5, 14, 9, 0, 0, 0, time.UTC)), Rand: rand.New(rand.NewPCG(1, 1))})
			require.NoError(t, err)
			k := s.kinds[tt.resource]
			require.NotNil(t, k)
			// The server's source and the plain way's, in the same state.
			s.rand, s.names = rand.New(rand.NewPCG(7, 7)), nil
			plainRand, plainNames := rand.New(rand.NewPCG(7, 7)), NewSeededNames(7)
			if tt.seeded {
				s.names = NewSeededNames(7)
			}
			base := tt.base[:min(len(tt.base), maxGeneratedPrefix)]
			for range 3 {
				var want string
				if tt.seeded {
					want = base + plainNames.Suffix(k.key(tt.namespace, base), nameSuffixAlphabet, generatedSuffixLen)
				} else {
					suffix := make([]byte, generatedSuffixLen)
					for i := range suffix {
						suffix[i] = nameSuffixAlphabet[plainRand.IntN(len(nameSuffixAlphabet))]
					}
					want = base + string(suffix)
				}
				key, name := s.generateKey(k, tt.namespace, tt.base)
				assert.Equal(t, want, name)
				assert.Equal(t, k.key(tt.namespace, name), key)
				assert.Same(t, unsafe.StringData(key[len(key)-len(name):]), unsafe.StringData(name), "the name is the key's tail")
			}
		})
	}
}

// TestCreateNameIsKeyTail checks that a created object's name, given or
// generated, is the tail of its store key and reads as the name it was
// given or generated.
func TestCreateNameIsKeyTail(t *testing.T) {
	tests := []struct {
		name string
		obj  api.Object
		want string // "" for a generated name
	}{
		{name: "given", obj: &api.Event{
			Metadata:       api.ObjectMeta{Namespace: "default", Name: "web.18a3f2c4d5e6f7a8"},
			InvolvedObject: api.ObjectReference{Kind: "Pod", Namespace: "default", Name: "web"},
		}, want: "web.18a3f2c4d5e6f7a8"},
		{name: "generated", obj: &api.Pod{
			Metadata: api.ObjectMeta{Namespace: "default", GenerateName: "web-"},
			Spec:     api.PodSpec{Containers: []api.Container{{Name: "app", Image: "nginx"}}},
		}},
		{name: "cluster-scoped", obj: &api.Node{Metadata: api.ObjectMeta{Name: "node-1"}}, want: "node-1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := New(Config{Clock: clock.NewFake(time.Date(2026, 5, 14, 9, 0, 0, 0, time.UTC)), Rand: rand.New(rand.NewPCG(1, 1))})
			require.NoError(t, err)
			created, err := s.Create(context.Background(), tt.obj, client.Handover())
			require.NoError(t, err)
			m := created.GetObjectMeta()
			if tt.want != "" {
				assert.Equal(t, tt.want, m.Name)
			} else {
				assert.True(t, strings.HasPrefix(m.Name, "web-") && len(m.Name) == len("web-")+generatedSuffixLen, m.Name)
			}
			k, err := s.kindOf(created)
			require.NoError(t, err)
			rec, err := s.store.Get(k.key(m.Namespace, m.Name), 0)
			require.NoError(t, err)
			assert.Same(t, unsafe.StringData(rec.Key[len(rec.Key)-len(m.Name):]), unsafe.StringData(m.Name), "the name is the stored key's tail")
		})
	}
}
