package endpoints

import (
	"cmp"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/internal/testenv"
)

func TestNextTriggerTime(t *testing.T) {
	t0 := testenv.Epoch()
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
		{"nothing changed", triggerState{service: at(0), pods: []podTrigger{{name: "a", at: at(5)}}}, true,
			[]*api.Pod{readyAt("a", 5)}, time.Time{}},
		{"a pod flipped", triggerState{service: at(0), pods: []podTrigger{{name: "a", at: at(5)}}}, true,
			[]*api.Pod{readyAt("a", 9)}, at(9)},
		{"earliest of changed pods", triggerState{service: at(0), pods: []podTrigger{{name: "a", at: at(5)}, {name: "b", at: at(1)}}}, true,
			[]*api.Pod{readyAt("a", 9), readyAt("b", 7), readyAt("c", 12)}, at(7)},
		{"unchanged pods do not count", triggerState{service: at(0), pods: []podTrigger{{name: "a", at: at(3)}}}, true,
			[]*api.Pod{readyAt("a", 3), readyAt("b", 8)}, at(8)},
		{"pod without Ready condition: no trigger", triggerState{service: at(0)}, true,
			[]*api.Pod{testPod("a", "10.1.0.1", func(p *api.Pod) { p.Status.Conditions = nil })}, time.Time{}},
		{"service recreated under the same name", triggerState{service: at(-10)}, true, nil, at(0)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, next, _ := nextTriggerTime(tt.prev, tt.known, svc, tt.pods, nil)
			assert.Equal(t, tt.want, got)
			// The next sync with the same inputs, in another order, finds
			// nothing new.
			reversed := slices.Clone(tt.pods)
			slices.Reverse(reversed)
			again, _, _ := nextTriggerTime(next, true, svc, reversed, nil)
			assert.True(t, again.IsZero(), "second sync: %v", again)
		})
	}
}

// triggerModel is nextTriggerTime done plainly, as it was before a sync
// recognized pods listed as before: every pod's trigger time read, by name.
type triggerModel struct {
	service time.Time
	at      map[string]time.Time
}

func (m *triggerModel) next(known bool, svc *api.Service, pods []*api.Pod) time.Time {
	next := triggerModel{service: svc.Metadata.CreationTimestamp.Time, at: map[string]time.Time{}}
	var earliest time.Time
	for _, p := range pods {
		at := PodTriggerTime(p)
		next.at[p.Metadata.Name] = at
		if at.After(m.at[p.Metadata.Name]) {
			earliest = minNonZero(earliest, at)
		}
	}
	if next.service.After(m.service) {
		earliest = minNonZero(earliest, next.service)
	}
	*m = next
	if !known {
		return next.service
	}
	return earliest
}

// servingVersions are the pods of a sync that may serve svc, as the
// pointers listed: what the Endpoints are computed from.
func servingVersions(svc *api.Service, pods []*api.Pod) []*api.Pod {
	var out []*api.Pod
	for _, p := range pods {
		if mayServe(svc, serviceIPFamily(svc), p) {
			out = append(out, p)
		}
	}
	return out
}

// TestTriggerTrackerMatchesTheModel: over seeded random syncs in which pods
// come, go, flip, lose their address or stay the very version listed
// before, and the service is sometimes replaced, the tracker (which
// reads no pod listed as before, and fills the array of the state before
// last) gives the model's trigger time, and reports a move exactly when
// the versions of the pods that may serve, or the service, changed.
func TestTriggerTrackerMatchesTheModel(t *testing.T) {
	for seed := range uint64(50) {
		r := rand.New(rand.NewPCG(seed, 7))
		svc := testService()
		svc.Metadata.CreationTimestamp = api.NewTime(testenv.Epoch())
		tracker := &triggerTracker{states: map[string]*trackedService{}}
		var model triggerModel
		live := map[string]*api.Pod{}
		var prevSvc *api.Service
		var prevServing []*api.Pod
		for i := range 40 {
			for range r.IntN(4) { // change some pods
				name := fmt.Sprintf("p%02d", r.IntN(12))
				switch r.IntN(5) {
				case 0:
					delete(live, name)
				default:
					opts := []podOpt{func(p *api.Pod) {
						p.Status.Conditions[0].LastTransitionTime = api.NewTime(testenv.Epoch().Add(time.Duration(r.IntN(20)) * time.Second))
					}}
					if r.IntN(3) == 0 {
						opts = append(opts, terminating())
					}
					if r.IntN(4) == 0 {
						opts = append(opts, func(p *api.Pod) { p.Status.Conditions = nil })
					}
					ip := fmt.Sprintf("10.1.0.%d", r.IntN(9))
					if r.IntN(4) == 0 {
						ip = ""
					}
					live[name] = testPod(name, ip, opts...)
				}
			}
			if r.IntN(8) == 0 { // a new version of the service
				svc = svc.DeepCopy()
				svc.Spec.PublishNotReadyAddresses = r.IntN(2) == 0
			}
			pods := slices.Collect(maps.Values(live))
			slices.SortFunc(pods, func(a, b *api.Pod) int { return cmp.Compare(a.Metadata.Name, b.Metadata.Name) })

			serving := servingVersions(svc, pods)
			wantMoved := i == 0 || svc != prevSvc || !slices.Equal(serving, prevServing)
			// Twice: the second sync lists the very same pods.
			for again := range 2 {
				sentinel := &api.Endpoints{} // as if the last sync found the Endpoints right
				if ts := tracker.states["default/web"]; ts != nil {
					ts.verified = sentinel
				}
				want := model.next(i > 0 || again > 0, svc, pods)
				got, ts := tracker.compute("default/web", svc, pods)
				require.Equal(t, want, got, "seed %d sync %d again %d", seed, i, again)
				require.Equal(t, wantMoved && again == 0, !ts.unchanged(sentinel), "seed %d sync %d again %d: moved", seed, i, again)
				for _, p := range ts.spare[:cap(ts.spare)] {
					require.Nil(t, p.pod, "seed %d sync %d: the spare array keeps a pod", seed, i)
				}
				for _, p := range ts.state.pods {
					require.True(t, p.mayServe || p.pod == nil, "seed %d sync %d: a pod that does not serve is kept", seed, i)
				}
			}
			prevSvc, prevServing = svc, serving
		}
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
	assert.Equal(t, testenv.Epoch().Format(time.RFC3339Nano), ann()[AnnotationLastChangeTriggerTime])

	e.clk.Step(10 * time.Second)
	obj, err := e.srv.Get(e.ctx, client.Pods, "default", "a", client.GetOptions{})
	require.NoError(t, err)
	p := obj.(*api.Pod).DeepCopy()
	p.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: api.ConditionFalse,
		LastTransitionTime: api.NewTime(e.clk.Now())}}
	_, err = e.srv.UpdateStatus(e.ctx, p)
	require.NoError(t, err)
	e.settle()
	assert.Equal(t, testenv.Epoch().Add(10*time.Second).Format(time.RFC3339Nano), ann()[AnnotationLastChangeTriggerTime])

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
