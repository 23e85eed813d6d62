package deployment

import (
	"context"
	"math/rand/v2"
	"sort"
	"strings"
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
	"github.com/miniplane/miniplane/internal/testenv"
)

// harness runs the controller against the real API server on a fake
// clock, stepping the informers and the controller by hand. No replica
// set controller runs: the tests play it, writing the sets' status
// (becomeAvailable) and pods.
type harness struct {
	t    *testing.T
	ctx  context.Context
	clk  *clock.Fake
	srv  *apiserver.Server
	c    *Controller
	ds   client.Typed[*api.Deployment]
	rss  client.Typed[*api.ReplicaSet]
	pods client.Typed[*api.Pod]
	// maxTotal is the most spec.replicas the deployment's sets summed to
	// after any sync.
	maxTotal int32
}

func newHarness(t *testing.T) *harness {
	clk := clock.NewFake(t0)
	srv, err := apiserver.New(apiserver.Config{Clock: clk, Rand: rand.New(rand.NewPCG(1, 2))})
	require.NoError(t, err)
	log := zaptest.NewLogger(t)
	c, err := New(Config{
		Client: srv, Factory: informer.NewFactory(srv, "", clk, log), Clock: clk, Logger: log,
		Recorder: record.NewEventRecorder(srv, clk, "deployment-controller", "test"),
	})
	require.NoError(t, err)
	h := &harness{t: t, ctx: t.Context(), clk: clk, srv: srv, c: c,
		ds: client.For[*api.Deployment](srv), rss: client.For[*api.ReplicaSet](srv), pods: client.For[*api.Pod](srv)}
	h.syncInformers()
	require.True(t, c.HasSynced())
	return h
}

func (h *harness) syncInformers() bool {
	return testenv.SyncInformers(h.ctx, h.c.informers...)
}

// settle runs informers and controller until nothing is left to do now,
// noting the largest total of the sets' spec.replicas seen.
func (h *harness) settle() {
	for h.syncInformers() || h.c.ProcessOne(h.ctx) {
		var total int32
		for _, s := range h.sets() {
			total += *s.Spec.Replicas
		}
		h.maxTotal = max(h.maxTotal, total)
	}
}

// sets returns the replica sets, lowest revision first (the fake clock
// stands still: creation times tie).
func (h *harness) sets() []*api.ReplicaSet {
	h.t.Helper()
	all, _, err := h.rss.List(h.ctx, "default", client.ListOptions{})
	require.NoError(h.t, err)
	sort.SliceStable(all, func(i, j int) bool { return byRevision(all[i], all[j]) < 0 })
	return all
}

func (h *harness) deployment(name string) *api.Deployment {
	h.t.Helper()
	d, err := h.ds.Get(h.ctx, "default", name)
	require.NoError(h.t, err)
	return d
}

// becomeAvailable plays the replica set controller with instant pods:
// every set reports its spec.replicas as running, ready and available.
func (h *harness) becomeAvailable() {
	h.t.Helper()
	for _, s := range h.sets() {
		n := *s.Spec.Replicas
		if s.Status.Replicas == n && s.Status.AvailableReplicas == n && s.Status.ObservedGeneration == s.Metadata.Generation {
			continue
		}
		next := s.DeepCopy()
		next.Status = api.ReplicaSetStatus{Replicas: n, FullyLabeledReplicas: n, ReadyReplicas: n, AvailableReplicas: n, ObservedGeneration: s.Metadata.Generation}
		_, err := h.rss.UpdateStatus(h.ctx, next)
		require.NoError(h.t, err)
	}
}

// rollUntilDone alternates syncs and availability until nothing changes.
func (h *harness) rollUntilDone() {
	for range 50 {
		h.settle()
		before := h.srv.Store().Rev()
		h.becomeAvailable()
		h.settle()
		if h.srv.Store().Rev() == before {
			return
		}
	}
	h.t.Fatal("the rollout did not finish")
}

func (h *harness) createDeployment(name string, replicas int32, mutate ...func(*api.Deployment)) *api.Deployment {
	h.t.Helper()
	d := &api.Deployment{
		Metadata: api.ObjectMeta{Namespace: "default", Name: name, Annotations: map[string]string{"team": "web"}},
		Spec: api.DeploymentSpec{
			Replicas: &replicas,
			Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": name}},
			Template: api.PodTemplateSpec{
				Metadata: api.ObjectMeta{Labels: map[string]string{"app": name}},
				Spec:     api.PodSpec{Containers: []api.Container{{Name: "web", Image: "nginx:1"}}},
			},
		},
	}
	for _, m := range mutate {
		m(d)
	}
	out, err := h.ds.Create(h.ctx, d)
	require.NoError(h.t, err)
	return out
}

func (h *harness) update(name string, mutate func(*api.Deployment)) {
	h.t.Helper()
	d := h.deployment(name).DeepCopy()
	mutate(d)
	_, err := h.ds.Update(h.ctx, d)
	require.NoError(h.t, err)
}

// events returns the messages of the controller's events, in order.
func (h *harness) events() []string {
	h.t.Helper()
	all, _, err := client.For[*api.Event](h.srv).List(h.ctx, "default", client.ListOptions{})
	require.NoError(h.t, err)
	sort.SliceStable(all, func(i, j int) bool { return all[i].Metadata.Name < all[j].Metadata.Name })
	var out []string
	for _, e := range all {
		out = append(out, e.Reason+": "+e.Message)
	}
	return out
}

// eventAnnotations returns the annotations of the event with message.
func (h *harness) eventAnnotations(message string) map[string]string {
	h.t.Helper()
	all, _, err := client.For[*api.Event](h.srv).List(h.ctx, "default", client.ListOptions{})
	require.NoError(h.t, err)
	for _, e := range all {
		if e.Message == message {
			return e.Metadata.Annotations
		}
	}
	h.t.Fatalf("no event %q", message)
	return nil
}

func condition(d *api.Deployment, typ string) api.DeploymentCondition {
	if c := GetCondition(d.Status, typ); c != nil {
		return *c
	}
	return api.DeploymentCondition{}
}

// TestCreateRollOutAndRollBack is the tutorial: create a deployment, roll
// a new image out, roll it back.
func TestCreateRollOutAndRollBack(t *testing.T) {
	h := newHarness(t)
	h.createDeployment("web", 4)
	h.settle()

	sets := h.sets()
	require.Len(t, sets, 1)
	first := sets[0]
	hash := first.Metadata.Labels[PodTemplateHashLabel]
	require.NotEmpty(t, hash)
	assert.Equal(t, "web-"+hash, first.Metadata.Name)
	assert.Equal(t, int32(4), *first.Spec.Replicas)
	assert.Equal(t, hash, first.Spec.Selector.MatchLabels[PodTemplateHashLabel])
	assert.Equal(t, hash, first.Spec.Template.Metadata.Labels[PodTemplateHashLabel])
	assert.Equal(t, map[string]string{"team": "web", RevisionAnnotation: "1", DesiredReplicasAnnotation: "4", MaxReplicasAnnotation: "5"},
		first.Metadata.Annotations)
	ref := api.GetControllerOf(&first.Metadata)
	require.NotNil(t, ref)
	assert.Equal(t, "Deployment", ref.Kind)
	d := h.deployment("web")
	assert.Equal(t, "1", d.Metadata.Annotations[RevisionAnnotation])
	assert.Equal(t, NewReplicaSetReason, condition(d, api.DeploymentProgressing).Reason)
	assert.Equal(t, MinimumReplicasUnavailable, condition(d, api.DeploymentAvailable).Reason)
	assert.Contains(t, h.events(), "ScalingReplicaSet: Scaled up replica set web-"+hash+" from 0 to 4")

	h.rollUntilDone()
	d = h.deployment("web")
	assert.Equal(t, api.DeploymentStatus{
		ObservedGeneration: 1, Replicas: 4, UpdatedReplicas: 4, ReadyReplicas: 4, AvailableReplicas: 4,
		Conditions: d.Status.Conditions,
	}, d.Status)
	assert.Equal(t, MinimumReplicasAvailable, condition(d, api.DeploymentAvailable).Reason)
	assert.Equal(t, NewRSAvailableReason, condition(d, api.DeploymentProgressing).Reason)
	assert.Equal(t, `ReplicaSet "`+first.Metadata.Name+`" has successfully progressed.`, condition(d, api.DeploymentProgressing).Message)

	// A new image: 25% surge of 4 is 1, 25% unavailable is 1.
	h.maxTotal = 0
	h.update("web", func(d *api.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "nginx:2" })
	h.rollUntilDone()
	sets = h.sets()
	require.Len(t, sets, 2)
	second := sets[1]
	assert.Equal(t, int32(0), *sets[0].Spec.Replicas, "the old set is scaled down")
	assert.Equal(t, int32(4), *second.Spec.Replicas)
	assert.Equal(t, "2", second.Metadata.Annotations[RevisionAnnotation])
	assert.LessOrEqual(t, h.maxTotal, int32(5), "never more than replicas + maxSurge")
	d = h.deployment("web")
	assert.Equal(t, "2", d.Metadata.Annotations[RevisionAnnotation])
	assert.Equal(t, int32(4), d.Status.UpdatedReplicas)
	assert.Contains(t, h.events(), "ScalingReplicaSet: Scaled down replica set "+first.Metadata.Name+" from 4 to 3")
	why, ok := FencepostsOf(h.eventAnnotations("Scaled down replica set " + first.Metadata.Name + " from 4 to 3"))
	require.True(t, ok, "a rolling update's scale carries its figures")
	assert.Equal(t, Fenceposts{Replicas: 4, MaxSurge: 1, MaxUnavailable: 1, Pods: 5, Available: 4}, why,
		"decided with the new set at 1, not yet available, and the 4 old pods available")
	why, ok = FencepostsOf(h.eventAnnotations("Scaled up replica set " + second.Metadata.Name + " from 0 to 1"))
	require.True(t, ok, "so does the new set's creation")
	assert.Equal(t, Fenceposts{Replicas: 4, MaxSurge: 1, MaxUnavailable: 1, Pods: 4, Available: 4}, why)

	// kubectl rollout undo: the old template is back, and its set becomes
	// the new one with the next revision.
	h.update("web", func(d *api.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "nginx:1" })
	h.rollUntilDone()
	sets = h.sets()
	require.Len(t, sets, 2, "no third set: the first is reused")
	assert.Equal(t, second.Metadata.Name, sets[0].Metadata.Name)
	assert.Equal(t, int32(0), *sets[0].Spec.Replicas)
	assert.Equal(t, first.Metadata.Name, sets[1].Metadata.Name)
	assert.Equal(t, int32(4), *sets[1].Spec.Replicas)
	assert.Equal(t, "3", sets[1].Metadata.Annotations[RevisionAnnotation])
	assert.Equal(t, "1", sets[1].Metadata.Annotations[RevisionHistoryAnnotation])
	assert.Equal(t, "3", h.deployment("web").Metadata.Annotations[RevisionAnnotation])
}

// TestScaleDuringRollout: a deployment scaled mid-rollout resizes its sets
// in proportion (sync_test.go's scenario, end to end).
func TestScaleDuringRollout(t *testing.T) {
	h := newHarness(t)
	h.createDeployment("web", 10, func(d *api.Deployment) {
		d.Spec.Strategy = api.DeploymentStrategy{Type: api.RollingUpdateDeploymentStrategyType,
			RollingUpdate: &api.RollingUpdateDeployment{MaxSurge: intOrStr(3), MaxUnavailable: intOrStr(2)}}
	})
	h.rollUntilDone()
	h.update("web", func(d *api.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "nginx:2" })
	// The new set surges to 3; of the 13, 8 must stay available and the
	// new set's 3 are not: the old set goes to 8, which makes room for 2
	// more new ones, none of them available yet.
	h.settle()
	sets := h.sets()
	require.Len(t, sets, 2)
	require.Equal(t, int32(8), *sets[0].Spec.Replicas)
	require.Equal(t, int32(5), *sets[1].Spec.Replicas)

	h.update("web", func(d *api.Deployment) { d.Spec.Replicas = i32(20) })
	h.settle()
	sets = h.sets()
	// 13 sized for max 13 become 23: 8 → 14 and 5 → 9 by their shares,
	// rounded.
	assert.Equal(t, int32(14), *sets[0].Spec.Replicas)
	assert.Equal(t, int32(9), *sets[1].Spec.Replicas)
	for _, s := range sets {
		assert.Equal(t, "20", s.Metadata.Annotations[DesiredReplicasAnnotation])
		assert.Equal(t, "23", s.Metadata.Annotations[MaxReplicasAnnotation])
	}
	h.rollUntilDone()
	sets = h.sets()
	assert.Equal(t, int32(0), *sets[0].Spec.Replicas)
	assert.Equal(t, int32(20), *sets[1].Spec.Replicas)
}

// TestRecreate: every old pod is gone before the new set scales up.
func TestRecreate(t *testing.T) {
	h := newHarness(t)
	h.createDeployment("db", 2, func(d *api.Deployment) {
		d.Spec.Strategy = api.DeploymentStrategy{Type: api.RecreateDeploymentStrategyType}
	})
	h.rollUntilDone()
	old := h.sets()[0]
	// A pod of the old set, as the replica set controller would make it.
	yes := true
	_, err := h.pods.Create(h.ctx, &api.Pod{
		Metadata: api.ObjectMeta{Namespace: "default", Name: "db-old", Labels: old.Spec.Template.Metadata.Labels,
			OwnerReferences: []api.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: old.Metadata.Name, UID: old.Metadata.UID, Controller: &yes}}},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "db", Image: "nginx:1"}}},
	})
	require.NoError(t, err)

	h.update("db", func(d *api.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "nginx:2" })
	h.settle()
	sets := h.sets()
	require.Len(t, sets, 1, "no new set while old ones run")
	assert.Equal(t, int32(0), *sets[0].Spec.Replicas)

	h.becomeAvailable() // the old set reports no pods; its pod is still there
	h.settle()
	require.Len(t, h.sets(), 1, "no new set while an old pod runs")

	_, err = h.pods.Delete(h.ctx, "default", "db-old", api.DeleteOptions{GracePeriodSeconds: new(int64)})
	require.NoError(t, err)
	h.settle()
	sets = h.sets()
	require.Len(t, sets, 2)
	assert.Equal(t, int32(2), *sets[1].Spec.Replicas, "created at full size")
}

// TestPausedDeploymentDoesNotRollOut is deployment_controller_test.go's
// TestPausingDeploymentNotCreatingNewRS... and its scaling: a paused
// deployment scales but starts no rollout, and resuming starts it.
func TestPausedDeploymentDoesNotRollOut(t *testing.T) {
	h := newHarness(t)
	h.createDeployment("web", 2)
	h.rollUntilDone()
	h.update("web", func(d *api.Deployment) {
		d.Spec.Paused = true
		d.Spec.Template.Spec.Containers[0].Image = "nginx:2"
	})
	h.settle()
	require.Len(t, h.sets(), 1)
	assert.Equal(t, PausedDeployReason, condition(h.deployment("web"), api.DeploymentProgressing).Reason)

	h.update("web", func(d *api.Deployment) { d.Spec.Replicas = i32(5) })
	h.settle()
	sets := h.sets()
	require.Len(t, sets, 1)
	assert.Equal(t, int32(5), *sets[0].Spec.Replicas, "scaled while paused")

	h.update("web", func(d *api.Deployment) { d.Spec.Paused = false })
	h.rollUntilDone()
	sets = h.sets()
	require.Len(t, sets, 2)
	assert.Equal(t, int32(5), *sets[1].Spec.Replicas)
}

// TestProgressDeadline: a rollout whose pods never become available times
// out a second after its deadline, on the injected clock.
func TestProgressDeadline(t *testing.T) {
	h := newHarness(t)
	h.createDeployment("web", 1, func(d *api.Deployment) { d.Spec.ProgressDeadlineSeconds = i32(30) })
	h.settle()
	d := h.deployment("web")
	require.Equal(t, NewReplicaSetReason, condition(d, api.DeploymentProgressing).Reason)

	h.clk.Step(20 * time.Second)
	h.settle()
	assert.Equal(t, NewReplicaSetReason, condition(h.deployment("web"), api.DeploymentProgressing).Reason, "not yet")
	h.clk.Step(11 * time.Second)
	h.settle()
	d = h.deployment("web")
	c := condition(d, api.DeploymentProgressing)
	assert.Equal(t, TimedOutReason, c.Reason)
	assert.Equal(t, api.ConditionFalse, c.Status)
	assert.True(t, strings.HasSuffix(c.Message, "has timed out progressing."), c.Message)
}

// TestAdoptAndRelease is deployment_controller_test.go's adoption and
// orphaning: a matching orphan set is adopted, a set whose labels no
// longer match is released.
func TestAdoptAndRelease(t *testing.T) {
	h := newHarness(t)
	orphan := rs("web-orphan", 0, map[string]string{"app": "web"}, noTimestamp)
	orphan.Metadata.UID = ""
	orphan.Spec.Template.Spec.Containers = []api.Container{{Name: "web", Image: "old"}}
	_, err := h.rss.Create(h.ctx, orphan)
	require.NoError(t, err)
	d := h.createDeployment("web", 1)
	h.settle()
	got, err := h.rss.Get(h.ctx, "default", "web-orphan")
	require.NoError(t, err)
	ref := api.GetControllerOf(&got.Metadata)
	require.NotNil(t, ref, "adopted")
	assert.Equal(t, d.Metadata.UID, ref.UID)

	next := got.DeepCopy()
	next.Metadata.Labels = map[string]string{"app": "other"}
	_, err = h.rss.Update(h.ctx, next)
	require.NoError(t, err)
	h.settle()
	got, err = h.rss.Get(h.ctx, "default", "web-orphan")
	require.NoError(t, err)
	assert.Nil(t, api.GetControllerOf(&got.Metadata), "released")
}

// TestRevisionHistoryLimit: old sets at 0 beyond the limit are deleted
// once the rollout is complete.
func TestRevisionHistoryLimit(t *testing.T) {
	h := newHarness(t)
	h.createDeployment("web", 1, func(d *api.Deployment) { d.Spec.RevisionHistoryLimit = i32(1) })
	h.rollUntilDone()
	for _, img := range []string{"nginx:2", "nginx:3"} {
		h.update("web", func(d *api.Deployment) { d.Spec.Template.Spec.Containers[0].Image = img })
		h.rollUntilDone()
	}
	sets := h.sets()
	require.Len(t, sets, 2, "the newest and one old")
	assert.Equal(t, "2", sets[0].Metadata.Annotations[RevisionAnnotation])
	assert.Equal(t, "3", sets[1].Metadata.Annotations[RevisionAnnotation])
}

// TestSelectingAll is deployment_controller_test.go's: an empty selector
// is refused with an event.
func TestSelectingAll(t *testing.T) {
	h := newHarness(t)
	d := &api.Deployment{Metadata: api.ObjectMeta{Namespace: "default", Name: "all", Generation: 1}, Spec: api.DeploymentSpec{Selector: &api.LabelSelector{}}}
	// The API server refuses an empty selector: the sync is handed one.
	require.NoError(t, h.c.syncDeployment(h.ctx, d))
	assert.Contains(t, h.events(), "SelectingAll: This deployment is selecting all pods. A non-empty selector is required.")
}
