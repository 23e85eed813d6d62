package endpointslice

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
)

// The scenarios of Kubernetes' reconciler_test.go (k8s.io/endpointslice),
// ported. Not ported: the metrics expectations (miniplane keeps no
// endpointslice metrics), topology hints and traffic distribution (not
// set here), and the tracker's generation checks (controller_test.go
// covers writeTracker).

// newService is upstream's newServiceAndEndpointMeta: service foo, port 80
// named "foo", selector foo=bar, single-stack IPv4 without a cluster IP.
func newService(name string) *api.Service {
	return &api.Service{
		Metadata: api.ObjectMeta{Namespace: "test", Name: name, UID: "svc-uid"},
		Spec: api.ServiceSpec{
			Ports:      []api.ServicePort{{Name: "foo", Port: 80, TargetPort: api.FromInt(80), Protocol: api.ProtocolTCP}},
			Selector:   map[string]string{"foo": "bar"},
			IPFamilies: []api.IPFamily{api.IPv4Protocol},
		},
	}
}

// newPod is upstream's newPod: pod<n> on node-1, running, ready or not,
// with IP 1.2.<n/250>.<n%250+4>.
func newPod(n int, ready bool) *api.Pod {
	status := api.ConditionFalse
	if ready {
		status = api.ConditionTrue
	}
	ip := fmt.Sprintf("1.2.%d.%d", n/250, n%250+4)
	return &api.Pod{
		Metadata: api.ObjectMeta{Namespace: "test", Name: fmt.Sprintf("pod%d", n), UID: api.UID(fmt.Sprintf("pod-uid-%d", n)),
			Labels: map[string]string{"foo": "bar"}},
		Spec: api.PodSpec{NodeName: "node-1", Containers: []api.Container{{Name: "c", Ports: []api.ContainerPort{{Name: "http", ContainerPort: 80}}}}},
		Status: api.PodStatus{Phase: api.PodRunning, PodIP: ip, PodIPs: []api.PodIP{{IP: ip}},
			Conditions: []api.PodCondition{{Type: api.PodReady, Status: status}}},
	}
}

func newPods(n int) []*api.Pod {
	var pods []*api.Pod
	for i := range n {
		pods = append(pods, newPod(i, i%3 != 0))
	}
	return pods
}

// existingSlice is a stored slice of the service's named name holding the
// endpoints of pods.
func existingSlice(svc *api.Service, name string, pods ...*api.Pod) *api.EndpointSlice {
	s := newSlice(svc, endpointPorts(svc, newPod(0, true)), api.AddressTypeIPv4, ControllerName)
	s.Metadata.Name, s.Metadata.GenerateName = name, ""
	s.Metadata.UID, s.Metadata.ResourceVersion, s.Metadata.Generation = api.UID(name+"-uid"), "7", 1
	for _, p := range pods {
		s.Endpoints = append(s.Endpoints, podToEndpoint(p, "", svc, api.AddressTypeIPv4))
	}
	return s
}

var node1 = func(name string) (string, bool) { return "", name == "node-1" }

func reconcileWith(svc *api.Service, pods []*api.Pod, existing []*api.EndpointSlice, max int) Changes {
	return Reconcile(Desired{Service: svc, Pods: pods, Existing: existing, Node: node1,
		MaxEndpointsPerSlice: max, ControllerName: ControllerName})
}

// after returns the endpoint counts of the slices once changes are made,
// sorted.
func after(existing []*api.EndpointSlice, ch Changes) []int {
	byName := map[string]int{}
	for _, s := range existing {
		byName[s.Metadata.Name] = len(s.Endpoints)
	}
	for _, s := range ch.Delete {
		delete(byName, s.Metadata.Name)
	}
	for _, s := range ch.Update {
		byName[s.Metadata.Name] = len(s.Endpoints)
	}
	var out []int
	for _, n := range byName {
		out = append(out, n)
	}
	for _, s := range ch.Create {
		out = append(out, len(s.Endpoints))
	}
	slices.Sort(out)
	return out
}

func TestReconcileSliceCounts(t *testing.T) {
	svc := newService("foo")
	pods250, pods300 := newPods(250), newPods(300)
	everyFourth := func(pods []*api.Pod, from int) []*api.Pod {
		var out []*api.Pod
		for i := from; i < len(pods)-4; i += 4 {
			out = append(out, pods[i])
		}
		return out
	}
	ported := func(port int32) *api.Service {
		s := newService("foo")
		s.Spec.Ports[0].TargetPort = api.FromInt(int(port))
		return s
	}
	var recycled []*api.EndpointSlice // 10 slices of 30
	for i := range 10 {
		recycled = append(recycled, existingSlice(svc, fmt.Sprintf("foo-%02d", i), pods300[i*30:(i+1)*30]...))
	}
	tests := []struct {
		name                   string
		svc                    *api.Service
		pods                   []*api.Pod
		existing               []*api.EndpointSlice
		max                    int
		creates, updates, dels int
		lengths                []int
	}{
		// TestReconcileEmpty: a placeholder slice for a service without pods.
		{name: "no pods: a placeholder", svc: svc, creates: 1, lengths: []int{0}},
		// TestReconcile1EndpointSlice: the placeholder is there already.
		{name: "placeholder kept", svc: svc, existing: []*api.EndpointSlice{func() *api.EndpointSlice {
			s := newSlice(svc, []api.EndpointSlicePort{}, api.AddressTypeIPv4, ControllerName)
			s.Metadata.Name = "foo-abc"
			return s
		}()}, lengths: []int{0}},
		// TestReconcileManyPods.
		{name: "250 pods: 3 creates", svc: svc, pods: pods250, creates: 3, lengths: []int{50, 100, 100}},
		// TestReconcileEndpointSlicesSomePreexisting: 27 left fill the slice
		// they bring closest to full.
		{name: "some preexisting", svc: svc, pods: pods250,
			existing: []*api.EndpointSlice{existingSlice(svc, "foo-1", everyFourth(pods250, 1)...), existingSlice(svc, "foo-2", everyFourth(pods250, 3)...)},
			creates:  1, updates: 1, lengths: []int{61, 89, 100}},
		// TestReconcileEndpointSlicesSomePreexistingWorseAllocation: the 52
		// left go into a new slice rather than two updates.
		{name: "some preexisting, worse allocation", svc: svc, pods: pods300,
			existing: []*api.EndpointSlice{existingSlice(svc, "foo-1", everyFourth(pods300, 1)...), existingSlice(svc, "foo-2", everyFourth(pods300, 3)...)},
			creates:  2, lengths: []int{52, 74, 74, 100}},
		// TestReconcileEndpointSlicesRecycling: a port change repacks ten
		// slices of 30 into three full ones: 3 updates, 7 deletes.
		{name: "recycling", svc: ported(81), pods: pods300, existing: recycled, updates: 3, dels: 7, lengths: []int{100, 100, 100}},
		{name: "recycling: nothing changed, nothing written", svc: svc, pods: pods300, existing: recycled,
			lengths: []int{30, 30, 30, 30, 30, 30, 30, 30, 30, 30}},
		// TestReconcileMaxEndpointsPerSlice.
		{name: "max 50", svc: svc, pods: pods250, max: 50, creates: 5, lengths: []int{50, 50, 50, 50, 50}},
		{name: "max 80", svc: svc, pods: pods250, max: 80, creates: 4, lengths: []int{10, 80, 80, 80}},
		{name: "max 150", svc: svc, pods: pods250, max: 150, creates: 2, lengths: []int{100, 150}},
		{name: "max 500", svc: svc, pods: pods250, max: 500, creates: 1, lengths: []int{250}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ch := reconcileWith(tt.svc, tt.pods, tt.existing, cmpOr(tt.max, DefaultMaxEndpointsPerSlice))
			assert.Len(t, ch.Create, tt.creates, "creates")
			assert.Len(t, ch.Update, tt.updates, "updates")
			assert.Len(t, ch.Delete, tt.dels, "deletes")
			assert.Equal(t, tt.lengths, after(tt.existing, ch))
		})
	}
}

// TestReconcileEndpointSlicesUpdating: a target port change updates every
// slice in place; TestReconcileEndpointSlicesServicesLabelsUpdating: so
// does a label change; TestReconcileEndpointSlicesServicesReservedLabels:
// reserved labels on the service change nothing.
func TestReconcileUpdatesInPlace(t *testing.T) {
	svc := newService("foo")
	pods := newPods(250)
	first := reconcileWith(svc, pods, nil, DefaultMaxEndpointsPerSlice)
	require.Len(t, first.Create, 3)
	var stored []*api.EndpointSlice
	for i, s := range first.Create {
		s.Metadata.Name, s.Metadata.GenerateName = fmt.Sprintf("foo-%d", i), ""
		stored = append(stored, s)
	}
	tests := []struct {
		name    string
		change  func(*api.Service)
		updates int
	}{
		{"target port", func(s *api.Service) { s.Spec.Ports[0].TargetPort = api.FromInt(81) }, 3},
		{"labels", func(s *api.Service) { s.Metadata.Labels = map[string]string{"foo": "bar"} }, 3},
		{"reserved labels", func(s *api.Service) {
			s.Metadata.Labels = map[string]string{LabelServiceName: "bad", LabelManagedBy: "actor", "service.kubernetes.io/headless": "invalid"}
		}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			next := newService("foo")
			tt.change(next)
			ch := reconcileWith(next, pods, stored, DefaultMaxEndpointsPerSlice)
			assert.Empty(t, ch.Create)
			assert.Empty(t, ch.Delete)
			assert.Len(t, ch.Update, tt.updates)
			assert.Equal(t, []int{50, 100, 100}, after(stored, ch))
			for _, s := range ch.Update {
				assert.Equal(t, next.Metadata.Labels["foo"], s.Metadata.Labels["foo"])
				assert.Equal(t, "foo", s.Metadata.Labels[LabelServiceName])
				assert.Equal(t, ControllerName, s.Metadata.Labels[LabelManagedBy])
			}
		})
	}
}

// TestReconcileEndpointSlicesUpdatePacking: new endpoints go to the fuller
// of the slices already being updated.
func TestReconcileUpdatePacking(t *testing.T) {
	svc := newService("foo")
	var pods, in1, in2 []*api.Pod
	for i := range 80 {
		in1 = append(in1, newPod(i, true))
	}
	for i := 100; i < 120; i++ {
		in2 = append(in2, newPod(i, true))
	}
	existing := []*api.EndpointSlice{existingSlice(svc, "foo-1", in1...), existingSlice(svc, "foo-2", in2...)}
	for i, p := range append(slices.Clone(in1), in2...) {
		if i%10 == 0 {
			p = p.DeepCopy()
			p.Status.Conditions[0].Status = api.ConditionFalse
		}
		pods = append(pods, p)
	}
	for i := 200; i < 215; i++ {
		pods = append(pods, newPod(i, true))
	}
	ch := reconcileWith(svc, pods, existing, DefaultMaxEndpointsPerSlice)
	assert.Empty(t, ch.Create)
	assert.Len(t, ch.Update, 2)
	assert.Equal(t, []int{20, 95}, after(existing, ch))
}

// TestReconcileEndpointSlicesReplaceDeprecated: slices of an address type
// the service does not have are deleted, and new ones created.
func TestReconcileReplacesUnsupportedAddressType(t *testing.T) {
	svc := newService("foo")
	var pods, in1, in2 []*api.Pod
	for i := range 80 {
		in1 = append(in1, newPod(i, true))
	}
	for i := 100; i < 150; i++ {
		in2 = append(in2, newPod(i, true))
	}
	pods = append(slices.Clone(in1), in2...)
	s1, s2 := existingSlice(svc, "foo-1", in1...), existingSlice(svc, "foo-2", in2...)
	s1.AddressType, s2.AddressType = "IP", "IP"
	ch := reconcileWith(svc, pods, []*api.EndpointSlice{s1, s2}, DefaultMaxEndpointsPerSlice)
	assert.Len(t, ch.Delete, 2)
	assert.Empty(t, ch.Update)
	require.Len(t, ch.Create, 2)
	assert.Equal(t, []int{30, 100}, after(nil, Changes{Create: ch.Create}))
	for _, s := range ch.Create {
		assert.Equal(t, api.AddressTypeIPv4, s.AddressType)
	}
}

// TestReconcileEndpointSlicesRecreation: a slice owned by an older service
// of the same name is not reused: a create and a delete.
func TestReconcileRecreation(t *testing.T) {
	tests := []struct {
		name             string
		owned            bool
		creates, deletes int
	}{
		{"slice owned by the service", true, 0, 0},
		{"slice owned by another service UID", false, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc := newService("foo")
			pod := newPod(1, true)
			s := existingSlice(svc, "foo-1", pod)
			if !tt.owned {
				s.Metadata.OwnerReferences = slices.Clone(s.Metadata.OwnerReferences)
				s.Metadata.OwnerReferences[0].UID = "different"
			}
			ch := reconcileWith(svc, []*api.Pod{pod}, []*api.EndpointSlice{s}, DefaultMaxEndpointsPerSlice)
			assert.Len(t, ch.Create, tt.creates)
			assert.Len(t, ch.Delete, tt.deletes)
			assert.Empty(t, ch.Update)
		})
	}
}

// TestReconcileEndpointSlicesNamedPorts: pods resolving a named port to five
// numbers make five slices of 60.
func TestReconcileNamedPorts(t *testing.T) {
	svc := newService("named-port-example")
	svc.Spec.Ports = []api.ServicePort{{TargetPort: api.FromString("http"), Protocol: api.ProtocolTCP}}
	var pods []*api.Pod
	for i := range 300 {
		p := newPod(i, i%3 != 0)
		p.Spec.Containers[0].Ports = []api.ContainerPort{{Name: "http", ContainerPort: int32(8080 + i%5), Protocol: api.ProtocolTCP}}
		pods = append(pods, p)
	}
	ch := reconcileWith(svc, pods, nil, DefaultMaxEndpointsPerSlice)
	require.Len(t, ch.Create, 5)
	var ports []int32
	for _, s := range ch.Create {
		assert.Len(t, s.Endpoints, 60)
		require.Len(t, s.Ports, 1)
		assert.Equal(t, "", *s.Ports[0].Name)
		assert.Equal(t, api.ProtocolTCP, *s.Ports[0].Protocol)
		ports = append(ports, *s.Ports[0].Port)
	}
	assert.Equal(t, []int32{8080, 8081, 8082, 8083, 8084}, ports)
}

// TestReconcile1Pod: the endpoint a pod gives each address type of the
// service, and the slice's labels.
func TestReconcileOnePod(t *testing.T) {
	pod := newPod(1, true)
	pod.Status.PodIPs = []api.PodIP{{IP: "1.2.3.4"}, {IP: "1234::5678:0000:0000:9abc:def0"}}
	pod.Spec.Hostname = "example-hostname" // no subdomain: no hostname in the slice
	zone := func(name string) (string, bool) { return "us-central1-a", name == "node-1" }
	svcWith := func(f func(*api.Service)) *api.Service { s := newService("foo"); f(s); return s }
	v4 := []string{"1.2.3.4"}
	v6 := []string{"1234::5678:0:0:9abc:def0"}
	headless := map[string]string{LabelManagedBy: ControllerName, LabelServiceName: "foo", "service.kubernetes.io/headless": ""}
	headful := map[string]string{LabelManagedBy: ControllerName, LabelServiceName: "foo"}
	tests := []struct {
		name   string
		svc    *api.Service
		want   map[api.AddressType][]string
		labels map[string]string
	}{
		{"no family", svcWith(func(s *api.Service) { s.Spec.ClusterIP, s.Spec.IPFamilies = "10.0.0.10", nil }),
			map[api.AddressType][]string{api.AddressTypeIPv4: v4}, headful},
		{"ipv4", svcWith(func(*api.Service) {}), map[api.AddressType][]string{api.AddressTypeIPv4: v4}, headless},
		{"ipv4 cluster IP", svcWith(func(s *api.Service) { s.Spec.ClusterIP = "1.1.1.1" }),
			map[api.AddressType][]string{api.AddressTypeIPv4: v4}, headful},
		{"ipv4 labels", svcWith(func(s *api.Service) { s.Metadata.Labels = map[string]string{"foo": "bar"} }),
			map[api.AddressType][]string{api.AddressTypeIPv4: v4},
			map[string]string{LabelManagedBy: ControllerName, LabelServiceName: "foo", "foo": "bar", "service.kubernetes.io/headless": ""}},
		{"ipv4 bad labels", svcWith(func(s *api.Service) {
			s.Metadata.Labels = map[string]string{LabelServiceName: "bad", LabelManagedBy: "actor", "service.kubernetes.io/headless": "invalid"}
		}), map[api.AddressType][]string{api.AddressTypeIPv4: v4}, headless},
		{"ipv6", svcWith(func(s *api.Service) { s.Spec.IPFamilies = []api.IPFamily{api.IPv6Protocol} }),
			map[api.AddressType][]string{api.AddressTypeIPv6: v6}, headless},
		{"ipv6 cluster IP", svcWith(func(s *api.Service) {
			s.Spec.ClusterIP, s.Spec.IPFamilies = "1234::5678:0000:0000:9abc:def1", []api.IPFamily{api.IPv6Protocol}
		}), map[api.AddressType][]string{api.AddressTypeIPv6: v6}, headful},
		{"dual stack", svcWith(func(s *api.Service) {
			s.Spec.ClusterIP, s.Spec.IPFamilies = "10.0.0.10", []api.IPFamily{api.IPv4Protocol, api.IPv6Protocol}
		}), map[api.AddressType][]string{api.AddressTypeIPv4: v4, api.AddressTypeIPv6: v6}, headful},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ch := Reconcile(Desired{Service: tt.svc, Pods: []*api.Pod{pod}, Node: zone, MaxEndpointsPerSlice: 100, ControllerName: ControllerName})
			require.Len(t, ch.Create, len(tt.want))
			for _, s := range ch.Create {
				assert.Equal(t, "foo-", s.Metadata.GenerateName)
				assert.Equal(t, tt.labels, s.Metadata.Labels)
				require.Len(t, s.Endpoints, 1)
				yes, no := true, false
				node, zone := "node-1", "us-central1-a"
				assert.Equal(t, api.Endpoint{
					Addresses:  tt.want[s.AddressType],
					Conditions: api.EndpointConditions{Ready: &yes, Serving: &yes, Terminating: &no},
					NodeName:   &node, Zone: &zone,
					TargetRef: &api.ObjectReference{Kind: "Pod", Namespace: "test", Name: "pod1", UID: "pod-uid-1"},
				}, s.Endpoints[0])
				assert.Equal(t, []api.OwnerReference{{APIVersion: "v1", Kind: "Service", Name: "foo", UID: "svc-uid",
					Controller: &yes, BlockOwnerDeletion: &yes}}, s.Metadata.OwnerReferences)
			}
		})
	}
}

// The conditions of an endpoint (the table in the package documentation),
// and TestReconcile1EndpointSlicePublishNotReadyAddresses.
func TestEndpointConditions(t *testing.T) {
	deleting := api.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	tests := []struct {
		name                        string
		ready, terminating, publish bool
		wantReady, wantServing      bool
	}{
		{"ready", true, false, false, true, true},
		{"not ready", false, false, false, false, false},
		{"ready, terminating", true, true, false, false, true},
		{"not ready, terminating", false, true, false, false, false},
		{"not ready, published", false, false, true, true, false},
		{"ready, terminating, published", true, true, true, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod := newPod(1, tt.ready)
			if tt.terminating {
				pod.Metadata.DeletionTimestamp = &deleting
			}
			svc := newService("foo")
			svc.Spec.PublishNotReadyAddresses = tt.publish
			ep := podToEndpoint(pod, "", svc, api.AddressTypeIPv4)
			assert.Equal(t, tt.wantReady, *ep.Conditions.Ready, "ready")
			assert.Equal(t, tt.wantServing, *ep.Conditions.Serving, "serving")
			assert.Equal(t, tt.terminating, *ep.Conditions.Terminating, "terminating")
		})
	}
}

// TestReconcilerPodMissingNode: a pod on an unknown node is left out and
// reported (to retry), unless the service publishes not-ready addresses.
func TestReconcilePodMissingNode(t *testing.T) {
	for _, publish := range []bool{false, true} {
		t.Run(fmt.Sprint("publishNotReadyAddresses=", publish), func(t *testing.T) {
			svc := newService("foo")
			svc.Spec.PublishNotReadyAddresses = publish
			pod := newPod(1, true)
			pod.Spec.NodeName = "node-gone"
			ch := reconcileWith(svc, []*api.Pod{pod, newPod(2, true)}, nil, DefaultMaxEndpointsPerSlice)
			require.Len(t, ch.Create, 1)
			if publish {
				assert.Empty(t, ch.Skipped)
				assert.Len(t, ch.Create[0].Endpoints, 2)
			} else {
				assert.Equal(t, []string{"pod1"}, ch.Skipped)
				assert.Len(t, ch.Create[0].Endpoints, 1)
			}
		})
	}
}

// A pod leaving removes its endpoint from its slice; the last one leaving
// turns the slice into the placeholder (an update, not a delete and a
// create: Kubernetes' finalize reuses the slice).
func TestReconcilePodsLeaving(t *testing.T) {
	svc := newService("foo")
	p1, p2 := newPod(1, true), newPod(2, true)
	existing := []*api.EndpointSlice{existingSlice(svc, "foo-1", p1, p2)}
	ch := reconcileWith(svc, []*api.Pod{p1}, existing, DefaultMaxEndpointsPerSlice)
	require.Len(t, ch.Update, 1)
	assert.Len(t, ch.Update[0].Endpoints, 1)

	ch = reconcileWith(svc, nil, existing, DefaultMaxEndpointsPerSlice)
	assert.Empty(t, ch.Create)
	assert.Empty(t, ch.Delete)
	require.Len(t, ch.Update, 1)
	assert.Equal(t, "foo-1", ch.Update[0].Metadata.Name)
	assert.Empty(t, ch.Update[0].Endpoints)
	assert.Empty(t, ch.Update[0].Ports)
}

// Reconcile is deterministic: the same input gives the same slices.
func TestReconcileIsDeterministic(t *testing.T) {
	svc := newService("foo")
	pods := newPods(250)
	want := reconcileWith(svc, pods, nil, 80)
	for range 5 {
		shuffled := slices.Clone(pods)
		slices.Reverse(shuffled)
		assert.Equal(t, want, reconcileWith(svc, shuffled, nil, 80))
	}
}
