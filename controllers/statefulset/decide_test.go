package statefulset

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/miniplane/miniplane/api"
)

// podAt is set's pod at ordinal of revision rev: phase "" means not yet
// made (left out), Running pods are ready unless notReady.
type podAt struct {
	ordinal  int
	rev      string
	phase    api.PodPhase
	notReady bool
	deleting bool
}

func stateOf(set *api.StatefulSet, pods []podAt, claims ...*api.PersistentVolumeClaim) *State {
	s := &State{Set: set, CurrentSet: set, UpdateSet: set, CurrentRevision: "r1", UpdateRevision: "r2", Now: now,
		Claims: map[string]*api.PersistentVolumeClaim{}}
	for _, c := range claims {
		s.Claims[c.Metadata.Name] = c
	}
	for _, p := range pods {
		pod := NewPod(set, p.ordinal, p.rev)
		pod.Status.Phase = p.phase
		if p.phase == api.PodRunning && !p.notReady {
			pod.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: api.ConditionTrue}}
		}
		if p.deleting {
			pod.Metadata.DeletionTimestamp = &api.Time{Time: now}
		}
		s.Pods = append(s.Pods, pod)
		if _, ok := s.Claims["www-"+pod.Metadata.Name]; !ok {
			s.Claims["www-"+pod.Metadata.Name] = Claims(set, p.ordinal)[0]
		}
	}
	return s
}

// TestDecide ports stateful_set_control_test.go's scenarios one sync at a
// time: creation in order (CreatesPods, ScalesUp), Parallel
// (ParallelScale), scale down from the top (ScalesDown), failed and
// succeeded pods replaced (RecreatesFailedPod, RecreatesSucceededPod),
// rolling updates from the top with partition and maxUnavailable
// (RollingUpdate, RollingUpdateWithPartition, RollingUpdateWithMaxUnavailable),
// OnDelete (OnDeleteUpdate), a claim being deleted blocking its pod, and
// scaling that halts behind an unhealthy pod under OrderedReady but not
// under Parallel (e2e apps/statefulset.go:647 and :757).
func TestDecide(t *testing.T) {
	running := api.PodRunning
	withReplicas := func(n int32, f ...func(*api.StatefulSet)) *api.StatefulSet {
		set := newSet(n)
		set.Spec.UpdateStrategy.Type = RollingUpdate
		for _, g := range f {
			g(set)
		}
		return set
	}
	parallel := func(s *api.StatefulSet) { s.Spec.PodManagementPolicy = Parallel }
	onDelete := func(s *api.StatefulSet) { s.Spec.UpdateStrategy.Type = OnDelete }
	partition := func(n int32) func(*api.StatefulSet) {
		return func(s *api.StatefulSet) {
			s.Spec.UpdateStrategy.RollingUpdate = &api.RollingUpdateStatefulSetStrategy{Partition: &n}
		}
	}
	maxUnavailable := func(n int) func(*api.StatefulSet) {
		return func(s *api.StatefulSet) {
			v := api.FromInt(n)
			s.Spec.UpdateStrategy.RollingUpdate = &api.RollingUpdateStatefulSetStrategy{MaxUnavailable: &v}
		}
	}
	dying := &api.PersistentVolumeClaim{Metadata: api.ObjectMeta{Name: "www-web-0", DeletionTimestamp: &api.Time{Time: now}}}
	for _, tt := range []struct {
		name    string
		set     *api.StatefulSet
		pods    []podAt
		claims  []*api.PersistentVolumeClaim
		want    []string
		wantErr bool
	}{
		{"first pod, claim first", withReplicas(3), nil, nil, []string{"create claim www-web-0", "create pod web-0"}, false},
		{"waits for web-0 to run", withReplicas(3), []podAt{{0, "r2", api.PodPending, false, false}}, nil, nil, false},
		{"waits for web-0 to be ready", withReplicas(3), []podAt{{0, "r2", running, true, false}}, nil, nil, false},
		{"web-1 once web-0 is ready", withReplicas(3), []podAt{{0, "r2", running, false, false}}, nil, []string{"create claim www-web-1", "create pod web-1"}, false},
		{"parallel makes all", withReplicas(3, parallel), nil, nil, []string{"create claim www-web-0", "create pod web-0", "create claim www-web-1", "create pod web-1", "create claim www-web-2", "create pod web-2"}, false},
		{"scale down from the top, one at a time", withReplicas(1), []podAt{{0, "r2", running, false, false}, {1, "r2", running, false, false}, {2, "r2", running, false, false}}, nil, []string{"delete pod web-2"}, false},
		{"scale down waits for the one going", withReplicas(1), []podAt{{0, "r2", running, false, false}, {1, "r2", running, false, false}, {2, "r2", running, false, true}}, nil, nil, false},
		{"scale down, parallel", withReplicas(1, parallel), []podAt{{0, "r2", running, false, false}, {1, "r2", running, false, false}, {2, "r2", running, false, false}}, nil, []string{"delete pod web-2", "delete pod web-1"}, false},
		{"unhealthy condemned pod goes first", withReplicas(1), []podAt{{0, "r2", running, false, false}, {1, "r2", running, false, false}, {2, "r2", running, true, false}}, nil, []string{"delete pod web-2"}, false},
		{"scale down halts above the lowest unhealthy condemned pod", withReplicas(1), []podAt{{0, "r2", running, false, false}, {1, "r2", running, true, false}, {2, "r2", running, true, false}}, nil, nil, false},
		{"scale down to 0 halts while every pod is unhealthy", withReplicas(0), []podAt{{0, "r2", running, true, false}, {1, "r2", running, true, false}, {2, "r2", running, true, false}}, nil, nil, false},
		{"scale down to 0 with every pod unhealthy, parallel", withReplicas(0, parallel), []podAt{{0, "r2", running, true, false}, {1, "r2", running, true, false}, {2, "r2", running, true, false}}, nil, []string{"delete pod web-2", "delete pod web-1", "delete pod web-0"}, false},
		{"scale up halts behind an unhealthy pod", withReplicas(3), []podAt{{0, "r2", running, true, false}}, nil, nil, false},
		{"scale up, parallel, past an unhealthy pod", withReplicas(3, parallel), []podAt{{0, "r2", running, true, false}}, nil, []string{"create claim www-web-1", "create pod web-1", "create claim www-web-2", "create pod web-2"}, false},
		{"failed pod deleted", withReplicas(2), []podAt{{0, "r2", running, false, false}, {1, "r2", api.PodFailed, false, false}}, nil, []string{"delete pod web-1"}, false},
		{"succeeded pod deleted", withReplicas(2), []podAt{{0, "r2", api.PodSucceeded, false, false}, {1, "r2", running, false, false}}, nil, []string{"delete pod web-0"}, false},
		{"rolling update from the top", withReplicas(3), []podAt{{0, "r1", running, false, false}, {1, "r1", running, false, false}, {2, "r1", running, false, false}}, nil, []string{"delete pod web-2"}, false},
		{"rolling update goes on below", withReplicas(3), []podAt{{0, "r1", running, false, false}, {1, "r1", running, false, false}, {2, "r2", running, false, false}}, nil, []string{"delete pod web-1"}, false},
		{"rolling update stops at the partition", withReplicas(3, partition(2)), []podAt{{0, "r1", running, false, false}, {1, "r1", running, false, false}, {2, "r2", running, false, false}}, nil, nil, false},
		{"maxUnavailable 2", withReplicas(3, maxUnavailable(2)), []podAt{{0, "r1", running, false, false}, {1, "r1", running, false, false}, {2, "r1", running, false, false}}, nil, []string{"delete pod web-2", "delete pod web-1"}, false},
		{"OnDelete waits", withReplicas(3, onDelete), []podAt{{0, "r1", running, false, false}, {1, "r1", running, false, false}, {2, "r1", running, false, false}}, nil, nil, false},
		{"a claim being deleted blocks its pod", withReplicas(1), nil, []*api.PersistentVolumeClaim{dying}, nil, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := Decide(stateOf(tt.set, tt.pods, tt.claims...))
			var got []string
			for _, a := range d.Actions {
				got = append(got, a.String())
			}
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.wantErr, d.Err != nil)
		})
	}
}

// TestNewPodsTakeTheirRevision: below the partition a new pod is of the
// current revision, at or above it of the update revision. Kubernetes:
// newVersionedStatefulSetPod.
func TestNewPodsTakeTheirRevision(t *testing.T) {
	set := newSet(3)
	set.Spec.UpdateStrategy = api.StatefulSetUpdateStrategy{Type: RollingUpdate,
		RollingUpdate: &api.RollingUpdateStatefulSetStrategy{Partition: ptr(int32(2))}}
	set.Spec.PodManagementPolicy = Parallel
	d := Decide(stateOf(set, nil))
	revs := map[string]string{}
	for _, a := range d.Actions {
		if a.Op == CreatePod {
			revs[a.Pod.Metadata.Name] = revisionOf(a.Pod)
		}
	}
	assert.Equal(t, map[string]string{"web-0": "r1", "web-1": "r1", "web-2": "r2"}, revs)
	assert.Equal(t, int32(3), d.Status.Replicas)
	assert.Equal(t, int32(2), d.Status.CurrentReplicas)
	assert.Equal(t, int32(1), d.Status.UpdatedReplicas)
}

// TestMinReadySecondsRechecks: a ready pod not yet available holds
// OrderedReady back and asks for a sync when its minReadySeconds end.
// Kubernetes: TestStatefulSetAvailability.
func TestMinReadySecondsRechecks(t *testing.T) {
	set := newSet(2)
	set.Spec.MinReadySeconds = 10
	s := stateOf(set, []podAt{{0, "r2", api.PodRunning, false, false}})
	s.Pods[0].Status.Conditions[0].LastTransitionTime = api.Time{Time: now.Add(-4 * time.Second)}
	d := Decide(s)
	assert.Empty(t, d.Actions, "web-1 waits for web-0 to be available")
	assert.Equal(t, 7*time.Second, d.RecheckAfter)
	assert.Equal(t, int32(1), d.Status.ReadyReplicas)
	assert.Equal(t, int32(0), d.Status.AvailableReplicas)
}
