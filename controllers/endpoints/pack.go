package endpoints

import (
	"cmp"
	"net/netip"
	"slices"

	"github.com/miniplane/miniplane/api"
)

// Reading the packer. Semantically it is desiredModel in pack_test.go: one
// one-address subset per pod and port it serves, regrouped by set of
// addresses; TestPackerMatchesTheModel checks the two against each other on
// seeded random services and pods. It is fast because nothing is a map or
// a string until the end, and everything else is an index:
//
//	pairs[k]             address addrs[pairs[k].addr] serves ports[pairs[k].port]
//	rank[i], order[r]    address i is the r-th in canonical order (IP, then
//	                     UID): order is rank's inverse, order[rank[i]] == i
//	members[port]        that port's addresses as ranks, sorted, each once
//	groups[g].members    one subset: the ports whose members equal it
//
// So an address in a subset is reached through two indexes,
// addrs[order[m.rank]]: members hold ranks, which sort and compare as
// plain integers (two ports share a subset iff their member slices are
// equal), and order maps a rank back to the address. Invariant: after group,
// for every port, members[port] is strictly increasing by rank.
//
// packer collects which address serves which port, and how, and packs the
// pairs into canonical subsets (desiredSubsets says what canonical is). It
// costs O(pairs · log pairs) whatever the number of addresses. The
// endpoints controller packs a service's pods on every sync, and most syncs
// find the Endpoints already right, so a packer can be reset and used
// again without allocating, and compared with the current subsets
// (equal) without making the addresses it would write.
type packer struct {
	// svc is the service whose pods' addresses are packed (collect);
	// packedAddr.pod entries are made for it.
	svc   *api.Service
	addrs []packedAddr
	// selected holds the sync's pods (selectedPods), read before
	// collect.
	selected podBuffers
	// ports and portKeys are the distinct ports seen, in the order first
	// seen; a service has few, so they are searched in place.
	ports    []api.EndpointPort
	portKeys []portKey
	pairs    []servedPair
	// resolved is collect's scratch: by service port, the last number
	// it resolved to and that endpoint port's index in ports.
	resolved []resolvedPort

	// What group computes, kept for reuse: order is the addresses in
	// canonical order and rank its inverse; members[i] are port i's
	// addresses; portOrder the ports in canonical order; groups the
	// subsets, each the ports served by one list of members.
	order, rank []int32
	members     [][]member
	portOrder   []int
	groups      []group
	grouped     bool

	// shared is pack's scratch: for each address it packs, the address of
	// the previous subsets it can share, or nil. It is cleared after each
	// pack, so that it keeps no stored object alive.
	shared []*api.EndpointAddress
}

// packedAddr is a pod's address, kept as the pod and made only when
// written (podAddress), with its key and its IP parsed once for sorting
// (valid false when it does not parse: it is then compared as a string).
type packedAddr struct {
	pod   *api.Pod
	key   addrKey
	ip    netip.Addr
	valid bool
}

// servedPair says that address addr serves port port, ready or not (indexes
// into packer.addrs and packer.ports).
type servedPair struct {
	addr, port int32
	ready      bool
}

// member is one address of a port's set: its rank in the canonical address
// order, and whether it is ready there.
type member struct {
	rank  int32
	ready bool
}

// group is one subset: its members, served by every port whose members
// are equal to them (portsOf).
type group struct {
	members []member
}

// reset empties p for another collect, keeping its storage.
func (p *packer) reset() {
	clear(p.addrs) // let go of the pods
	p.svc, p.addrs, p.ports, p.portKeys, p.pairs = nil, p.addrs[:0], p.ports[:0], p.portKeys[:0], p.pairs[:0]
	p.groups, p.grouped = p.groups[:0], false
	p.selected.reset()
}

// podAddress adds the address of pod at ip (podAddress(p.svc, pod, ip),
// made later), parsed as parsed, and returns its index.
func (p *packer) podAddress(pod *api.Pod, ip string, parsed netip.Addr) int {
	p.addrs = append(p.addrs, packedAddr{pod: pod, key: addrKey{ip: ip, uid: pod.Metadata.UID}, ip: parsed, valid: parsed.IsValid()})
	return len(p.addrs) - 1
}

// endpointAddress returns address i as written.
func (p *packer) endpointAddress(i int32, ref *api.ObjectReference, node *string) api.EndpointAddress {
	a := &p.addrs[i]
	return podAddressIn(p.svc, a.pod, a.key.ip, ref, node)
}

// addressIs reports whether address i is b, as addressesEqual compares.
func (p *packer) addressIs(i int32, b *api.EndpointAddress) bool {
	a := &p.addrs[i]
	return isPodAddress(b, p.svc, a.pod, a.key.ip)
}

// port adds ep (nil for the portless sentinel), or finds it, and returns its
// index.
func (p *packer) port(ep *api.EndpointPort) int {
	k := noPort
	if ep != nil {
		k = keyOfPort(ep)
	}
	if i := slices.Index(p.portKeys, k); i >= 0 {
		return i
	}
	var v api.EndpointPort
	if ep != nil {
		v = *ep
	}
	p.portKeys = append(p.portKeys, k)
	p.ports = append(p.ports, v)
	return len(p.portKeys) - 1
}

func (p *packer) serve(addr, port int, ready bool) {
	p.pairs = append(p.pairs, servedPair{addr: int32(addr), port: int32(port), ready: ready})
}

// group packs the pairs collected into p.groups, in the order of the
// subsets they become (compareSubsets), once.
func (p *packer) group() {
	if p.grouped {
		return
	}
	p.grouped = true
	// Rank the addresses in canonical order.
	p.order = resize(p.order, len(p.addrs))
	for i := range p.order {
		p.order[i] = int32(i)
	}
	slices.SortFunc(p.order, func(x, y int32) int { return p.compareAddrs(&p.addrs[x], &p.addrs[y]) })
	p.rank = resize(p.rank, len(p.addrs))
	for r, i := range p.order {
		p.rank[i] = int32(r)
	}
	// Each port's members, in rank order, a repeated address once.
	rank := p.rank
	slices.SortFunc(p.pairs, func(a, b servedPair) int {
		return cmp.Or(cmp.Compare(rank[a.addr], rank[b.addr]), cmp.Compare(a.port, b.port))
	})
	p.members = resize(p.members, len(p.portKeys))
	for i := range p.members {
		p.members[i] = p.members[i][:0]
	}
	for _, pr := range p.pairs {
		m, r := p.members[pr.port], rank[pr.addr]
		if n := len(m); n > 0 && m[n-1].rank == r {
			m[n-1].ready = m[n-1].ready || pr.ready // ready on any listing counts as ready
			continue
		}
		p.members[pr.port] = append(m, member{rank: r, ready: pr.ready})
	}
	// Ports in canonical order; ports with equal member lists share a
	// subset. A service has few ports, so groups are searched in place.
	p.portOrder = resize(p.portOrder, len(p.portKeys))
	for i := range p.portOrder {
		p.portOrder[i] = i
	}
	slices.SortFunc(p.portOrder, func(a, b int) int { return comparePortKeys(p.portKeys[a], p.portKeys[b]) })
	p.groups = p.groups[:0]
	for _, pi := range p.portOrder {
		m := p.members[pi]
		if len(m) == 0 {
			continue
		}
		if !slices.ContainsFunc(p.groups, func(g group) bool { return slices.Equal(g.members, m) }) {
			p.groups = append(p.groups, group{members: m})
		}
	}
	// Groups came out in order of their first port, save one that holds
	// the portless sentinel next to real ports: order them by the ports
	// they are written with, as compareSubsets orders subsets.
	slices.SortStableFunc(p.groups, func(a, b group) int {
		ka, oka := p.firstRealPort(a)
		kb, okb := p.firstRealPort(b)
		switch {
		case !oka && !okb:
			return 0
		case !oka:
			return -1
		case !okb:
			return 1
		}
		return comparePortKeys(ka, kb)
	})
}

// portsOf calls f with each real port of g (the portless sentinel is
// written as no port), in canonical order.
func (p *packer) portsOf(g group, f func(i int)) {
	for _, pi := range p.portOrder {
		if p.portKeys[pi] != noPort && slices.Equal(p.members[pi], g.members) {
			f(pi)
		}
	}
}

// firstRealPort returns the key of g's first port that is not the portless
// sentinel; ok is false when it has none.
func (p *packer) firstRealPort(g group) (k portKey, ok bool) {
	for _, pi := range p.portOrder {
		if p.portKeys[pi] != noPort && slices.Equal(p.members[pi], g.members) {
			return p.portKeys[pi], true
		}
	}
	return portKey{}, false
}

// count returns how many addresses the packed subsets hold, ready and not,
// counted per subset as truncate counts them.
func (p *packer) count() int {
	p.group()
	n := 0
	for _, g := range p.groups {
		n += len(g.members)
	}
	return n
}

// pack returns the canonical subsets of the pairs collected, nil if none,
// in memory of their own that p keeps nothing of: the controller hands them
// over to the Client (client.Handover), which stores them as they are, so
// that the server makes no copy of every address of every Endpoints
// written. An address equal in every field (the pod's resourceVersion
// included) to one of prev, a stored object's subsets, is that address:
// its target reference and node name are prev's, shared rather than made
// again. That is safe because stored objects are immutable, and nothing
// changes the addresses of a handed-over Endpoints (the server's defaults
// fill in only ports, which are always new). prev may be nil, or anyone's
// subsets: sharing only saves memory, never changes what is packed.
func (p *packer) pack(prev []api.EndpointSubset) []api.EndpointSubset {
	p.group()
	if len(p.groups) == 0 {
		return nil
	}
	// First which addresses prev has already, so that the slabs below
	// are made for the new ones only.
	n, ports, fresh := 0, 0, 0
	for _, g := range p.groups {
		n += len(g.members)
		p.portsOf(g, func(int) { ports++ })
	}
	p.shared = resize(p.shared, n)
	next := 0
	for gi, g := range p.groups {
		var was api.EndpointSubset
		if gi < len(prev) {
			was = prev[gi]
		}
		ready, notReady := sharer{list: was.Addresses}, sharer{list: was.NotReadyAddresses}
		for _, m := range g.members {
			s := &notReady
			if m.ready {
				s = &ready
			}
			if p.shared[next] = s.find(p, p.order[m.rank]); p.shared[next] == nil {
				fresh++
			}
			next++
		}
	}
	defer clear(p.shared)
	// Every address, the target references and node names of the new
	// ones, and every port, in slabs that the subsets slice.
	out := make([]api.EndpointSubset, len(p.groups))
	addrs := make([]api.EndpointAddress, n)
	refs, nodes := make([]api.ObjectReference, fresh), make([]string, fresh)
	portSlab := make([]api.EndpointPort, 0, ports)
	next, made := 0, 0
	for gi, g := range p.groups {
		ready := 0
		for _, m := range g.members {
			if m.ready {
				ready++
			}
		}
		// Ready addresses first in the group's part of the slab, then the
		// not-ready ones; each list is capped at its part.
		s := &out[gi]
		start := next
		if ready > 0 {
			s.Addresses = addrs[start : start : start+ready]
		}
		if ready < len(g.members) {
			s.NotReadyAddresses = addrs[start+ready : start+ready : start+len(g.members)]
		}
		for _, m := range g.members {
			var a api.EndpointAddress
			if shared := p.shared[next]; shared != nil {
				a = *shared
			} else {
				a = p.endpointAddress(p.order[m.rank], &refs[made], &nodes[made])
				made++
			}
			next++
			if m.ready {
				s.Addresses = append(s.Addresses, a)
			} else {
				s.NotReadyAddresses = append(s.NotReadyAddresses, a)
			}
		}
		first := len(portSlab)
		p.portsOf(g, func(i int) { portSlab = append(portSlab, p.ports[i]) })
		if len(portSlab) > first {
			s.Ports = portSlab[first:len(portSlab):len(portSlab)]
		}
	}
	return out
}

// sharer finds, in one list of stored addresses, the ones pack can share:
// it walks the list along with the addresses packed into the same list of
// the same subset, both in canonical order (IP, then pod UID), so the
// search costs one pass. A list out of that order (written by someone
// else) only finds fewer.
type sharer struct {
	list []api.EndpointAddress
	j    int // list[:j] sorts before every address still to find
}

// find returns the stored address equal in every field to address i of
// p, the resourceVersion of its target included, or nil. Addresses must be
// asked for in canonical order.
func (s *sharer) find(p *packer, i int32) *api.EndpointAddress {
	a := &p.addrs[i]
	for s.j < len(s.list) {
		b := &s.list[s.j]
		c := p.compareStored(b, a)
		if c > 0 {
			return nil // b comes after a: a is not in the list
		}
		s.j++
		if c == 0 && isPodAddress(b, p.svc, a.pod, a.key.ip) && b.TargetRef.ResourceVersion == a.pod.Metadata.ResourceVersion {
			return b
		}
	}
	return nil
}

// compareStored orders a stored address against a packed one as
// compareAddrs orders packed ones; an address without a target reference
// has no UID.
func (p *packer) compareStored(b *api.EndpointAddress, a *packedAddr) int {
	var uid api.UID
	if b.TargetRef != nil {
		uid = b.TargetRef.UID
	}
	if b.IP == a.key.ip { // the usual case: the same address
		return cmp.Compare(uid, a.key.uid)
	}
	ip, err := netip.ParseAddr(b.IP)
	sb := packedAddr{key: addrKey{ip: b.IP, uid: uid}, ip: ip, valid: err == nil}
	return p.compareAddrs(&sb, a)
}

// equal reports whether subsets say what pack would return, as
// subsetsEqual compares (resourceVersions aside), without making it.
func (p *packer) equal(subsets []api.EndpointSubset) bool {
	p.group()
	if len(subsets) != len(p.groups) {
		return false
	}
	for gi, g := range p.groups {
		s := &subsets[gi]
		ready, notReady := 0, 0
		for _, m := range g.members {
			i := p.order[m.rank]
			if m.ready {
				if ready >= len(s.Addresses) || !p.addressIs(i, &s.Addresses[ready]) {
					return false
				}
				ready++
			} else {
				if notReady >= len(s.NotReadyAddresses) || !p.addressIs(i, &s.NotReadyAddresses[notReady]) {
					return false
				}
				notReady++
			}
		}
		if ready != len(s.Addresses) || notReady != len(s.NotReadyAddresses) {
			return false
		}
		n, same := 0, true
		p.portsOf(g, func(i int) {
			same = same && n < len(s.Ports) && keyOfPort(&s.Ports[n]) == p.portKeys[i]
			n++
		})
		if !same || n != len(s.Ports) {
			return false
		}
	}
	return true
}

// compareAddrs orders addresses by IP (numerically when both parse), then
// by pod UID.
func (p *packer) compareAddrs(a, b *packedAddr) int {
	c := 0
	if a.valid && b.valid {
		c = a.ip.Compare(b.ip)
	} else {
		c = cmp.Compare(a.key.ip, b.key.ip)
	}
	return cmp.Or(c, cmp.Compare(a.key.uid, b.key.uid))
}

// resize returns s with length n, reusing its array when large enough; the
// elements are not cleared.
func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}
