package apiserver

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
					want = base + plainNames.Suffix(base, nameSuffixAlphabet, generatedSuffixLen)
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
				assert.Equal(t, unsafe.StringData(key[len(key)-len(name):]), unsafe.StringData(name), "the name is the key's tail")
			}
		})
	}
}
