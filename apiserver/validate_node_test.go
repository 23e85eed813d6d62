package apiserver

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/miniplane/miniplane/api"
)

func validNode() *api.Node {
	return &api.Node{
		Metadata: api.ObjectMeta{Name: "node-1", Labels: map[string]string{"kubernetes.io/hostname": "node-1"}},
		Spec: api.NodeSpec{
			PodCIDR:    "10.244.1.0/24",
			ProviderID: "sim://node-1",
			Taints: []api.Taint{
				{Key: "node-role.kubernetes.io/control-plane", Effect: api.TaintEffectNoSchedule},
				{Key: "dedicated", Value: "db", Effect: api.TaintEffectNoExecute},
			},
		},
		Status: api.NodeStatus{
			Capacity:  api.ResourceList{"cpu": "4", "memory": "16Gi", "pods": "110"},
			Addresses: []api.NodeAddress{{Type: api.NodeInternalIP, Address: "192.168.0.10"}, {Type: api.NodeHostName, Address: "node-1"}},
		},
	}
}

func TestDefaultNode(t *testing.T) {
	n := validNode()
	defaultNode(n)
	assert.Equal(t, []string{"10.244.1.0/24"}, n.Spec.PodCIDRs)
	assert.Equal(t, n.Status.Capacity, n.Status.Allocatable)
	n.Status.Allocatable["cpu"] = "3"
	assert.Equal(t, "4", n.Status.Capacity["cpu"], "allocatable is a copy")

	dual := &api.Node{Spec: api.NodeSpec{PodCIDR: "ignored", PodCIDRs: []string{"10.244.2.0/24", "fd00:2::/64"}}}
	defaultNode(dual)
	assert.Equal(t, "10.244.2.0/24", dual.Spec.PodCIDR, "podCIDR is podCIDRs[0]")
	assert.Nil(t, dual.Status.Allocatable)
}

func TestValidateNode(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*api.Node)
		want   string
		causes []cause
	}{
		{name: "valid", change: func(*api.Node) {}},
		{name: "dual stack", change: func(n *api.Node) { n.Spec.PodCIDR, n.Spec.PodCIDRs = "", []string{"10.244.1.0/24", "fd00:1::/64"} }},
		{name: "no name", change: func(n *api.Node) { n.Metadata.Name = "" },
			want: "metadata.name: Required value: name or generateName is required", causes: []cause{{required, "metadata.name"}}},
		{name: "namespaced", change: func(n *api.Node) { n.Metadata.Namespace = "default" },
			want: "metadata.namespace: Forbidden: not allowed on this type", causes: []cause{{forbidden, "metadata.namespace"}}},
		{name: "taint without effect", change: func(n *api.Node) { n.Spec.Taints[1].Effect = "" },
			want: "spec.taints[1].effect: Required value", causes: []cause{{required, "spec.taints[1].effect"}}},
		{name: "taint with bad effect", change: func(n *api.Node) { n.Spec.Taints[1].Effect = "Evict" },
			want:   `spec.taints[1].effect: Unsupported value: "Evict": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"`,
			causes: []cause{{notSupported, "spec.taints[1].effect"}}},
		{name: "taint with bad key", change: func(n *api.Node) { n.Spec.Taints[1].Key = "" },
			want:   `[spec.taints[1].key: Invalid value: "": name part must be non-empty, spec.taints[1].key: Invalid value: "": name part ` + msgQualifiedNamePart + `]`,
			causes: []cause{{invalid, "spec.taints[1].key"}, {invalid, "spec.taints[1].key"}}},
		{name: "taint with bad value", change: func(n *api.Node) { n.Spec.Taints[1].Value = "a b" },
			want: `spec.taints[1].value: Invalid value: "a b": ` + msgLabelValue, causes: []cause{{invalid, "spec.taints[1].value"}}},
		{name: "same taint twice", change: func(n *api.Node) {
			n.Spec.Taints[1] = api.Taint{Key: n.Spec.Taints[0].Key, Value: "x", Effect: api.TaintEffectNoSchedule}
		},
			want:   `spec.taints[1]: Duplicate value: {"key":"node-role.kubernetes.io/control-plane","value":"x","effect":"NoSchedule"}: taints must be unique by key and effect pair`,
			causes: []cause{{duplicate, "spec.taints[1]"}}},
		{name: "same key, other effect", change: func(n *api.Node) { n.Spec.Taints[1].Key = n.Spec.Taints[0].Key }},
		{name: "bad podCIDR", change: func(n *api.Node) { n.Spec.PodCIDRs = nil; n.Spec.PodCIDR = "10.244.1.0" },
			want:   `spec.podCIDRs[0]: Invalid value: "10.244.1.0": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)`,
			causes: []cause{{invalid, "spec.podCIDRs[0]"}}},
		{name: "two IPv4 pod CIDRs", change: func(n *api.Node) { n.Spec.PodCIDRs = []string{"10.244.1.0/24", "10.244.1.0/24"} },
			want: `[spec.podCIDRs: Invalid value: []string{"10.244.1.0/24", "10.244.1.0/24"}: may specify no more than one CIDR for each IP family, ` +
				`spec.podCIDRs[1]: Duplicate value: "10.244.1.0/24"]`,
			causes: []cause{{invalid, "spec.podCIDRs"}, {duplicate, "spec.podCIDRs[1]"}}},
		{name: "bad capacity", change: func(n *api.Node) { n.Status.Capacity["memory"] = "16 GB" },
			// Allocatable defaults to capacity, so it is reported twice.
			want: `[status.capacity.memory: Invalid value: "16 GB": ` + msgQuantityFormat + `, ` +
				`status.allocatable.memory: Invalid value: "16 GB": ` + msgQuantityFormat + `]`,
			causes: []cause{{invalid, "status.capacity.memory"}, {invalid, "status.allocatable.memory"}}},
		{name: "negative allocatable", change: func(n *api.Node) { n.Status.Allocatable = api.ResourceList{"pods": "-1", "cpu": "x"} },
			want: `[status.allocatable.cpu: Invalid value: "x": ` + msgQuantityFormat + `, ` +
				`status.allocatable.pods: Invalid value: "-1": must be greater than or equal to 0]`,
			causes: []cause{{invalid, "status.allocatable.cpu"}, {invalid, "status.allocatable.pods"}}},
		{name: "same address twice", change: func(n *api.Node) { n.Status.Addresses = append(n.Status.Addresses, n.Status.Addresses[0]) },
			want:   `status.addresses[2]: Duplicate value: {"type":"InternalIP","address":"192.168.0.10"}`,
			causes: []cause{{duplicate, "status.addresses[2]"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := validNode()
			tc.change(n)
			defaultNode(n)
			assertErrors(t, validateNode(n), tc.want, tc.causes)
		})
	}
}

func TestValidateNodeUpdate(t *testing.T) {
	const cidrChange = "spec.podCIDRs: Forbidden: node updates may not change podCIDR except from \"\" to valid"
	for _, tc := range []struct {
		name   string
		old    func(*api.Node)
		change func(*api.Node)
		want   string
		causes []cause
	}{
		{name: "cordon and taint", change: func(n *api.Node) {
			n.Spec.Unschedulable = true
			n.Spec.Taints = append(n.Spec.Taints, api.Taint{Key: "node.kubernetes.io/unschedulable", Effect: api.TaintEffectNoSchedule})
		}},
		{name: "podCIDR set once", old: func(n *api.Node) { n.Spec.PodCIDR, n.Spec.PodCIDRs = "", nil }, change: func(*api.Node) {}},
		{name: "podCIDR changed", change: func(n *api.Node) { n.Spec.PodCIDR, n.Spec.PodCIDRs = "10.244.9.0/24", nil },
			want: cidrChange, causes: []cause{{forbidden, "spec.podCIDRs"}}},
		{name: "podCIDR removed", change: func(n *api.Node) { n.Spec.PodCIDR, n.Spec.PodCIDRs = "", nil },
			want: cidrChange, causes: []cause{{forbidden, "spec.podCIDRs"}}},
		{name: "providerID changed", change: func(n *api.Node) { n.Spec.ProviderID = "sim://node-2" },
			want:   "spec.providerID: Forbidden: node updates may not change providerID except from \"\" to valid",
			causes: []cause{{forbidden, "spec.providerID"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old := validNode()
			if tc.old != nil {
				tc.old(old)
			}
			defaultNode(old)
			n := validNode()
			tc.change(n)
			defaultNode(n)
			assertErrors(t, validateNodeUpdate(n, old), tc.want, tc.causes)
		})
	}
}
