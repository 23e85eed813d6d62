package endpoints

// The decision half of the controller: what a service's Endpoints should
// hold, given the service and the pods its selector picks. Everything here
// is a pure function of plain values, so the Kubernetes rules can be tested
// as tables without a server.

import (
	"cmp"
	"maps"
	"net/netip"
	"reflect"
	"slices"
	"strings"

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
// other service without ports lists nothing. The result is repacked and
// sorted (repackSubsets), so equal inputs give identical subsets.
// Kubernetes: the loop over pods in syncService, then RepackSubsets.
func desiredSubsets(svc *api.Service, pods []*api.Pod) []api.EndpointSubset {
	publish := svc.Spec.PublishNotReadyAddresses
	headless := svc.Spec.ClusterIP == api.ClusterIPNone
	var pieces []api.EndpointSubset
	for _, pod := range pods {
		if !shouldPodBeInEndpoints(pod, publish) {
			continue
		}
		ip, ok := podIPFor(svc, pod)
		if !ok {
			continue
		}
		addr := podAddress(svc, pod, ip)
		ready := publish || api.IsPodReady(pod)
		piece := func(ports []api.EndpointPort) api.EndpointSubset {
			if ready {
				return api.EndpointSubset{Addresses: []api.EndpointAddress{addr}, Ports: ports}
			}
			return api.EndpointSubset{NotReadyAddresses: []api.EndpointAddress{addr}, Ports: ports}
		}
		if len(svc.Spec.Ports) == 0 {
			if headless {
				pieces = append(pieces, piece(nil))
			}
			continue
		}
		for i := range svc.Spec.Ports {
			sp := &svc.Spec.Ports[i]
			number, ok := findPort(pod, sp)
			if !ok {
				continue // this pod does not serve this port; it may serve others
			}
			pieces = append(pieces, piece([]api.EndpointPort{endpointPort(sp, number)}))
		}
	}
	return repackSubsets(pieces)
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

// repackSubsets rewrites subsets into Kubernetes' canonical packing: each
// port appears in exactly one subset, together with every address that
// serves it, and ports served by exactly the same addresses (with the same
// readiness) share a subset. Within a subset addresses are sorted by IP
// then pod UID and ports by name, number and protocol; subsets are sorted
// by their first port (the portless subset, if any, first). So two
// packings of the same address-port pairs come out identical. Kubernetes:
// endpoints.RepackSubsets, with a readable order in place of its hash
// order.
func repackSubsets(subsets []api.EndpointSubset) []api.EndpointSubset {
	addrs := map[addrKey]api.EndpointAddress{}
	ports := map[portKey]api.EndpointPort{}
	// served maps each port to its addresses and whether each is ready there.
	served := map[portKey]map[addrKey]bool{}
	note := func(pk portKey, as []api.EndpointAddress, ready bool) {
		set := served[pk]
		if set == nil {
			set = map[addrKey]bool{}
			served[pk] = set
		}
		for i := range as {
			ak := keyOfAddr(&as[i])
			if _, seen := addrs[ak]; !seen {
				addrs[ak] = as[i]
			}
			set[ak] = set[ak] || ready // ready on any copy counts as ready
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
			ports[pk] = s.Ports[j]
			note(pk, s.Addresses, true)
			note(pk, s.NotReadyAddresses, false)
		}
	}

	// Group the ports by their address set, named by a canonical string.
	type group struct {
		set   map[addrKey]bool
		ports []api.EndpointPort
	}
	groups := map[string]*group{}
	for _, pk := range slices.SortedFunc(maps.Keys(served), comparePortKeys) {
		set := served[pk]
		if len(set) == 0 {
			continue
		}
		name := addrSetName(set)
		g := groups[name]
		if g == nil {
			g = &group{set: set}
			groups[name] = g
		}
		if pk != noPort {
			g.ports = append(g.ports, ports[pk])
		}
	}

	out := make([]api.EndpointSubset, 0, len(groups))
	for _, name := range slices.Sorted(maps.Keys(groups)) {
		g := groups[name]
		var s api.EndpointSubset
		for _, ak := range slices.SortedFunc(maps.Keys(g.set), compareAddrKeys) {
			if g.set[ak] {
				s.Addresses = append(s.Addresses, addrs[ak])
			} else {
				s.NotReadyAddresses = append(s.NotReadyAddresses, addrs[ak])
			}
		}
		s.Ports = g.ports
		out = append(out, s)
	}
	slices.SortFunc(out, compareSubsets)
	if len(out) == 0 {
		return nil
	}
	return out
}

// addrSetName names a set of addresses with their readiness, so equal sets
// get equal names.
func addrSetName(set map[addrKey]bool) string {
	var b strings.Builder
	for _, ak := range slices.SortedFunc(maps.Keys(set), compareAddrKeys) {
		b.WriteString(ak.ip)
		b.WriteByte('/')
		b.WriteString(string(ak.uid))
		if set[ak] {
			b.WriteString("/r;")
		} else {
			b.WriteString("/n;")
		}
	}
	return b.String()
}

// compareAddrKeys orders addresses by IP (numerically when both parse),
// then by pod UID.
func compareAddrKeys(a, b addrKey) int {
	return cmp.Or(compareIPs(a.ip, b.ip), cmp.Compare(a.uid, b.uid))
}

func compareIPs(a, b string) int {
	x, errX := netip.ParseAddr(a)
	y, errY := netip.ParseAddr(b)
	if errX == nil && errY == nil {
		return x.Compare(y)
	}
	return cmp.Compare(a, b)
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

// compareSubsets orders repacked subsets by their first port; a portless
// subset comes first. No two repacked subsets share a port, so this is a
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
// difference between nil and empty lists. Kubernetes:
// endpointSubsetsEqualIgnoreResourceVersion.
func subsetsEqual(a, b []api.EndpointSubset) bool {
	return reflect.DeepEqual(normalizeSubsets(a), normalizeSubsets(b))
}

func normalizeSubsets(in []api.EndpointSubset) []api.EndpointSubset {
	if len(in) == 0 {
		return nil
	}
	out := make([]api.EndpointSubset, len(in))
	for i := range in {
		s := in[i].DeepCopy()
		s.Addresses = normalizeAddrs(s.Addresses)
		s.NotReadyAddresses = normalizeAddrs(s.NotReadyAddresses)
		if len(s.Ports) == 0 {
			s.Ports = nil
		}
		out[i] = *s
	}
	return out
}

func normalizeAddrs(as []api.EndpointAddress) []api.EndpointAddress {
	if len(as) == 0 {
		return nil
	}
	for i := range as {
		if as[i].TargetRef != nil {
			as[i].TargetRef.ResourceVersion = ""
		}
	}
	return as
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
