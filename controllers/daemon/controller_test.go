package daemon

import (
	"context"
	"fmt"
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
	"github.com/miniplane/miniplane/internal/testenv"
)

// harness runs the controller against the real API server on a fake
// clock, stepping the informers and the controller by hand. No scheduler
// or kubelet runs: the tests play them (runPods).
type harness struct {
	t    *testing.T
	ctx  context.Context
	clk  *clock.Fake
	srv  *apiserver.Server
	c    *Controller
	sets client.Typed[*api.DaemonSet]
	crs  client.Typed[*api.ControllerRevision]
	pods client.Typed[*api.Pod]
	// maxPerNode is the most live pods one node was seen to have after
	// any step.
	maxPerNode int
}

func newHarness(t *testing.T) *harness {
	clk := clock.NewFake(now)
	srv, err := apiserver.New(apiserver.Config{Clock: clk, Rand: rand.New(rand.NewPCG(1, 2))})
	require.NoError(t, err)
	log := zaptest.NewLogger(t)
	c, err := New(Config{
		Client: srv, Factory: informer.NewFactory(srv, "", clk, log), Clock: clk, Logger: log,
		Recorder: record.NewEventRecorder(srv, clk, "daemonset-controller", "test"),
	})
	require.NoError(t, err)
	h := &harness{t: t, ctx: t.Context(), clk: clk, srv: srv, c: c,
		sets: client.For[*api.DaemonSet](srv), crs: client.For[*api.ControllerRevision](srv), pods: client.For[*api.Pod](srv)}
	h.syncInformers()
	require.True(t, c.HasSynced())
	return h
}

func (h *harness) syncInformers() bool {
	return testenv.SyncInformers(h.ctx, h.c.informers...)
}

// settle runs informers and controller until nothing is left to do now.
func (h *harness) settle() {
	for h.syncInformers() || h.c.ProcessOne(h.ctx) {
		h.countPerNode()
	}
}

func (h *harness) countPerNode() {
	per := map[string]int{}
	for _, p := range h.podList() {
		if n, ok := TargetNode(p); ok && p.Metadata.DeletionTimestamp == nil {
			per[n]++
			h.maxPerNode = max(h.maxPerNode, per[n])
		}
	}
}

// converge plays scheduler and kubelet (runPods) and lets the controller
// act, until neither has anything left to do.
func (h *harness) converge() {
	for i := 0; i < 50; i++ {
		h.settle()
		if !h.runPods() {
			return
		}
	}
	h.t.Fatal("did not converge")
}

// runPods binds every unbound pod to the node its affinity pins it to and
// makes it Running and Ready, and finishes the deletion of every pod
// being deleted, as scheduler and kubelet would at once; it reports
// whether it changed any.
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
		if api.IsPodReady(p) {
			continue
		}
		next := p.DeepCopy()
		if next.Spec.NodeName == "" {
			n, ok := TargetNode(p)
			require.True(h.t, ok)
			bound, err := h.srv.Bind(h.ctx, p.Metadata.Namespace, p.Metadata.Name, n)
			require.NoError(h.t, err)
			next = bound.DeepCopy()
		}
		next.Status.Phase = api.PodRunning
		next.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: api.ConditionTrue, LastTransitionTime: api.Time{Time: h.clk.Now()}}}
		_, err := h.pods.UpdateStatus(h.ctx, next)
		require.NoError(h.t, err)
		changed = true
	}
	return changed
}

func (h *harness) podList() []*api.Pod {
	h.t.Helper()
	all, _, err := h.pods.List(h.ctx, "default", client.ListOptions{})
	require.NoError(h.t, err)
	return all
}

// podsOnNodes is node → the hash of each live pod there.
func (h *harness) podsOnNodes() map[string][]string {
	out := map[string][]string{}
	for _, p := range h.podList() {
		if p.Metadata.DeletionTimestamp != nil {
			continue
		}
		n, _ := TargetNode(p)
		out[n] = append(out[n], p.Metadata.Labels[api.DaemonSetUniqueLabelKey])
	}
	return out
}

func (h *harness) revisions() map[string]int64 {
	h.t.Helper()
	all, _, err := h.crs.List(h.ctx, "default", client.ListOptions{})
	require.NoError(h.t, err)
	out := map[string]int64{}
	for _, r := range all {
		out[r.Metadata.Labels[api.DaemonSetUniqueLabelKey]] = r.Revision
	}
	return out
}

func (h *harness) addNode(name string, labels map[string]string) {
	h.t.Helper()
	_, err := h.srv.Create(h.ctx, &api.Node{Metadata: api.ObjectMeta{Name: name, Labels: labels}})
	require.NoError(h.t, err)
}

func (h *harness) create(ds *api.DaemonSet) *api.DaemonSet {
	h.t.Helper()
	ds.Metadata.UID = ""
	created, err := h.sets.Create(h.ctx, ds)
	require.NoError(h.t, err)
	return created
}

func (h *harness) get() *api.DaemonSet {
	h.t.Helper()
	ds, err := h.sets.Get(h.ctx, "default", "foo")
	require.NoError(h.t, err)
	return ds
}

func (h *harness) setImage(image string) {
	h.t.Helper()
	next := h.get().DeepCopy()
	next.Spec.Template.Spec.Containers[0].Image = image
	_, err := h.sets.Update(h.ctx, next)
	require.NoError(h.t, err)
}

func (h *harness) events() []string {
	h.t.Helper()
	evs, _, err := client.For[*api.Event](h.srv).List(h.ctx, "default", client.ListOptions{})
	require.NoError(h.t, err)
	var out []string
	for _, e := range evs {
		out = append(out, e.Reason+": "+e.Message)
	}
	slices.Sort(out)
	return out
}

// TestNodesComeAndGo: a pod per node, pinned by matchFields and carrying
// the daemon tolerations and the revision hash; a node added gets its pod,
// a node removed loses it; the status counts them.
func TestNodesComeAndGo(t *testing.T) {
	h := newHarness(t)
	h.addNode("node-0", nil)
	h.addNode("node-1", nil)
	ds := h.create(newDaemonSet())
	h.converge()

	hash := RevisionHash(h.get())
	assert.Equal(t, map[string][]string{"node-0": {hash}, "node-1": {hash}}, h.podsOnNodes())
	assert.Equal(t, map[string]int64{hash: 1}, h.revisions())
	cr, err := h.crs.Get(h.ctx, "default", "foo-"+hash)
	require.NoError(t, err, "the revision is named <ds>-<hash>")
	assert.Equal(t, ds.Metadata.UID, api.GetControllerOf(&cr.Metadata).UID)
	p := h.podList()[0]
	assert.Equal(t, "foo-", p.Metadata.GenerateName)
	assert.Equal(t, ds.Metadata.UID, api.GetControllerOf(&p.Metadata).UID)
	assert.Len(t, p.Spec.Tolerations, 6, "the daemon tolerations")
	assert.Equal(t, "1", p.Metadata.Labels["pod-template-generation"], "the API server's template generation")
	assert.Equal(t, "metadata.name", p.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[0].MatchFields[0].Key)

	h.addNode("node-2", nil)
	h.converge()
	assert.Len(t, h.podsOnNodes()["node-2"], 1, "a node added gets its pod")

	_, err = h.srv.Delete(h.ctx, client.Nodes, "", "node-0", api.DeleteOptions{})
	require.NoError(t, err)
	h.converge()
	assert.Contains(t, h.podsOnNodes(), "node-0", "a pod bound to a removed node is left to the pod garbage collector (podgc), as upstream")

	st := h.get().Status
	assert.Equal(t, api.DaemonSetStatus{DesiredNumberScheduled: 2, CurrentNumberScheduled: 2, NumberReady: 2, NumberAvailable: 2,
		UpdatedNumberScheduled: 2, ObservedGeneration: 1}, st)
	assert.Contains(t, h.events(), "SuccessfulCreate: Created pod: "+h.podList()[0].Metadata.Name)
	assert.Equal(t, 1, h.maxPerNode)
}

// TestRollingUpdateAndRollback: a template change makes revision 2 and
// replaces the pods one node at a time (maxUnavailable 1, no surge); going
// back to the first template renumbers revision 1 as 3 instead of making
// another; an orphan revision beyond the history limit goes.
func TestRollingUpdateAndRollback(t *testing.T) {
	h := newHarness(t)
	for i := 0; i < 3; i++ {
		h.addNode(fmt.Sprintf("node-%d", i), nil)
	}
	h.create(newDaemonSet())
	h.converge()
	first := RevisionHash(h.get())

	h.setImage("foo/bar:2")
	h.settle()
	live := 0
	for _, hashes := range h.podsOnNodes() {
		live += len(hashes)
	}
	assert.Equal(t, 2, live, "one node at a time")
	h.converge()
	second := RevisionHash(h.get())
	require.NotEqual(t, first, second)
	assert.Equal(t, map[string][]string{"node-0": {second}, "node-1": {second}, "node-2": {second}}, h.podsOnNodes())
	assert.Equal(t, map[string]int64{first: 1, second: 2}, h.revisions())
	st := h.get().Status
	assert.Equal(t, int32(3), st.UpdatedNumberScheduled)
	assert.Equal(t, h.get().Metadata.Generation, st.ObservedGeneration)
	assert.Equal(t, 1, h.maxPerNode, "no surge: never two pods on a node")

	h.setImage("foo/bar")
	h.converge()
	assert.Equal(t, map[string]int64{first: 3, second: 2}, h.revisions(), "the old revision is renumbered, not copied")
	for _, p := range h.podList() {
		assert.Equal(t, "3", p.Metadata.Labels["pod-template-generation"], "the third template, though the first revision")
	}
	assert.Equal(t, map[string][]string{"node-0": {first}, "node-1": {first}, "node-2": {first}}, h.podsOnNodes())

	next := h.get().DeepCopy()
	next.Spec.RevisionHistoryLimit = ptr(int32(0))
	_, err := h.sets.Update(h.ctx, next)
	require.NoError(t, err)
	h.converge()
	assert.Equal(t, map[string]int64{first: 3}, h.revisions(), "history beyond the limit goes")
}

// TestSurgeUpdate: with maxSurge the new pod starts beside the old one,
// which goes once the new one is available.
func TestSurgeUpdate(t *testing.T) {
	h := newHarness(t)
	h.addNode("node-0", nil)
	h.addNode("node-1", nil)
	ds := newDaemonSet()
	ds.Spec.UpdateStrategy.RollingUpdate = &api.RollingUpdateDaemonSet{MaxUnavailable: ptr(api.FromInt(0)), MaxSurge: ptr(api.FromInt(1))}
	h.create(ds)
	h.converge()
	h.setImage("foo/bar:2")
	h.settle()
	per := h.podsOnNodes()
	assert.Equal(t, 3, len(per["node-0"])+len(per["node-1"]), "one node surges")
	h.converge()
	second := RevisionHash(h.get())
	assert.Equal(t, map[string][]string{"node-0": {second}, "node-1": {second}}, h.podsOnNodes())
	assert.Equal(t, 2, h.maxPerNode)
}

// TestAdoptAndRelease ports TestDaemonSetPodAdoption and release: an
// orphan pod the selector matches is adopted and counts for its node; a
// pod whose labels stop matching is released, and replaced.
func TestAdoptAndRelease(t *testing.T) {
	h := newHarness(t)
	h.addNode("node-0", nil)
	h.addNode("node-1", nil)
	ds := h.create(newDaemonSet())
	orphan := &api.Pod{Metadata: api.ObjectMeta{Namespace: "default", Name: "orphan",
		Labels: map[string]string{"name": "simple-daemon", "type": "production", api.DaemonSetUniqueLabelKey: RevisionHash(ds)}},
		Spec: api.PodSpec{NodeName: "node-0", Containers: []api.Container{{Name: "foo", Image: "foo/bar"}}}}
	_, err := h.pods.Create(h.ctx, orphan)
	require.NoError(t, err)
	h.converge()
	adopted, err := h.pods.Get(h.ctx, "default", "orphan")
	require.NoError(t, err)
	require.NotNil(t, api.GetControllerOf(&adopted.Metadata))
	assert.Equal(t, ds.Metadata.UID, api.GetControllerOf(&adopted.Metadata).UID)
	assert.Len(t, h.podsOnNodes()["node-0"], 1, "the adopted pod is node-0's")

	next := adopted.DeepCopy()
	next.Metadata.Labels = map[string]string{"name": "debug"}
	_, err = h.pods.Update(h.ctx, next)
	require.NoError(t, err)
	h.converge()
	released, err := h.pods.Get(h.ctx, "default", "orphan")
	require.NoError(t, err)
	assert.Nil(t, api.GetControllerOf(&released.Metadata), "released")
	assert.Equal(t, int32(2), h.get().Status.CurrentNumberScheduled, "node-0 has a pod of the daemon set again")
}

// TestFailedPodIsReplacedAfterBackoff ports TestDaemonKillFailedPods with
// its back-off: a failed pod is deleted and replaced; the next failure on
// the node waits out a doubled back-off on the clock.
func TestFailedPodIsReplacedAfterBackoff(t *testing.T) {
	h := newHarness(t)
	h.addNode("node-0", nil)
	h.create(newDaemonSet())
	h.converge()
	fail := func() string {
		p := h.podList()[0].DeepCopy()
		p.Status.Phase = api.PodFailed
		_, err := h.pods.UpdateStatus(h.ctx, p)
		require.NoError(t, err)
		return p.Metadata.Name
	}
	first := fail()
	h.converge()
	require.Len(t, h.podList(), 1)
	assert.NotEqual(t, first, h.podList()[0].Metadata.Name, "replaced")
	assert.Contains(t, h.events(), "FailedDaemonPod: Found failed daemon pod default/"+first+" on node node-0, will try to kill it")

	second := fail()
	h.converge()
	assert.Equal(t, second, h.podList()[0].Metadata.Name, "kept while the back-off lasts")
	h.clk.Step(2 * time.Second)
	h.converge()
	assert.NotEqual(t, second, h.podList()[0].Metadata.Name, "replaced once it is over")
}

// TestRevisionAddedBesideIsLeftUntilTheSetSyncs ports the sequence of the
// conformance test "should manage the lifecycle of a ControllerRevision":
// a client adds a second revision, with the same data and the set as its
// controller, beside the set's own. As Kubernetes' addHistory, that only is
// observed: both revisions stay until something else makes the set sync,
// which then keeps the newer one.
func TestRevisionAddedBesideIsLeftUntilTheSetSyncs(t *testing.T) {
	h := newHarness(t)
	h.addNode("node-0", nil)
	h.create(newDaemonSet())
	h.converge()
	all, _, err := h.crs.List(h.ctx, "default", client.ListOptions{})
	require.NoError(t, err)
	require.Len(t, all, 1)
	beside := all[0].DeepCopy()
	beside.Metadata = api.ObjectMeta{
		Name: "foo-beside", Namespace: "default", OwnerReferences: beside.Metadata.OwnerReferences,
		Labels: maps.Clone(all[0].Metadata.Labels),
	}
	beside.Metadata.Labels[api.DaemonSetUniqueLabelKey] = "beside"
	beside.Revision = all[0].Revision + 1
	_, err = h.crs.Create(h.ctx, beside)
	require.NoError(t, err)
	h.settle()
	assert.Equal(t, map[string]int64{RevisionHash(h.get()): 1, "beside": 2}, h.revisions(), "an added revision with a controller wakes nothing")

	next := h.get().DeepCopy()
	next.Metadata.Labels = map[string]string{"touched": "yes"}
	_, err = h.sets.Update(h.ctx, next)
	require.NoError(t, err)
	h.converge()
	assert.Equal(t, map[string]int64{"beside": 2}, h.revisions(), "the set's next sync keeps the newest of its current revisions")
}
