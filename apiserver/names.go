package apiserver

import (
	"hash/fnv"
	"math/rand/v2"
	"sync"
)

// SeededNames draws generated-name suffixes from one seeded stream per
// prefix (the Server's is the store key before the suffix: the resource,
// the namespace and the generateName): the k-th pod generated from "web-"
// in "default" is the same on every run with the same seed, whatever else
// the server creates meanwhile and in whatever order other goroutines'
// writes interleave. A live control plane (the
// demo, serve) has goroutines racing to write, so drawing every suffix and
// uid from one source, as Config.Rand does, names the same pods differently
// from run to run; the simulator, which writes from one goroutine, does not
// need this. Set it as Config.Names. It is safe for concurrent use; it
// keeps one small stream per prefix it has seen.
type SeededNames struct {
	seed uint64

	// mu guards streams.
	mu      sync.Mutex
	streams map[string]*rand.Rand
}

// NewSeededNames returns per-prefix name streams seeded by seed.
func NewSeededNames(seed uint64) *SeededNames {
	return &SeededNames{seed: seed, streams: make(map[string]*rand.Rand)}
}

// Suffix returns the next suffix of base's stream, drawing n characters
// from alphabet.
func (g *SeededNames) Suffix(base, alphabet string, n int) string {
	g.mu.Lock()
	defer g.mu.Unlock()
	r := g.streams[base]
	if r == nil {
		h := fnv.New64a()
		h.Write([]byte(base))
		r = rand.New(rand.NewPCG(g.seed, h.Sum64()))
		g.streams[base] = r
	}
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return string(b)
}
