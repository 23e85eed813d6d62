package statefulset

import (
	"context"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/client/record"
	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/informer"
)

var now = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func ptr[T any](v T) *T { return &v }

// harness runs the controller against the real API server on a fake
// clock, stepping the informers and the controller by hand. No scheduler
// or kubelet runs: the tests play them (runPods).
type harness struct {
	t      *testing.T
	ctx    context.Context
	clk    *clock.Fake
	srv    *apiserver.Server
	c      *Controller
	sets   client.Typed[*api.StatefulSet]
	pods   client.Typed[*api.Pod]
	claims client.Typed[*api.PersistentVolumeClaim]
	crs    client.Typed[*api.ControllerRevision]
	// created is the order in which pods were first seen, by name.
	created []string
	// seen are the pods checkOrder has seen, by UID.
	seen map[api.UID]bool
	// orderBroken names a pod made while a lower ordinal of its set was
	// missing or not ready, under OrderedReady.
	orderBroken string
}

func newHarness(t *testing.T) *harness {
	clk := clock.NewFake(now)
	srv, err := apiserver.New(apiserver.Config{Clock: clk, Rand: rand.New(rand.NewPCG(1, 2))})
	require.NoError(t, err)
	log := zaptest.NewLogger(t)
	c, err := New(Config{
		Client: srv, Factory: informer.NewFactory(srv, "", clk, log), Clock: clk, Logger: log,
		Recorder: record.NewEventRecorder(srv, clk, "statefulset-controller", "test"),
	})
	require.NoError(t, err)
	h := &harness{t: t, ctx: t.Context(), clk: clk, srv: srv, c: c,
		sets: client.For[*api.StatefulSet](srv), pods: client.For[*api.Pod](srv),
		claims: client.For[*api.PersistentVolumeClaim](srv), crs: client.For[*api.ControllerRevision](srv),
		seen: map[api.UID]bool{}}
	_, err = srv.Create(h.ctx, &api.Node{Metadata: api.ObjectMeta{Name: "node-1"}})
	require.NoError(t, err)
	h.syncInformers()
	require.True(t, c.HasSynced())
	return h
}

func (h *harness) syncInformers() bool {
	did := false
	for progress := true; progress; {
		progress = false
		for _, inf := range h.c.informers {
			for inf.Reflector().Step(h.ctx) {
				progress = true
			}
			for inf.ProcessOne() {
				progress = true
			}
		}
		for _, r := range h.c.regs {
			for r.DispatchOne() {
				progress = true
			}
		}
		did = did || progress
	}
	return did
}

// settle runs informers and controller until nothing is left to do now,
// checking the order of creation after each step.
func (h *harness) settle() {
	for h.syncInformers() || h.c.ProcessOne(h.ctx) {
		h.checkOrder()
	}
}

// checkOrder records each pod made and, under OrderedReady, whether a pod
// was made while a lower ordinal was missing or not ready.
func (h *harness) checkOrder() {
	pods := h.podList()
	set := h.get()
	for _, p := range pods {
		if h.seen[p.Metadata.UID] {
			continue
		}
		h.seen[p.Metadata.UID] = true
		if !slices.Contains(h.created, p.Metadata.Name) {
			h.created = append(h.created, p.Metadata.Name)
		}
		if set.Spec.PodManagementPolicy == Parallel || h.orderBroken != "" {
			continue
		}
		for o := StartOrdinal(set); o < Ordinal(p); o++ {
			i := slices.IndexFunc(pods, func(q *api.Pod) bool { return q.Metadata.Name == PodName(set, o) })
			if i < 0 || !api.IsPodReady(pods[i]) {
				h.orderBroken = p.Metadata.Name
			}
		}
	}
}

// runPods makes every pod Running and Ready on node-1 and finishes the
// deletion of every pod being deleted, as scheduler and kubelet would at
// once; it reports whether it changed any.
func (h *harness) runPods() bool {
	h.t.Helper()
	changed := false
	for _, p := range h.podList() {
		if p.Metadata.DeletionTimestamp != nil {
			_, err := h.pods.Delete(h.ctx, p.Metadata.Namespace, p.Metadata.Name, api.DeleteOptions{GracePeriodSeconds: ptr(int64(0))})
			require.NoError(h.t, err)
			changed = true
			continue
		}
		if api.IsPodReady(p) || p.Status.Phase == api.PodFailed {
			continue
		}
		next := p.DeepCopy()
		if next.Spec.NodeName == "" {
			bound, err := h.srv.Bind(h.ctx, p.Metadata.Namespace, p.Metadata.Name, "node-1")
			require.NoError(h.t, err)
			next = bound.DeepCopy()
		}
		next.Status.Phase = api.PodRunning
		next.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: api.ConditionTrue, LastTransitionTime: api.Time{Time: h.clk.Now()}}}
		_, err := h.pods.UpdateStatus(h.ctx, next)
		require.NoError(h.t, err)
		changed = true
		// One pod at a time, so that the controller sees each step.
		break
	}
	return changed
}

// converge alternates controller and kubelet until neither acts.
func (h *harness) converge() {
	for i := 0; i < 100; i++ {
		h.settle()
		if !h.runPods() {
			return
		}
	}
	h.t.Fatal("did not converge")
}

func (h *harness) podList() []*api.Pod {
	h.t.Helper()
	all, _, err := h.pods.List(h.ctx, "default", client.ListOptions{})
	require.NoError(h.t, err)
	slices.SortFunc(all, func(a, b *api.Pod) int { return Ordinal(a) - Ordinal(b) })
	return all
}

// live is each live pod's name and revision.
func (h *harness) live() map[string]string {
	out := map[string]string{}
	for _, p := range h.podList() {
		if p.Metadata.DeletionTimestamp == nil {
			out[p.Metadata.Name] = revisionOf(p)
		}
	}
	return out
}

func (h *harness) claimNames() []string {
	all, _, err := h.claims.List(h.ctx, "default", client.ListOptions{})
	require.NoError(h.t, err)
	var out []string
	for _, c := range all {
		out = append(out, c.Metadata.Name)
	}
	slices.Sort(out)
	return out
}

func (h *harness) get() *api.StatefulSet {
	h.t.Helper()
	set, err := h.sets.Get(h.ctx, "default", "web")
	require.NoError(h.t, err)
	return set
}

func (h *harness) change(f func(*api.StatefulSet)) {
	h.t.Helper()
	next := h.get().DeepCopy()
	f(next)
	_, err := h.sets.Update(h.ctx, next)
	require.NoError(h.t, err)
}

func newSet(replicas int32) *api.StatefulSet {
	labels := map[string]string{"app": "web"}
	return &api.StatefulSet{
		Metadata: api.ObjectMeta{Namespace: "default", Name: "web"},
		Spec: api.StatefulSetSpec{
			Replicas: &replicas, ServiceName: "web", Selector: &api.LabelSelector{MatchLabels: labels},
			Template: api.PodTemplateSpec{Metadata: api.ObjectMeta{Labels: labels},
				Spec: api.PodSpec{Containers: []api.Container{{Name: "nginx", Image: "nginx:1"}}}},
			VolumeClaimTemplates: []api.PersistentVolumeClaim{{Metadata: api.ObjectMeta{Name: "www"}, Spec: api.PersistentVolumeClaimSpec{
				AccessModes: []api.PersistentVolumeAccessMode{api.ReadWriteOnce},
				Resources:   api.VolumeResourceRequirements{Requests: api.ResourceList{"storage": "1Gi"}},
			}}},
		},
	}
}

func (h *harness) create(set *api.StatefulSet) {
	h.t.Helper()
	_, err := h.sets.Create(h.ctx, set)
	require.NoError(h.t, err)
}

// TestOrderedReadyCreatesInOrder: under OrderedReady the set makes web-0,
// waits for it to be ready, then web-1, then web-2, each after its claim;
// the status counts them and names one revision. Kubernetes:
// TestStatefulSetControlCreatesPods, ScalesUp, SetsStatus.
func TestOrderedReadyCreatesInOrder(t *testing.T) {
	h := newHarness(t)
	h.create(newSet(3))
	h.settle()
	assert.Equal(t, []string{"web-0"}, h.created, "one pod before the first is ready")
	assert.Equal(t, []string{"www-web-0"}, h.claimNames())
	p := h.podList()[0]
	assert.Equal(t, "web-0", p.Spec.Hostname)
	assert.Equal(t, "web", p.Spec.Subdomain)
	assert.Equal(t, "web-0", p.Metadata.Labels[PodNameLabel])
	assert.Equal(t, "0", p.Metadata.Labels[PodIndexLabel])
	require.Len(t, p.Spec.Volumes, 1)
	assert.Equal(t, "www-web-0", p.Spec.Volumes[0].PersistentVolumeClaim.ClaimName)
	h.converge()
	assert.Equal(t, []string{"web-0", "web-1", "web-2"}, h.created)
	assert.Empty(t, h.orderBroken)
	assert.Equal(t, []string{"www-web-0", "www-web-1", "www-web-2"}, h.claimNames())
	st := h.get().Status
	assert.Equal(t, int32(3), st.Replicas)
	assert.Equal(t, int32(3), st.ReadyReplicas)
	assert.Equal(t, int32(3), st.AvailableReplicas)
	assert.Equal(t, int32(3), st.CurrentReplicas)
	assert.Equal(t, int32(3), st.UpdatedReplicas)
	assert.Equal(t, st.CurrentRevision, st.UpdateRevision)
	assert.Equal(t, h.get().Metadata.Generation, st.ObservedGeneration)
	for _, rev := range h.live() {
		assert.Equal(t, st.UpdateRevision, rev)
	}
}

// TestParallelCreatesAtOnce: under Parallel every pod is made in one sync.
// Kubernetes: TestStatefulSetControlParallelScale... (scale up).
func TestParallelCreatesAtOnce(t *testing.T) {
	h := newHarness(t)
	set := newSet(3)
	set.Spec.PodManagementPolicy = Parallel
	h.create(set)
	h.settle()
	assert.Equal(t, []string{"web-0", "web-1", "web-2"}, h.created)
}

// TestScaleDownFromTheTop: scaling 3 to 1 deletes web-2, then web-1; with
// whenScaled Delete, a deleted pod's claim is given the pod as owner.
// Kubernetes: TestStatefulSetControlScaleDown and
// TestUpdateClaimOwnerRefForSetAndPod (WhenScaled Delete).
func TestScaleDownFromTheTop(t *testing.T) {
	h := newHarness(t)
	set := newSet(3)
	set.Spec.PersistentVolumeClaimRetentionPolicy = &api.StatefulSetPersistentVolumeClaimRetentionPolicy{WhenScaled: Delete, WhenDeleted: Retain}
	h.create(set)
	h.converge()
	h.change(func(s *api.StatefulSet) { s.Spec.Replicas = ptr(int32(1)) })
	h.settle()
	assert.Equal(t, map[string]string{"web-0": h.get().Status.UpdateRevision, "web-1": h.get().Status.UpdateRevision}, h.live(), "web-2 first, alone")
	claim, err := h.claims.Get(h.ctx, "default", "www-web-2")
	require.NoError(t, err)
	require.Len(t, claim.Metadata.OwnerReferences, 1)
	assert.Equal(t, "Pod", claim.Metadata.OwnerReferences[0].Kind)
	assert.Equal(t, "web-2", claim.Metadata.OwnerReferences[0].Name)
	h.converge()
	assert.Len(t, h.live(), 1)
	assert.Equal(t, int32(1), h.get().Status.Replicas)
}

// TestWhenDeletedDeleteOwnsClaimsBySet: whenDeleted Delete makes the set
// an owner of each claim, for the garbage collector. Kubernetes:
// TestUpdateClaimOwnerRefForSetAndPod (WhenDeleted Delete).
func TestWhenDeletedDeleteOwnsClaimsBySet(t *testing.T) {
	h := newHarness(t)
	set := newSet(1)
	set.Spec.PersistentVolumeClaimRetentionPolicy = &api.StatefulSetPersistentVolumeClaimRetentionPolicy{WhenDeleted: Delete, WhenScaled: Retain}
	h.create(set)
	h.converge()
	claim, err := h.claims.Get(h.ctx, "default", "www-web-0")
	require.NoError(t, err)
	require.Len(t, claim.Metadata.OwnerReferences, 1)
	ref := claim.Metadata.OwnerReferences[0]
	assert.Equal(t, "StatefulSet", ref.Kind)
	assert.Equal(t, h.get().Metadata.UID, ref.UID)
	assert.Nil(t, ref.Controller, "not a controller reference")
}

// TestRollingUpdateReplacesFromTheTop: a new image replaces web-2, then
// web-1, then web-0, one at a time; then the update revision is current.
// A partition of 2 updates only web-2. Kubernetes:
// TestStatefulSetControlRollingUpdate and ...RollingUpdateWithPartition.
func TestRollingUpdateReplacesFromTheTop(t *testing.T) {
	for _, tt := range []struct {
		name      string
		partition int32
		updated   []string
	}{
		{"no partition", 0, []string{"web-0", "web-1", "web-2"}},
		{"partition 2", 2, []string{"web-2"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			set := newSet(3)
			set.Spec.UpdateStrategy = api.StatefulSetUpdateStrategy{Type: RollingUpdate,
				RollingUpdate: &api.RollingUpdateStatefulSetStrategy{Partition: ptr(tt.partition)}}
			h.create(set)
			h.converge()
			first := h.get().Status.CurrentRevision
			h.change(func(s *api.StatefulSet) { s.Spec.Template.Spec.Containers[0].Image = "nginx:2" })
			h.settle()
			st := h.get().Status
			require.NotEqual(t, first, st.UpdateRevision)
			assert.Len(t, h.live(), 2, "web-2 deleted alone")
			h.converge()
			var updated []string
			for name, rev := range h.live() {
				if rev == h.get().Status.UpdateRevision {
					updated = append(updated, name)
				}
			}
			slices.Sort(updated)
			assert.Equal(t, tt.updated, updated)
			assert.Empty(t, h.orderBroken)
			st = h.get().Status
			assert.Equal(t, int32(len(tt.updated)), st.UpdatedReplicas)
			if tt.partition == 0 {
				assert.Equal(t, st.UpdateRevision, st.CurrentRevision)
			} else {
				assert.Equal(t, first, st.CurrentRevision)
			}
		})
	}
}

// TestOnDeleteWaits: under OnDelete a new template replaces no pod until
// one is deleted, which comes back at the update revision. Kubernetes:
// TestStatefulSetControlOnDeleteUpdate.
func TestOnDeleteWaits(t *testing.T) {
	h := newHarness(t)
	set := newSet(2)
	set.Spec.UpdateStrategy = api.StatefulSetUpdateStrategy{Type: OnDelete}
	h.create(set)
	h.converge()
	first := h.get().Status.CurrentRevision
	h.change(func(s *api.StatefulSet) { s.Spec.Template.Spec.Containers[0].Image = "nginx:2" })
	h.converge()
	assert.Equal(t, map[string]string{"web-0": first, "web-1": first}, h.live())
	_, err := h.pods.Delete(h.ctx, "default", "web-1", api.DeleteOptions{})
	require.NoError(t, err)
	h.converge()
	assert.Equal(t, map[string]string{"web-0": first, "web-1": h.get().Status.UpdateRevision}, h.live())
}

// TestRollbackRenumbers: going back to the first template renumbers its
// revision rather than making a third. Kubernetes:
// TestStatefulSetControlRollback.
func TestRollbackRenumbers(t *testing.T) {
	h := newHarness(t)
	h.create(newSet(2))
	h.converge()
	first := h.get().Status.CurrentRevision
	h.change(func(s *api.StatefulSet) { s.Spec.Template.Spec.Containers[0].Image = "nginx:2" })
	h.converge()
	h.change(func(s *api.StatefulSet) { s.Spec.Template.Spec.Containers[0].Image = "nginx:1" })
	h.converge()
	st := h.get().Status
	assert.Equal(t, first, st.CurrentRevision)
	revs, _, err := h.crs.List(h.ctx, "default", client.ListOptions{})
	require.NoError(t, err)
	numbers := map[string]int64{}
	for _, r := range revs {
		numbers[r.Metadata.Name] = r.Revision
	}
	assert.Len(t, numbers, 2)
	assert.Equal(t, int64(3), numbers[first])
}

// TestRollingUpdateWaitsForAnUnreadyPod is the e2e test "should perform
// rolling updates and roll backs of template modifications" with web-1's
// readiness set here instead of by moving its probe's file away: while
// web-1 is unready a new template replaces no pod; once it is ready again
// the pods are replaced and the update revision becomes current; the same
// again going back to the first template, whose revision is the update
// revision once more. Kubernetes: apps/statefulset.go:2164 (rollbackTest).
func TestRollingUpdateWaitsForAnUnreadyPod(t *testing.T) {
	h := newHarness(t)
	set := newSet(3)
	set.Spec.UpdateStrategy.Type = RollingUpdate
	h.create(set)
	h.converge()
	first := h.get().Status.CurrentRevision
	require.Equal(t, first, h.get().Status.UpdateRevision)

	for _, image := range []string{"nginx:2", "nginx:1"} { // forward, then back
		h.setReady(false, "web-1")
		before := h.get().Status.CurrentRevision
		h.change(func(s *api.StatefulSet) { s.Spec.Template.Spec.Containers[0].Image = image })
		h.settle()
		st := h.get().Status
		assert.NotEqual(t, st.CurrentRevision, st.UpdateRevision, "%s: a new update revision", image)
		assert.Equal(t, before, st.CurrentRevision)
		if image == "nginx:1" {
			assert.Equal(t, first, st.UpdateRevision, "going back reuses the first revision")
		}
		assert.Equal(t, map[string]string{"web-0": before, "web-1": before, "web-2": before}, h.live(), "%s: nothing replaced while web-1 is unready", image)

		h.setReady(true, "web-1")
		h.converge()
		st = h.get().Status
		assert.Equal(t, st.UpdateRevision, st.CurrentRevision, "%s: the update revision is current once every pod runs it", image)
		for _, p := range h.podList() {
			assert.Equal(t, image, p.Spec.Containers[0].Image, p.Metadata.Name)
			assert.Equal(t, st.UpdateRevision, revisionOf(p), p.Metadata.Name)
		}
	}
	assert.Equal(t, first, h.get().Status.CurrentRevision)
}

// TestHistoryLimit: with revisionHistoryLimit 0, a revision no pod runs
// any more is deleted. Kubernetes: TestStatefulSetControlLimitsHistory.
func TestHistoryLimit(t *testing.T) {
	h := newHarness(t)
	set := newSet(2)
	set.Spec.RevisionHistoryLimit = ptr(int32(0))
	h.create(set)
	h.converge()
	h.change(func(s *api.StatefulSet) { s.Spec.Template.Spec.Containers[0].Image = "nginx:2" })
	h.converge()
	revs, _, err := h.crs.List(h.ctx, "default", client.ListOptions{})
	require.NoError(t, err)
	require.Len(t, revs, 1)
	assert.Equal(t, h.get().Status.UpdateRevision, revs[0].Metadata.Name)
}

// TestFailedPodIsRecreated: a failed pod is deleted and made again.
// Kubernetes: TestStatefulSetControlRecreatesFailedPod.
func TestFailedPodIsRecreated(t *testing.T) {
	h := newHarness(t)
	h.create(newSet(1))
	h.converge()
	p := h.podList()[0].DeepCopy()
	uid := p.Metadata.UID
	p.Status.Phase = api.PodFailed
	_, err := h.pods.UpdateStatus(h.ctx, p)
	require.NoError(t, err)
	h.converge()
	pods := h.podList()
	require.Len(t, pods, 1)
	assert.NotEqual(t, uid, pods[0].Metadata.UID)
	assert.True(t, api.IsPodReady(pods[0]))
}

// TestScalingHaltsBehindAnUnhealthyPod is the e2e tests "Scaling should
// happen in predictable order and halt if any stateful pod is unhealthy"
// (OrderedReady) and "Burst scaling should run to completion even with
// unhealthy pods" (Parallel), with readiness set here instead of by moving
// the readiness probe's file away: scaling 1 to 3 while web-0 is unready
// and 3 to 0 while every pod is unready halts under OrderedReady and runs
// to completion under Parallel. Kubernetes: apps/statefulset.go:647, :757.
func TestScalingHaltsBehindAnUnhealthyPod(t *testing.T) {
	for _, tt := range []struct {
		policy string
		// up and down are the live pods once the scale up to 3 and the
		// scale down to 0 have settled with every pod unready.
		up, down []string
	}{
		{OrderedReady, []string{"web-0"}, []string{"web-0", "web-1", "web-2"}},
		{Parallel, []string{"web-0", "web-1", "web-2"}, nil},
	} {
		t.Run(tt.policy, func(t *testing.T) {
			h := newHarness(t)
			set := newSet(1)
			set.Spec.PodManagementPolicy = tt.policy
			h.create(set)
			h.converge()

			h.setReady(false)
			h.change(func(s *api.StatefulSet) { s.Spec.Replicas = ptr(int32(3)) })
			h.settle()
			assert.Equal(t, tt.up, slices.Sorted(maps.Keys(h.live())), "scale up with web-0 unready")
			h.converge()
			assert.Equal(t, []string{"web-0", "web-1", "web-2"}, h.created, "made in order")
			assert.Empty(t, h.orderBroken)
			assert.Equal(t, int32(3), h.get().Status.ReadyReplicas)

			h.setReady(false)
			h.change(func(s *api.StatefulSet) { s.Spec.Replicas = ptr(int32(0)) })
			h.settle()
			assert.Equal(t, tt.down, slices.Sorted(maps.Keys(h.live())), "scale down with every pod unready")
			if tt.policy == OrderedReady {
				h.setReady(true)
				h.settle()
				assert.Equal(t, []string{"web-0", "web-1"}, slices.Sorted(maps.Keys(h.live())), "ready again: from the top, one at a time")
			}
			h.converge()
			assert.Empty(t, h.live())
			assert.Equal(t, int32(0), h.get().Status.Replicas)
		})
	}
}

// setReady makes the named pods (every pod if none is named) Running and
// Ready or not, as a readiness probe that passes or fails does.
func (h *harness) setReady(ready bool, names ...string) {
	h.t.Helper()
	for _, p := range h.podList() {
		if len(names) > 0 && !slices.Contains(names, p.Metadata.Name) {
			continue
		}
		next := p.DeepCopy()
		next.Status.Phase = api.PodRunning
		status := api.ConditionFalse
		if ready {
			status = api.ConditionTrue
		}
		next.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: status, LastTransitionTime: api.Time{Time: h.clk.Now()}}}
		_, err := h.pods.UpdateStatus(h.ctx, next)
		require.NoError(h.t, err)
	}
}
