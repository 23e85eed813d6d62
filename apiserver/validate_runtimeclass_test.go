package apiserver

import (
	"testing"

	"github.com/miniplane/miniplane/api"
)

// The cases of Kubernetes' TestValidateRuntimeClass, TestValidateOverhead
// and TestValidateScheduling (pkg/apis/node/validation), with the messages
// and paths kube-apiserver gives.
func TestValidateRuntimeClass(t *testing.T) {
	for _, tc := range []struct {
		name   string
		rc     api.RuntimeClass
		want   string
		causes []cause
	}{
		{name: "valid handler", rc: api.RuntimeClass{Metadata: api.ObjectMeta{Name: "foo"}, Handler: "bar-baz"}},
		{name: "invalid name", rc: api.RuntimeClass{Metadata: api.ObjectMeta{Name: "&!@#"}, Handler: "foo"},
			want: `metadata.name: Invalid value: "&!@#": ` + msgDNS1123Subdomain, causes: []cause{{invalid, "metadata.name"}}},
		{name: "invalid handler", rc: api.RuntimeClass{Metadata: api.ObjectMeta{Name: "foo"}, Handler: "&@#$"},
			want: `handler: Invalid value: "&@#$": ` + msgDNS1123Label, causes: []cause{{invalid, "handler"}}},
		{name: "empty handler", rc: api.RuntimeClass{Metadata: api.ObjectMeta{Name: "empty"}},
			want: `handler: Invalid value: "": ` + msgDNS1123Label, causes: []cause{{invalid, "handler"}}},
		{name: "valid overhead", rc: api.RuntimeClass{Metadata: api.ObjectMeta{Name: "foo"}, Handler: "bar",
			Overhead: &api.Overhead{PodFixed: api.ResourceList{"cpu": "10", "memory": "10G"}}}},
		{name: "overhead of an unknown resource", rc: api.RuntimeClass{Metadata: api.ObjectMeta{Name: "foo"}, Handler: "bar",
			Overhead: &api.Overhead{PodFixed: api.ResourceList{"my.org": "10m"}}},
			want:   `overhead.limits[my.org]: Invalid value: "my.org": must be a standard resource type or fully qualified`,
			causes: []cause{{invalid, "overhead.limits[my.org]"}}},
		{name: "valid scheduling", rc: api.RuntimeClass{Metadata: api.ObjectMeta{Name: "foo"}, Handler: "bar", Scheduling: &api.Scheduling{
			NodeSelector: map[string]string{"valid": "yes"},
			Tolerations:  []api.Toleration{{Key: "valid", Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule}}}}},
		{name: "empty scheduling", rc: api.RuntimeClass{Metadata: api.ObjectMeta{Name: "foo"}, Handler: "bar", Scheduling: &api.Scheduling{}}},
		{name: "invalid node selector", rc: api.RuntimeClass{Metadata: api.ObjectMeta{Name: "foo"}, Handler: "bar", Scheduling: &api.Scheduling{
			NodeSelector: map[string]string{"not a valid key!!!": "nope"}}},
			want:   `scheduling.nodeSelector: Invalid value: "not a valid key!!!": name part ` + msgQualifiedNamePart,
			causes: []cause{{invalid, "scheduling.nodeSelector"}}},
		{name: "invalid toleration, at upstream's doubled path", rc: api.RuntimeClass{Metadata: api.ObjectMeta{Name: "foo"}, Handler: "bar", Scheduling: &api.Scheduling{
			Tolerations: []api.Toleration{{Key: "valid", Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule},
				{Key: "not a valid key!!!", Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule}}}},
			want:   `scheduling.tolerations.tolerations[1].key: Invalid value: "not a valid key!!!": name part ` + msgQualifiedNamePart,
			causes: []cause{{invalid, "scheduling.tolerations.tolerations[1].key"}}},
		{name: "duplicate tolerations", rc: api.RuntimeClass{Metadata: api.ObjectMeta{Name: "foo"}, Handler: "bar", Scheduling: &api.Scheduling{
			Tolerations: []api.Toleration{{Key: "valid", Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute},
				{Key: "valid", Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute}}}},
			want:   `scheduling.tolerations[1]: Duplicate value: core.Toleration{Key:"valid", Operator:"Exists", Value:"", Effect:"NoExecute", TolerationSeconds:(*int64)(nil)}`,
			causes: []cause{{duplicate, "scheduling.tolerations[1]"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assertErrors(t, validateRuntimeClass(&tc.rc), tc.want, tc.causes)
		})
	}
}

// The cases of Kubernetes' TestValidateRuntimeUpdate.
func TestValidateRuntimeClassUpdate(t *testing.T) {
	old := &api.RuntimeClass{Metadata: api.ObjectMeta{Name: "foo", ResourceVersion: "1"}, Handler: "bar"}
	for _, tc := range []struct {
		name   string
		change func(*api.RuntimeClass)
		want   string
		causes []cause
	}{
		{name: "labels may change", change: func(rc *api.RuntimeClass) { rc.Metadata.Labels = map[string]string{"foo": "bar"} }},
		{name: "the handler may not", change: func(rc *api.RuntimeClass) { rc.Handler = "somethingelse" },
			want: `handler: Invalid value: "somethingelse": field is immutable`, causes: []cause{{invalid, "handler"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rc := old.DeepCopy()
			tc.change(rc)
			assertErrors(t, validateRuntimeClassUpdate(rc, old), tc.want, tc.causes)
		})
	}
}
