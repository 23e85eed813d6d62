package nodesim

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// mapIPs is the plain way nodeIPs replaced: the addresses in use in one map,
// address → pod key, and the same low-water mark. TestNodeIPsAsTheMap holds
// nodeIPs to it.
type mapIPs struct {
	taken map[netip.Addr]string
	low   netip.Addr
}

func (m *mapIPs) allocate(key, cidr string) (netip.Addr, error) {
	addr, err := nextPodIP(cidr, m.low, func(a netip.Addr) bool { _, ok := m.taken[a]; return ok })
	if err != nil {
		return netip.Addr{}, err
	}
	m.hold(key, addr)
	m.low = addr.Next()
	return addr, nil
}

func (m *mapIPs) hold(key string, addr netip.Addr) {
	m.taken[addr] = key
	if m.low == addr {
		m.low = addr.Next()
	}
}

func (m *mapIPs) free(key string, addr netip.Addr) {
	if m.taken[addr] != key {
		return
	}
	delete(m.taken, addr)
	if m.low.IsValid() && addr.Less(m.low) {
		m.low = addr
	}
}

// TestNodeIPsAsTheMap: a node's record hands out the same addresses in the
// same order as the map it replaced, frees and reuses them the same way,
// and holds the same addresses with the same owners after every step: for
// pods that take an address, go, and claim one from their status (inside
// the range, outside it, or one another pod holds), and for ranges that
// the owners slice covers, that it does not (a /16, IPv6), and a range
// that changes.
func TestNodeIPsAsTheMap(t *testing.T) {
	tests := []struct {
		name   string
		cidrs  []string // the range a step allocates from: one at random
		claims []string // addresses a pod may claim from its status
	}{
		{"a /24", []string{"10.244.3.0/24"}, []string{"10.244.3.2", "10.244.3.9", "10.244.3.254", "10.9.0.1"}},
		{"a /29, soon full", []string{"10.244.0.0/29"}, []string{"10.244.0.3", "10.244.0.7", "10.244.1.2"}},
		{"a /16: no owners slice", []string{"10.245.0.0/16"}, []string{"10.245.0.2", "10.245.3.4"}},
		{"IPv6", []string{"fd00::/120"}, []string{"fd00::2", "fd00::1:2"}},
		{"the range changes", []string{"10.244.1.0/24", "10.244.1.0/28", "10.244.2.0/24"}, []string{"10.244.1.2", "10.244.2.5", "10.244.1.200"}},
		{"a bad range", []string{"10.244.1.0/24", "nope"}, []string{"10.244.1.3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for seed := range uint64(10) {
				r := rand.New(rand.NewPCG(seed, 3))
				var n nodeIPs
				m := mapIPs{taken: map[netip.Addr]string{}}
				pods := make([]*podState, 12)
				for i := range pods {
					pods[i] = &podState{key: fmt.Sprintf("default/p%d", i)}
				}
				handed := 0
				for step := range 400 {
					st := pods[r.IntN(len(pods))]
					what := fmt.Sprintf("seed %d step %d %s", seed, step, st.key)
					switch r.IntN(3) {
					case 0:
						if st.addr.IsValid() {
							continue // it holds one: allocateIP hands out no second
						}
						cidr := tt.cidrs[r.IntN(len(tt.cidrs))]
						want, wantErr := m.allocate(st.key, cidr)
						got, err := n.allocate(st, st.key, cidr)
						require.Equal(t, wantErr, err, what)
						require.Equal(t, want, got, what)
						if err == nil {
							handed++
						}
					case 1:
						if !st.addr.IsValid() {
							continue
						}
						m.free(st.key, st.addr)
						n.free(st, st.key)
						st.addr = netip.Addr{}
					case 2:
						if st.addr.IsValid() {
							continue // a pod claims only while it holds none (runPod)
						}
						a := netip.MustParseAddr(tt.claims[r.IntN(len(tt.claims))])
						m.hold(st.key, a)
						n.hold(st, st.key, a)
					}
					got := map[netip.Addr]string{}
					n.each(func(a netip.Addr, key string) { got[a] = key })
					require.Equal(t, m.taken, got, what)
					require.Equal(t, len(m.taken), n.held, what)
					require.Equal(t, m.low, n.low, what)
					for a, key := range m.taken {
						require.Equal(t, key, n.owner(a), what)
					}
					for _, s := range tt.claims {
						a := netip.MustParseAddr(s)
						_, want := m.taken[a]
						require.Equal(t, want, n.taken(a), "%s: %s", what, a)
					}
					if p, err := netip.ParsePrefix(tt.cidrs[0]); err == nil {
						for a, i := p.Masked().Addr(), 0; i < 300 && p.Contains(a); a, i = a.Next(), i+1 {
							_, want := m.taken[a]
							require.Equal(t, want, n.taken(a), "%s: %s", what, a)
						}
					}
				}
				assert.Positive(t, handed, "seed %d: addresses were handed out", seed)
			}
		})
	}
}

// TestNodeIPsOwnersCoverTheRange: a node's /24 is held in the owners slice,
// a range too large or not IPv4 in the map, and an address outside the
// range in the map.
func TestNodeIPsOwnersCoverTheRange(t *testing.T) {
	var n nodeIPs
	_, err := n.rangeOf("10.244.0.0/24")
	require.NoError(t, err)
	require.Len(t, n.owners, 256)
	n.hold(&podState{}, "default/a", netip.MustParseAddr("10.244.0.2"))
	n.hold(&podState{}, "default/b", netip.MustParseAddr("10.244.1.2"))
	assert.Equal(t, "default/a", n.owners[2])
	assert.Equal(t, map[netip.Addr]string{netip.MustParseAddr("10.244.1.2"): "default/b"}, n.elsewhere)
	assert.True(t, n.taken(netip.MustParseAddr("10.244.0.2")))
	assert.Equal(t, uint64(1<<2), n.used[0], "the bit of offset 2")
	_, err = n.rangeOf("10.244.0.0/23")
	require.NoError(t, err)
	assert.Nil(t, n.owners, "a /23 is past maxOwned")
	assert.Zero(t, n.used)
	assert.Len(t, n.elsewhere, 2)
	_, err = n.rangeOf("10.244.1.0/24")
	require.NoError(t, err)
	assert.Equal(t, "default/b", n.owners[2], "refiled into the new range's slice")
	assert.Equal(t, map[netip.Addr]string{netip.MustParseAddr("10.244.0.2"): "default/a"}, n.elsewhere)
}
