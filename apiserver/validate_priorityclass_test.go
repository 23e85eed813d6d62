package apiserver

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/miniplane/miniplane/api"
)

func TestDefaultPriorityClass(t *testing.T) {
	pc := &api.PriorityClass{Metadata: api.ObjectMeta{Name: "high"}, Value: 1000}
	defaultPriorityClass(pc)
	assert.Equal(t, ptrTo(api.PreemptLowerPriority), pc.PreemptionPolicy)
	never := &api.PriorityClass{Metadata: api.ObjectMeta{Name: "low"}, PreemptionPolicy: ptrTo(api.PreemptNever)}
	defaultPriorityClass(never)
	assert.Equal(t, ptrTo(api.PreemptNever), never.PreemptionPolicy, "a set policy is kept")
}

// The cases of Kubernetes' TestValidatePriorityClass
// (pkg/apis/scheduling/validation).
func TestValidatePriorityClass(t *testing.T) {
	const reserved = "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: "
	for _, tc := range []struct {
		name   string
		pc     api.PriorityClass
		want   string
		causes []cause
	}{
		{name: "valid", pc: api.PriorityClass{Metadata: api.ObjectMeta{Name: "tier1"}, Value: 100}},
		{name: "the highest user value", pc: api.PriorityClass{Metadata: api.ObjectMeta{Name: "tier1"}, Value: 1_000_000_000}},
		{name: "system class", pc: *systemPriorityClasses()[0]},
		{name: "never preempts", pc: api.PriorityClass{Metadata: api.ObjectMeta{Name: "tier1"}, PreemptionPolicy: ptrTo(api.PreemptNever)}},
		{name: "no name", pc: api.PriorityClass{Value: 100},
			want: "metadata.name: Required value: name or generateName is required", causes: []cause{{required, "metadata.name"}}},
		{name: "namespaced", pc: api.PriorityClass{Metadata: api.ObjectMeta{Name: "tier1", Namespace: "foo"}, Value: 100},
			want: `metadata.namespace: Forbidden: not allowed on this type`, causes: []cause{{forbidden, "metadata.namespace"}}},
		{name: "invalid name", pc: api.PriorityClass{Metadata: api.ObjectMeta{Name: "tier&1"}, Value: 100},
			want: `metadata.name: Invalid value: "tier&1": ` + msgDNS1123Subdomain, causes: []cause{{invalid, "metadata.name"}}},
		{name: "unknown system name", pc: api.PriorityClass{Metadata: api.ObjectMeta{Name: "system-something"}, Value: 100},
			want: reserved + "system-something is not a known system priority class", causes: []cause{{forbidden, "metadata.name"}}},
		{name: "system name, other value", pc: api.PriorityClass{Metadata: api.ObjectMeta{Name: "system-cluster-critical"}, Value: 100},
			want: reserved + "value of system-cluster-critical PriorityClass must be 2000000000", causes: []cause{{forbidden, "metadata.name"}}},
		{name: "system name, made default", pc: api.PriorityClass{Metadata: api.ObjectMeta{Name: "system-node-critical"}, Value: 2000001000, GlobalDefault: true},
			want: reserved + "globalDefault of system-node-critical PriorityClass must be false", causes: []cause{{forbidden, "metadata.name"}}},
		{name: "too high", pc: api.PriorityClass{Metadata: api.ObjectMeta{Name: "tier1"}, Value: 1_000_000_001},
			want: "value: Forbidden: maximum allowed value of a user defined priority is 1000000000", causes: []cause{{forbidden, "value"}}},
		{name: "unknown policy", pc: api.PriorityClass{Metadata: api.ObjectMeta{Name: "tier1"}, PreemptionPolicy: ptrTo(api.PreemptionPolicy("Sometimes"))},
			want:   `preemptionPolicy: Unsupported value: "Sometimes": supported values: "PreemptLowerPriority", "Never"`,
			causes: []cause{{notSupported, "preemptionPolicy"}}},
		{name: "empty policy", pc: api.PriorityClass{Metadata: api.ObjectMeta{Name: "tier1"}, PreemptionPolicy: ptrTo(api.PreemptionPolicy(""))},
			want: "preemptionPolicy: Required value", causes: []cause{{required, "preemptionPolicy"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assertErrors(t, validatePriorityClass(&tc.pc), tc.want, tc.causes)
		})
	}
}

// The cases of Kubernetes' TestValidatePriorityClassUpdate.
func TestValidatePriorityClassUpdate(t *testing.T) {
	old := &api.PriorityClass{Metadata: api.ObjectMeta{Name: "tier1", UID: "u1", ResourceVersion: "1"}, Value: 100,
		PreemptionPolicy: ptrTo(api.PreemptLowerPriority)}
	for _, tc := range []struct {
		name   string
		change func(*api.PriorityClass)
		want   string
		causes []cause
	}{
		{name: "description and default may change", change: func(pc *api.PriorityClass) {
			pc.Description = "used for tier1"
			pc.GlobalDefault = true
		}},
		{name: "value", change: func(pc *api.PriorityClass) { pc.Value = 101 },
			want: "value: Forbidden: may not be changed in an update.", causes: []cause{{forbidden, "value"}}},
		{name: "preemption policy", change: func(pc *api.PriorityClass) { pc.PreemptionPolicy = ptrTo(api.PreemptNever) },
			want: `preemptionPolicy: Invalid value: "Never": field is immutable`, causes: []cause{{invalid, "preemptionPolicy"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pc := old.DeepCopy()
			tc.change(pc)
			assertErrors(t, validatePriorityClassUpdate(pc, old), tc.want, tc.causes)
		})
	}
}
