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

// ShouldPodBeInEndpoints reports whether a pod selected by a service may
// appear in its Endpoints at all: it has an IP, it has not finished
// (Succeeded or Failed), and it is not being deleted unless the service
// publishes not-ready addresses (which then covers terminating pods too).
// Kubernetes: endpointutil.ShouldPodBeInEndpoints.
func ShouldPodBeInEndpoints(pod *api.Pod, includeTerminating bool) bool {
	if pod.Status.PodIP == "" && len(pod.Status.PodIPs) == 0 {
		return false
	}
	if !includeTerminating && pod.Metadata.DeletionTimestamp != nil {
		return false
	}
	return pod.Status.Phase != api.PodSucceeded && pod.Status.Phase != api.PodFailed
}

// mayServe reports whether collect may add an address of pod for svc,
// whose IP family is family (serviceIPFamily): false promises it adds none.
// It is what a sync reads of a pod that changed, to tell whether the
// change can move the service's Endpoints (nextTriggerTime).
func mayServe(svc *api.Service, family api.IPFamily, pod *api.Pod) bool {
	if !ShouldPodBeInEndpoints(pod, svc.Spec.PublishNotReadyAddresses) {
		return false
	}
	_, _, ok := podIPFor(family, pod)
	return ok
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

// podIPFor returns the pod IP a service's endpoints use, given the
// service's family (serviceIPFamily): the first of the pod's IPs in that
// family, or the primary IP when the family is unknown, parsed too (valid
// false if it does not parse). ok is false when the pod has no IP of that
// family. Kubernetes: podToEndpointAddressForService (dual-stack
// subtleties reduced to this).
func podIPFor(family api.IPFamily, pod *api.Pod) (ip string, parsed netip.Addr, ok bool) {
	fits := func(s string) (netip.Addr, bool) {
		a, err := netip.ParseAddr(s)
		switch {
		case s == "":
			return a, false
		case family == "":
			return a, true
		case err != nil:
			return a, false
		}
		return a, (a.Unmap().Is4() && family == api.IPv4Protocol) || (!a.Unmap().Is4() && family == api.IPv6Protocol)
	}
	if a, ok := fits(pod.Status.PodIP); ok {
		return pod.Status.PodIP, a, true
	}
	for _, p := range pod.Status.PodIPs {
		if a, ok := fits(p.IP); ok {
			return p.IP, a, true
		}
	}
	return "", netip.Addr{}, false
}

// podAddress returns the address a pod gets in a service's Endpoints. The
// target reference carries the pod's resourceVersion, as in Kubernetes;
// comparisons ignore it (subsetsEqual).
func podAddress(svc *api.Service, pod *api.Pod, ip string) api.EndpointAddress {
	return podAddressIn(svc, pod, ip, new(api.ObjectReference), new(string))
}

// podAddressIn is podAddress with its target reference and node name in
// ref and node, which the address points to: the packer makes them in one
// slab per Endpoints, not two allocations per address.
func podAddressIn(svc *api.Service, pod *api.Pod, ip string, ref *api.ObjectReference, node *string) api.EndpointAddress {
	*ref = api.ObjectReference{
		Kind:            "Pod",
		Namespace:       pod.Metadata.Namespace,
		Name:            pod.Metadata.Name,
		UID:             pod.Metadata.UID,
		ResourceVersion: pod.Metadata.ResourceVersion,
	}
	addr := api.EndpointAddress{IP: ip, TargetRef: ref}
	if pod.Spec.NodeName != "" {
		*node = pod.Spec.NodeName
		addr.NodeName = node
	}
	addr.Hostname = PodHostname(svc, pod)
	return addr
}

// PodHostname is the hostname of a pod's address in a service's
// Endpoints: a pod named into a headless service's DNS zone by its
// subdomain gets a hostname record there.
func PodHostname(svc *api.Service, pod *api.Pod) string {
	if pod.Spec.Hostname != "" && pod.Spec.Subdomain == svc.Metadata.Name &&
		pod.Metadata.Namespace == svc.Metadata.Namespace {
		return pod.Spec.Hostname
	}
	return ""
}

// isPodAddress reports whether a is podAddress(svc, pod, ip) but for the
// target's resourceVersion, as addressesEqual compares, without making
// the address: the endpoints controller checks every selected pod on
// every sync, and most syncs change nothing.
func isPodAddress(a *api.EndpointAddress, svc *api.Service, pod *api.Pod, ip string) bool {
	if a.IP != ip || a.Hostname != PodHostname(svc, pod) {
		return false
	}
	if node := pod.Spec.NodeName; (a.NodeName == nil) != (node == "") || (a.NodeName != nil && *a.NodeName != node) {
		return false
	}
	r := a.TargetRef
	return r != nil && r.Kind == "Pod" && r.Namespace == pod.Metadata.Namespace && r.Name == pod.Metadata.Name &&
		r.UID == pod.Metadata.UID && r.APIVersion == "" && r.FieldPath == ""
}

// FindPort resolves a service port's targetPort on one pod: a number is
// itself; a name is the containerPort of the pod's container port of that
// name and the service port's protocol. ok is false when the pod has no
// such port. Kubernetes: podutil.FindPort.
func FindPort(pod *api.Pod, sp *api.ServicePort) (port int32, ok bool) {
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
// canonically, so equal inputs give identical subsets: each port appears in
// exactly one subset, together with every address that serves it, and
// ports served by exactly the same addresses (with the same readiness)
// share a subset. Within a subset addresses are sorted by IP then pod UID
// and ports by name, number and protocol; subsets are sorted by their first
// port (a headless service's portless subset has none). Kubernetes: the
// loop over pods in syncService, then endpoints.RepackSubsets, with a
// readable order in place of its hash order.
//
// The packing goes through the packer's indexes (see "Reading the packer"
// in pack.go); desiredModel in pack_test.go is the same computation done
// plainly, and the tests check one against the other.
func desiredSubsets(svc *api.Service, pods []*api.Pod) []api.EndpointSubset {
	var p packer
	p.collect(svc, pods)
	return p.pack(nil)
}

// collect records what desiredSubsets packs: which pod address serves
// which of svc's ports, and whether ready. The packer must be empty.
func (p *packer) collect(svc *api.Service, pods []*api.Pod) {
	publish := svc.Spec.PublishNotReadyAddresses
	portless := len(svc.Spec.Ports) == 0
	if portless && svc.Spec.ClusterIP != api.ClusterIPNone {
		return
	}
	p.svc = svc
	family := serviceIPFamily(svc)
	// Each service port's last resolution: the pods of a service mostly
	// resolve a port to one number, so its endpoint port is made and
	// looked up once per sync, not once per pod.
	p.resolved = resize(p.resolved, len(svc.Spec.Ports))
	clear(p.resolved)
	noPortIndex := -1
	for _, pod := range pods {
		if !ShouldPodBeInEndpoints(pod, publish) {
			continue
		}
		ip, parsed, ok := podIPFor(family, pod)
		if !ok {
			continue
		}
		ready := publish || api.IsPodReady(pod)
		if portless {
			if noPortIndex < 0 {
				noPortIndex = p.port(nil)
			}
			p.serve(p.podAddress(pod, ip, parsed), noPortIndex, ready)
			continue
		}
		a := -1 // the pod's address, added once it serves a port
		for i := range svc.Spec.Ports {
			sp := &svc.Spec.Ports[i]
			number, ok := FindPort(pod, sp)
			if !ok {
				continue // this pod does not serve this port; it may serve others
			}
			if a < 0 {
				a = p.podAddress(pod, ip, parsed)
			}
			r := &p.resolved[i]
			if !r.ok || r.number != number {
				ep := endpointPort(sp, number)
				*r = resolvedPort{number: number, index: p.port(&ep), ok: true}
			}
			p.serve(a, r.index, ready)
		}
	}
}

// resolvedPort is a service port resolved to number on some pod, and the
// index of its endpoint port in the packer.
type resolvedPort struct {
	number int32
	index  int
	ok     bool
}

// addrKey identifies an address across subsets: its IP and the pod behind
// it. Kubernetes: addressKey in pkg/api/v1/endpoints.
type addrKey struct {
	ip  string
	uid api.UID
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
