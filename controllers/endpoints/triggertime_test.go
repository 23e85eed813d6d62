package endpoints

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver"
)

func TestNextTriggerTime(t *testing.T) {
	t0 := epoch
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	svc := testService()
	svc.Metadata.CreationTimestamp = api.NewTime(at(0))
	readyAt := func(name string, s int) *api.Pod {
		return testPod(name, "10.1.0.1", func(p *api.Pod) { p.Status.Conditions[0].LastTransitionTime = api.NewTime(at(s)) })
	}
	tests := []struct {
		name  string
		prev  triggerState
		known bool
		pods  []*api.Pod
		want  time.Time
	}{
		{"first sync: service creation", triggerState{}, false, []*api.Pod{readyAt("a", 5)}, at(0)},
		{"nothing changed", triggerState{service: at(0), pods: map[string]time.Time{"a": at(5)}}, true,
			[]*api.Pod{readyAt("a", 5)}, time.Time{}},
		{"a pod flipped", triggerState{service: at(0), pods: map[string]time.Time{"a": at(5)}}, true,
			[]*api.Pod{readyAt("a", 9)}, at(9)},
		{"earliest of changed pods", triggerState{service: at(0), pods: map[string]time.Time{"a": at(5), "b": at(1)}}, true,
			[]*api.Pod{readyAt("a", 9), readyAt("b", 7), readyAt("c", 12)}, at(7)},
		{"unchanged pods do not count", triggerState{service: at(0), pods: map[string]time.Time{"a": at(3)}}, true,
			[]*api.Pod{readyAt("a", 3), readyAt("b", 8)}, at(8)},
		{"pod without Ready condition: no trigger", triggerState{service: at(0)}, true,
			[]*api.Pod{testPod("a", "10.1.0.1", func(p *api.Pod) { p.Status.Conditions = nil })}, time.Time{}},
		{"service recreated under the same name", triggerState{service: at(-10)}, true, nil, at(0)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, next := nextTriggerTime(tt.prev, tt.known, svc, tt.pods)
			assert.Equal(t, tt.want, got)
			// The next sync with the same inputs finds nothing new.
			again, _ := nextTriggerTime(next, true, svc, tt.pods)
			assert.True(t, again.IsZero(), "second sync: %v", again)
		})
	}
}

// TestLastChangeTriggerTimeAnnotation: set from the service's creation,
// replaced by a pod's readiness flip, removed when a write has no trigger.
func TestLastChangeTriggerTimeAnnotation(t *testing.T) {
	e := newEnv(t)
	e.create(service("default", "web", webLabels, api.ServicePort{Port: 80}))
	e.createPod("default", "a", "10.1.0.1", true, webLabels)
	e.settle()
	ann := func() map[string]string { return e.endpoints("default", "web").Metadata.Annotations }
	assert.Equal(t, epoch.Format(time.RFC3339Nano), ann()[AnnotationLastChangeTriggerTime])

	e.clk.Step(10 * time.Second)
	obj, err := e.srv.Get(e.ctx, apiserver.Pods, "default", "a", apiserver.GetOptions{})
	require.NoError(t, err)
	p := obj.(*api.Pod).DeepCopy()
	p.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: api.ConditionFalse,
		LastTransitionTime: api.NewTime(e.clk.Now())}}
	_, err = e.srv.UpdateStatus(e.ctx, p)
	require.NoError(t, err)
	e.settle()
	assert.Equal(t, epoch.Add(10*time.Second).Format(time.RFC3339Nano), ann()[AnnotationLastChangeTriggerTime])

	obj, err = e.srv.Get(e.ctx, apiserver.Services, "default", "web", apiserver.GetOptions{})
	require.NoError(t, err)
	svc := obj.(*api.Service).DeepCopy()
	svc.Metadata.Labels = map[string]string{"team": "a"}
	_, err = e.srv.Update(e.ctx, svc)
	require.NoError(t, err)
	e.client.Writes()
	e.settle()
	require.Equal(t, []string{"update default/web"}, e.client.Writes())
	assert.NotContains(t, ann(), AnnotationLastChangeTriggerTime)
}
