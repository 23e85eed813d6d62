package apiserver

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/miniplane/miniplane/api"
)

func validDaemonSet() *api.DaemonSet {
	ds := &api.DaemonSet{Metadata: api.ObjectMeta{Name: "agent", Namespace: "default"}}
	ds.Spec.Selector = &api.LabelSelector{MatchLabels: map[string]string{"app": "agent"}}
	ds.Spec.Template.Metadata.Labels = map[string]string{"app": "agent"}
	ds.Spec.Template.Spec.Containers = []api.Container{{Name: "agent", Image: "busybox"}}
	return ds
}

func TestDefaultDaemonSet(t *testing.T) {
	ds := validDaemonSet()
	defaultDaemonSet(ds)
	s := ds.Spec
	assert.Equal(t, api.RollingUpdateDaemonSetStrategyType, s.UpdateStrategy.Type)
	assert.Equal(t, &api.RollingUpdateDaemonSet{MaxUnavailable: ptr(api.FromInt(1)), MaxSurge: ptr(api.FromInt(0))}, s.UpdateStrategy.RollingUpdate)
	assert.Equal(t, ptr(int32(10)), s.RevisionHistoryLimit)
	assert.Equal(t, api.RestartPolicyAlways, s.Template.Spec.RestartPolicy, "the pod spec's defaults")

	onDelete := validDaemonSet()
	onDelete.Spec.UpdateStrategy.Type = api.OnDeleteDaemonSetStrategyType
	defaultDaemonSet(onDelete)
	assert.Nil(t, onDelete.Spec.UpdateStrategy.RollingUpdate, "OnDelete has no rolling update to default")
}

func TestValidateDaemonSet(t *testing.T) {
	rolling := func(unavailable, surge api.IntOrString) func(*api.DaemonSet) {
		return func(ds *api.DaemonSet) {
			ds.Spec.UpdateStrategy.RollingUpdate = &api.RollingUpdateDaemonSet{MaxUnavailable: &unavailable, MaxSurge: &surge}
		}
	}
	runKindCases(t, validDaemonSet, defaultDaemonSet, validateDaemonSet, []kindCase[*api.DaemonSet]{
		{name: "valid", change: func(*api.DaemonSet) {}},
		{name: "OnDelete", change: func(ds *api.DaemonSet) { ds.Spec.UpdateStrategy.Type = api.OnDeleteDaemonSetStrategyType }},
		{name: "surge instead of unavailable", change: rolling(api.FromInt(0), api.FromString("10%"))},
		{name: "no selector", change: func(ds *api.DaemonSet) { ds.Spec.Selector = nil },
			want: "spec.selector: Required value", causes: []cause{{required, "spec.selector"}}},
		{name: "selector does not match the template", change: func(ds *api.DaemonSet) { ds.Spec.Template.Metadata.Labels = map[string]string{"app": "other"} },
			want:   "spec.template.metadata.labels: Invalid value: map[string]string{\"app\":\"other\"}: `selector` does not match template `labels`",
			causes: []cause{{invalid, "spec.template.metadata.labels"}}},
		{name: "empty selector", change: func(ds *api.DaemonSet) { ds.Spec.Selector = &api.LabelSelector{} },
			want:   "spec.selector: Invalid value: api.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]api.LabelSelectorRequirement(nil)}: empty selector is invalid for daemonset",
			causes: []cause{{invalid, "spec.selector"}}},
		{name: "restartPolicy OnFailure", change: func(ds *api.DaemonSet) { ds.Spec.Template.Spec.RestartPolicy = api.RestartPolicyOnFailure },
			want:   `spec.template.spec.restartPolicy: Unsupported value: "OnFailure": supported values: "Always"`,
			causes: []cause{{notSupported, "spec.template.spec.restartPolicy"}}},
		{name: "both surge and unavailable", change: rolling(api.FromInt(1), api.FromInt(1)),
			want:   `spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: 1: may not be set when maxUnavailable is non-zero`,
			causes: []cause{{invalid, "spec.updateStrategy.rollingUpdate.maxSurge"}}},
		{name: "neither surge nor unavailable", change: rolling(api.FromString("0%"), api.FromInt(0)),
			want:   `spec.updateStrategy.rollingUpdate.maxUnavailable: Required value: cannot be 0 when maxSurge is 0`,
			causes: []cause{{required, "spec.updateStrategy.rollingUpdate.maxUnavailable"}}},
		{name: "above 100%", change: rolling(api.FromString("150%"), api.FromInt(0)),
			want:   `spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: 150%: must not be greater than 100%`,
			causes: []cause{{invalid, "spec.updateStrategy.rollingUpdate.maxUnavailable"}}},
		{name: "negative", change: rolling(api.FromInt(-1), api.FromInt(0)),
			want:   `spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: -1: must be greater than or equal to 0`,
			causes: []cause{{invalid, "spec.updateStrategy.rollingUpdate.maxUnavailable"}}},
		{name: "unknown strategy", change: func(ds *api.DaemonSet) { ds.Spec.UpdateStrategy.Type = "Sometimes" },
			want:   `spec.updateStrategy: Unsupported value: api.DaemonSetUpdateStrategy{Type:"Sometimes", RollingUpdate:(*api.RollingUpdateDaemonSet)(nil)}: supported values: "RollingUpdate", "OnDelete"`,
			causes: []cause{{notSupported, "spec.updateStrategy"}}},
		{name: "negative minReadySeconds and history", change: func(ds *api.DaemonSet) {
			ds.Spec.MinReadySeconds = -1
			ds.Spec.RevisionHistoryLimit = ptr(int32(-1))
		},
			want:   `[spec.minReadySeconds: Invalid value: -1: must be greater than or equal to 0, spec.revisionHistoryLimit: Invalid value: -1: must be greater than or equal to 0]`,
			causes: []cause{{invalid, "spec.minReadySeconds"}, {invalid, "spec.revisionHistoryLimit"}}},
	})
}

func TestValidateDaemonSetUpdate(t *testing.T) {
	old := validDaemonSet()
	defaultDaemonSet(old)
	ds := old.DeepCopy()
	ds.Spec.Template.Spec.Containers[0].Image = "busybox:2"
	assert.Nil(t, validateDaemonSetUpdate(ds, old), "the template may change")
	ds.Spec.Selector = &api.LabelSelector{MatchLabels: map[string]string{"app": "agent", "tier": "node"}}
	ds.Spec.Template.Metadata.Labels["tier"] = "node"
	assertErrors(t, validateDaemonSetUpdate(ds, old),
		"spec.selector: Invalid value: api.LabelSelector{MatchLabels:map[string]string{\"app\":\"agent\", \"tier\":\"node\"}, MatchExpressions:[]api.LabelSelectorRequirement(nil)}: field is immutable",
		[]cause{{invalid, "spec.selector"}})
}

func validControllerRevision() *api.ControllerRevision {
	return &api.ControllerRevision{Metadata: api.ObjectMeta{Name: "agent-5d4b8c", Namespace: "default"},
		Data: []byte(`{"spec":{"template":{"$patch":"replace"}}}`), Revision: 1}
}

func TestValidateControllerRevision(t *testing.T) {
	runKindCases(t, validControllerRevision, defaultControllerRevision, validateControllerRevision, []kindCase[*api.ControllerRevision]{
		{name: "valid", change: func(*api.ControllerRevision) {}},
		{name: "revision 0", change: func(cr *api.ControllerRevision) { cr.Revision = 0 }},
		{name: "no data", change: func(cr *api.ControllerRevision) { cr.Data = nil },
			want: "data: Required value: data is mandatory", causes: []cause{{required, "data"}}},
		{name: "null data", change: func(cr *api.ControllerRevision) { cr.Data = []byte("null") },
			want: "data: Required value: data is mandatory", causes: []cause{{required, "data"}}},
		{name: "negative revision", change: func(cr *api.ControllerRevision) { cr.Revision = -1 },
			want: "revision: Invalid value: -1: must be greater than or equal to 0", causes: []cause{{invalid, "revision"}}},
	})
}

func TestValidateControllerRevisionUpdate(t *testing.T) {
	old := validControllerRevision()
	cr := old.DeepCopy()
	cr.Revision = 7
	assert.Nil(t, validateControllerRevisionUpdate(cr, old), "the revision may change: the controller renumbers one it rolls back to")
	cr.Data = []byte(`{"spec":{}}`)
	errs := validateControllerRevisionUpdate(cr, old)
	assert.Len(t, errs, 1)
	assert.Equal(t, "data", errs[0].Field)
	assert.Contains(t, errs[0].Error(), "field is immutable")
}
