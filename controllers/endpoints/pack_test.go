package endpoints

import (
	"cmp"
	"fmt"
	"maps"
	"math/rand/v2"
	"net/netip"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
)

// TestPackerMatchesTheModel checks the packer (repackSubsets, desiredSubsets'
// packing) and subsetsEqual against plain, obviously correct versions built
// from maps, sorted strings and deep copies, on random subsets: the same
// output, whatever the input's order, repeats or mix of ports.
func TestPackerMatchesTheModel(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	pool := []api.EndpointAddress{
		addr("a", "10.1.0.1"), addr("b", "10.1.0.2"), addr("c", "10.1.0.10"), addr("d", "fd00::1"),
		addr("e", "not-an-ip"), addr("f", "10.1.0.2"), // f shares b's IP
	}
	app := "http"
	portPool := []api.EndpointPort{
		eport("x", 80), eport("y", 81), eport("", 80), {Name: "x", Port: 80, Protocol: api.ProtocolUDP},
		{Name: "z", Port: 82, Protocol: api.ProtocolTCP, AppProtocol: &app},
	}
	pick := func(n int) []api.EndpointAddress {
		var out []api.EndpointAddress
		for range r.IntN(n + 1) {
			out = append(out, *pool[r.IntN(len(pool))].DeepCopy())
		}
		return out
	}
	for i := range 2000 {
		var in []api.EndpointSubset
		for range r.IntN(5) {
			s := api.EndpointSubset{Addresses: pick(3), NotReadyAddresses: pick(2)}
			if r.IntN(6) > 0 { // now and then a portless subset
				for range 1 + r.IntN(2) {
					s.Ports = append(s.Ports, portPool[r.IntN(len(portPool))])
				}
			}
			in = append(in, s)
		}
		want := repackModel(in)
		got := repackSubsets(in)
		require.Equal(t, want, got, "case %d: %+v", i, in)

		other := repackSubsets(pickSubsets(r, in))
		assert.Equal(t, reflect.DeepEqual(normalizeModel(got), normalizeModel(other)), subsetsEqual(got, other), "case %d", i)
		q := packer{index: map[addrKey]int{}}
		q.collectSubsets(in)
		assert.True(t, q.equal(got), "case %d: equal to what it packs", i)
		assert.Equal(t, subsetsEqual(got, other), q.equal(other), "case %d: equal as subsetsEqual", i)
		if len(got) > 0 && len(got[0].Addresses) > 0 {
			changed := slices.Clone(got)
			changed[0].Addresses = slices.Clone(changed[0].Addresses)
			ref := *changed[0].Addresses[0].TargetRef
			ref.ResourceVersion = "other"
			changed[0].Addresses[0].TargetRef = &ref
			assert.True(t, subsetsEqual(got, changed), "case %d: a resourceVersion alone is no change", i)
		}
	}
}

// pickSubsets returns a random variation of in: the same, or one subset
// dropped or changed, shuffled.
func pickSubsets(r *rand.Rand, in []api.EndpointSubset) []api.EndpointSubset {
	out := slices.Clone(in)
	switch {
	case len(out) > 0 && r.IntN(3) == 0:
		out = slices.Delete(out, 0, 1)
	case len(out) > 0 && r.IntN(3) == 0:
		out[0].Addresses, out[0].NotReadyAddresses = out[0].NotReadyAddresses, out[0].Addresses
	}
	r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// TestEqualityCoversEveryField fails when a field is added to the types
// subsetsEqual compares field by field, so that it is taught the new one.
func TestEqualityCoversEveryField(t *testing.T) {
	for typ, n := range map[reflect.Type]int{
		reflect.TypeFor[api.EndpointSubset]():  3,
		reflect.TypeFor[api.EndpointAddress](): 4,
		reflect.TypeFor[api.EndpointPort]():    4,
		reflect.TypeFor[api.ObjectReference](): 7,
	} {
		assert.Equal(t, n, typ.NumField(), "%s gained or lost a field: update subsetsEqual and this test", typ)
	}
}

// ---- the model: straightforward and slow ----

type modelKey struct {
	ip  string
	uid api.UID
}

func modelKeyOf(a *api.EndpointAddress) modelKey {
	k := modelKey{ip: a.IP}
	if a.TargetRef != nil {
		k.uid = a.TargetRef.UID
	}
	return k
}

// repackModel groups ports by the canonical name of their address set.
func repackModel(subsets []api.EndpointSubset) []api.EndpointSubset {
	addrsByKey := map[modelKey]api.EndpointAddress{}
	portsByKey := map[portKey]api.EndpointPort{}
	served := map[portKey]map[modelKey]bool{}
	note := func(pk portKey, as []api.EndpointAddress, ready bool) {
		set := served[pk]
		if set == nil {
			set = map[modelKey]bool{}
			served[pk] = set
		}
		for i := range as {
			k := modelKeyOf(&as[i])
			if _, seen := addrsByKey[k]; !seen {
				addrsByKey[k] = as[i]
			}
			set[k] = set[k] || ready
		}
	}
	for i := range subsets {
		s := &subsets[i]
		if len(s.Ports) == 0 {
			note(noPort, s.Addresses, true)
			note(noPort, s.NotReadyAddresses, false)
			continue
		}
		for j := range s.Ports {
			pk := keyOfPort(&s.Ports[j])
			portsByKey[pk] = s.Ports[j]
			note(pk, s.Addresses, true)
			note(pk, s.NotReadyAddresses, false)
		}
	}
	compareKeys := func(a, b modelKey) int {
		x, errX := netip.ParseAddr(a.ip)
		y, errY := netip.ParseAddr(b.ip)
		if errX == nil && errY == nil {
			return cmp.Or(x.Compare(y), cmp.Compare(a.uid, b.uid))
		}
		return cmp.Or(cmp.Compare(a.ip, b.ip), cmp.Compare(a.uid, b.uid))
	}
	setName := func(set map[modelKey]bool) string {
		var b strings.Builder
		for _, k := range slices.SortedFunc(maps.Keys(set), compareKeys) {
			fmt.Fprintf(&b, "%s/%s/%v;", k.ip, k.uid, set[k])
		}
		return b.String()
	}
	type group struct {
		set   map[modelKey]bool
		ports []api.EndpointPort
	}
	groups := map[string]*group{}
	for _, pk := range slices.SortedFunc(maps.Keys(served), comparePortKeys) {
		set := served[pk]
		if len(set) == 0 {
			continue
		}
		name := setName(set)
		g := groups[name]
		if g == nil {
			g = &group{set: set}
			groups[name] = g
		}
		if pk != noPort {
			g.ports = append(g.ports, portsByKey[pk])
		}
	}
	var out []api.EndpointSubset
	for _, name := range slices.Sorted(maps.Keys(groups)) {
		g := groups[name]
		var s api.EndpointSubset
		for _, k := range slices.SortedFunc(maps.Keys(g.set), compareKeys) {
			if g.set[k] {
				s.Addresses = append(s.Addresses, addrsByKey[k])
			} else {
				s.NotReadyAddresses = append(s.NotReadyAddresses, addrsByKey[k])
			}
		}
		s.Ports = g.ports
		out = append(out, s)
	}
	slices.SortFunc(out, compareSubsets)
	return out
}

// normalizeModel deep-copies subsets with target resourceVersions blanked
// and empty lists nil, for reflect.DeepEqual.
func normalizeModel(in []api.EndpointSubset) []api.EndpointSubset {
	if len(in) == 0 {
		return nil
	}
	out := make([]api.EndpointSubset, len(in))
	for i := range in {
		s := in[i].DeepCopy()
		for _, as := range []*[]api.EndpointAddress{&s.Addresses, &s.NotReadyAddresses} {
			if len(*as) == 0 {
				*as = nil
			}
			for j := range *as {
				if (*as)[j].TargetRef != nil {
					(*as)[j].TargetRef.ResourceVersion = ""
				}
			}
		}
		if len(s.Ports) == 0 {
			s.Ports = nil
		}
		out[i] = *s
	}
	return out
}
