package endpointslicemirroring

// The decision half: which slices mirror an Endpoints object. Pure
// functions of plain values. Kubernetes: pkg/controller/
// endpointslicemirroring's reconciler.go, reconciler_helpers.go and
// utils.go, with sorted orders for its map orders.

import (
	"cmp"
	"maps"
	"net/netip"
	"slices"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/controllers/endpoints"
	"github.com/miniplane/miniplane/controllers/endpointslice"
)

// Labels and names the controller reads or writes.
const (
	// ControllerName is this controller's endpointslice.LabelManagedBy
	// value. Kubernetes: endpointslicemirroring's controllerName.
	ControllerName = "endpointslicemirroring-controller.k8s.io"
	// LabelSkipMirror set to "true" on Endpoints keeps them from being
	// mirrored (kube-apiserver sets it on the kubernetes Service's).
	// Kubernetes: discovery.LabelSkipMirror.
	LabelSkipMirror = "endpointslice.kubernetes.io/skip-mirror"
	// annotationLastApplied is kubectl's; it is not mirrored.
	annotationLastApplied = "kubectl.kubernetes.io/last-applied-configuration"
)

// DefaultMaxEndpointsPerSubset is --mirroring-max-endpoints-per-subset's
// default, and the most it may be.
const DefaultMaxEndpointsPerSubset = 1000

// Changes are the writes Reconcile decides, in the order to make them.
type Changes struct {
	Create, Update, Delete []*api.EndpointSlice
	// Invalid counts the addresses left out as not IPs; Skipped those
	// left out as not IPs or over the per-subset bound. The controller
	// records a Warning event on the Endpoints for each kind.
	Invalid, Skipped int
}

// ShouldMirror reports whether an Endpoints object is mirrored: not
// labelled to skip mirroring and not a leader-election lock. Kubernetes:
// shouldMirror.
func ShouldMirror(ep *api.Endpoints) bool {
	if ep == nil || ep.Metadata.Labels[LabelSkipMirror] == "true" {
		return false
	}
	_, lock := ep.Metadata.Annotations[endpoints.AnnotationLeader]
	return !lock
}

// Reconcile decides how to bring the slices mirroring ep (existing, those
// labelled as this controller's for ep's service) to ep's subsets: one
// slice per set of ports and address type, holding at most maxPerSubset
// addresses of each subset, with ep's labels and annotations. A slice
// whose endpoints, labels and annotations are right is left alone; extra
// slices for one set of ports are deleted; a slice to delete is reused
// for one to create of the same address type. Kubernetes:
// reconciler.reconcile, reconcileByPortMapping and recycleSlices.
func Reconcile(ep *api.Endpoints, existing []*api.EndpointSlice, maxPerSubset int) Changes {
	var out Changes
	desired, ports := map[string]map[string]*api.Endpoint{}, map[string][]api.EndpointSlicePort{}
	types := map[string]api.AddressType{}
	for _, subset := range repack(ep.Subsets) {
		sp := slicePorts(subset.Ports)
		added := 0
		add := func(a api.EndpointAddress, ready bool) {
			if added >= maxPerSubset {
				return
			}
			t, ok := addressType(a.IP)
			if !ok {
				out.Invalid++
				return
			}
			k := string(t) + "/" + endpointslice.PortsKey(sp)
			if desired[k] == nil {
				desired[k], ports[k], types[k] = map[string]*api.Endpoint{}, sp, t
			}
			e := addressToEndpoint(a, ready)
			desired[k][endpointslice.EndpointKey(e)] = e
			added++
		}
		for _, a := range subset.Addresses {
			add(a, true)
		}
		for _, a := range subset.NotReadyAddresses {
			add(a, false)
		}
		out.Skipped += len(subset.Addresses) + len(subset.NotReadyAddresses) - added
	}

	existingByKey := map[string][]*api.EndpointSlice{}
	for _, s := range slices.SortedFunc(slices.Values(existing), func(a, b *api.EndpointSlice) int {
		return cmp.Compare(a.Metadata.Name, b.Metadata.Name)
	}) {
		k := string(s.AddressType) + "/" + endpointslice.PortsKey(s.Ports)
		existingByKey[k] = append(existingByKey[k], s)
	}
	for _, k := range slices.Sorted(maps.Keys(desired)) {
		create, update, del := reconcilePorts(ep, existingByKey[k], desired[k], ports[k], types[k])
		out.Create = append(out.Create, create...)
		out.Update = append(out.Update, update...)
		out.Delete = append(out.Delete, del...)
	}
	for _, k := range slices.Sorted(maps.Keys(existingByKey)) {
		if desired[k] == nil {
			out.Delete = append(out.Delete, existingByKey[k]...)
		}
	}
	out.Create, out.Update, out.Delete = recycle(out.Create, out.Update, out.Delete)
	return out
}

// reconcilePorts decides the one slice of a set of ports and address type:
// the first existing one (by name) is kept if it is right, else rewritten
// whole; the others are deleted. Kubernetes: reconcileByPortMapping.
func reconcilePorts(ep *api.Endpoints, existing []*api.EndpointSlice, desired map[string]*api.Endpoint,
	ports []api.EndpointSlicePort, t api.AddressType) (create, update, del []*api.EndpointSlice) {
	name := ""
	if len(existing) > 0 {
		del = existing[1:]
		first := existing[0]
		if unchanged(first, desired) && maps.Equal(ep.Metadata.Labels, withoutKeys(first.Metadata.Labels, endpointslice.LabelManagedBy, endpointslice.LabelServiceName)) &&
			maps.Equal(mirroredAnnotations(ep), first.Metadata.Annotations) {
			return nil, nil, del
		}
		name = first.Metadata.Name
	}
	s := newSlice(ep, ports, t, name)
	for _, k := range slices.Sorted(maps.Keys(desired)) {
		s.Endpoints = append(s.Endpoints, *desired[k])
	}
	if name != "" {
		s.Metadata.ResourceVersion = existing[0].Metadata.ResourceVersion
		return nil, []*api.EndpointSlice{s}, del
	}
	return []*api.EndpointSlice{s}, nil, del
}

// unchanged reports whether a slice holds exactly the desired endpoints.
// Kubernetes: totalChanges, all zero.
func unchanged(s *api.EndpointSlice, desired map[string]*api.Endpoint) bool {
	if len(s.Endpoints) != len(desired) {
		return false
	}
	for i := range s.Endpoints {
		want := desired[endpointslice.EndpointKey(&s.Endpoints[i])]
		if want == nil || !endpointslice.EndpointsEqualBeyondKey(want, &s.Endpoints[i]) {
			return false
		}
	}
	return true
}

// recycle turns creates into updates of slices that would be deleted, of
// the same address type. Kubernetes: recycleSlices.
func recycle(creates, updates, deletes []*api.EndpointSlice) (c, u, d []*api.EndpointSlice) {
	for _, old := range deletes {
		i := slices.IndexFunc(creates, func(s *api.EndpointSlice) bool { return s.AddressType == old.AddressType })
		if i < 0 {
			d = append(d, old)
			continue
		}
		s := creates[i]
		s.Metadata.Name, s.Metadata.GenerateName = old.Metadata.Name, ""
		s.Metadata.ResourceVersion = old.Metadata.ResourceVersion
		updates = append(updates, s)
		creates = slices.Delete(slices.Clone(creates), i, i+1)
	}
	return creates, updates, d
}

// newSlice returns a slice mirroring ep: owned by it, with its labels (and
// the service-name and managed-by ones) and its annotations but the
// trigger time and kubectl's last-applied configuration; named name, or
// by the server from "<endpoints>-". Kubernetes: newEndpointSlice.
func newSlice(ep *api.Endpoints, ports []api.EndpointSlicePort, t api.AddressType, name string) *api.EndpointSlice {
	yes := true
	labels := maps.Clone(ep.Metadata.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	labels[endpointslice.LabelServiceName] = ep.Metadata.Name
	labels[endpointslice.LabelManagedBy] = ControllerName
	s := &api.EndpointSlice{
		Metadata: api.ObjectMeta{
			Namespace: ep.Metadata.Namespace, Name: name, Labels: labels, Annotations: mirroredAnnotations(ep),
			OwnerReferences: []api.OwnerReference{{APIVersion: "v1", Kind: "Endpoints", Name: ep.Metadata.Name,
				UID: ep.Metadata.UID, Controller: &yes, BlockOwnerDeletion: &yes}},
		},
		AddressType: t,
		Endpoints:   []api.Endpoint{},
		Ports:       ports,
	}
	if name == "" {
		s.Metadata.GenerateName = ep.Metadata.Name + "-"
	}
	return s
}

// mirroredAnnotations are ep's annotations a slice carries.
func mirroredAnnotations(ep *api.Endpoints) map[string]string {
	return withoutKeys(ep.Metadata.Annotations, endpoints.AnnotationLastChangeTriggerTime, annotationLastApplied)
}

func withoutKeys(m map[string]string, keys ...string) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		if !slices.Contains(keys, k) {
			out[k] = v
		}
	}
	return out
}

// addressToEndpoint is the slice endpoint of an Endpoints address: its IP,
// ready or not (serving and terminating unset), its node, hostname and
// target. Kubernetes: addressToEndpoint.
func addressToEndpoint(a api.EndpointAddress, ready bool) *api.Endpoint {
	e := &api.Endpoint{Addresses: []string{a.IP}, Conditions: api.EndpointConditions{Ready: &ready}}
	if a.TargetRef != nil {
		ref := *a.TargetRef
		e.TargetRef = &ref
	}
	if a.NodeName != nil {
		n := *a.NodeName
		e.NodeName = &n
	}
	if a.Hostname != "" {
		h := a.Hostname
		e.Hostname = &h
	}
	return e
}

// addressType is the slice address type of an IP, ok false if it is not
// one. Kubernetes: getAddressType.
func addressType(ip string) (api.AddressType, bool) {
	a, err := netip.ParseAddr(ip)
	switch {
	case err != nil:
		return "", false
	case a.Is4():
		return api.AddressTypeIPv4, true
	default:
		return api.AddressTypeIPv6, true
	}
}

// slicePorts converts an Endpoints subset's ports. Kubernetes: initPorts.
func slicePorts(ports []api.EndpointPort) []api.EndpointSlicePort {
	out := []api.EndpointSlicePort{}
	for _, p := range ports {
		name, number, proto := p.Name, p.Port, p.Protocol
		sp := api.EndpointSlicePort{Name: &name, Port: &number, Protocol: &proto}
		if p.AppProtocol != nil {
			app := *p.AppProtocol
			sp.AppProtocol = &app
		}
		out = append(out, sp)
	}
	return out
}

// repack regroups subsets canonically: each address with every port it
// serves in any subset, addresses serving the same ports in one subset (an
// address ready in one subset is ready). Kubernetes: RepackSubsets, which
// the reconciler applies first.
func repack(subsets []api.EndpointSubset) []api.EndpointSubset {
	type addr struct {
		a     api.EndpointAddress
		ready bool
		ports map[string]api.EndpointPort
	}
	byIP := map[string]*addr{}
	var order []string
	see := func(a api.EndpointAddress, ready bool, ports []api.EndpointPort) {
		k := a.IP
		if a.TargetRef != nil {
			k += "/" + string(a.TargetRef.UID)
		}
		x := byIP[k]
		if x == nil {
			x = &addr{a: a, ports: map[string]api.EndpointPort{}}
			byIP[k] = x
			order = append(order, k)
		}
		x.ready = x.ready || ready
		for _, p := range ports {
			x.ports[endpointslice.PortsKey(slicePorts([]api.EndpointPort{p}))] = p
		}
	}
	for _, s := range subsets {
		for _, a := range s.Addresses {
			see(a, true, s.Ports)
		}
		for _, a := range s.NotReadyAddresses {
			see(a, false, s.Ports)
		}
	}
	groups := map[string]*api.EndpointSubset{}
	var keys []string
	for _, k := range order {
		x := byIP[k]
		pk := slices.Sorted(maps.Keys(x.ports))
		gk := ""
		for _, p := range pk {
			gk += p + ";"
		}
		g := groups[gk]
		if g == nil {
			g = &api.EndpointSubset{}
			for _, p := range pk {
				g.Ports = append(g.Ports, x.ports[p])
			}
			groups[gk] = g
			keys = append(keys, gk)
		}
		if x.ready {
			g.Addresses = append(g.Addresses, x.a)
		} else {
			g.NotReadyAddresses = append(g.NotReadyAddresses, x.a)
		}
	}
	out := make([]api.EndpointSubset, 0, len(keys))
	for _, k := range keys {
		out = append(out, *groups[k])
	}
	return out
}
