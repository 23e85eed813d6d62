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

// TestPackerMatchesTheModel checks what the controller runs — desiredSubsets,
// the packer over pods (collect, group, pack, equal) — and subsetsEqual
// against plain, obviously correct versions built from maps, sorted strings
// and deep copies (desiredModel, repackModel), on random services and pods
// from a seeded source: the same output, whatever the pods' order, shared
// IPs, readiness or mix of ports.
func TestPackerMatchesTheModel(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	app := "http"
	var p packer // reused, as the controller reuses its packers
	for i := range 2000 {
		svc := testService()
		switch r.IntN(5) {
		case 0:
			svc.Spec.ClusterIP = api.ClusterIPNone // headless, maybe portless
		case 1:
			svc.Spec.ClusterIP = "fd00::10" // an IPv6 service takes the pods' IPv6 addresses
		}
		if svc.Spec.ClusterIP != api.ClusterIPNone || r.IntN(2) == 0 {
			for j := range r.IntN(4) {
				sp := tcpPort(fmt.Sprintf("p%d", j), int32(80+j), api.FromInt(8080+r.IntN(2)))
				switch r.IntN(4) {
				case 0:
					sp.TargetPort = api.FromString(pick("web", "admin"))
				case 1:
					sp.Protocol = api.ProtocolUDP
				case 2:
					sp.AppProtocol = &app
				}
				svc.Spec.Ports = append(svc.Spec.Ports, sp)
			}
		}
		svc.Spec.PublishNotReadyAddresses = r.IntN(5) == 0
		var pods []*api.Pod
		for j := range r.IntN(7) {
			pod := testPod(fmt.Sprintf("p%d", j), pick("10.1.0.1", "10.1.0.2", "10.1.0.10", "not-an-ip", ""), rv(pick("1", "2")))
			if r.IntN(3) == 0 {
				pod.Status.PodIPs = []api.PodIP{{IP: pod.Status.PodIP}, {IP: pick("fd00::1", "fd00::2")}}
			}
			switch r.IntN(8) {
			case 0:
				notReady()(pod)
			case 1:
				terminating()(pod)
			case 2:
				phase(api.PodPhase(pick(string(api.PodSucceeded), string(api.PodFailed))))(pod)
			}
			if r.IntN(2) == 0 {
				containerPort(pick("web", "admin"), int32(8080+r.IntN(2)))(pod)
			}
			if r.IntN(4) == 0 {
				pod.Spec.Hostname, pod.Spec.Subdomain = "h", pick("web", "other")
			}
			pods = append(pods, pod)
		}
		want := desiredModel(svc, pods)
		got := desiredSubsets(svc, pods)
		require.Equal(t, want, got, "case %d: %+v", i, pods)

		shuffled := slices.Clone(pods)
		r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		p.reset()
		p.collect(svc, shuffled)
		require.Equal(t, got, p.pack(nil), "case %d: the pods' order does not matter", i)
		require.NoError(t, p.checkIndexes(), "case %d", i)
		assert.True(t, p.equal(got), "case %d: equal to what it packs", i)

		other := pickSubsets(r, got)
		assert.Equal(t, reflect.DeepEqual(normalizeModel(got), normalizeModel(other)), subsetsEqual(got, other), "case %d", i)
		assert.Equal(t, subsetsEqual(got, other), p.equal(other), "case %d: equal as subsetsEqual", i)
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

// checkIndexes checks what "Reading the packer" in pack.go promises of a
// grouped packer.
func (p *packer) checkIndexes() error {
	if len(p.order) != len(p.addrs) || len(p.rank) != len(p.addrs) {
		return fmt.Errorf("order %d, rank %d for %d addresses", len(p.order), len(p.rank), len(p.addrs))
	}
	for i := range p.addrs {
		if int(p.order[p.rank[i]]) != i {
			return fmt.Errorf("order[rank[%d]] = %d", i, p.order[p.rank[i]])
		}
	}
	for port, ms := range p.members {
		for j := 1; j < len(ms); j++ {
			if ms[j-1].rank >= ms[j].rank {
				return fmt.Errorf("port %d: members not strictly increasing: %v", port, ms)
			}
		}
	}
	return nil
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

// desiredModel is desiredSubsets done the plain way: every pod that belongs
// contributes one one-address subset per port it serves, and repackModel
// packs the pieces.
func desiredModel(svc *api.Service, pods []*api.Pod) []api.EndpointSubset {
	headless := svc.Spec.ClusterIP == api.ClusterIPNone
	if len(svc.Spec.Ports) == 0 && !headless {
		return nil
	}
	publish := svc.Spec.PublishNotReadyAddresses
	var pieces []api.EndpointSubset
	for _, pod := range pods {
		if !ShouldPodBeInEndpoints(pod, publish) {
			continue
		}
		ip, _, ok := podIPFor(serviceIPFamily(svc), pod)
		if !ok {
			continue
		}
		a := podAddress(svc, pod, ip)
		piece := api.EndpointSubset{Addresses: []api.EndpointAddress{a}}
		if !publish && !api.IsPodReady(pod) {
			piece = api.EndpointSubset{NotReadyAddresses: []api.EndpointAddress{a}}
		}
		if len(svc.Spec.Ports) == 0 {
			pieces = append(pieces, piece)
			continue
		}
		for i := range svc.Spec.Ports {
			if n, ok := FindPort(pod, &svc.Spec.Ports[i]); ok {
				s := *piece.DeepCopy()
				s.Ports = []api.EndpointPort{endpointPort(&svc.Spec.Ports[i], n)}
				pieces = append(pieces, s)
			}
		}
	}
	return repackModel(pieces)
}

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

// TestPackSharesWithPrevious checks pack given the subsets of a previous
// write: it packs exactly what it packs without them, whatever they hold
// (an earlier packing of other pods, or the same addresses out of order);
// every address of them equal in every field to one it packs in the same
// list is shared, not made again; and what it returns keeps nothing of the
// packer, which a later sync reuses (the controller hands it over).
func TestPackSharesWithPrevious(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 17))
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	var p packer // reused, as the controller reuses its packers
	for i := range 2000 {
		svc := testService(tcpPort("http", 80, api.FromInt(8080)))
		switch r.IntN(4) {
		case 0:
			svc.Spec.ClusterIP = api.ClusterIPNone
			svc.Spec.Ports = nil
		case 1:
			svc.Spec.Ports = append(svc.Spec.Ports, tcpPort("admin", 81, api.FromString("admin")))
		}
		var before, after []*api.Pod
		for j := range r.IntN(8) {
			pod := testPod(fmt.Sprintf("p%d", j), fmt.Sprintf("10.1.0.%d", 1+r.IntN(12)), rv(pick("1", "2")))
			if r.IntN(3) == 0 {
				notReady()(pod)
			}
			if r.IntN(3) == 0 {
				containerPort("admin", 9090)(pod)
			}
			if r.IntN(4) != 0 {
				before = append(before, pod)
			}
			switch r.IntN(6) {
			case 0: // gone
				continue
			case 1: // written since: a new resourceVersion, maybe readiness or node
				pod = pod.DeepCopy()
				pod.Metadata.ResourceVersion += "0"
				if r.IntN(2) == 0 {
					pod.Status.Conditions[0].Status = api.ConditionStatus(pick(string(api.ConditionTrue), string(api.ConditionFalse)))
				}
				if r.IntN(2) == 0 {
					pod.Spec.NodeName = pick("", "node-2")
				}
			}
			after = append(after, pod)
		}
		prev := desiredSubsets(svc, before)
		shuffled := r.IntN(5) == 0 && len(prev) > 0
		if shuffled { // not in canonical order: fewer shared, the same result
			r.Shuffle(len(prev[0].Addresses), func(i, j int) {
				prev[0].Addresses[i], prev[0].Addresses[j] = prev[0].Addresses[j], prev[0].Addresses[i]
			})
		}
		want := desiredSubsets(svc, after)

		p.reset()
		p.collect(svc, after)
		got := p.pack(prev)
		require.Equal(t, want, got, "case %d: prev changes nothing packed", i)
		for gi := range min(len(got), len(prev)) {
			for _, lists := range [][2][]api.EndpointAddress{
				{got[gi].Addresses, prev[gi].Addresses}, {got[gi].NotReadyAddresses, prev[gi].NotReadyAddresses},
			} {
				for _, a := range lists[0] {
					k := slices.IndexFunc(lists[1], func(b api.EndpointAddress) bool { return reflect.DeepEqual(a, b) })
					switch {
					case shuffled:
						// Shared or not, as the order allowed.
					case k >= 0:
						assert.Same(t, lists[1][k].TargetRef, a.TargetRef, "case %d: %s shared", i, a.IP)
					default:
						assert.False(t, slices.ContainsFunc(lists[1], func(b api.EndpointAddress) bool { return a.TargetRef == b.TargetRef }),
							"case %d: %s not shared", i, a.IP)
					}
				}
			}
		}

		// Nothing returned is the packer's: using it again changes none of it.
		kept := deepCopySubsets(got)
		p.reset()
		p.collect(svc, before)
		p.pack(got)
		require.Equal(t, kept, got, "case %d: a later pack changed what was handed over", i)
	}
}

func deepCopySubsets(subsets []api.EndpointSubset) []api.EndpointSubset {
	if subsets == nil {
		return nil
	}
	return (&api.Endpoints{Subsets: subsets}).DeepCopy().Subsets
}
