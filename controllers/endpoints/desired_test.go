package endpoints

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
)

// podOpt changes a test pod.
type podOpt func(*api.Pod)

// testPod returns a running, ready pod default/<name> on node-1 with the
// given IP and labels app=web.
func testPod(name, ip string, opts ...podOpt) *api.Pod {
	p := &api.Pod{
		Metadata: api.ObjectMeta{Namespace: "default", Name: name, UID: api.UID("uid-" + name),
			ResourceVersion: "1", Labels: map[string]string{"app": "web"}},
		Spec: api.PodSpec{NodeName: "node-1", Containers: []api.Container{{Name: "app", Image: "nginx"}}},
		Status: api.PodStatus{Phase: api.PodRunning, PodIP: ip,
			Conditions: []api.PodCondition{{Type: api.PodReady, Status: api.ConditionTrue}}},
	}
	if ip == "" {
		p.Status.PodIP = ""
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

func phase(ph api.PodPhase) podOpt { return func(p *api.Pod) { p.Status.Phase = ph } }

func notReady() podOpt {
	return func(p *api.Pod) { p.Status.Conditions[0].Status = api.ConditionFalse }
}

func terminating() podOpt {
	return func(p *api.Pod) { t := api.NewTime(time.Unix(0, 0)); p.Metadata.DeletionTimestamp = &t }
}

func containerPort(name string, port int32) podOpt {
	return func(p *api.Pod) {
		c := &p.Spec.Containers[0]
		c.Ports = append(c.Ports, api.ContainerPort{Name: name, ContainerPort: port, Protocol: api.ProtocolTCP})
	}
}

func rv(v string) podOpt { return func(p *api.Pod) { p.Metadata.ResourceVersion = v } }

// testService returns default/web selecting app=web with the given ports.
func testService(ports ...api.ServicePort) *api.Service {
	return &api.Service{
		Metadata: api.ObjectMeta{Namespace: "default", Name: "web"},
		Spec: api.ServiceSpec{Selector: map[string]string{"app": "web"}, ClusterIP: "10.0.0.1",
			Ports: ports},
	}
}

func tcpPort(name string, port int32, target api.IntOrString) api.ServicePort {
	return api.ServicePort{Name: name, Port: port, TargetPort: target, Protocol: api.ProtocolTCP}
}

// addr is the address desiredSubsets makes for testPod(name, ip).
func addr(name, ip string) api.EndpointAddress {
	node := "node-1"
	return api.EndpointAddress{IP: ip, NodeName: &node, TargetRef: &api.ObjectReference{
		Kind: "Pod", Namespace: "default", Name: name, UID: api.UID("uid-" + name), ResourceVersion: "1"}}
}

func eport(name string, port int32) api.EndpointPort {
	return api.EndpointPort{Name: name, Port: port, Protocol: api.ProtocolTCP}
}

func addrs(as ...api.EndpointAddress) []api.EndpointAddress { return as }
func ports(ps ...api.EndpointPort) []api.EndpointPort       { return ps }

// TestReadyTruthTable is §2.3: where a pod lands for each state, with and
// without publishNotReadyAddresses.
func TestReadyTruthTable(t *testing.T) {
	const (
		ready    = "addresses"
		unready  = "notReadyAddresses"
		excluded = "excluded"
	)
	tests := []struct {
		name             string
		pod              *api.Pod
		want, wantPublic string
	}{
		{"running ready", testPod("p", "10.1.0.1"), ready, ready},
		{"pending ready", testPod("p", "10.1.0.1", phase(api.PodPending)), ready, ready},
		{"unknown ready", testPod("p", "10.1.0.1", phase(api.PodUnknown)), ready, ready},
		{"running ready terminating", testPod("p", "10.1.0.1", terminating()), excluded, ready},
		{"pending ready terminating", testPod("p", "10.1.0.1", phase(api.PodPending), terminating()), excluded, ready},
		{"running not ready", testPod("p", "10.1.0.1", notReady()), unready, ready},
		{"pending not ready", testPod("p", "10.1.0.1", phase(api.PodPending), notReady()), unready, ready},
		{"unknown not ready", testPod("p", "10.1.0.1", phase(api.PodUnknown), notReady()), unready, ready},
		{"pending no ready condition", testPod("p", "10.1.0.1", phase(api.PodPending), func(p *api.Pod) { p.Status.Conditions = nil }), unready, ready},
		{"pending not ready terminating", testPod("p", "10.1.0.1", phase(api.PodPending), notReady(), terminating()), excluded, ready},
		{"unknown not ready terminating", testPod("p", "10.1.0.1", phase(api.PodUnknown), notReady(), terminating()), excluded, ready},
		{"failed", testPod("p", "10.1.0.1", phase(api.PodFailed), notReady()), excluded, excluded},
		{"succeeded", testPod("p", "10.1.0.1", phase(api.PodSucceeded), notReady()), excluded, excluded},
		{"failed but still ready", testPod("p", "10.1.0.1", phase(api.PodFailed)), excluded, excluded},
		{"succeeded and terminating", testPod("p", "10.1.0.1", phase(api.PodSucceeded), terminating()), excluded, excluded},
		{"no pod IP", testPod("p", ""), excluded, excluded},
		{"no pod IP, pending not ready", testPod("p", "", phase(api.PodPending), notReady()), excluded, excluded},
	}
	where := func(subsets []api.EndpointSubset) string {
		if len(subsets) == 0 {
			return excluded
		}
		require.Len(t, subsets, 1)
		switch {
		case len(subsets[0].Addresses) == 1 && len(subsets[0].NotReadyAddresses) == 0:
			return ready
		case len(subsets[0].Addresses) == 0 && len(subsets[0].NotReadyAddresses) == 1:
			return unready
		}
		return fmt.Sprintf("unexpected %+v", subsets)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc := testService(tcpPort("", 80, api.FromInt(8080)))
			assert.Equal(t, tt.want, where(desiredSubsets(svc, []*api.Pod{tt.pod})), "publishNotReadyAddresses=false")
			svc.Spec.PublishNotReadyAddresses = true
			assert.Equal(t, tt.wantPublic, where(desiredSubsets(svc, []*api.Pod{tt.pod})), "publishNotReadyAddresses=true")
		})
	}
}

func TestDesiredSubsets(t *testing.T) {
	headless := func(s *api.Service) *api.Service { s.Spec.ClusterIP = api.ClusterIPNone; return s }
	httpApp := "http"
	tests := []struct {
		name string
		svc  *api.Service
		pods []*api.Pod
		want []api.EndpointSubset
	}{
		{
			name: "no pods: nothing",
			svc:  testService(tcpPort("", 80, api.FromInt(8080))),
			want: nil,
		},
		{
			name: "addresses sorted by IP, numerically",
			svc:  testService(tcpPort("", 80, api.FromInt(8080))),
			pods: []*api.Pod{testPod("c", "10.1.0.10"), testPod("a", "10.1.0.9"), testPod("b", "10.1.0.2")},
			want: []api.EndpointSubset{{
				Addresses: addrs(addr("b", "10.1.0.2"), addr("a", "10.1.0.9"), addr("c", "10.1.0.10")),
				Ports:     ports(eport("", 8080)),
			}},
		},
		{
			name: "ready and not ready share the subset of their ports",
			svc:  testService(tcpPort("", 80, api.FromInt(8080))),
			pods: []*api.Pod{testPod("a", "10.1.0.1"), testPod("b", "10.1.0.2", notReady())},
			want: []api.EndpointSubset{{
				Addresses:         addrs(addr("a", "10.1.0.1")),
				NotReadyAddresses: addrs(addr("b", "10.1.0.2")),
				Ports:             ports(eport("", 8080)),
			}},
		},
		{
			name: "two ports served by all pods: one subset, ports sorted by name",
			svc:  testService(tcpPort("web", 80, api.FromInt(8080)), tcpPort("metrics", 9090, api.FromInt(9090))),
			pods: []*api.Pod{testPod("b", "10.1.0.2"), testPod("a", "10.1.0.1")},
			want: []api.EndpointSubset{{
				Addresses: addrs(addr("a", "10.1.0.1"), addr("b", "10.1.0.2")),
				Ports:     ports(eport("metrics", 9090), eport("web", 8080)),
			}},
		},
		{
			name: "named target port resolved per pod",
			svc:  testService(tcpPort("web", 80, api.FromString("http"))),
			pods: []*api.Pod{
				testPod("a", "10.1.0.1", containerPort("http", 8080)),
				testPod("b", "10.1.0.2", containerPort("http", 8081)),
				testPod("c", "10.1.0.3", containerPort("http", 8080)),
			},
			want: []api.EndpointSubset{
				{Addresses: addrs(addr("a", "10.1.0.1"), addr("c", "10.1.0.3")), Ports: ports(eport("web", 8080))},
				{Addresses: addrs(addr("b", "10.1.0.2")), Ports: ports(eport("web", 8081))},
			},
		},
		{
			name: "pod lacking the named port is skipped for that port only",
			svc:  testService(tcpPort("web", 80, api.FromString("http")), tcpPort("raw", 81, api.FromInt(9000))),
			pods: []*api.Pod{
				testPod("a", "10.1.0.1", containerPort("http", 8080)),
				testPod("b", "10.1.0.2"),
			},
			want: []api.EndpointSubset{
				{Addresses: addrs(addr("a", "10.1.0.1"), addr("b", "10.1.0.2")), Ports: ports(eport("raw", 9000))},
				{Addresses: addrs(addr("a", "10.1.0.1")), Ports: ports(eport("web", 8080))},
			},
		},
		{
			name: "named port must match the protocol",
			svc: testService(api.ServicePort{Name: "dns", Port: 53, Protocol: api.ProtocolUDP,
				TargetPort: api.FromString("dns")}),
			pods: []*api.Pod{testPod("a", "10.1.0.1", containerPort("dns", 5353))}, // TCP only
			want: nil,
		},
		{
			name: "protocol and appProtocol copied",
			svc: testService(api.ServicePort{Name: "q", Port: 53, Protocol: api.ProtocolUDP, AppProtocol: &httpApp,
				TargetPort: api.FromInt(5353)}),
			pods: []*api.Pod{testPod("a", "10.1.0.1")},
			want: []api.EndpointSubset{{
				Addresses: addrs(addr("a", "10.1.0.1")),
				Ports:     ports(api.EndpointPort{Name: "q", Port: 5353, Protocol: api.ProtocolUDP, AppProtocol: &httpApp}),
			}},
		},
		{
			name: "headless without ports: addresses without ports",
			svc:  headless(testService()),
			pods: []*api.Pod{testPod("a", "10.1.0.1"), testPod("b", "10.1.0.2", notReady())},
			want: []api.EndpointSubset{{
				Addresses: addrs(addr("a", "10.1.0.1")), NotReadyAddresses: addrs(addr("b", "10.1.0.2")),
			}},
		},
		{
			name: "headless with ports: as any service",
			svc:  headless(testService(tcpPort("", 80, api.FromInt(8080)))),
			pods: []*api.Pod{testPod("a", "10.1.0.1")},
			want: []api.EndpointSubset{{Addresses: addrs(addr("a", "10.1.0.1")), Ports: ports(eport("", 8080))}},
		},
		{
			name: "not headless without ports: nothing",
			svc:  testService(),
			pods: []*api.Pod{testPod("a", "10.1.0.1")},
			want: nil,
		},
		{
			name: "hostname set when the pod's subdomain is the service",
			svc:  headless(testService()),
			pods: []*api.Pod{
				testPod("a", "10.1.0.1", func(p *api.Pod) { p.Spec.Hostname, p.Spec.Subdomain = "a0", "web" }),
				testPod("b", "10.1.0.2", func(p *api.Pod) { p.Spec.Hostname, p.Spec.Subdomain = "b0", "other" }),
			},
			want: []api.EndpointSubset{{Addresses: addrs(
				func() api.EndpointAddress { a := addr("a", "10.1.0.1"); a.Hostname = "a0"; return a }(),
				addr("b", "10.1.0.2"),
			)}},
		},
		{
			name: "IPv6 service takes the pod's IPv6 address; a pod without one is skipped",
			svc: func() *api.Service {
				s := testService(tcpPort("", 80, api.FromInt(80)))
				s.Spec.ClusterIP, s.Spec.IPFamilies = "fd00::1", []api.IPFamily{api.IPv6Protocol}
				return s
			}(),
			pods: []*api.Pod{
				testPod("a", "10.1.0.1", func(p *api.Pod) { p.Status.PodIPs = []api.PodIP{{IP: "10.1.0.1"}, {IP: "fd01::1"}} }),
				testPod("b", "10.1.0.2"),
			},
			want: []api.EndpointSubset{{Addresses: addrs(addr("a", "fd01::1")), Ports: ports(eport("", 80))}},
		},
		{
			name: "terminal and IP-less pods left out, others kept",
			svc:  testService(tcpPort("", 80, api.FromInt(80))),
			pods: []*api.Pod{
				testPod("a", "10.1.0.1", phase(api.PodSucceeded)),
				testPod("b", "10.1.0.2", phase(api.PodFailed)),
				testPod("c", ""),
				testPod("d", "10.1.0.4"),
			},
			want: []api.EndpointSubset{{Addresses: addrs(addr("d", "10.1.0.4")), Ports: ports(eport("", 80))}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := tt.svc.DeepCopy()
			got := desiredSubsets(tt.svc, tt.pods)
			assert.Equal(t, tt.want, got)
			assert.True(t, subsetsEqual(tt.want, got))
			assert.Equal(t, before, tt.svc, "the service is not changed")

			// A packer used before, for another service, then reset,
			// packs the same and finds want equal without making it.
			var p packer
			p.collect(testService(tcpPort("", 80, api.FromInt(80))), []*api.Pod{testPod("z", "10.9.0.1"), testPod("y", "10.9.0.2", notReady())})
			p.pack(nil)
			p.reset()
			p.collect(tt.svc, tt.pods)
			assert.Equal(t, tt.want != nil, p.count() > 0)
			assert.True(t, p.equal(tt.want), "equal to what it packs")
			assert.Equal(t, tt.want, p.pack(nil))
		})
	}
}

// TestPackerEqualIsSubsetsEqual checks, on random pods and services, that
// a packer's equal, which compares without making the addresses, says what
// subsetsEqual says of what the packer would write, for that and for
// variations of it: each field of an address changed, addresses moved,
// dropped or added, ports changed. A resourceVersion alone is no change.
func TestPackerEqualIsSubsetsEqual(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 11))
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	var p packer // reused throughout, as the controller does
	for i := range 3000 {
		svc := testService()
		switch r.IntN(4) {
		case 0:
			svc.Spec.ClusterIP = api.ClusterIPNone // headless, maybe portless
		case 1:
			svc.Spec.Ports = []api.ServicePort{tcpPort("http", 80, api.FromString("web"))}
		default:
			for j := range 1 + r.IntN(2) {
				svc.Spec.Ports = append(svc.Spec.Ports, tcpPort(fmt.Sprintf("p%d", j), int32(80+j), api.FromInt(8080+j)))
			}
		}
		svc.Spec.PublishNotReadyAddresses = r.IntN(5) == 0
		var pods []*api.Pod
		for j := range r.IntN(6) {
			pod := testPod(fmt.Sprintf("p%d", j), pick("10.1.0.1", "10.1.0.2", "10.1.0.10", ""), rv(pick("1", "2")))
			if r.IntN(3) == 0 {
				notReady()(pod)
			}
			if r.IntN(4) == 0 {
				pod.Spec.NodeName = pick("", "node-2")
			}
			if r.IntN(4) == 0 {
				pod.Spec.Hostname, pod.Spec.Subdomain = "h", pick("web", "other")
			}
			if r.IntN(2) == 0 {
				containerPort("web", 8080)(pod)
			}
			pods = append(pods, pod)
		}
		p.reset()
		p.collect(svc, pods)
		got := p.pack(nil)
		require.Equal(t, desiredSubsets(svc, pods), got, "case %d: a reused packer packs as a new one", i)
		require.True(t, p.equal(got), "case %d", i)
		for v, variant := range variants(r, got) {
			assert.Equal(t, subsetsEqual(got, variant), p.equal(variant), "case %d, variant %d: %+v", i, v, variant)
		}
	}
}

// variants returns changed deep copies of subsets, one change each.
func variants(r *rand.Rand, subsets []api.EndpointSubset) [][]api.EndpointSubset {
	other := "other"
	changes := []func(a *api.EndpointAddress){
		func(a *api.EndpointAddress) { a.IP = "10.1.0.99" },
		func(a *api.EndpointAddress) { a.Hostname = "x" },
		func(a *api.EndpointAddress) { a.NodeName = nil },
		func(a *api.EndpointAddress) { a.NodeName = &other },
		func(a *api.EndpointAddress) { a.TargetRef = nil },
		func(a *api.EndpointAddress) { a.TargetRef.Name = other },
		func(a *api.EndpointAddress) { a.TargetRef.UID = "x" },
		func(a *api.EndpointAddress) { a.TargetRef.Kind = other },
		func(a *api.EndpointAddress) { a.TargetRef.APIVersion = "v1" },
		func(a *api.EndpointAddress) { a.TargetRef.FieldPath = other },
		func(a *api.EndpointAddress) { a.TargetRef.Namespace = other },
		func(a *api.EndpointAddress) { a.TargetRef.ResourceVersion = other }, // no change
	}
	var out [][]api.EndpointSubset
	cp := func() []api.EndpointSubset {
		c := make([]api.EndpointSubset, len(subsets))
		for i := range subsets {
			subsets[i].DeepCopyInto(&c[i])
		}
		return c
	}
	for si := range subsets {
		for _, list := range []func(s *api.EndpointSubset) *[]api.EndpointAddress{
			func(s *api.EndpointSubset) *[]api.EndpointAddress { return &s.Addresses },
			func(s *api.EndpointSubset) *[]api.EndpointAddress { return &s.NotReadyAddresses },
		} {
			n := len(*list(&subsets[si]))
			for ai := range n {
				c := cp()
				changes[r.IntN(len(changes))](&(*list(&c[si]))[ai])
				out = append(out, c)
			}
			if n > 0 {
				c := cp()
				*list(&c[si]) = (*list(&c[si]))[1:] // one dropped
				out = append(out, c)
				c = cp()
				*list(&c[si]) = append(*list(&c[si]), (*list(&c[si]))[0]) // one twice
				out = append(out, c)
			}
		}
		c := cp()
		c[si].Addresses, c[si].NotReadyAddresses = c[si].NotReadyAddresses, c[si].Addresses
		out = append(out, c)
		if len(c[si].Ports) > 0 {
			c = cp()
			c[si].Ports[0].Port++
			out = append(out, c)
			c = cp()
			c[si].Ports = c[si].Ports[1:]
			out = append(out, c)
		}
	}
	out = append(out, nil, append(cp(), api.EndpointSubset{Addresses: []api.EndpointAddress{{IP: "10.2.0.1"}}}))
	return out
}

// TestDesiredSubsetsIsCanonical: the same pods in any order, whatever
// port each serves, pack into identical subsets: ports served by the same
// addresses share a subset, addresses sorted by IP, subsets by first port.
func TestDesiredSubsetsIsCanonical(t *testing.T) {
	svc := testService(tcpPort("x", 80, api.FromInt(80)), tcpPort("y", 81, api.FromString("admin")))
	a := testPod("a", "10.1.0.1", containerPort("admin", 81))
	b := testPod("b", "10.1.0.2")
	c := testPod("c", "10.1.0.3", notReady())
	ca := addr("c", "10.1.0.3")
	want := []api.EndpointSubset{
		{Addresses: addrs(addr("a", "10.1.0.1"), addr("b", "10.1.0.2")), NotReadyAddresses: addrs(ca), Ports: ports(eport("x", 80))},
		{Addresses: addrs(addr("a", "10.1.0.1")), Ports: ports(eport("y", 81))},
	}
	for _, order := range [][]*api.Pod{{a, b, c}, {c, b, a}, {b, c, a}} {
		assert.Equal(t, want, desiredSubsets(svc, order))
	}
}

func TestSubsetsEqual(t *testing.T) {
	base := func() []api.EndpointSubset {
		return []api.EndpointSubset{{Addresses: addrs(addr("a", "10.1.0.1")), Ports: ports(eport("", 80))}}
	}
	tests := []struct {
		name   string
		change func([]api.EndpointSubset) []api.EndpointSubset
		equal  bool
	}{
		{"identical", func(s []api.EndpointSubset) []api.EndpointSubset { return s }, true},
		{"pod resourceVersion differs", func(s []api.EndpointSubset) []api.EndpointSubset {
			s[0].Addresses[0].TargetRef.ResourceVersion = "99"
			return s
		}, true},
		{"IP differs", func(s []api.EndpointSubset) []api.EndpointSubset { s[0].Addresses[0].IP = "10.1.0.9"; return s }, false},
		{"port differs", func(s []api.EndpointSubset) []api.EndpointSubset { s[0].Ports[0].Port = 81; return s }, false},
		{"moved to not ready", func(s []api.EndpointSubset) []api.EndpointSubset {
			s[0].NotReadyAddresses, s[0].Addresses = s[0].Addresses, nil
			return s
		}, false},
		{"empty", func([]api.EndpointSubset) []api.EndpointSubset { return nil }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.equal, subsetsEqual(base(), tt.change(base())))
		})
	}
	assert.True(t, subsetsEqual(nil, []api.EndpointSubset{}), "nil and empty are equal")
}

func TestLabels(t *testing.T) {
	svc := testService()
	svc.Metadata.Labels = map[string]string{"team": "a"}
	assert.Equal(t, map[string]string{"team": "a"}, desiredLabels(svc))
	svc.Spec.ClusterIP = api.ClusterIPNone
	assert.Equal(t, map[string]string{"team": "a", LabelHeadless: ""}, desiredLabels(svc))
	assert.Equal(t, map[string]string{"team": "a"}, svc.Metadata.Labels, "the service's labels are not changed")

	tests := []struct {
		name    string
		ep, svc map[string]string
		current bool
	}{
		{"equal", map[string]string{"a": "1"}, map[string]string{"a": "1"}, true},
		{"both empty", nil, map[string]string{}, true},
		{"headless label ignored", map[string]string{"a": "1", LabelHeadless: ""}, map[string]string{"a": "1"}, true},
		{"value changed", map[string]string{"a": "1"}, map[string]string{"a": "2"}, false},
		{"label added to service", nil, map[string]string{"a": "1"}, false},
		{"label removed from service", map[string]string{"a": "1"}, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.current, labelsCurrent(tt.ep, tt.svc))
		})
	}
}

func TestTruncate(t *testing.T) {
	many := func(prefix string, n int) []api.EndpointAddress {
		out := make([]api.EndpointAddress, n)
		for i := range out {
			out[i] = api.EndpointAddress{IP: fmt.Sprintf("10.%s.%d.%d", prefix, i/250, i%250+1)}
		}
		return out
	}
	tests := []struct {
		name          string
		in            []api.EndpointSubset
		limit         int
		wantTruncated bool
		wantReady     []int // per subset
		wantNotReady  []int
	}{
		{"under the limit", []api.EndpointSubset{{Addresses: many("1", 3), NotReadyAddresses: many("2", 2)}}, 5, false, []int{3}, []int{2}},
		{"not ready cut first", []api.EndpointSubset{{Addresses: many("1", 3), NotReadyAddresses: many("2", 4)}}, 5, true, []int{3}, []int{2}},
		{"ready over the limit: not ready dropped, ready cut", []api.EndpointSubset{{Addresses: many("1", 8), NotReadyAddresses: many("2", 4)}}, 5, true, []int{5}, []int{0}},
		{"proportional over subsets", []api.EndpointSubset{
			{Addresses: many("1", 750), Ports: ports(eport("a", 1))},
			{Addresses: many("2", 750), Ports: ports(eport("b", 2))},
		}, 1000, true, []int{500, 500}, []int{0, 0}},
		{"proportional, rounding up, never over the limit", []api.EndpointSubset{
			{Addresses: many("1", 1), NotReadyAddresses: many("3", 3), Ports: ports(eport("a", 1))},
			{Addresses: many("2", 1), NotReadyAddresses: many("4", 3), Ports: ports(eport("b", 2))},
		}, 5, true, []int{1, 1}, []int{2, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, truncated := truncate(tt.in, tt.limit)
			assert.Equal(t, tt.wantTruncated, truncated)
			require.Len(t, got, len(tt.wantReady))
			total := 0
			for i := range got {
				assert.Len(t, got[i].Addresses, tt.wantReady[i], "ready in subset %d", i)
				assert.Len(t, got[i].NotReadyAddresses, tt.wantNotReady[i], "not ready in subset %d", i)
				assert.Equal(t, tt.in[i].Ports, got[i].Ports)
				total += len(got[i].Addresses) + len(got[i].NotReadyAddresses)
			}
			assert.LessOrEqual(t, total, tt.limit)
		})
	}
}

func TestServicesToUpdate(t *testing.T) {
	// memberships: app=web → default/web; app=api → default/api; and
	// default/all picks everything.
	memberships := func(p *api.Pod, dst []string) []string {
		switch p.Metadata.Labels["app"] {
		case "web":
			return append(dst, "default/all", "default/web")
		case "api":
			return append(dst, "default/all", "default/api")
		}
		return append(dst, "default/all")
	}
	relabel := func(app string) podOpt { return func(p *api.Pod) { p.Metadata.Labels = map[string]string{"app": app} } }
	onNode := func(node string) podOpt { return func(p *api.Pod) { p.Spec.NodeName = node } }
	tests := []struct {
		name     string
		old, new *api.Pod
		want     []string
	}{
		{"resync (same resourceVersion)", testPod("p", "10.1.0.1"), testPod("p", "10.1.0.1", notReady()), nil},
		{"irrelevant change", testPod("p", "10.1.0.1"), testPod("p", "10.1.0.1", rv("2"), func(p *api.Pod) { p.Metadata.Annotations = map[string]string{"x": "y"} }), nil},
		{"readiness changed", testPod("p", "10.1.0.1"), testPod("p", "10.1.0.1", rv("2"), notReady()), []string{"default/all", "default/web"}},
		{"IP assigned", testPod("p", ""), testPod("p", "10.1.0.1", rv("2")), []string{"default/all", "default/web"}},
		{"deletion started", testPod("p", "10.1.0.1"), testPod("p", "10.1.0.1", rv("2"), terminating()), []string{"default/all", "default/web"}},
		{"not-ready pod finished", testPod("p", "10.1.0.1", notReady()), testPod("p", "10.1.0.1", rv("2"), notReady(), phase(api.PodFailed)), []string{"default/all", "default/web"}},
		{"labels only: services gained or lost", testPod("p", "10.1.0.1"), testPod("p", "10.1.0.1", rv("2"), relabel("api")), []string{"default/api", "default/web"}},
		{"labels and readiness: old and new services", testPod("p", "10.1.0.1"), testPod("p", "10.1.0.1", rv("2"), relabel("api"), notReady()), []string{"default/all", "default/api", "default/web"}},
		// Kubernetes ignores the node, set before the pod has an IP.
		{"bound before it has an IP", testPod("p", "", onNode("")), testPod("p", "", rv("2")), nil},
		{"bound with an IP", testPod("p", "10.1.0.1", onNode("")), testPod("p", "10.1.0.1", rv("2")), []string{"default/all", "default/web"}},
		{"node changed under an IP", testPod("p", "10.1.0.1"), testPod("p", "10.1.0.1", rv("2"), onNode("node-2")), []string{"default/all", "default/web"}},
		{"IPs only, bound", testPod("p", "", onNode(""), func(p *api.Pod) { p.Status.PodIPs = []api.PodIP{{IP: "10.1.0.1"}} }),
			testPod("p", "", rv("2"), func(p *api.Pod) { p.Status.PodIPs = []api.PodIP{{IP: "10.1.0.1"}} }), []string{"default/all", "default/web"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, ServicesToUpdate(tt.old, tt.new, memberships, nil))
			dst := []string{"queued/before"}
			assert.Equal(t, append(dst, tt.want...), ServicesToUpdate(tt.old, tt.new, memberships, dst), "appended to dst")
		})
	}
}
