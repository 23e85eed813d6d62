package endpoints

// The decision half of the controller: what a service's Endpoints should
// hold, given the service and the pods its selector picks. Everything here
// is a pure function of plain values, so the Kubernetes rules can be tested
// as tables without a server.

import (
	"cmp"
	"maps"
	"net/netip"
	"slices"

	"github.com/miniplane/miniplane/api"
)

// Labels and annotations the controller reads or writes.
const (
	// LabelHeadless marks the Endpoints of a headless service (clusterIP
	// None). Kubernetes: v1.IsHeadlessService.
	LabelHeadless = "service.kubernetes.io/headless"
	// AnnotationLeader marks an Endpoints object used as a leader-election
	// lock by an old-style elector; the controller never deletes one as an
	// orphan. Kubernetes: resourcelock.LeaderElectionRecordAnnotationKey.
	AnnotationLeader = "control-plane.alpha.kubernetes.io/leader"
	// AnnotationOverCapacity is set to "truncated" when the controller had
	// to drop addresses to stay within MaxEndpointsPerObject. Kubernetes:
	// v1.EndpointsOverCapacity.
	AnnotationOverCapacity = "endpoints.kubernetes.io/over-capacity"
)

// MaxEndpointsPerObject bounds the addresses (ready and not ready) one
// Endpoints object holds; past it the controller truncates. Kubernetes:
// maxCapacity in the endpoints controller.
const MaxEndpointsPerObject = 1000

// shouldPodBeInEndpoints reports whether a pod selected by a service may
// appear in its Endpoints at all: it has an IP, it has not finished
// (Succeeded or Failed), and it is not being deleted unless the service
// publishes not-ready addresses (which then covers terminating pods too).
// Kubernetes: endpointutil.ShouldPodBeInEndpoints.
func shouldPodBeInEndpoints(pod *api.Pod, includeTerminating bool) bool {
	if pod.Status.PodIP == "" && len(pod.Status.PodIPs) == 0 {
		return false
	}
	if !includeTerminating && pod.Metadata.DeletionTimestamp != nil {
		return false
	}
	return pod.Status.Phase != api.PodSucceeded && pod.Status.Phase != api.PodFailed
}

// serviceIPFamily returns the IP family a service's endpoints use: its
// first ipFamilies entry, else the family of its cluster IP; "" for a
// headless service without families, which takes the pod's primary IP.
func serviceIPFamily(svc *api.Service) api.IPFamily {
	if len(svc.Spec.IPFamilies) > 0 {
		return svc.Spec.IPFamilies[0]
	}
	if ip := svc.Spec.ClusterIP; ip != "" && ip != api.ClusterIPNone {
		return ipFamilyOf(ip)
	}
	return ""
}

// ipFamilyOf returns the family of an IP address, "" if s is none.
func ipFamilyOf(s string) api.IPFamily {
	addr, err := netip.ParseAddr(s)
	switch {
	case err != nil:
		return ""
	case addr.Unmap().Is4():
		return api.IPv4Protocol
	default:
		return api.IPv6Protocol
	}
}

// podIPFor returns the pod IP a service's endpoints use: the first of the
// pod's IPs in the service's family, or the primary IP when the family is
// unknown. ok is false when the pod has no IP of that family. Kubernetes:
// podToEndpointAddressForService (dual-stack subtleties reduced to this).
func podIPFor(svc *api.Service, pod *api.Pod) (ip string, ok bool) {
	ips := make([]string, 0, 1+len(pod.Status.PodIPs))
	if pod.Status.PodIP != "" {
		ips = append(ips, pod.Status.PodIP)
	}
	for _, p := range pod.Status.PodIPs {
		ips = append(ips, p.IP)
	}
	family := serviceIPFamily(svc)
	for _, ip := range ips {
		if family == "" || ipFamilyOf(ip) == family {
			return ip, true
		}
	}
	return "", false
}

// podAddress returns the address a pod gets in a service's Endpoints. The
// target reference carries the pod's resourceVersion, as in Kubernetes;
// comparisons ignore it (subsetsEqual).
func podAddress(svc *api.Service, pod *api.Pod, ip string) api.EndpointAddress {
	addr := api.EndpointAddress{
		IP: ip,
		TargetRef: &api.ObjectReference{
			Kind:            "Pod",
			Namespace:       pod.Metadata.Namespace,
			Name:            pod.Metadata.Name,
			UID:             pod.Metadata.UID,
			ResourceVersion: pod.Metadata.ResourceVersion,
		},
	}
	if pod.Spec.NodeName != "" {
		node := pod.Spec.NodeName
		addr.NodeName = &node
	}
	// A pod named into a headless service's DNS zone by its subdomain gets
	// a hostname record there.
	if pod.Spec.Hostname != "" && pod.Spec.Subdomain == svc.Metadata.Name &&
		pod.Metadata.Namespace == svc.Metadata.Namespace {
		addr.Hostname = pod.Spec.Hostname
	}
	return addr
}

// findPort resolves a service port's targetPort on one pod: a number is
// itself; a name is the containerPort of the pod's container port of that
// name and the service port's protocol. ok is false when the pod has no
// such port. Kubernetes: podutil.FindPort.
func findPort(pod *api.Pod, sp *api.ServicePort) (port int32, ok bool) {
	if sp.TargetPort.Type == api.Int {
		return sp.TargetPort.IntVal, true
	}
	name, proto := sp.TargetPort.StrVal, protocolOrTCP(sp.Protocol)
	for _, c := range pod.Spec.Containers {
		for _, cp := range c.Ports {
			if cp.Name == name && protocolOrTCP(cp.Protocol) == proto {
				return cp.ContainerPort, true
			}
		}
	}
	return 0, false
}

func protocolOrTCP(p api.Protocol) api.Protocol {
	if p == "" {
		return api.ProtocolTCP
	}
	return p
}

// endpointPort is the Endpoints' port for a service port resolved to
// number on some pod. Kubernetes: endpointPortFromServicePort.
func endpointPort(sp *api.ServicePort, number int32) api.EndpointPort {
	ep := api.EndpointPort{Name: sp.Name, Port: number, Protocol: protocolOrTCP(sp.Protocol)}
	if sp.AppProtocol != nil {
		proto := *sp.AppProtocol
		ep.AppProtocol = &proto
	}
	return ep
}

// desiredSubsets computes the subsets of a service's Endpoints from the pods
// its selector picks (in any order). Each included pod contributes its
// address once per service port its targetPort resolves on: to addresses
// when it is ready or the service publishes not-ready addresses, else to
// notReadyAddresses (the §2.3 table in the package documentation). A
// headless service without ports lists the addresses with no ports; any
// other service without ports lists nothing. The result is packed
// canonically (see repackSubsets), so equal inputs give identical subsets.
// Kubernetes: the loop over pods in syncService, then RepackSubsets.
func desiredSubsets(svc *api.Service, pods []*api.Pod) []api.EndpointSubset {
	publish := svc.Spec.PublishNotReadyAddresses
	portless := len(svc.Spec.Ports) == 0
	if portless && svc.Spec.ClusterIP != api.ClusterIPNone {
		return nil
	}
	p := packer{
		addrs: make([]packedAddr, 0, len(pods)),
		pairs: make([]servedPair, 0, len(pods)*max(1, len(svc.Spec.Ports))),
	}
	for _, pod := range pods {
		if !shouldPodBeInEndpoints(pod, publish) {
			continue
		}
		ip, ok := podIPFor(svc, pod)
		if !ok {
			continue
		}
		ready := publish || api.IsPodReady(pod)
		if portless {
			p.serve(p.address(podAddress(svc, pod, ip)), p.port(nil), ready)
			continue
		}
		a := -1 // the pod's address, added once it serves a port
		for i := range svc.Spec.Ports {
			sp := &svc.Spec.Ports[i]
			number, ok := findPort(pod, sp)
			if !ok {
				continue // this pod does not serve this port; it may serve others
			}
			if a < 0 {
				a = p.address(podAddress(svc, pod, ip))
			}
			ep := endpointPort(sp, number)
			p.serve(a, p.port(&ep), ready)
		}
	}
	return p.pack()
}

// repackSubsets rewrites subsets into Kubernetes' canonical packing: each
// port appears in exactly one subset, together with every address that
// serves it, and ports served by exactly the same addresses (with the same
// readiness) share a subset. An address listed more than once for a port is
// listed once, ready if any listing was. Within a subset addresses are
// sorted by IP then pod UID and ports by name, number and protocol; subsets
// are sorted by their first port (the portless subset, if any, first). So
// two packings of the same address-port pairs come out identical.
// Kubernetes: endpoints.RepackSubsets, with a readable order in place of its
// hash order.
func repackSubsets(subsets []api.EndpointSubset) []api.EndpointSubset {
	p := packer{index: map[addrKey]int{}}
	for i := range subsets {
		s := &subsets[i]
		if len(s.Ports) == 0 {
			p.serveAll(p.port(nil), s)
			continue
		}
		for j := range s.Ports {
			p.serveAll(p.port(&s.Ports[j]), s)
		}
	}
	return p.pack()
}

// addrKey identifies an address across subsets: its IP and the pod behind
// it. Kubernetes: addressKey in pkg/api/v1/endpoints.
type addrKey struct {
	ip  string
	uid api.UID
}

func keyOfAddr(a *api.EndpointAddress) addrKey {
	k := addrKey{ip: a.IP}
	if a.TargetRef != nil {
		k.uid = a.TargetRef.UID
	}
	return k
}

// portKey identifies an endpoint port; noPort stands for the ports of a
// portless subset (a headless service without ports).
type portKey struct {
	name        string
	port        int32
	protocol    api.Protocol
	appProtocol string
	hasApp      bool
}

var noPort = portKey{port: -1}

func keyOfPort(p *api.EndpointPort) portKey {
	k := portKey{name: p.Name, port: p.Port, protocol: p.Protocol}
	if p.AppProtocol != nil {
		k.appProtocol, k.hasApp = *p.AppProtocol, true
	}
	return k
}

// packer collects which address serves which port, and how, and packs the
// pairs into canonical subsets. It costs O(pairs · log pairs) and a few
// allocations per call, whatever the number of addresses: the endpoints
// controller packs a service's subsets on every sync.
type packer struct {
	addrs []packedAddr
	// ports and portKeys are the distinct ports seen, in the order first
	// seen; a service has few, so they are searched in place.
	ports    []api.EndpointPort
	portKeys []portKey
	pairs    []servedPair
	// index, when set, merges repeated addresses into one (repackSubsets);
	// desiredSubsets adds each pod's address once and needs none.
	index map[addrKey]int
}

// packedAddr is an address with its key, and its IP parsed once for
// sorting (valid false when it does not parse: it is then compared as a
// string).
type packedAddr struct {
	addr  api.EndpointAddress
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

// address adds a, or finds it when the packer merges repeats, and returns
// its index.
func (p *packer) address(a api.EndpointAddress) int {
	k := keyOfAddr(&a)
	if p.index != nil {
		if i, ok := p.index[k]; ok {
			return i // the first listing's details are kept
		}
		p.index[k] = len(p.addrs)
	}
	ip, err := netip.ParseAddr(a.IP)
	p.addrs = append(p.addrs, packedAddr{addr: a, key: k, ip: ip, valid: err == nil})
	return len(p.addrs) - 1
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

// serveAll records every address of s as serving port.
func (p *packer) serveAll(port int, s *api.EndpointSubset) {
	for i := range s.Addresses {
		p.serve(p.address(s.Addresses[i]), port, true)
	}
	for i := range s.NotReadyAddresses {
		p.serve(p.address(s.NotReadyAddresses[i]), port, false)
	}
}

// pack returns the canonical subsets of the pairs collected, nil if none.
func (p *packer) pack() []api.EndpointSubset {
	if len(p.pairs) == 0 {
		return nil
	}
	// Rank the addresses in canonical order.
	order := make([]int32, len(p.addrs))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(x, y int32) int { return p.compareAddrs(&p.addrs[x], &p.addrs[y]) })
	rank := make([]int32, len(p.addrs))
	for r, i := range order {
		rank[i] = int32(r)
	}
	// Each port's members, in rank order, a repeated address once.
	slices.SortFunc(p.pairs, func(a, b servedPair) int {
		return cmp.Or(cmp.Compare(rank[a.addr], rank[b.addr]), cmp.Compare(a.port, b.port))
	})
	members := make([][]member, len(p.portKeys))
	for _, pr := range p.pairs {
		m, r := members[pr.port], rank[pr.addr]
		if n := len(m); n > 0 && m[n-1].rank == r {
			m[n-1].ready = m[n-1].ready || pr.ready // ready on any listing counts as ready
			continue
		}
		members[pr.port] = append(m, member{rank: r, ready: pr.ready})
	}
	// Ports in canonical order; ports with equal member lists share a
	// subset. A service has few ports, so groups are searched in place.
	portOrder := make([]int, len(p.portKeys))
	for i := range portOrder {
		portOrder[i] = i
	}
	slices.SortFunc(portOrder, func(a, b int) int { return comparePortKeys(p.portKeys[a], p.portKeys[b]) })
	type group struct {
		members []member
		ports   []api.EndpointPort
	}
	var groups []*group
	for _, pi := range portOrder {
		m := members[pi]
		if len(m) == 0 {
			continue
		}
		i := slices.IndexFunc(groups, func(g *group) bool { return slices.Equal(g.members, m) })
		if i < 0 {
			i = len(groups)
			groups = append(groups, &group{members: m})
		}
		if p.portKeys[pi] != noPort {
			groups[i].ports = append(groups[i].ports, p.ports[pi])
		}
	}
	out := make([]api.EndpointSubset, len(groups))
	for gi, g := range groups {
		ready := 0
		for _, m := range g.members {
			if m.ready {
				ready++
			}
		}
		s := &out[gi]
		if ready > 0 {
			s.Addresses = make([]api.EndpointAddress, 0, ready)
		}
		if ready < len(g.members) {
			s.NotReadyAddresses = make([]api.EndpointAddress, 0, len(g.members)-ready)
		}
		for _, m := range g.members {
			a := p.addrs[order[m.rank]].addr
			if m.ready {
				s.Addresses = append(s.Addresses, a)
			} else {
				s.NotReadyAddresses = append(s.NotReadyAddresses, a)
			}
		}
		s.Ports = g.ports
	}
	// Groups came out in order of their first port, save one that holds
	// the portless sentinel next to real ports: sort by what is written.
	slices.SortFunc(out, compareSubsets)
	return out
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

func comparePortKeys(a, b portKey) int {
	return cmp.Or(
		cmp.Compare(a.name, b.name), cmp.Compare(a.port, b.port), cmp.Compare(a.protocol, b.protocol),
		compareBool(a.hasApp, b.hasApp), cmp.Compare(a.appProtocol, b.appProtocol))
}

func compareBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	default:
		return 1
	}
}

// compareSubsets orders packed subsets by their first port; a portless
// subset comes first. No two packed subsets share a port, so this is a
// total order on them.
func compareSubsets(a, b api.EndpointSubset) int {
	switch {
	case len(a.Ports) == 0 && len(b.Ports) == 0:
		return 0
	case len(a.Ports) == 0:
		return -1
	case len(b.Ports) == 0:
		return 1
	}
	return comparePortKeys(keyOfPort(&a.Ports[0]), keyOfPort(&b.Ports[0]))
}

// subsetsEqual reports whether two lists of subsets say the same thing,
// ignoring the resourceVersion in target references (a pod update that
// does not move the pod between lists must not cause a write) and the
// difference between nil and empty lists. It copies nothing: the
// controller compares on every sync. Kubernetes:
// endpointSubsetsEqualIgnoreResourceVersion.
func subsetsEqual(a, b []api.EndpointSubset) bool {
	return slices.EqualFunc(a, b, func(x, y api.EndpointSubset) bool {
		return slices.EqualFunc(x.Addresses, y.Addresses, addressesEqual) &&
			slices.EqualFunc(x.NotReadyAddresses, y.NotReadyAddresses, addressesEqual) &&
			slices.EqualFunc(x.Ports, y.Ports, func(p, q api.EndpointPort) bool { return keyOfPort(&p) == keyOfPort(&q) })
	})
}

// addressesEqual compares two addresses field by field, but for the
// resourceVersion of their target references.
func addressesEqual(a, b api.EndpointAddress) bool {
	if a.IP != b.IP || a.Hostname != b.Hostname || !equalPtr(a.NodeName, b.NodeName) {
		return false
	}
	if a.TargetRef == nil || b.TargetRef == nil {
		return a.TargetRef == b.TargetRef
	}
	ra, rb := *a.TargetRef, *b.TargetRef
	ra.ResourceVersion, rb.ResourceVersion = "", ""
	return ra == rb
}

// equalPtr reports whether two pointers are both nil or point at equal
// values.
func equalPtr[T comparable](a, b *T) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// desiredLabels returns the labels of a service's Endpoints: the service's,
// plus LabelHeadless for a headless service. Kubernetes: syncService.
func desiredLabels(svc *api.Service) map[string]string {
	labels := maps.Clone(svc.Metadata.Labels)
	if svc.Spec.ClusterIP == api.ClusterIPNone {
		if labels == nil {
			labels = map[string]string{}
		}
		labels[LabelHeadless] = ""
	}
	return labels
}

// labelsCurrent reports whether Endpoints' labels match the service's. As in
// Kubernetes, the headless label is left out of the comparison, so its
// presence alone never causes a write.
func labelsCurrent(epLabels, svcLabels map[string]string) bool {
	_, has := epLabels[LabelHeadless]
	_, svcHas := svcLabels[LabelHeadless]
	if has && !svcHas {
		epLabels = maps.Clone(epLabels)
		delete(epLabels, LabelHeadless)
	}
	return maps.Equal(epLabels, svcLabels)
}

// truncate keeps at most limit addresses (ready and not ready, counted per
// subset) in subsets and reports whether it dropped any. Not-ready
// addresses go first; if the ready ones alone are over the limit, all
// not-ready ones go and the ready ones are cut. Each subset keeps a share
// of what is left proportional to its size, rounded up, and the last
// addresses of its (sorted) lists are the ones dropped, so the result is
// deterministic. A subset left with no address is dropped. Kubernetes:
// truncateEndpoints.
func truncate(subsets []api.EndpointSubset, limit int) ([]api.EndpointSubset, bool) {
	var ready, total int
	for i := range subsets {
		ready += len(subsets[i].Addresses)
		total += len(subsets[i].Addresses) + len(subsets[i].NotReadyAddresses)
	}
	if total <= limit {
		return subsets, false
	}
	cutReady := ready > limit
	room, pool := limit-ready, total-ready // room for not-ready addresses, out of pool
	if cutReady {
		room, pool = limit, ready
	}
	left := room
	out := make([]api.EndpointSubset, 0, len(subsets))
	for i := range subsets {
		s := subsets[i]
		n := len(s.NotReadyAddresses)
		if cutReady {
			n = len(s.Addresses)
		}
		keep := min((n*room+pool-1)/pool, left, n) // ceil(n/pool*room)
		if cutReady {
			s.Addresses = slices.Clone(s.Addresses[:keep])
			s.NotReadyAddresses = nil
		} else {
			s.NotReadyAddresses = slices.Clone(s.NotReadyAddresses[:keep])
		}
		left -= keep
		if len(s.Addresses)+len(s.NotReadyAddresses) > 0 {
			out = append(out, s)
		}
	}
	return out, true
}
