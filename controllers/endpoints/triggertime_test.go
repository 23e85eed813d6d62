package endpoints

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/client"
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
		{"nothing changed", triggerState{service: at(0), pods: []podTrigger{{"a", at(5)}}}, true,
			[]*api.Pod{readyAt("a", 5)}, time.Time{}},
		{"a pod flipped", triggerState{service: at(0), pods: []podTrigger{{"a", at(5)}}}, true,
			[]*api.Pod{readyAt("a", 9)}, at(9)},
		{"earliest of changed pods", triggerState{service: at(0), pods: []podTrigger{{"a", at(5)}, {"b", at(1)}}}, true,
			[]*api.Pod{readyAt("a", 9), readyAt("b", 7), readyAt("c", 12)}, at(7)},
		{"unchanged pods do not count", triggerState{service: at(0), pods: []podTrigger{{"a", at(3)}}}, true,
			[]*api.Pod{readyAt("a", 3), readyAt("b", 8)}, at(8)},
		{"pod without Ready condition: no trigger", triggerState{service: at(0)}, true,
			[]*api.Pod{testPod("a", "10.1.0.1", func(p *api.Pod) { p.Status.Conditions = nil })}, time.Time{}},
		{"service recreated under the same name", triggerState{service: at(-10)}, true, nil, at(0)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, next := nextTriggerTime(tt.prev, tt.known, svc, tt.pods, nil)
			assert.Equal(t, tt.want, got)
			// The next sync with the same inputs, in another order, finds
			// nothing new.
			reversed := slices.Clone(tt.pods)
			slices.Reverse(reversed)
			again, _ := nextTriggerTime(next, true, svc, reversed, nil)
			assert.True(t, again.IsZero(), "second sync: %v", again)
		})
	}
}

// TestTriggerTrackerReusesItsArrays: the tracker, which fills the array of
// the state before last, says what nextTriggerTime says from fresh
// arrays, over syncs where pods come, go and flip.
func TestTriggerTrackerReusesItsArrays(t *testing.T) {
	svc := testService()
	svc.Metadata.CreationTimestamp = api.NewTime(epoch)
	readyAt := func(name string, s int) *api.Pod {
		return testPod(name, "10.1.0.1", func(p *api.Pod) {
			p.Status.Conditions[0].LastTransitionTime = api.NewTime(epoch.Add(time.Duration(s) * time.Second))
		})
	}
	syncs := [][]*api.Pod{
		{readyAt("a", 1), readyAt("b", 2)},
		{readyAt("a", 1), readyAt("b", 2), readyAt("c", 3)},
		{readyAt("a", 4), readyAt("c", 3)},
		{readyAt("a", 4), readyAt("b", 5), readyAt("c", 6), readyAt("d", 7)},
		{readyAt("b", 5)},
		{readyAt("b", 8), readyAt("e", 9)},
	}
	tracker := &triggerTracker{states: map[string]*trackedService{}}
	var prev triggerState
	for i, pods := range syncs {
		want, next := nextTriggerTime(prev, i > 0, svc, pods, nil)
		prev = next
		assert.Equal(t, want, tracker.compute("default/web", svc, pods), "sync %d", i)
		assert.Equal(t, next, tracker.states["default/web"].state, "sync %d", i)
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
	obj, err := e.srv.Get(e.ctx, client.Pods, "default", "a", client.GetOptions{})
	require.NoError(t, err)
	p := obj.(*api.Pod).DeepCopy()
	p.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: api.ConditionFalse,
		LastTransitionTime: api.NewTime(e.clk.Now())}}
	_, err = e.srv.UpdateStatus(e.ctx, p)
	require.NoError(t, err)
	e.settle()
	assert.Equal(t, epoch.Add(10*time.Second).Format(time.RFC3339Nano), ann()[AnnotationLastChangeTriggerTime])

	obj, err = e.srv.Get(e.ctx, client.Services, "default", "web", client.GetOptions{})
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
