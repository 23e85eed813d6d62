package endpointslice

// The decision half of the controller: which EndpointSlices a service
// should have, given its pods and the slices it has. Everything here is a
// pure function of plain values. Kubernetes: the Reconciler of
// k8s.io/endpointslice (reconciler.go, utils.go), with its map orders
// replaced by sorted ones so that equal inputs give equal writes.

import (
	"cmp"
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/controllers/endpoints"
)

// Labels the controller writes on its slices, and its name in them.
const (
	// LabelServiceName names the service a slice belongs to. Kubernetes:
	// discovery.LabelServiceName.
	LabelServiceName = "kubernetes.io/service-name"
	// LabelManagedBy names the controller that manages a slice.
	// Kubernetes: discovery.LabelManagedBy.
	LabelManagedBy = "endpointslice.kubernetes.io/managed-by"
	// ControllerName is this controller's LabelManagedBy value.
	// Kubernetes: endpointslicecontroller.ControllerName.
	ControllerName = "endpointslice-controller.k8s.io"
	// LabelZone is the node label a slice's endpoints take their zone from.
	// Kubernetes: v1.LabelTopologyZone.
	LabelZone = "topology.kubernetes.io/zone"
)

// DefaultMaxEndpointsPerSlice is --max-endpoints-per-slice's default;
// MaxEndpointsPerSliceLimit is the most it may be (the API's bound).
const (
	DefaultMaxEndpointsPerSlice = 100
	MaxEndpointsPerSliceLimit   = 1000
)

// Desired is what Reconcile decides from.
type Desired struct {
	// Service is the service whose slices are reconciled.
	Service *api.Service
	// Pods are the pods its selector picks, in any order.
	Pods []*api.Pod
	// Existing are its slices that this controller manages (by their
	// labels), not being deleted.
	Existing []*api.EndpointSlice
	// Node reports a node's zone label, and whether the node exists.
	Node func(name string) (zone string, exists bool)
	// MaxEndpointsPerSlice bounds each slice; at least 1.
	MaxEndpointsPerSlice int
	// ControllerName is the LabelManagedBy value of the slices.
	ControllerName string
}

// Changes are the writes Reconcile decides, in the order to make them.
type Changes struct {
	// Create are new slices, named by GenerateName.
	Create []*api.EndpointSlice
	// Update are new versions of existing slices, with their names and
	// resourceVersions.
	Update []*api.EndpointSlice
	// Delete are existing slices to delete.
	Delete []*api.EndpointSlice
	// Skipped says which pods were left out because their node does not
	// exist: the sync retries, as Kubernetes does, to add them later.
	Skipped []string
}

// Reconcile decides how to bring a service's slices to what its pods say:
// one group of slices per address type of the service (its ipFamilies), and
// within it per set of ports (pods resolving named target ports
// differently get different slices), each at most MaxEndpointsPerSlice
// endpoints. Existing slices are changed in place rather than recreated,
// a slice that would be deleted is reused for one that would be created,
// and a service with no endpoints keeps one empty placeholder slice.
// Kubernetes: Reconciler.Reconcile, reconcileByAddressType and finalize.
func Reconcile(d Desired) Changes {
	var out Changes
	supported := addressTypesOf(d.Service)
	byType := map[api.AddressType][]*api.EndpointSlice{}
	var unsupported []*api.EndpointSlice
	for _, s := range sortedByName(d.Existing) {
		if !slices.Contains(supported, s.AddressType) {
			unsupported = append(unsupported, s)
			continue
		}
		byType[s.AddressType] = append(byType[s.AddressType], s)
	}
	for _, t := range supported {
		c := reconcileAddressType(d, t, byType[t])
		out.Create = append(out.Create, c.Create...)
		out.Update = append(out.Update, c.Update...)
		out.Delete = append(out.Delete, c.Delete...)
		out.Skipped = append(out.Skipped, c.Skipped...)
	}
	out.Delete = append(out.Delete, unsupported...)
	return out
}

// addressTypesOf returns the address types a service's slices have, in
// order: its ipFamilies; else the family of its cluster IP; else, a
// headless service without families, both. Kubernetes:
// getAddressTypesForService.
func addressTypesOf(svc *api.Service) []api.AddressType {
	var types []api.AddressType
	for _, f := range svc.Spec.IPFamilies {
		t := api.AddressTypeIPv4
		if f == api.IPv6Protocol {
			t = api.AddressTypeIPv6
		}
		if !slices.Contains(types, t) {
			types = append(types, t)
		}
	}
	if len(types) > 0 {
		return types
	}
	if ip := svc.Spec.ClusterIP; ip != "" && ip != api.ClusterIPNone {
		if a, err := netip.ParseAddr(ip); err == nil && !a.Unmap().Is4() {
			return []api.AddressType{api.AddressTypeIPv6}
		}
		return []api.AddressType{api.AddressTypeIPv4}
	}
	return []api.AddressType{api.AddressTypeIPv4, api.AddressTypeIPv6}
}

// reconcileAddressType is Reconcile for one address type, existing being
// the slices of that type sorted by name.
func reconcileAddressType(d Desired, addressType api.AddressType, existing []*api.EndpointSlice) Changes {
	svc := d.Service
	var toDelete []*api.EndpointSlice
	existingByPorts := map[string][]*api.EndpointSlice{}
	for _, s := range existing {
		if !ownedBy(s, svc) {
			toDelete = append(toDelete, s) // an older service's of the same name
			continue
		}
		k := PortsKey(s.Ports)
		existingByPorts[k] = append(existingByPorts[k], s)
	}

	var skipped []string
	desiredByPorts := map[string]*endpointSet{}
	portsOf := map[string][]api.EndpointSlicePort{}
	for _, pod := range d.Pods {
		if !endpoints.ShouldPodBeInEndpoints(pod, true) {
			continue
		}
		ports := endpointPorts(svc, pod)
		k := PortsKey(ports)
		if desiredByPorts[k] == nil {
			desiredByPorts[k] = &endpointSet{}
			portsOf[k] = ports
		}
		zone, exists := d.Node(pod.Spec.NodeName)
		if !exists && !svc.Spec.PublishNotReadyAddresses {
			// Left out and retried: the pod's node may not be in the
			// cache yet, and a pod on a node that is gone will be
			// deleted by the pod garbage collector.
			skipped = append(skipped, pod.Metadata.Name)
			continue
		}
		if ep := podToEndpoint(pod, zone, svc, addressType); len(ep.Addresses) > 0 {
			desiredByPorts[k].insert(ep)
		}
	}

	var out Changes
	for _, k := range slices.Sorted(maps.Keys(desiredByPorts)) {
		c := reconcilePorts(d, existingByPorts[k], desiredByPorts[k], portsOf[k], addressType)
		out.Create = append(out.Create, c.Create...)
		out.Update = append(out.Update, c.Update...)
		toDelete = append(toDelete, c.Delete...)
	}
	for _, k := range slices.Sorted(maps.Keys(existingByPorts)) {
		if desiredByPorts[k] == nil {
			toDelete = append(toDelete, existingByPorts[k]...)
		}
	}

	// A service without endpoints keeps one empty slice, so that its
	// consumers can tell "no endpoints" from "not yet synced".
	if len(existing) == len(toDelete) && len(out.Create) == 0 {
		placeholder := newSlice(svc, []api.EndpointSlicePort{}, addressType, d.ControllerName)
		if len(toDelete) == 1 && isPlaceholder(toDelete[0], placeholder) {
			toDelete = nil // it is there already
		} else {
			out.Create = append(out.Create, placeholder)
		}
	}
	out.Create, out.Update, out.Delete = reuseDeleted(svc, out.Create, out.Update, toDelete)
	out.Skipped = skipped
	return out
}

// reuseDeleted turns creates into updates of the slices that would
// otherwise be deleted, when they have the create's address type and
// belong to the service (not to an older one of the same name, whose
// slices the garbage collector is deleting). Kubernetes: the start of
// Reconciler.finalize.
func reuseDeleted(svc *api.Service, creates, updates, deletes []*api.EndpointSlice) (c, u, d []*api.EndpointSlice) {
	deletes = slices.Clone(deletes)
	for i := 0; i < len(deletes) && len(creates) > 0; {
		old, s := deletes[i], creates[len(creates)-1]
		if old.AddressType != s.AddressType || !ownedBy(old, svc) {
			i++
			continue
		}
		s.Metadata.Name = old.Metadata.Name
		s.Metadata.ResourceVersion = old.Metadata.ResourceVersion
		creates = creates[:len(creates)-1]
		updates = append(updates, s)
		deletes = slices.Delete(deletes, i, i+1)
	}
	return creates, updates, deletes
}

// reconcilePorts compares the endpoints of the existing slices of one set
// of ports with the desired ones and decides the slices to create, update
// and delete, in three steps:
//  1. each existing slice keeps the endpoints still desired (updated where
//     they changed) and the service's labels; one left empty is deleted;
//  2. the desired endpoints left fill the slices changed in step 1, the
//     fullest first;
//  3. what is still left goes into the one unchanged slice it fills
//     closest to full, or into new slices.
//
// Kubernetes: Reconciler.reconcileByPortMapping.
func reconcilePorts(d Desired, existing []*api.EndpointSlice, desired *endpointSet, ports []api.EndpointSlicePort, addressType api.AddressType) Changes {
	limit := d.MaxEndpointsPerSlice
	var updated, unchanged, deleted []*api.EndpointSlice
	for _, s := range existing {
		var kept []api.Endpoint
		changed := false
		for i := range s.Endpoints {
			ep := &s.Endpoints[i]
			want := desired.take(ep)
			if want == nil {
				continue
			}
			kept = append(kept, *want)
			changed = changed || !EndpointsEqualBeyondKey(want, ep)
		}
		labels, labelsChanged := sliceLabels(s, d.Service, d.ControllerName)
		switch {
		case changed || len(kept) != len(s.Endpoints):
			if len(kept) == 0 {
				deleted = append(deleted, s)
				continue
			}
			cp := withMeta(s)
			cp.Endpoints, cp.Metadata.Labels = kept, labels
			updated = append(updated, cp)
		case labelsChanged:
			cp := withMeta(s)
			cp.Metadata.Labels = labels
			updated = append(updated, cp)
		default:
			unchanged = append(unchanged, s)
		}
	}

	if desired.len() > 0 && len(updated) > 0 {
		fill := slices.Clone(updated)
		slices.SortStableFunc(fill, func(a, b *api.EndpointSlice) int { return cmp.Compare(len(b.Endpoints), len(a.Endpoints)) })
		for _, s := range fill {
			for desired.len() > 0 && len(s.Endpoints) < limit {
				s.Endpoints = append(s.Endpoints, *desired.pop())
			}
		}
	}

	var created []*api.EndpointSlice
	for desired.len() > 0 {
		var s *api.EndpointSlice
		if desired.len() < limit && len(unchanged) > 0 {
			if i := sliceToFill(unchanged, desired.len(), limit); i >= 0 {
				s = withMeta(unchanged[i])
				s.Endpoints = slices.Clone(s.Endpoints)
				unchanged = slices.Delete(slices.Clone(unchanged), i, i+1)
				updated = append(updated, s)
			}
		}
		if s == nil {
			s = newSlice(d.Service, ports, addressType, d.ControllerName)
			created = append(created, s)
		}
		for desired.len() > 0 && len(s.Endpoints) < limit {
			s.Endpoints = append(s.Endpoints, *desired.pop())
		}
	}
	return Changes{Create: created, Update: updated, Delete: deleted}
}

// sliceToFill returns the index of the slice that n more endpoints fill
// closest to limit without going over, -1 if none has room. Kubernetes:
// getSliceToFill.
func sliceToFill(candidates []*api.EndpointSlice, n, limit int) int {
	best, bestDiff := -1, limit
	for i, s := range candidates {
		diff := limit - (n + len(s.Endpoints))
		if diff >= 0 && diff < bestDiff {
			best, bestDiff = i, diff
			if diff == 0 {
				break
			}
		}
	}
	return best
}

// withMeta returns a shallow copy of a cached slice whose metadata can be
// changed: the fields a write replaces are replaced, never modified.
func withMeta(s *api.EndpointSlice) *api.EndpointSlice {
	cp := *s
	return &cp
}

// podToEndpoint is the endpoint a pod gives a service's slices of one
// address type: its IPs of that type; ready when it is ready and not
// terminating (or the service publishes not-ready addresses), serving
// when it is ready, terminating when it is being deleted; its node and
// the node's zone, a reference to it, and its hostname in the service's
// DNS zone. Kubernetes: podToEndpoint.
func podToEndpoint(pod *api.Pod, zone string, svc *api.Service, addressType api.AddressType) api.Endpoint {
	serving := api.IsPodReady(pod)
	terminating := pod.Metadata.DeletionTimestamp != nil
	ready := svc.Spec.PublishNotReadyAddresses || serving && !terminating
	ep := api.Endpoint{
		Addresses:  podAddresses(pod, addressType),
		Conditions: api.EndpointConditions{Ready: &ready, Serving: &serving, Terminating: &terminating},
		TargetRef: &api.ObjectReference{
			Kind: "Pod", Namespace: pod.Metadata.Namespace, Name: pod.Metadata.Name, UID: pod.Metadata.UID,
		},
	}
	if n := pod.Spec.NodeName; n != "" {
		ep.NodeName = &n
	}
	if zone != "" {
		ep.Zone = &zone
	}
	if h := endpoints.PodHostname(svc, pod); h != "" {
		ep.Hostname = &h
	}
	return ep
}

// podAddresses returns a pod's IPs of an address type, in canonical form
// (status.podIPs, or status.podIP when that list is empty). Kubernetes:
// getEndpointAddresses.
func podAddresses(pod *api.Pod, addressType api.AddressType) []string {
	ips := make([]string, 0, 1)
	for _, p := range pod.Status.PodIPs {
		ips = append(ips, p.IP)
	}
	if len(ips) == 0 && pod.Status.PodIP != "" {
		ips = append(ips, pod.Status.PodIP)
	}
	addrs := []string{}
	for _, s := range ips {
		a, err := netip.ParseAddr(s)
		if err != nil {
			continue
		}
		if a.Unmap().Is4() == (addressType == api.AddressTypeIPv4) {
			addrs = append(addrs, a.Unmap().String())
		}
	}
	return addrs
}

// endpointPorts returns a pod's ports for a service: each service port
// whose targetPort resolves on the pod (a named one through the pod's
// container ports). Kubernetes: getEndpointPorts.
func endpointPorts(svc *api.Service, pod *api.Pod) []api.EndpointSlicePort {
	ports := []api.EndpointSlicePort{}
	for i := range svc.Spec.Ports {
		sp := &svc.Spec.Ports[i]
		number, ok := endpoints.FindPort(pod, sp)
		if !ok {
			continue
		}
		name, proto := sp.Name, sp.Protocol
		if proto == "" {
			proto = api.ProtocolTCP
		}
		p := api.EndpointSlicePort{Name: &name, Port: &number, Protocol: &proto}
		if sp.AppProtocol != nil {
			app := *sp.AppProtocol
			p.AppProtocol = &app
		}
		ports = append(ports, p)
	}
	return ports
}

// PortsKey identifies a set of slice ports whatever their order.
// Kubernetes: endpointsliceutil.NewPortMapKey.
func PortsKey(ports []api.EndpointSlicePort) string {
	keys := make([]string, 0, len(ports))
	str := func(p *string) string {
		if p == nil {
			return "-"
		}
		return strconv.Quote(*p)
	}
	for _, p := range ports {
		n := "-"
		if p.Port != nil {
			n = strconv.Itoa(int(*p.Port))
		}
		proto := "-"
		if p.Protocol != nil {
			proto = string(*p.Protocol)
		}
		keys = append(keys, str(p.Name)+"/"+proto+"/"+n+"/"+str(p.AppProtocol))
	}
	slices.Sort(keys)
	return strings.Join(keys, ",")
}

// newSlice returns an empty slice of the service's, named after it by the
// server. Kubernetes: newEndpointSlice.
func newSlice(svc *api.Service, ports []api.EndpointSlicePort, addressType api.AddressType, controller string) *api.EndpointSlice {
	yes := true
	s := &api.EndpointSlice{
		Metadata: api.ObjectMeta{
			Namespace:    svc.Metadata.Namespace,
			GenerateName: svc.Metadata.Name + "-",
			OwnerReferences: []api.OwnerReference{{
				APIVersion: "v1", Kind: "Service", Name: svc.Metadata.Name, UID: svc.Metadata.UID,
				Controller: &yes, BlockOwnerDeletion: &yes,
			}},
		},
		AddressType: addressType,
		Endpoints:   []api.Endpoint{},
		Ports:       ports,
	}
	s.Metadata.Labels, _ = sliceLabels(s, svc, controller)
	return s
}

// sliceLabels returns the labels a service's slice should have — the
// service's, the headless label if it has no cluster IP, its name and the
// controller's — and whether the service's own labels differ from the
// slice's (the reserved ones aside). Kubernetes: setEndpointSliceLabels.
func sliceLabels(s *api.EndpointSlice, svc *api.Service, controller string) (map[string]string, bool) {
	have, want := map[string]string{}, map[string]string{}
	for k, v := range s.Metadata.Labels {
		if !reservedLabel(k) {
			have[k] = v
		}
	}
	for k, v := range svc.Metadata.Labels {
		if !reservedLabel(k) {
			want[k] = v
		}
	}
	changed := !maps.Equal(have, want)
	if ip := svc.Spec.ClusterIP; ip == "" || ip == api.ClusterIPNone {
		want[endpoints.LabelHeadless] = ""
	}
	want[LabelServiceName] = svc.Metadata.Name
	want[LabelManagedBy] = controller
	return want, changed
}

func reservedLabel(k string) bool {
	return k == LabelServiceName || k == LabelManagedBy || k == endpoints.LabelHeadless
}

// ownedBy reports whether a slice's owner references name the service
// (this one, by UID). Kubernetes: ownedBy.
func ownedBy(s *api.EndpointSlice, svc *api.Service) bool {
	for _, o := range s.Metadata.OwnerReferences {
		if o.UID == svc.Metadata.UID && o.Kind == "Service" && o.APIVersion == "v1" {
			return true
		}
	}
	return false
}

// isPlaceholder reports whether an existing slice is the placeholder
// newSlice makes: same namespace, labels, address type, no endpoints and
// no ports. Kubernetes: placeholderSliceCompare.
func isPlaceholder(s, placeholder *api.EndpointSlice) bool {
	return s.Metadata.Namespace == placeholder.Metadata.Namespace &&
		maps.Equal(s.Metadata.Labels, placeholder.Metadata.Labels) &&
		s.AddressType == placeholder.AddressType && len(s.Endpoints) == 0 && len(s.Ports) == 0
}

// EndpointsEqualBeyondKey reports whether two endpoints with the same key
// (EndpointKey) are equal in what the key leaves out: conditions, node,
// zone, hints and target. Kubernetes: EndpointsEqualBeyondHash.
func EndpointsEqualBeyondKey(a, b *api.Endpoint) bool {
	eq := func(x, y *string) bool { return (x == nil) == (y == nil) && (x == nil || *x == *y) }
	eqb := func(x, y *bool) bool { return (x == nil) == (y == nil) && (x == nil || *x == *y) }
	return eq(a.NodeName, b.NodeName) && eq(a.Zone, b.Zone) &&
		eqb(a.Conditions.Ready, b.Conditions.Ready) && eqb(a.Conditions.Serving, b.Conditions.Serving) &&
		eqb(a.Conditions.Terminating, b.Conditions.Terminating) &&
		(a.Hints == nil) == (b.Hints == nil) && (a.Hints == nil || slices.Equal(a.Hints.ForZones, b.Hints.ForZones)) &&
		(a.TargetRef == nil) == (b.TargetRef == nil) && (a.TargetRef == nil || *a.TargetRef == *b.TargetRef)
}

// EndpointKey identifies an endpoint across slices: its addresses (in any
// order), hostname and target's namespace and name. Conditions and
// topology are left out so that they change in place. Kubernetes:
// hashEndpoint.
func EndpointKey(ep *api.Endpoint) string {
	addrs := slices.Sorted(slices.Values(ep.Addresses))
	var host, ns, name string
	if ep.Hostname != nil {
		host = *ep.Hostname
	}
	if ep.TargetRef != nil {
		ns, name = ep.TargetRef.Namespace, ep.TargetRef.Name
	}
	return fmt.Sprintf("%q/%q/%q/%q", strings.Join(addrs, ","), host, ns, name)
}

// endpointSet is the desired endpoints of one set of ports, taken out one
// by one as they are placed. Kubernetes' EndpointSet is a map whose PopAny
// takes any; this one hands them out in key order.
type endpointSet struct {
	keys   []string // sorted once the first take or pop happens
	byKey  map[string]*api.Endpoint
	sorted bool
}

func (s *endpointSet) insert(ep api.Endpoint) {
	if s.byKey == nil {
		s.byKey = map[string]*api.Endpoint{}
	}
	k := EndpointKey(&ep)
	if _, dup := s.byKey[k]; !dup {
		s.keys = append(s.keys, k)
	}
	s.byKey[k] = &ep
}

func (s *endpointSet) len() int { return len(s.byKey) }

// take removes and returns the desired endpoint with ep's key, nil if none.
func (s *endpointSet) take(ep *api.Endpoint) *api.Endpoint {
	k := EndpointKey(ep)
	want := s.byKey[k]
	delete(s.byKey, k)
	return want
}

// pop removes and returns the desired endpoint of the smallest key; the set
// must not be empty.
func (s *endpointSet) pop() *api.Endpoint {
	if !s.sorted {
		slices.Sort(s.keys)
		s.sorted = true
	}
	for {
		k := s.keys[0]
		s.keys = s.keys[1:]
		if ep, ok := s.byKey[k]; ok {
			delete(s.byKey, k)
			return ep
		}
	}
}

func sortedByName(list []*api.EndpointSlice) []*api.EndpointSlice {
	return slices.SortedFunc(slices.Values(list), func(a, b *api.EndpointSlice) int {
		return cmp.Compare(a.Metadata.Name, b.Metadata.Name)
	})
}
