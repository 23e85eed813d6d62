package fit

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/miniplane/miniplane/api"
)

func TestParseQuantity(t *testing.T) {
	tests := []struct {
		in    string
		milli int64
		want  int64
		ok    bool
	}{
		{"2", 1000, 2000, true},
		{"500m", 1000, 500, true},
		{"1.5", 1000, 1500, true},
		{"0.1", 1000, 100, true},
		{"1n", 1000, 1, true}, // rounded up, as MilliValue rounds
		{"128Mi", 1, 128 << 20, true},
		{"1G", 1, 1e9, true},
		{"1e3", 1, 1000, true},
		{"1.5Gi", 1, 3 << 29, true},
		{"16Ei", 1000, math.MaxInt64, true},
		{"lots", 1, 0, false},
		{"1Q", 1, 0, false},
		{"", 1, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, ok := parseQuantity(tt.in, tt.milli)
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.want, got)
		})
	}
}

func container(requests api.ResourceList) api.Container {
	return api.Container{Name: "c", Resources: api.ResourceRequirements{Requests: requests}}
}

func TestPodRequests(t *testing.T) {
	tests := []struct {
		name string
		spec api.PodSpec
		want *Resource
	}{
		{"nothing requested", api.PodSpec{Containers: []api.Container{{Name: "c"}}}, nil},
		{"containers add up", api.PodSpec{Containers: []api.Container{
			container(api.ResourceList{"cpu": "500m", "memory": "1Gi"}), container(api.ResourceList{"cpu": "1"})}},
			&Resource{MilliCPU: 1500, Memory: 1 << 30}},
		{"the largest init container wins where it is larger", api.PodSpec{
			InitContainers: []api.Container{container(api.ResourceList{"cpu": "2"}), container(api.ResourceList{"memory": "64Mi"})},
			Containers:     []api.Container{container(api.ResourceList{"cpu": "500m", "memory": "1Gi"})}},
			&Resource{MilliCPU: 2000, Memory: 1 << 30}},
		{"overhead is added", api.PodSpec{Overhead: api.ResourceList{"cpu": "250m"},
			Containers: []api.Container{container(api.ResourceList{"cpu": "1"})}},
			&Resource{MilliCPU: 1250}},
		{"extended resources and ephemeral storage", api.PodSpec{Containers: []api.Container{
			container(api.ResourceList{"example.com/gpu": "2", "ephemeral-storage": "1G"})}},
			&Resource{EphemeralStorage: 1e9, Scalar: map[string]int64{"example.com/gpu": 2}}},
		{"zero requests are none", api.PodSpec{Containers: []api.Container{container(api.ResourceList{"cpu": "0"})}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, PodRequests(&tt.spec))
		})
	}
}

// node4 is a node like nodesim's: 4 cpus, 16Gi, 110 pods.
func node4(name string) Node {
	return Node{Name: name, Labels: map[string]string{"kubernetes.io/hostname": name, "zone": "a", "gen": "3"},
		Allocatable: Resource{MilliCPU: 4000, Memory: 16 << 30}, AllowedPods: 110}
}

func affinity(terms ...api.NodeSelectorTerm) *api.Affinity {
	return &api.Affinity{NodeAffinity: &api.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &api.NodeSelector{NodeSelectorTerms: terms}}}
}

func expr(key, op string, values ...string) api.NodeSelectorTerm {
	return api.NodeSelectorTerm{MatchExpressions: []api.NodeSelectorRequirement{{Key: key, Operator: op, Values: values}}}
}

func TestFilter(t *testing.T) {
	noSchedule := api.Taint{Key: "dedicated", Value: "gpu", Effect: api.TaintEffectNoSchedule}
	tests := []struct {
		name string
		spec api.PodSpec
		node func(n *Node)
		want Status
	}{
		{"an empty pod fits", api.PodSpec{}, nil, Status{}},
		{"cordoned", api.PodSpec{}, func(n *Node) { n.Unschedulable = true }, Status{[]string{ReasonUnschedulable}, true}},
		{"cordoned, tolerated", api.PodSpec{Tolerations: []api.Toleration{{Key: TaintNodeUnschedulable, Operator: api.TolerationOpExists}}},
			func(n *Node) { n.Unschedulable = true }, Status{}},
		{"cordoned goes before taints", api.PodSpec{}, func(n *Node) { n.Unschedulable, n.Taints = true, []api.Taint{noSchedule} },
			Status{[]string{ReasonUnschedulable}, true}},
		{"untolerated taint", api.PodSpec{}, func(n *Node) { n.Taints = []api.Taint{noSchedule} },
			Status{[]string{"node(s) had untolerated taint {dedicated: gpu}"}, true}},
		{"taint without a value", api.PodSpec{}, func(n *Node) { n.Taints = []api.Taint{{Key: TaintNodeUnreachable, Effect: api.TaintEffectNoSchedule}} },
			Status{[]string{"node(s) had untolerated taint {node.kubernetes.io/unreachable: }"}, true}},
		{"PreferNoSchedule does not filter", api.PodSpec{}, func(n *Node) {
			n.Taints = []api.Taint{{Key: "k", Effect: api.TaintEffectPreferNoSchedule}}
		}, Status{}},
		{"tolerated by Equal", api.PodSpec{Tolerations: []api.Toleration{{Key: "dedicated", Value: "gpu", Effect: api.TaintEffectNoSchedule}}},
			func(n *Node) { n.Taints = []api.Taint{noSchedule} }, Status{}},
		{"wrong value is not tolerated", api.PodSpec{Tolerations: []api.Toleration{{Key: "dedicated", Operator: api.TolerationOpEqual, Value: "cpu"}}},
			func(n *Node) { n.Taints = []api.Taint{noSchedule} }, Status{[]string{"node(s) had untolerated taint {dedicated: gpu}"}, true}},
		{"wrong effect is not tolerated", api.PodSpec{Tolerations: []api.Toleration{{Key: "dedicated", Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute}}},
			func(n *Node) { n.Taints = []api.Taint{noSchedule} }, Status{[]string{"node(s) had untolerated taint {dedicated: gpu}"}, true}},
		{"empty key Exists tolerates everything", api.PodSpec{Tolerations: []api.Toleration{{Operator: api.TolerationOpExists}}},
			func(n *Node) { n.Taints = []api.Taint{noSchedule, {Key: "x", Effect: api.TaintEffectNoExecute}} }, Status{}},
		{"nodeSelector matches", api.PodSpec{NodeSelector: map[string]string{"zone": "a"}}, nil, Status{}},
		{"nodeSelector does not", api.PodSpec{NodeSelector: map[string]string{"zone": "b"}}, nil, Status{[]string{ReasonNodeAffinity}, true}},
		{"affinity In", api.PodSpec{Affinity: affinity(expr("zone", "In", "b", "a"))}, nil, Status{}},
		{"affinity NotIn", api.PodSpec{Affinity: affinity(expr("zone", "NotIn", "a"))}, nil, Status{[]string{ReasonNodeAffinity}, true}},
		{"affinity NotIn a missing label", api.PodSpec{Affinity: affinity(expr("disk", "NotIn", "ssd"))}, nil, Status{}},
		{"affinity Exists", api.PodSpec{Affinity: affinity(expr("zone", "Exists"))}, nil, Status{}},
		{"affinity DoesNotExist", api.PodSpec{Affinity: affinity(expr("zone", "DoesNotExist"))}, nil, Status{[]string{ReasonNodeAffinity}, true}},
		{"affinity Gt", api.PodSpec{Affinity: affinity(expr("gen", "Gt", "2"))}, nil, Status{}},
		{"affinity Lt", api.PodSpec{Affinity: affinity(expr("gen", "Lt", "3"))}, nil, Status{[]string{ReasonNodeAffinity}, true}},
		{"affinity Gt of a label that is not a number", api.PodSpec{Affinity: affinity(expr("zone", "Gt", "1"))}, nil, Status{[]string{ReasonNodeAffinity}, true}},
		{"affinity terms are ORed", api.PodSpec{Affinity: affinity(expr("zone", "In", "b"), expr("zone", "In", "a"))}, nil, Status{}},
		{"an empty term matches nothing", api.PodSpec{Affinity: affinity(api.NodeSelectorTerm{})}, nil, Status{[]string{ReasonNodeAffinity}, true}},
		{"matchFields metadata.name", api.PodSpec{Affinity: affinity(api.NodeSelectorTerm{MatchFields: []api.NodeSelectorRequirement{
			{Key: "metadata.name", Operator: "In", Values: []string{"n"}}}})}, nil, Status{}},
		{"matchFields another name", api.PodSpec{Affinity: affinity(api.NodeSelectorTerm{MatchFields: []api.NodeSelectorRequirement{
			{Key: "metadata.name", Operator: "In", Values: []string{"m"}}}})}, nil, Status{[]string{ReasonNodeAffinity}, true}},
		{"nodeSelector and affinity must both match", api.PodSpec{NodeSelector: map[string]string{"zone": "b"}, Affinity: affinity(expr("zone", "In", "a"))},
			nil, Status{[]string{ReasonNodeAffinity}, true}},
		{"too much cpu", api.PodSpec{Containers: []api.Container{container(api.ResourceList{"cpu": "1000"})}}, nil,
			Status{Reasons: []string{"Insufficient cpu"}}},
		{"cpu fits exactly what is left", api.PodSpec{Containers: []api.Container{container(api.ResourceList{"cpu": "1"})}},
			func(n *Node) { n.Requested.MilliCPU = 3000 }, Status{}},
		{"cpu taken by other pods", api.PodSpec{Containers: []api.Container{container(api.ResourceList{"cpu": "1001m"})}},
			func(n *Node) { n.Requested.MilliCPU = 3000 }, Status{Reasons: []string{"Insufficient cpu"}}},
		{"every shortage is a reason", api.PodSpec{Containers: []api.Container{container(api.ResourceList{"cpu": "5", "memory": "17Gi", "example.com/gpu": "1"})}},
			func(n *Node) { n.Pods = 110 }, Status{Reasons: []string{"Too many pods", "Insufficient cpu", "Insufficient memory", "Insufficient example.com/gpu"}}},
		{"a full node refuses even an empty pod", api.PodSpec{}, func(n *Node) { n.Pods = 110 }, Status{Reasons: []string{"Too many pods"}}},
		{"affinity goes before resources", api.PodSpec{NodeSelector: map[string]string{"zone": "b"}, Containers: []api.Container{container(api.ResourceList{"cpu": "1000"})}},
			nil, Status{[]string{ReasonNodeAffinity}, true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := node4("n")
			if tt.node != nil {
				tt.node(&n)
			}
			assert.Equal(t, tt.want, Filter(NewPod(&tt.spec), &n))
		})
	}
}

func TestSchedule(t *testing.T) {
	big := api.PodSpec{Containers: []api.Container{container(api.ResourceList{"cpu": "1000"})}}
	three := func(change func(i int, n *Node)) []Node {
		nodes := []Node{node4("node-0"), node4("node-1"), node4("node-2")}
		for i := range nodes {
			if change != nil {
				change(i, &nodes[i])
			}
		}
		return nodes
	}
	tests := []struct {
		name     string
		spec     api.PodSpec
		nodes    []Node
		want     string
		wantWhy  string
		wantFits bool
	}{
		{"fewest pods wins", api.PodSpec{}, three(func(i int, n *Node) { n.Pods = 3 - i }), "node-2", "", true},
		{"ties by name", api.PodSpec{}, three(nil), "node-0", "", true},
		{"the one that fits", api.PodSpec{NodeSelector: map[string]string{"kubernetes.io/hostname": "node-1"}}, three(nil), "node-1", "", true},
		{"no nodes", api.PodSpec{}, nil, "", NoNodesMessage, false},
		{"too big everywhere", big, three(nil), "",
			"0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.", false},
		{"mixed reasons, sorted as strings", big, three(func(i int, n *Node) {
			switch i {
			case 0:
				n.Taints = []api.Taint{{Key: "dedicated", Value: "gpu", Effect: api.TaintEffectNoExecute}}
			case 1:
				n.Unschedulable = true
			}
		}), "",
			"0/3 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint {dedicated: gpu}, 1 node(s) were unschedulable. " +
				"preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling.", false},
		{"counts sort as strings: 10 before 2", api.PodSpec{NodeSelector: map[string]string{"zone": "z"}}, func() []Node {
			var nodes []Node
			for i := range 12 {
				n := node4("n" + string(rune('a'+i)))
				if i < 2 {
					n.Labels = map[string]string{"zone": "z"}
					n.Pods = 110
				}
				nodes = append(nodes, n)
			}
			return nodes
		}(), "",
			"0/12 nodes are available: 10 node(s) didn't match Pod's node affinity/selector, 2 Too many pods. " +
				"preemption: 0/12 nodes are available: 10 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod.", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok, why := Schedule(NewPod(&tt.spec), tt.nodes)
			assert.Equal(t, tt.wantFits, ok)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.wantWhy, why)
		})
	}
}
