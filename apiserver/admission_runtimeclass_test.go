package apiserver_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
)

// The cases of Kubernetes' runtimeclass admission tests
// (plugin/pkg/admission/runtimeclass: TestSetOverhead, TestSetScheduling,
// TestValidateOverhead, TestAdmit), through a pod create.
func TestRuntimeClassAdmission(t *testing.T) {
	overhead := api.ResourceList{"cpu": "100m", "memory": "32Mi"}
	withOverhead := &api.RuntimeClass{Metadata: api.ObjectMeta{Name: "kata"}, Handler: "kata", Overhead: &api.Overhead{PodFixed: overhead}}
	plain := &api.RuntimeClass{Metadata: api.ObjectMeta{Name: "runc"}, Handler: "runc"}
	scheduling := &api.RuntimeClass{Metadata: api.ObjectMeta{Name: "gvisor"}, Handler: "runsc", Scheduling: &api.Scheduling{
		NodeSelector: map[string]string{"foo": "bar"},
		Tolerations: []api.Toleration{
			{Key: "foo", Operator: api.TolerationOpEqual, Value: "bar", Effect: api.TaintEffectNoSchedule},
			{Key: "fizz", Operator: api.TolerationOpEqual, Value: "buzz", Effect: api.TaintEffectNoSchedule},
		}}}
	podOf := func(class string, change func(*api.Pod)) *api.Pod {
		p := pod("default", "p", nil)
		if class != "" {
			p.Spec.RuntimeClassName = &class
		}
		if change != nil {
			change(p)
		}
		return p
	}
	tests := []struct {
		name    string
		pod     *api.Pod
		wantErr string
		check   func(t *testing.T, p *api.Pod)
	}{
		{name: "no class, no overhead", pod: podOf("", nil),
			check: func(t *testing.T, p *api.Pod) { assert.Nil(t, p.Spec.Overhead) }},
		{name: "missing class", pod: podOf("missing", nil),
			wantErr: `pods "p" is forbidden: pod rejected: RuntimeClass "missing" not found`},
		{name: "overhead set from the class", pod: podOf("kata", nil),
			check: func(t *testing.T, p *api.Pod) { assert.Equal(t, overhead, p.Spec.Overhead) }},
		{name: "the same overhead already set", pod: podOf("kata", func(p *api.Pod) { p.Spec.Overhead = api.ResourceList{"cpu": "0.1", "memory": "32Mi"} }),
			check: func(t *testing.T, p *api.Pod) { assert.Equal(t, overhead, p.Spec.Overhead) }},
		{name: "a different overhead already set", pod: podOf("kata", func(p *api.Pod) { p.Spec.Overhead = api.ResourceList{"cpu": "1"} }),
			wantErr: `pods "p" is forbidden: pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead`},
		{name: "overhead without the class's", pod: podOf("runc", func(p *api.Pod) { p.Spec.Overhead = api.ResourceList{"cpu": "1"} }),
			wantErr: `pods "p" is forbidden: pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead`},
		{name: "overhead without a class", pod: podOf("", func(p *api.Pod) { p.Spec.Overhead = api.ResourceList{"cpu": "1"} }),
			wantErr: `pods "p" is forbidden: pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead`},
		{name: "class without overhead or scheduling", pod: podOf("runc", nil),
			check: func(t *testing.T, p *api.Pod) {
				assert.Nil(t, p.Spec.Overhead)
				assert.Nil(t, p.Spec.NodeSelector)
			}},
		{name: "nil node selector takes the class's", pod: podOf("gvisor", nil),
			check: func(t *testing.T, p *api.Pod) { assert.Equal(t, map[string]string{"foo": "bar"}, p.Spec.NodeSelector) }},
		{name: "conflicting node selector", pod: podOf("gvisor", func(p *api.Pod) { p.Spec.NodeSelector = map[string]string{"foo": "conflict"} }),
			wantErr: `pods "p" is forbidden: conflict: runtimeClass.scheduling.nodeSelector[foo] = bar; pod.spec.nodeSelector[foo] = conflict`},
		{name: "node selectors merged", pod: podOf("gvisor", func(p *api.Pod) { p.Spec.NodeSelector = map[string]string{"fizz": "buzz"} }),
			check: func(t *testing.T, p *api.Pod) {
				assert.Equal(t, map[string]string{"foo": "bar", "fizz": "buzz"}, p.Spec.NodeSelector)
			}},
		{name: "tolerations merged without repeats", pod: podOf("gvisor", func(p *api.Pod) {
			p.Spec.Tolerations = []api.Toleration{{Key: "foo", Operator: api.TolerationOpEqual, Value: "bar", Effect: api.TaintEffectNoSchedule}}
		}), check: func(t *testing.T, p *api.Pod) { assert.Equal(t, scheduling.Scheduling.Tolerations, p.Spec.Tolerations) }},
		{name: "a broader toleration of the pod's covers the class's", pod: podOf("gvisor", func(p *api.Pod) {
			p.Spec.Tolerations = []api.Toleration{{Operator: api.TolerationOpExists}}
		}), check: func(t *testing.T, p *api.Pod) {
			assert.Equal(t, []api.Toleration{{Operator: api.TolerationOpExists}}, p.Spec.Tolerations)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newServer(t)
			for _, rc := range []*api.RuntimeClass{withOverhead, plain, scheduling} {
				_, err := s.Create(ctx, rc)
				require.NoError(t, err)
			}
			sentSelector := tt.pod.Spec.NodeSelector
			got, err := s.Create(ctx, tt.pod)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.True(t, apierrors.IsForbidden(err), "%v", err)
				assert.Equal(t, tt.wantErr, err.Error())
				return
			}
			require.NoError(t, err)
			tt.check(t, got.(*api.Pod))
			if sentSelector != nil {
				assert.Len(t, sentSelector, 1, "the pod's own node selector map is replaced, not changed")
			}
		})
	}
}

// TestRuntimeClassDeletedRefusesPods: a pod naming a class deleted since
// is refused as one naming a class that never was, as the conformance test
// "should reject a Pod requesting a deleted RuntimeClass" expects.
func TestRuntimeClassDeletedRefusesPods(t *testing.T) {
	s, _ := newServer(t)
	rc := &api.RuntimeClass{Metadata: api.ObjectMeta{Name: "gone"}, Handler: "runc"}
	_, err := s.Create(ctx, rc)
	require.NoError(t, err)
	_, err = s.Delete(ctx, "runtimeclasses", "", "gone", api.DeleteOptions{})
	require.NoError(t, err)
	name := "gone"
	p := pod("default", "p", nil)
	p.Spec.RuntimeClassName = &name
	_, err = s.Create(ctx, p)
	require.Error(t, err)
	assert.Equal(t, `pods "p" is forbidden: pod rejected: RuntimeClass "gone" not found`, err.Error())
}
