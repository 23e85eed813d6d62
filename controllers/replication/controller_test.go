package replication

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"weak"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/client/record"
	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/informer"
	"github.com/miniplane/miniplane/internal/testenv"
)

// faultyClient is the real apiserver with counted writes and injectable
// faults, standing between the controller and the server. The informers
// read the server directly.
type faultyClient struct {
	*apiserver.Server

	mu sync.Mutex
	// createsAllowed is how many pod creates succeed before every later
	// one fails; negative means no limit.
	createsAllowed int
	creates        int // create calls
	podUpdates     int // update calls on pods (adoptions and releases)
	deletes        []string
	statusUpdates  int
	// podUpdateErr, if set, fails every pod update.
	podUpdateErr error
	// podDeleteErr, if set, fails every pod delete.
	podDeleteErr error
	// getRC and getRS, if set, rewrite the replication controllers and
	// replica sets Get returns.
	getRC func(*api.ReplicationController) *api.ReplicationController
	getRS func(*api.ReplicaSet) *api.ReplicaSet
	// afterWrite, if set, runs after each successful pod create or delete,
	// before the call returns: a seam to let the informers run between a
	// sync's writes.
	afterWrite func()
	// clock, if set, times the trace.
	clock *clock.Fake
	// trace lists the writes that succeeded, one line each.
	trace []string
}

// note adds a line to the trace of successful writes.
func (f *faultyClient) note(err error, format string, args ...any) {
	if err != nil || f.clock == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.trace = append(f.trace, fmt.Sprintf("+%-6v ", f.clock.Since(t0))+fmt.Sprintf(format, args...))
}

var errQuota = errors.New("exceeded quota")

var update = flag.Bool("update", false, "rewrite the golden traces in testdata")

func (f *faultyClient) Create(ctx context.Context, obj api.Object, opts ...client.WriteOption) (api.Object, error) {
	if _, ok := obj.(*api.Pod); ok {
		f.mu.Lock()
		f.creates++
		fail := f.createsAllowed >= 0 && f.creates > f.createsAllowed
		f.mu.Unlock()
		if fail {
			return nil, apierrors.NewForbidden(apierrors.GroupResource{Resource: "pods"}, "", errQuota.Error())
		}
	}
	out, err := f.Server.Create(ctx, obj, opts...)
	if p, ok := out.(*api.Pod); ok {
		f.note(err, "create pod %s", api.KeyOf(&p.Metadata))
		if err == nil && f.afterWrite != nil {
			f.afterWrite()
		}
	}
	return out, err
}

func (f *faultyClient) Update(ctx context.Context, obj api.Object, opts ...client.WriteOption) (api.Object, error) {
	if _, ok := obj.(*api.Pod); ok {
		f.mu.Lock()
		f.podUpdates++
		err := f.podUpdateErr
		f.mu.Unlock()
		if err != nil {
			return nil, err
		}
	}
	out, err := f.Server.Update(ctx, obj, opts...)
	if p, ok := out.(*api.Pod); ok {
		owner := "none"
		if ref := api.GetControllerOf(&p.Metadata); ref != nil {
			owner = ref.Name
		}
		f.note(err, "update pod %s controller=%s", api.KeyOf(&p.Metadata), owner)
	}
	return out, err
}

func (f *faultyClient) UpdateStatus(ctx context.Context, obj api.Object, opts ...client.WriteOption) (api.Object, error) {
	switch obj.(type) {
	case *api.ReplicationController, *api.ReplicaSet:
		f.mu.Lock()
		f.statusUpdates++
		f.mu.Unlock()
	}
	out, err := f.Server.UpdateStatus(ctx, obj, opts...)
	switch o := out.(type) {
	case *api.ReplicationController:
		st := o.Status
		f.note(err, "status rc %s replicas=%d fullyLabeled=%d ready=%d available=%d observedGeneration=%d conditions=%d",
			api.KeyOf(&o.Metadata), st.Replicas, st.FullyLabeledReplicas, st.ReadyReplicas, st.AvailableReplicas,
			st.ObservedGeneration, len(st.Conditions))
	case *api.ReplicaSet:
		st := o.Status
		f.note(err, "status rs %s replicas=%d fullyLabeled=%d ready=%d available=%d observedGeneration=%d conditions=%d",
			api.KeyOf(&o.Metadata), st.Replicas, st.FullyLabeledReplicas, st.ReadyReplicas, st.AvailableReplicas,
			st.ObservedGeneration, len(st.Conditions))
	}
	return out, err
}

func (f *faultyClient) Delete(ctx context.Context, resource, namespace, name string, opts api.DeleteOptions) (api.Object, error) {
	if resource == client.Pods {
		f.mu.Lock()
		f.deletes = append(f.deletes, name)
		err := f.podDeleteErr
		f.mu.Unlock()
		if err != nil {
			return nil, err
		}
	}
	out, err := f.Server.Delete(ctx, resource, namespace, name, opts)
	if resource == client.Pods {
		f.note(err, "delete pod %s/%s", namespace, name)
		if err == nil && f.afterWrite != nil {
			f.afterWrite()
		}
	}
	return out, err
}

func (f *faultyClient) Get(ctx context.Context, resource, namespace, name string, opts client.GetOptions) (api.Object, error) {
	obj, err := f.Server.Get(ctx, resource, namespace, name, opts)
	f.mu.Lock()
	hook, hookRS := f.getRC, f.getRS
	f.mu.Unlock()
	if rc, ok := obj.(*api.ReplicationController); ok && err == nil && hook != nil {
		return hook(rc), nil
	}
	if rs, ok := obj.(*api.ReplicaSet); ok && err == nil && hookRS != nil {
		return hookRS(rs), nil
	}
	return obj, err
}

// counts returns the write counters.
func (f *faultyClient) counts() (creates, podUpdates, deletes, statusUpdates int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.creates, f.podUpdates, len(f.deletes), f.statusUpdates
}

// harness is a real apiserver and real informers on a fake clock, with the
// controller's steps driven by hand.
type harness struct {
	t      testing.TB
	ctx    context.Context
	clk    *clock.Fake
	srv    *apiserver.Server
	client *faultyClient
	c      *Controller
	cfg    Config // c's
	pods   client.Typed[*api.Pod]
	rcs    client.Typed[*api.ReplicationController]
	rss    client.Typed[*api.ReplicaSet]
}

// newHarness returns a harness around a replication controller (New).
func newHarness(t testing.TB, burst int, withRecorder bool, mutate ...func(*Config)) *harness {
	t.Helper()
	return newHarnessOf(t, rcKind(), burst, withRecorder, mutate...)
}

// newHarnessOf returns a harness around the controller of kind k.
func newHarnessOf(t testing.TB, k kind, burst int, withRecorder bool, mutate ...func(*Config)) *harness {
	t.Helper()
	clk := clock.NewFake(t0)
	srv, err := apiserver.New(apiserver.Config{Clock: clk, Rand: rand.New(rand.NewPCG(1, 2))})
	require.NoError(t, err)
	cl := &faultyClient{Server: srv, createsAllowed: -1, clock: clk}
	log := zap.NewNop() // benchmarks: logs would be the cost measured
	if _, bench := t.(*testing.B); !bench {
		log = zaptest.NewLogger(t)
	}
	var rec *record.EventRecorder
	if withRecorder {
		rec = record.NewEventRecorder(srv, clk, k.name+"-controller", "test")
	}
	cfg := Config{
		Client: cl, Factory: informer.NewFactory(srv, "", clk, log), Clock: clk, Logger: log,
		Recorder: rec, BurstReplicas: burst,
	}
	for _, m := range mutate {
		m(&cfg)
	}
	c, err := newController(cfg, k)
	require.NoError(t, err)
	h := &harness{t: t, ctx: t.Context(), clk: clk, srv: srv, client: cl, c: c, cfg: cfg,
		pods: client.For[*api.Pod](srv), rcs: client.For[*api.ReplicationController](srv),
		rss: client.For[*api.ReplicaSet](srv)}
	h.syncInformers()
	require.True(t, c.HasSynced())
	return h
}

// syncInformers delivers everything the server has to the caches and the
// controller's handlers, without syncing any controller.
func (h *harness) syncInformers() bool {
	return testenv.SyncInformers(h.ctx, h.c.ownerInformer, h.c.podInformer)
}

// settle runs informers and controller until nothing is left to do now.
func (h *harness) settle() {
	for h.syncInformers() || h.c.ProcessOne(h.ctx) {
	}
}

// syncOnce runs exactly one controller sync, which must be ready.
func (h *harness) syncOnce() {
	h.t.Helper()
	require.True(h.t, h.c.ProcessOne(h.ctx), "a key should be ready")
}

func (h *harness) createRC(name string, replicas int32, mutate ...func(*api.ReplicationController)) *api.ReplicationController {
	h.t.Helper()
	rc := &api.ReplicationController{
		Metadata: api.ObjectMeta{Namespace: "default", Name: name},
		Spec: api.ReplicationControllerSpec{
			Replicas: &replicas,
			Selector: map[string]string{"app": "web"},
			Template: &api.PodTemplateSpec{
				Metadata: api.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:     api.PodSpec{Containers: []api.Container{{Name: "web", Image: "nginx"}}},
			},
		},
	}
	for _, m := range mutate {
		m(rc)
	}
	out, err := h.rcs.Create(h.ctx, rc)
	require.NoError(h.t, err)
	return out
}

func (h *harness) createPod(name string, labels map[string]string, owners ...api.OwnerReference) *api.Pod {
	h.t.Helper()
	p, err := h.pods.Create(h.ctx, &api.Pod{
		Metadata: api.ObjectMeta{Namespace: "default", Name: name, Labels: labels, OwnerReferences: owners},
		Spec:     api.PodSpec{Containers: []api.Container{{Name: "web", Image: "nginx"}}},
	})
	require.NoError(h.t, err)
	return p
}

func (h *harness) getRC(name string) *api.ReplicationController {
	h.t.Helper()
	rc, err := h.rcs.Get(h.ctx, "default", name)
	require.NoError(h.t, err)
	return rc
}

// livePods returns the pods that are not being deleted, by name.
func (h *harness) livePods() []*api.Pod {
	h.t.Helper()
	all, _, err := h.pods.List(h.ctx, "default", client.ListOptions{})
	require.NoError(h.t, err)
	return slices.DeleteFunc(all, func(p *api.Pod) bool { return p.Metadata.DeletionTimestamp != nil })
}

// ownedBy returns the live pods whose controller is rc.
func (h *harness) ownedBy(rc *api.ReplicationController) []*api.Pod {
	return slices.DeleteFunc(h.livePods(), func(p *api.Pod) bool {
		ref := api.GetControllerOf(&p.Metadata)
		return ref == nil || ref.UID != rc.Metadata.UID
	})
}

func (h *harness) scale(name string, replicas int32) {
	h.t.Helper()
	_, err := h.srv.UpdateScale(h.ctx, client.ReplicationControllers, "default", &api.Scale{
		Metadata: api.ObjectMeta{Name: name, Namespace: "default"},
		Spec:     api.ScaleSpec{Replicas: replicas},
	})
	require.NoError(h.t, err)
}

// runPod binds the pod to node and makes it Running, and Ready since now
// when ready is true, as a kubelet would.
func (h *harness) runPod(name, node string, ready bool) {
	h.t.Helper()
	_, err := h.srv.Bind(h.ctx, "default", name, node)
	require.NoError(h.t, err)
	p, err := h.pods.Get(h.ctx, "default", name)
	require.NoError(h.t, err)
	p = p.DeepCopy()
	p.Status.Phase = api.PodRunning
	st := api.ConditionFalse
	if ready {
		st = api.ConditionTrue
	}
	p.Status.Conditions = append(p.Status.Conditions, api.PodCondition{
		Type: api.PodReady, Status: st, LastTransitionTime: api.NewTime(h.clk.Now()),
	})
	_, err = h.pods.UpdateStatus(h.ctx, p)
	require.NoError(h.t, err)
}

// drainQueue takes every ready key off the queue, unsynced, and returns them.
func (h *harness) drainQueue() []string {
	var keys []string
	for {
		k, ok, _ := h.c.Queue().TryGet()
		if !ok {
			return keys
		}
		h.c.Queue().Done(k)
		keys = append(keys, k)
	}
}

func events(t *testing.T, srv *apiserver.Server, reason string) []*api.Event {
	t.Helper()
	all, _, err := client.For[*api.Event](srv).List(t.Context(), "default", client.ListOptions{})
	require.NoError(t, err)
	return slices.DeleteFunc(all, func(e *api.Event) bool { return e.Reason != reason })
}

func TestSteadyStateDoesNothing(t *testing.T) {
	h := newHarness(t, 0, false)
	rc := h.createRC("web", 2)
	h.settle()
	require.Len(t, h.ownedBy(rc), 2)
	creates, updates, deletes, statusUpdates := h.client.counts()

	h.c.Queue().Add("default/web")
	h.settle()
	c2, u2, d2, s2 := h.client.counts()
	assert.Equal(t, creates, c2, "no create")
	assert.Equal(t, updates, u2, "no pod update")
	assert.Equal(t, deletes, d2, "no delete")
	assert.Equal(t, statusUpdates, s2, "no status write when nothing changed")
	got := h.getRC("web")
	assert.Equal(t, int32(2), got.Status.Replicas)
	assert.Equal(t, got.Metadata.Generation, got.Status.ObservedGeneration)
}

func TestBurstWaves(t *testing.T) {
	const burst = 5
	h := newHarness(t, burst, false)
	h.createRC("web", 12)
	h.syncInformers()

	// Scale up in waves of at most burst; a wave starts only once the
	// previous one has been observed.
	for _, want := range []int{5, 10, 12} {
		h.syncOnce()
		creates, _, _, _ := h.client.counts()
		assert.Equal(t, want, creates, "creates after a wave")

		// The same controller synced again before its pods are observed
		// does nothing more.
		h.c.Queue().Add("default/web")
		h.syncOnce()
		again, _, _, _ := h.client.counts()
		assert.Equal(t, want, again, "no create while expectations are pending")
		h.syncInformers()
	}
	h.settle()
	require.Len(t, h.livePods(), 12)

	h.scale("web", 0)
	h.syncInformers()
	for _, want := range []int{5, 10, 12} {
		h.syncOnce()
		_, _, deletes, _ := h.client.counts()
		assert.Equal(t, want, deletes, "deletes after a wave")
		h.c.Queue().Add("default/web")
		h.syncOnce()
		_, _, again, _ := h.client.counts()
		assert.Equal(t, want, again, "no delete while expectations are pending")
		h.syncInformers()
	}
	h.settle()
	assert.Empty(t, h.livePods())
	_, _, deletes, _ := h.client.counts()
	assert.Equal(t, 12, deletes, "no pod deleted twice")
	add, del, _ := h.c.expectations.Get("default/web")
	assert.Equal(t, 0, add)
	assert.Equal(t, 0, del)
}

// TestWithoutExpectationsPlantsTheBug checks Config.WithoutExpectations, the
// bug the simulator's planted-bug run relies on: a second sync before the
// first one's pods reach the cache creates them again, where the real
// controller waits. Outstanding reports what the controller waits for.
func TestWithoutExpectationsPlantsTheBug(t *testing.T) {
	tests := []struct {
		name                string
		withoutExpectations bool
		wantCreates         int
	}{
		{name: "expectations hold the second sync", wantCreates: 3},
		{name: "without them it creates again", withoutExpectations: true, wantCreates: 6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, 0, false, func(c *Config) { c.WithoutExpectations = tt.withoutExpectations })
			h.createRC("web", 3)
			h.syncInformers()
			h.syncOnce()
			creates, _, _, _ := h.client.counts()
			require.Equal(t, 3, creates)
			add, del, ok := h.c.Outstanding("default/web")
			require.True(t, ok)
			require.Equal(t, 3, add, "three creations not yet observed")
			require.Zero(t, del)

			// Sync again before the pod informer delivers the creates.
			h.c.Queue().Add("default/web")
			h.syncOnce()
			creates, _, _, _ = h.client.counts()
			assert.Equal(t, tt.wantCreates, creates)
			add, _, ok = h.c.Outstanding("default/web")
			assert.True(t, ok)
			assert.Equal(t, 3, add, "the waiting sync leaves the record; the buggy one sets it anew")

			h.syncInformers()
			add, _, _ = h.c.Outstanding("default/web")
			assert.LessOrEqual(t, add, 0, "every create observed")
		})
	}
}

// TestEventsCarryTheExpectationsAtEachWrite: each SuccessfulCreate and
// SuccessfulDelete event carries the expectations the controller held just
// before that write, the pod it names included. Here the informer sees each
// pod before the next write, so the figures count down within one sync; a
// reader asking the controller afterwards would see 0 for all of them.
func TestEventsCarryTheExpectationsAtEachWrite(t *testing.T) {
	h := newHarness(t, 0, true)
	h.createRC("web", 3)
	h.syncInformers()
	h.client.afterWrite = func() { h.syncInformers() }
	h.syncOnce()

	facts := func(reason string) []string {
		var out []string
		for _, e := range events(t, h.srv, reason) {
			out = append(out, e.Message+" creations="+e.Metadata.Annotations[AnnotationExpectedCreations]+
				" deletions="+e.Metadata.Annotations[AnnotationExpectedDeletions])
		}
		slices.Sort(out)
		return out
	}
	created := h.client.traceLines("create pod default/")
	require.Len(t, created, 3)
	assert.Equal(t, []string{
		"Created pod: " + created[0] + " creations=3 deletions=0",
		"Created pod: " + created[1] + " creations=2 deletions=0",
		"Created pod: " + created[2] + " creations=1 deletions=0",
	}, sortedLike(facts(ReasonSuccessfulCreate), created))
	add, del, _ := h.c.Outstanding("default/web")
	assert.Equal(t, [2]int{0, 0}, [2]int{add, del}, "all observed by now")

	h.scale("web", 1)
	h.syncInformers()
	h.syncOnce()
	deleted := h.client.traceLines("delete pod default/")
	require.Len(t, deleted, 2)
	assert.Equal(t, []string{
		"Deleted pod: " + deleted[0] + " creations=0 deletions=2",
		"Deleted pod: " + deleted[1] + " creations=0 deletions=1",
	}, sortedLike(facts(ReasonSuccessfulDelete), deleted))
	for _, e := range events(t, h.srv, ReasonSuccessfulDelete) {
		assert.Equal(t, h.clk.Now().UTC().Format(time.RFC3339Nano), e.Metadata.Annotations[AnnotationRankedAt], "the time PodsToDelete ranked at")
	}

	// The annotations are written in a map each sync reuses: a create
	// after a delete carries no ranking time.
	h.scale("web", 2)
	h.syncInformers()
	h.syncOnce()
	require.Len(t, h.client.traceLines("create pod default/"), 4)
	for _, e := range events(t, h.srv, ReasonSuccessfulCreate) {
		assert.NotContains(t, e.Metadata.Annotations, AnnotationRankedAt)
		assert.Equal(t, "0", e.Metadata.Annotations[AnnotationExpectedDeletions])
	}
}

// TestExpectationAnnotationsEmptyTheMap checks that the annotations of an
// event hold the expectations and nothing a previous event left in the
// reused map, and that without a recorder there are none.
func TestExpectationAnnotationsEmptyTheMap(t *testing.T) {
	h := newHarness(t, 0, true)
	h.c.expectations.ExpectCreations("default/web", 2)
	s := new(scratch)
	facts := h.c.expectationAnnotations(s, "default/web")
	facts[AnnotationRankedAt] = "then"
	facts = h.c.expectationAnnotations(s, "default/web")
	assert.Equal(t, map[string]string{AnnotationExpectedCreations: "2", AnnotationExpectedDeletions: "0"}, facts)

	h = newHarness(t, 0, false)
	assert.Nil(t, h.c.expectationAnnotations(s, "default/web"))
}

// traceLines returns the pod names of the trace's lines that start with
// prefix, in the order the writes happened.
func (f *faultyClient) traceLines(prefix string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, l := range f.trace {
		if _, rest, ok := strings.Cut(l, prefix); ok {
			out = append(out, strings.Fields(rest)[0])
		}
	}
	return out
}

// sortedLike orders lines by the position of the pod name each contains in
// names.
func sortedLike(lines, names []string) []string {
	out := slices.Clone(lines)
	pos := func(l string) int {
		return slices.IndexFunc(names, func(n string) bool { return strings.Contains(l, ": "+n+" ") })
	}
	slices.SortFunc(out, func(a, b string) int { return pos(a) - pos(b) })
	return out
}

func TestSlowStartWithFailures(t *testing.T) {
	h := newHarness(t, 0, true)
	h.client.createsAllowed = 5
	h.createRC("web", 20)
	h.syncInformers()

	h.syncOnce()
	creates, _, _, _ := h.client.counts()
	assert.Equal(t, 7, creates, "batches 1, 2, 4; the failing batch is the last")
	add, _, _ := h.c.expectations.Get("default/web")
	assert.Equal(t, 5, add, "failed and skipped creates are not expected")
	rc := h.getRC("web")
	cond := GetCondition(rcKind().status(rc), api.ReplicaSetReplicaFailure)
	require.NotNil(t, cond)
	assert.Equal(t, ReasonFailedCreate, cond.Reason)
	assert.Contains(t, cond.Message, errQuota.Error())
	assert.Len(t, events(t, h.srv, ReasonSuccessfulCreate), 5)
	assert.NotEmpty(t, events(t, h.srv, ReasonFailedCreate))

	// The failed sync was requeued with a backoff.
	_, parked := h.c.Queue().NextDelayed()
	assert.True(t, parked, "the failed sync is requeued after a backoff")

	h.settle()
	assert.Len(t, h.livePods(), 5)
	assert.True(t, h.c.expectations.Satisfied("default/web"))

	// The quota is lifted: the retry fills the gap and clears the condition.
	h.client.mu.Lock()
	h.client.createsAllowed = -1
	h.client.mu.Unlock()
	h.clk.Step(time.Minute)
	h.settle()
	assert.Len(t, h.livePods(), 20)
	assert.Nil(t, GetCondition(rcKind().status(h.getRC("web")), api.ReplicaSetReplicaFailure))
}

func TestExpectationsReadBeforePodList(t *testing.T) {
	h := newHarness(t, 0, false)
	rc := h.createRC("web", 2)
	h.settle()
	pods := h.ownedBy(rc)
	require.Len(t, pods, 2)
	_, err := h.pods.Delete(h.ctx, "default", pods[0].Metadata.Name, api.DeleteOptions{})
	require.NoError(t, err)
	h.syncInformers() // the controller is due a sync and expects nothing
	creates, _, _, _ := h.client.counts()

	// A pod of the controller appears right after the sync has read its
	// expectations (satisfied). Because the pods are listed after that
	// read, the sync sees it and creates nothing; listing first would
	// have missed it and created one too many.
	h.createPod("late", map[string]string{"app": "web"}, rcKind().controllerRef(&rc.Metadata))
	h.c.expectations.afterSatisfied = func() { h.syncInformers() }
	h.syncOnce()
	h.c.expectations.afterSatisfied = nil
	after, _, _, _ := h.client.counts()
	assert.Equal(t, creates, after, "no extra create")
	h.settle()
	assert.Len(t, h.ownedBy(rc), 2)
	assert.Equal(t, int32(2), h.getRC("web").Status.Replicas)
}

func TestTombstonesEnqueueTheOwner(t *testing.T) {
	h := newHarness(t, 0, false)
	rc := h.createRC("web", 1)
	h.settle()
	pods := h.ownedBy(rc)
	require.Len(t, pods, 1)
	podKey := api.KeyOf(&pods[0].Metadata)
	h.c.expectations.ExpectDeletions("default/web", []string{podKey})

	// The pod is deleted while the watch is away; the relist finds it gone
	// and the informer hands out a tombstone.
	_, err := h.pods.Delete(h.ctx, "default", pods[0].Metadata.Name, api.DeleteOptions{})
	require.NoError(t, err)
	list, err := h.srv.List(h.ctx, client.Pods, "", client.ListOptions{})
	require.NoError(t, err)
	h.c.podInformer.FIFO().Replace(list.Items)
	var seen []any
	h.c.podInformer.AddEventHandler(informer.HandlerFuncs{DeleteFunc: func(obj any) { seen = append(seen, obj) }}, 0)
	for h.c.podInformer.ProcessOne() {
	}
	for h.c.podReg.DispatchOne() {
	}
	assert.Equal(t, []string{"default/web"}, h.drainQueue(), "the owner is enqueued")
	assert.True(t, h.c.expectations.Satisfied("default/web"), "the tombstone counts as the deletion")

	// A tombstone of the controller itself forgets its expectations.
	h.c.expectations.ExpectCreations("default/web", 3)
	h.c.deleteOwner(informer.DeletedFinalStateUnknown{Key: "default/web", Obj: rc})
	_, _, ok := h.c.expectations.Get("default/web")
	assert.False(t, ok, "expectations forgotten")
	assert.Equal(t, []string{"default/web"}, h.drainQueue())
}

func TestOverlappingControllers(t *testing.T) {
	h := newHarness(t, 0, false)
	a := h.createRC("a", 1)
	b := h.createRC("b", 2)
	h.settle()
	assert.Len(t, h.ownedBy(a), 1)
	assert.Len(t, h.ownedBy(b), 2)
	assert.Len(t, h.livePods(), 3)
	assert.Equal(t, int32(1), h.getRC("a").Status.Replicas)
	assert.Equal(t, int32(2), h.getRC("b").Status.Replicas)

	// A change to a's pod wakes a only, although b's selector matches it.
	h.drainQueue()
	p := h.ownedBy(a)[0].DeepCopy()
	p.Metadata.Annotations = map[string]string{"touched": "yes"}
	_, err := h.pods.Update(h.ctx, p)
	require.NoError(t, err)
	h.syncInformers()
	assert.Equal(t, []string{"default/a"}, h.drainQueue())
}

func TestAdoptionAndOrphaning(t *testing.T) {
	h := newHarness(t, 0, false)
	web := map[string]string{"app": "web"}
	for _, name := range []string{"o1", "o2", "o3"} {
		h.createPod(name, web)
	}
	rc := h.createRC("web", 2)
	h.settle()
	owned := h.ownedBy(rc)
	require.Len(t, owned, 2, "all three adopted, then one deleted")
	creates, _, deletes, _ := h.client.counts()
	assert.Equal(t, 0, creates)
	assert.Equal(t, 1, deletes)
	for _, p := range owned {
		ref := api.GetControllerOf(&p.Metadata)
		require.NotNil(t, ref)
		assert.Equal(t, rcKind().controllerRef(&rc.Metadata), *ref)
	}

	// Relabelled away: released, and replaced.
	away := owned[0].DeepCopy()
	away.Metadata.Labels = map[string]string{"app": "other"}
	_, err := h.pods.Update(h.ctx, away)
	require.NoError(t, err)
	h.settle()
	released, err := h.pods.Get(h.ctx, "default", away.Metadata.Name)
	require.NoError(t, err)
	assert.Nil(t, api.GetControllerOf(&released.Metadata), "released")
	assert.Empty(t, released.Metadata.OwnerReferences)
	assert.Len(t, h.ownedBy(rc), 2, "a replacement was created")

	// Relabelled back: adopted again, and the surplus deleted.
	back := released.DeepCopy()
	back.Metadata.Labels = web
	_, err = h.pods.Update(h.ctx, back)
	require.NoError(t, err)
	h.settle()
	assert.Len(t, h.ownedBy(rc), 2)
	_, _, deletes, _ = h.client.counts()
	assert.Equal(t, 2, deletes)
}

func TestAdoptionOwnerReferences(t *testing.T) {
	yes, no := true, false
	tests := []struct {
		name   string
		owners func(rc *api.ReplicationController) []api.OwnerReference
		want   func(rc *api.ReplicationController) []api.OwnerReference
	}{
		{
			name:   "no owners: adopted",
			owners: func(*api.ReplicationController) []api.OwnerReference { return nil },
			want: func(rc *api.ReplicationController) []api.OwnerReference {
				return []api.OwnerReference{rcKind().controllerRef(&rc.Metadata)}
			},
		},
		{
			name: "us as a plain owner: becomes the controller",
			owners: func(rc *api.ReplicationController) []api.OwnerReference {
				return []api.OwnerReference{{APIVersion: "v1", Kind: "ReplicationController", Name: rc.Metadata.Name, UID: rc.Metadata.UID, Controller: &no}}
			},
			want: func(rc *api.ReplicationController) []api.OwnerReference {
				return []api.OwnerReference{rcKind().controllerRef(&rc.Metadata)}
			},
		},
		{
			name: "another plain owner is kept",
			owners: func(*api.ReplicationController) []api.OwnerReference {
				return []api.OwnerReference{{APIVersion: "apps/v1", Kind: "StatefulSet", Name: "ss", UID: "ss-uid"}}
			},
			want: func(rc *api.ReplicationController) []api.OwnerReference {
				return []api.OwnerReference{{APIVersion: "apps/v1", Kind: "StatefulSet", Name: "ss", UID: "ss-uid"}, rcKind().controllerRef(&rc.Metadata)}
			},
		},
		{
			name: "another controller and us as a plain owner: unchanged",
			owners: func(rc *api.ReplicationController) []api.OwnerReference {
				return []api.OwnerReference{
					{APIVersion: "apps/v1", Kind: "StatefulSet", Name: "ss", UID: "ss-uid", Controller: &yes},
					{APIVersion: "v1", Kind: "ReplicationController", Name: rc.Metadata.Name, UID: rc.Metadata.UID},
				}
			},
			want: func(rc *api.ReplicationController) []api.OwnerReference {
				return []api.OwnerReference{
					{APIVersion: "apps/v1", Kind: "StatefulSet", Name: "ss", UID: "ss-uid", Controller: &yes},
					{APIVersion: "v1", Kind: "ReplicationController", Name: rc.Metadata.Name, UID: rc.Metadata.UID},
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, 0, false)
			rc := h.createRC("web", 1)
			h.syncInformers()
			h.drainQueue()
			p := h.createPod("p", map[string]string{"app": "web"}, tt.owners(rc)...)
			h.syncInformers()
			h.c.Queue().Add("default/web") // a pod with another controller wakes nobody
			h.syncOnce()
			got, err := h.pods.Get(h.ctx, "default", p.Metadata.Name)
			require.NoError(t, err)
			assert.Equal(t, tt.want(rc), got.Metadata.OwnerReferences)
		})
	}
}

func TestOtherControllersPodsLeftAlone(t *testing.T) {
	h := newHarness(t, 0, false)
	yes := true
	foreign := h.createPod("foreign", map[string]string{"app": "web"},
		api.OwnerReference{APIVersion: "v1", Kind: "ReplicationController", Name: "someone-else", UID: "other-uid", Controller: &yes})
	rc := h.createRC("web", 2)
	h.settle()
	assert.Len(t, h.ownedBy(rc), 2, "two pods created beside the foreign one")
	got, err := h.pods.Get(h.ctx, "default", "foreign")
	require.NoError(t, err)
	assert.Equal(t, foreign.Metadata.ResourceVersion, got.Metadata.ResourceVersion, "foreign pod untouched")
	_, updates, _, _ := h.client.counts()
	assert.Equal(t, 0, updates)
}

func TestAdoptionFailureRequeues(t *testing.T) {
	h := newHarness(t, 0, false)
	h.createPod("o1", map[string]string{"app": "web"})
	h.createPod("o2", map[string]string{"app": "web"})
	h.client.podUpdateErr = apierrors.NewConflict(apierrors.GroupResource{Resource: "pods"}, "o", "the object has been modified")
	h.createRC("web", 2)
	h.syncInformers()
	h.syncOnce()
	creates, updates, _, _ := h.client.counts()
	assert.Equal(t, 2, updates, "both adoptions attempted")
	assert.Equal(t, 0, creates, "a failed claim stops the sync")
	assert.Equal(t, 1, h.c.Queue().NumRequeues("default/web"), "requeued with a backoff")
}

func TestScaleDownRanking(t *testing.T) {
	h := newHarness(t, 0, false)
	// With a controller owner (a Deployment, say), the pods of the owner's
	// controllers are related, and doubling up on a node counts.
	yes := true
	owner := api.OwnerReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "d", UID: "deploy-uid", Controller: &yes}
	rc := h.createRC("web", 4, func(rc *api.ReplicationController) {
		rc.Metadata.OwnerReferences = []api.OwnerReference{owner}
	})
	h.settle()
	pods := h.ownedBy(rc)
	require.Len(t, pods, 4)
	// pods[0]: ready, alone on n1; pods[1]: ready, sharing n2;
	// pods[2]: running, not ready, on n3; pods[3]: pending, unscheduled.
	h.runPod(pods[0].Metadata.Name, "n1", true)
	h.runPod(pods[1].Metadata.Name, "n2", true)
	h.runPod(pods[2].Metadata.Name, "n2", false)
	h.settle()

	h.scale("web", 1)
	h.settle()
	assert.Equal(t, []string{pods[3].Metadata.Name, pods[2].Metadata.Name, pods[1].Metadata.Name}, h.client.deletes,
		"unscheduled, then not ready, then doubled up")
	left := h.ownedBy(rc)
	require.Len(t, left, 1)
	assert.Equal(t, pods[0].Metadata.Name, left[0].Metadata.Name)
}

// TestScaleDownOfAStandaloneControllerIgnoresDoublingUp: as in Kubernetes,
// a controller without a controller owner has no related pods, so which
// pods share a node does not rank them; here the most recently ready pod
// goes first though the other two share a node.
func TestScaleDownOfAStandaloneControllerIgnoresDoublingUp(t *testing.T) {
	h := newHarness(t, 0, false)
	rc := h.createRC("web", 3)
	h.settle()
	pods := h.ownedBy(rc)
	require.Len(t, pods, 3)
	h.runPod(pods[1].Metadata.Name, "n2", true)
	h.runPod(pods[2].Metadata.Name, "n2", true)
	h.clk.Step(time.Hour)
	h.runPod(pods[0].Metadata.Name, "n1", true) // ready an hour after the others
	h.settle()

	h.scale("web", 2)
	h.settle()
	assert.Equal(t, []string{pods[0].Metadata.Name}, h.client.deletes)
}

func TestReadyVersusAvailable(t *testing.T) {
	h := newHarness(t, 0, false)
	rc := h.createRC("web", 1, func(rc *api.ReplicationController) { rc.Spec.MinReadySeconds = 10 })
	h.settle()
	pods := h.ownedBy(rc)
	require.Len(t, pods, 1)
	readyAt := h.clk.Now()
	h.runPod(pods[0].Metadata.Name, "n1", true)
	h.clk.Step(500 * time.Millisecond) // the controller sees it a little later
	h.settle()
	st := h.getRC("web").Status
	assert.Equal(t, int32(1), st.ReadyReplicas)
	assert.Equal(t, int32(0), st.AvailableReplicas)
	next, ok := h.c.Queue().NextDelayed()
	require.True(t, ok, "a sync is parked for when the pod may be available")
	assert.Equal(t, h.clk.Now().Add(10*time.Second), next)

	// Just before that, nothing has changed.
	h.clk.SetTime(readyAt.Add(10 * time.Second))
	h.settle()
	assert.Equal(t, int32(0), h.getRC("web").Status.AvailableReplicas)

	// The parked sync finds it available, with no event to wake it.
	h.clk.SetTime(next)
	h.settle()
	assert.Equal(t, int32(1), h.getRC("web").Status.AvailableReplicas)
	_, pending := h.c.Queue().NextDelayed()
	assert.False(t, pending, "no further requeue once available")
}

func TestScaleSubresource(t *testing.T) {
	h := newHarness(t, 0, true)
	rc := h.createRC("web", 0)
	h.settle()
	assert.Empty(t, h.livePods())

	h.scale("web", 3)
	h.settle()
	assert.Len(t, h.ownedBy(rc), 3)
	got := h.getRC("web")
	assert.Equal(t, int32(3), got.Status.Replicas)
	assert.Equal(t, got.Metadata.Generation, got.Status.ObservedGeneration)

	h.scale("web", 0)
	h.settle()
	assert.Empty(t, h.livePods())
	assert.Equal(t, int32(0), h.getRC("web").Status.Replicas)
	assert.Len(t, events(t, h.srv, ReasonSuccessfulCreate), 3)
	assert.Len(t, events(t, h.srv, ReasonSuccessfulDelete), 3)
}

func TestBeingDeletedNeitherAdoptsNorCreates(t *testing.T) {
	h := newHarness(t, 0, false)
	h.createPod("orphan", map[string]string{"app": "web"})
	h.createRC("web", 3, func(rc *api.ReplicationController) { rc.Metadata.Finalizers = []string{"example.com/hold"} })
	_, err := h.rcs.Delete(h.ctx, "default", "web", api.DeleteOptions{})
	require.NoError(t, err)
	require.NotNil(t, h.getRC("web").Metadata.DeletionTimestamp)
	h.settle()
	creates, updates, _, _ := h.client.counts()
	assert.Equal(t, 0, creates, "no create")
	assert.Equal(t, 0, updates, "no adoption")
}

func TestBeingDeletedRaceAbortsAdoption(t *testing.T) {
	h := newHarness(t, 0, false)
	h.createPod("orphan", map[string]string{"app": "web"})
	h.createRC("web", 3)
	// The cache says alive; the uncached read says being deleted.
	h.client.getRC = func(rc *api.ReplicationController) *api.ReplicationController {
		rc = rc.DeepCopy()
		now := api.NewTime(h.clk.Now())
		rc.Metadata.DeletionTimestamp = &now
		return rc
	}
	h.syncInformers()
	h.syncOnce()
	creates, updates, _, statusUpdates := h.client.counts()
	assert.Equal(t, 0, creates, "no create")
	assert.Equal(t, 0, updates, "no adoption")
	assert.Equal(t, 0, statusUpdates, "the sync stopped before its status")
	assert.Equal(t, 1, h.c.Queue().NumRequeues("default/web"), "the sync failed and was requeued")
}

func TestRecreateGetsFreshExpectations(t *testing.T) {
	h := newHarness(t, 0, false)
	old := h.createRC("web", 2)
	h.syncInformers()
	h.syncOnce() // two creates expected, not yet observed
	add, _, _ := h.c.expectations.Get("default/web")
	require.Equal(t, 2, add)

	background := api.DeletePropagationBackground
	_, err := h.rcs.Delete(h.ctx, "default", "web", api.DeleteOptions{PropagationPolicy: &background})
	require.NoError(t, err)
	recreated := h.createRC("web", 2)
	require.NotEqual(t, old.Metadata.UID, recreated.Metadata.UID)

	h.syncInformers()
	_, _, ok := h.c.expectations.Get("default/web")
	assert.False(t, ok, "the old controller's expectations are gone")
	assert.True(t, h.c.expectations.Satisfied("default/web"))

	h.settle()
	assert.Len(t, h.ownedBy(recreated), 2, "the new controller creates its own pods at once")
	assert.Len(t, h.ownedBy(old), 2, "the old controller's pods are not the new one's")
}

func TestUIDChangeOnUpdateForgetsExpectations(t *testing.T) {
	h := newHarness(t, 0, false)
	old := h.createRC("web", 1)
	h.syncInformers()
	h.drainQueue()
	h.c.expectations.ExpectCreations("default/web", 1)
	cur := old.DeepCopy()
	cur.Metadata.UID = "a-new-uid"
	h.c.updateOwner(old, cur) // a delete and re-create the watch missed
	_, _, ok := h.c.expectations.Get("default/web")
	assert.False(t, ok)
	assert.Equal(t, []string{"default/web"}, h.drainQueue())
}

func TestPodHandlersEnqueue(t *testing.T) {
	h := newHarness(t, 0, false)
	withApp := func(app string) func(*api.ReplicationController) {
		return func(rc *api.ReplicationController) {
			rc.Spec.Selector = map[string]string{"app": app}
			rc.Spec.Template.Metadata.Labels = map[string]string{"app": app}
		}
	}
	a := h.createRC("a", 0, withApp("a"))
	b := h.createRC("b", 0, withApp("b"))
	h.settle()
	refTo := func(rc *api.ReplicationController) []api.OwnerReference {
		return []api.OwnerReference{rcKind().controllerRef(&rc.Metadata)}
	}
	stale := rcKind().controllerRef(&a.Metadata)
	stale.UID = "gone-uid"
	pod := func(rv string, app string, refs []api.OwnerReference, mutate ...func(*api.Pod)) *api.Pod {
		p := &api.Pod{Metadata: api.ObjectMeta{Namespace: "default", Name: "p", ResourceVersion: rv, OwnerReferences: refs}}
		if app != "" {
			p.Metadata.Labels = map[string]string{"app": app}
		}
		for _, m := range mutate {
			m(p)
		}
		return p
	}
	deleting := func(p *api.Pod) { now := api.NewTime(t0); p.Metadata.DeletionTimestamp = &now }

	tests := []struct {
		name string
		call func()
		want []string
	}{
		{"add: owned pod wakes its owner", func() { h.c.addPod(pod("1", "a", refTo(b))) }, []string{"default/b"}},
		{"add: orphan wakes the controllers its labels match", func() { h.c.addPod(pod("1", "a", nil)) }, []string{"default/a"}},
		{"add: orphan without labels wakes nobody", func() { h.c.addPod(pod("1", "", nil)) }, nil},
		{"add: a reference to a gone UID is ignored", func() { h.c.addPod(pod("1", "a", []api.OwnerReference{stale})) }, nil},
		{"update: same resourceVersion is ignored", func() { h.c.updatePod(pod("1", "a", refTo(a)), pod("1", "b", refTo(a))) }, nil},
		{"update: owned pod relabelled wakes its owner only", func() { h.c.updatePod(pod("1", "a", refTo(a)), pod("2", "b", refTo(a))) }, []string{"default/a"}},
		{"update: orphan relabelled wakes the matching controllers", func() { h.c.updatePod(pod("1", "a", nil), pod("2", "b", nil)) }, []string{"default/b"}},
		{"update: orphan with no relevant change wakes nobody", func() {
			h.c.updatePod(pod("1", "a", nil), pod("2", "a", nil, func(p *api.Pod) { p.Metadata.Annotations = map[string]string{"x": "y"} }))
		}, nil},
		{"update: released pod wakes its old owner and the matching controllers", func() { h.c.updatePod(pod("1", "a", refTo(a)), pod("2", "b", nil)) }, []string{"default/a", "default/b"}},
		{"update: controller reference moved wakes both owners", func() { h.c.updatePod(pod("1", "a", refTo(a)), pod("2", "a", refTo(b))) }, []string{"default/a", "default/b"}},
		{"update: deletion started wakes the owner", func() { h.c.updatePod(pod("1", "a", refTo(a)), pod("2", "a", refTo(a), deleting)) }, []string{"default/a"}},
		{"delete: owned pod wakes its owner", func() { h.c.deletePod(pod("1", "a", refTo(a))) }, []string{"default/a"}},
		{"delete: orphan wakes nobody", func() { h.c.deletePod(pod("1", "a", nil)) }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h.drainQueue()
			tt.call()
			got := h.drainQueue()
			slices.Sort(got)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestDeletionTimestampCountsAsDeletion(t *testing.T) {
	h := newHarness(t, 0, false)
	rc := h.createRC("web", 0)
	h.settle()
	const key = "default/web"
	p := &api.Pod{Metadata: api.ObjectMeta{Namespace: "default", Name: "p", ResourceVersion: "1",
		Labels: map[string]string{"app": "web"}, OwnerReferences: []api.OwnerReference{rcKind().controllerRef(&rc.Metadata)}}}
	now := api.NewTime(t0)
	dying := p.DeepCopy()
	dying.Metadata.ResourceVersion = "2"
	dying.Metadata.DeletionTimestamp = &now

	// Seen first with a deletionTimestamp: a deletion, not a creation.
	h.c.expectations.ExpectDeletions(key, []string{"default/p"})
	h.c.addPod(dying)
	assert.True(t, h.c.expectations.Satisfied(key))

	// Update to deletionTimestamp, then the final delete: counted once.
	h.c.expectations.ExpectDeletions(key, []string{"default/p", "default/q"})
	h.c.updatePod(p, dying)
	h.c.deletePod(dying)
	_, del, _ := h.c.expectations.Get(key)
	assert.Equal(t, 1, del, "the same pod is not counted twice")

	// An unrelated pod's deletion does not satisfy the rest.
	other := p.DeepCopy()
	other.Metadata.Name = "unrelated"
	h.c.deletePod(other)
	assert.False(t, h.c.expectations.Satisfied(key))
}

func TestFailedAndTerminatingPodsAreReplaced(t *testing.T) {
	h := newHarness(t, 0, false)
	rc := h.createRC("web", 2)
	h.settle()
	pods := h.ownedBy(rc)
	require.Len(t, pods, 2)

	// One pod fails; the other is bound and deleted, held by its grace period.
	failed := pods[0].DeepCopy()
	failed.Status.Phase = api.PodFailed
	_, err := h.pods.UpdateStatus(h.ctx, failed)
	require.NoError(t, err)
	h.runPod(pods[1].Metadata.Name, "n1", true)
	_, err = h.pods.Delete(h.ctx, "default", pods[1].Metadata.Name, api.DeleteOptions{})
	require.NoError(t, err)
	h.settle()

	all, _, err := h.pods.List(h.ctx, "default", client.ListOptions{})
	require.NoError(t, err)
	assert.Len(t, all, 4, "the failed and the terminating pod remain listed")
	active := slices.DeleteFunc(all, func(p *api.Pod) bool { return !api.IsPodActive(p) })
	assert.Len(t, active, 2, "both were replaced")
	assert.Equal(t, int32(2), h.getRC("web").Status.Replicas)
}

// statusFailer fails status writes of replication controllers.
type statusFailer struct {
	*faultyClient
	failures int // status writes still to fail
	gets     int
}

func (s *statusFailer) UpdateStatus(ctx context.Context, obj api.Object, opts ...client.WriteOption) (api.Object, error) {
	s.statusUpdates++
	if s.failures > 0 {
		s.failures--
		return nil, apierrors.NewInternalError(errors.New("etcd is down"))
	}
	return s.Server.UpdateStatus(ctx, obj, opts...)
}

func (s *statusFailer) Get(ctx context.Context, resource, namespace, name string, opts client.GetOptions) (api.Object, error) {
	s.gets++
	return s.faultyClient.Get(ctx, resource, namespace, name, opts)
}

func TestStatusUpdateRetriesThenRequeues(t *testing.T) {
	tests := []struct {
		name         string
		failures     int
		wantPuts     int
		wantGets     int
		wantRequeued bool
	}{
		{name: "one failure: retried on a fresh GET", failures: 1, wantPuts: 2, wantGets: 1},
		{name: "two failures: the sync fails and is requeued", failures: 2, wantPuts: 2, wantGets: 1, wantRequeued: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := clock.NewFake(t0)
			srv, err := apiserver.New(apiserver.Config{Clock: clk, Rand: rand.New(rand.NewPCG(1, 2))})
			require.NoError(t, err)
			cl := &statusFailer{faultyClient: &faultyClient{Server: srv, createsAllowed: -1}, failures: tt.failures}
			log := zaptest.NewLogger(t)
			c, err := New(Config{Client: cl, Factory: informer.NewFactory(srv, "", clk, log), Clock: clk, Logger: log})
			require.NoError(t, err)
			h := &harness{t: t, ctx: t.Context(), clk: clk, srv: srv, client: cl.faultyClient, c: c,
				pods: client.For[*api.Pod](srv), rcs: client.For[*api.ReplicationController](srv)}
			h.createRC("web", 2)
			h.syncInformers()
			h.syncOnce()
			assert.Equal(t, tt.wantPuts, cl.statusUpdates, "status writes")
			assert.Equal(t, tt.wantGets, cl.gets, "fresh reads")
			assert.Equal(t, tt.wantRequeued, c.Queue().NumRequeues("default/web") > 0, "requeued")
			if !tt.wantRequeued {
				assert.Equal(t, int32(0), h.getRC("web").Status.Replicas, "status computed before the creates")
				assert.Equal(t, int64(1), h.getRC("web").Status.ObservedGeneration)
			}
		})
	}
}

func TestRunCreatesAndStops(t *testing.T) {
	clk := clock.NewFake(t0)
	srv, err := apiserver.New(apiserver.Config{Clock: clk, Rand: rand.New(rand.NewPCG(1, 2))})
	require.NoError(t, err)
	log := zaptest.NewLogger(t)
	factory := informer.NewFactory(srv, "", clk, log)
	c, err := New(Config{Client: srv, Factory: factory, Clock: clk, Logger: log})
	require.NoError(t, err)

	ctx, cancel := context.WithCancel(t.Context())
	factory.Start(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		c.Run(ctx, 3)
	}()
	replicas := int32(3)
	_, err = client.For[*api.ReplicationController](srv).Create(ctx, &api.ReplicationController{
		Metadata: api.ObjectMeta{Namespace: "default", Name: "web"},
		Spec: api.ReplicationControllerSpec{
			Replicas: &replicas,
			Template: &api.PodTemplateSpec{
				Metadata: api.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:     api.PodSpec{Containers: []api.Container{{Name: "web", Image: "nginx"}}},
			},
		},
	})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		rc, err := client.For[*api.ReplicationController](srv).Get(ctx, "default", "web")
		return err == nil && rc.Status.Replicas == 3
	}, 10*time.Second, time.Millisecond)
	pods, _, err := client.For[*api.Pod](srv).List(ctx, "default", client.ListOptions{})
	require.NoError(t, err)
	assert.Len(t, pods, 3)
	assert.True(t, c.HasSynced())

	cancel()
	<-done
	factory.Shutdown()
	assert.True(t, c.Queue().ShuttingDown(), "Run shut its queue down")
}

// TestGoldenTrace runs a whole life — scale up with a failing quota, pods
// coming up, an orphan adopted, a scale-down, a pod failing — and checks the
// controller's writes, in order, against testdata. The same seed gives the
// same names, UIDs and ranking, so the trace is byte for byte stable;
// `go test -run TestGoldenTrace -update` rewrites it.
func TestGoldenTrace(t *testing.T) {
	h := newHarness(t, 3, false)
	h.client.createsAllowed = 2
	rc := h.createRC("web", 5, func(rc *api.ReplicationController) { rc.Spec.MinReadySeconds = 5 })
	h.settle()

	h.client.mu.Lock()
	h.client.createsAllowed = -1
	h.client.mu.Unlock()
	h.clk.Step(time.Second)
	h.settle()
	for i, p := range h.ownedBy(rc) {
		h.runPod(p.Metadata.Name, fmt.Sprintf("node-%d", i%2), i != 0)
	}
	h.clk.Step(time.Second)
	h.settle()
	h.createPod("stray", map[string]string{"app": "web"})
	h.settle()
	for h.clk.StepToNext() {
		h.settle()
	}
	h.scale("web", 2)
	h.settle()
	left := h.ownedBy(rc)
	require.NotEmpty(t, left)
	failed := left[0].DeepCopy()
	failed.Status.Phase = api.PodFailed
	_, err := h.pods.UpdateStatus(h.ctx, failed)
	require.NoError(t, err)
	h.settle()
	for h.clk.StepToNext() {
		h.settle()
	}

	got := strings.Join(h.client.trace, "\n") + "\n"
	path := filepath.Join("testdata", "lifecycle.trace")
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run with -update to create the golden file")
	assert.Equal(t, string(want), got)
}

func TestDeleteFailures(t *testing.T) {
	tests := []struct {
		name          string
		err           error
		wantCondition bool
		wantRequeued  bool
	}{
		{name: "a failed delete sets FailedDelete and requeues", err: apierrors.NewInternalError(errors.New("disk full")),
			wantCondition: true, wantRequeued: true},
		{name: "a pod already gone is not an error", err: apierrors.NewNotFound(apierrors.GroupResource{Resource: "pods"}, "x")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, 0, true)
			h.createRC("web", 2)
			h.settle()
			h.client.mu.Lock()
			h.client.podDeleteErr = tt.err
			h.client.mu.Unlock()
			h.scale("web", 0)
			h.syncInformers()
			h.syncOnce()
			_, _, deletes, _ := h.client.counts()
			assert.Equal(t, 2, deletes, "both deletes attempted")
			assert.True(t, h.c.expectations.Satisfied("default/web"), "deletions that did not happen are not awaited")
			cond := GetCondition(rcKind().status(h.getRC("web")), api.ReplicaSetReplicaFailure)
			assert.Equal(t, tt.wantCondition, cond != nil, "ReplicaFailure condition")
			if cond != nil {
				assert.Equal(t, ReasonFailedDelete, cond.Reason)
			}
			assert.Equal(t, tt.wantCondition, len(events(t, h.srv, ReasonFailedDelete)) > 0, "FailedDelete event")
			assert.Equal(t, tt.wantRequeued, h.c.Queue().NumRequeues("default/web") > 0, "requeued")
		})
	}
}

func TestNewValidatesConfig(t *testing.T) {
	clk := clock.NewFake(t0)
	srv, err := apiserver.New(apiserver.Config{Clock: clk, Rand: rand.New(rand.NewPCG(1, 2))})
	require.NoError(t, err)
	factory := informer.NewFactory(srv, "", clk, nil)
	tests := []struct {
		name    string
		cfg     Config
		wantErr bool
	}{
		{"complete", Config{Client: srv, Factory: factory, Clock: clk}, false},
		{"no client", Config{Factory: factory, Clock: clk}, true},
		{"no factory", Config{Client: srv, Clock: clk}, true},
		{"no clock", Config{Client: srv, Factory: factory}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := New(tt.cfg)
			if tt.wantErr {
				assert.Error(t, err)
				assert.Nil(t, c)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, 0, c.Queue().Len(), "New starts nothing and queues nothing")
		})
	}
}

func TestScaleDownPrefersNodesCrowdedWithSiblings(t *testing.T) {
	h := newHarness(t, 0, false)
	yes := true
	owner := api.OwnerReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "d", UID: "deploy-uid", Controller: &yes}
	sibling := h.createRC("b", 1, func(rc *api.ReplicationController) {
		rc.Metadata.OwnerReferences = []api.OwnerReference{owner}
		rc.Spec.Selector = map[string]string{"app": "b"}
		rc.Spec.Template.Metadata.Labels = map[string]string{"app": "b"}
	})
	rc := h.createRC("a", 2, func(rc *api.ReplicationController) {
		rc.Metadata.OwnerReferences = []api.OwnerReference{owner}
	})
	h.settle()
	mine, theirs := h.ownedBy(rc), h.ownedBy(sibling)
	require.Len(t, mine, 2)
	require.Len(t, theirs, 1)
	h.runPod(theirs[0].Metadata.Name, "n1", true)
	h.runPod(mine[0].Metadata.Name, "n2", true)
	h.runPod(mine[1].Metadata.Name, "n1", true) // shares n1 with the sibling's pod
	h.settle()

	h.scale("a", 1)
	h.settle()
	assert.Equal(t, []string{mine[1].Metadata.Name}, h.client.deletes)
}

// TestCreatedPodsShareTheTemplatesLabels checks that the pods a controller
// creates are stored with its template's labels map itself, handed over to
// the server (client.Handover), and each with a spec of its own.
func TestCreatedPodsShareTheTemplatesLabels(t *testing.T) {
	h := newHarness(t, 0, false)
	h.createRC("web", 3)
	h.settle()
	rc := h.getRC("web")
	pods := h.ownedBy(rc)
	require.Len(t, pods, 3)
	labels := reflect.ValueOf(rc.Spec.Template.Metadata.Labels).UnsafePointer()
	for _, p := range pods {
		assert.Equal(t, labels, reflect.ValueOf(p.Metadata.Labels).UnsafePointer(), "pod %s shares the template's labels", p.Metadata.Name)
		assert.NotSame(t, &rc.Spec.Template.Spec.Containers[0], &p.Spec.Containers[0], "pod %s has its own spec", p.Metadata.Name)
	}
}

func TestPodFromTemplate(t *testing.T) {
	rc := testRC(1, 0)
	rc.Spec.Template.Metadata.Annotations = map[string]string{"note": "x"}
	rc.Spec.Template.Spec.Containers = []api.Container{{Name: "web", Image: "nginx"}}
	pod, err := PodFromTemplate(rc)
	require.NoError(t, err)
	assert.Equal(t, "web-", pod.Metadata.GenerateName)
	assert.Equal(t, "default", pod.Metadata.Namespace)
	assert.Equal(t, rc.Spec.Template.Metadata.Labels, pod.Metadata.Labels)
	assert.Equal(t, rc.Spec.Template.Metadata.Annotations, pod.Metadata.Annotations)
	assert.Equal(t, rc.Spec.Template.Spec, pod.Spec)
	assert.Equal(t, []api.OwnerReference{rcKind().controllerRef(&rc.Metadata)}, pod.Metadata.OwnerReferences)
	ref := pod.Metadata.OwnerReferences[0]
	assert.Equal(t, "v1", ref.APIVersion)
	assert.Equal(t, "ReplicationController", ref.Kind)
	assert.True(t, *ref.Controller)
	assert.True(t, *ref.BlockOwnerDeletion)
	pod.Metadata.Labels["mutated"] = "yes"
	assert.NotContains(t, rc.Spec.Template.Metadata.Labels, "mutated", "the template is copied, not shared")

	noLabels := testRC(1, 0)
	noLabels.Spec.Template.Metadata.Labels = nil
	_, err = PodFromTemplate(noLabels)
	assert.Error(t, err)
	noTemplate := testRC(1, 0)
	noTemplate.Spec.Template = nil
	_, err = PodFromTemplate(noTemplate)
	assert.Error(t, err)
}

func TestSameRef(t *testing.T) {
	yes, no := true, false
	base := api.OwnerReference{APIVersion: "v1", Kind: "ReplicationController", Name: "web", UID: "u1", Controller: &yes, BlockOwnerDeletion: &yes}
	change := []func(*api.OwnerReference){
		func(r *api.OwnerReference) { r.APIVersion = "v2" },
		func(r *api.OwnerReference) { r.Kind = "ReplicaSet" },
		func(r *api.OwnerReference) { r.Name = "other" },
		func(r *api.OwnerReference) { r.UID = "u2" },
		func(r *api.OwnerReference) { r.Controller = &no },
		func(r *api.OwnerReference) { r.BlockOwnerDeletion = nil },
	}
	require.Equal(t, len(change), reflect.TypeFor[api.OwnerReference]().NumField(), "a new field: teach sameRef")
	same := base
	same.Controller, same.BlockOwnerDeletion = &yes, &yes // other pointers, same values
	assert.True(t, sameRef(&base, &same))
	assert.True(t, sameRef(nil, nil))
	assert.False(t, sameRef(&base, nil))
	for i, f := range change {
		other := base
		f(&other)
		assert.False(t, sameRef(&base, &other), "change %d", i)
	}
}

// TestDormantWhileExpectingStillWritesStatus is SyncReplicaSetDormancy: while
// creations it issued are not yet observed, a sync creates nothing more
// even though pods are missing, but still writes the status it sees; once
// the expectations are met it acts on the gap again.
func TestDormantWhileExpectingStillWritesStatus(t *testing.T) {
	h := newHarness(t, 0, false)
	rc := h.createRC("web", 2)
	h.settle()
	pods := h.ownedBy(rc)
	require.Len(t, pods, 2)

	// As if a creation were still in flight.
	h.c.expectations.ExpectCreations("default/web", 1)
	_, err := h.pods.Delete(h.ctx, "default", pods[1].Metadata.Name, api.DeleteOptions{GracePeriodSeconds: new(int64)})
	require.NoError(t, err)
	h.runPod(pods[0].Metadata.Name, "n1", true)
	before, _, _, _ := h.client.counts()
	h.settle()
	creates, _, _, _ := h.client.counts()
	assert.Equal(t, before, creates, "dormant: nothing created")
	st := h.getRC("web").Status
	assert.Equal(t, int32(1), st.Replicas, "the status is still written")
	assert.Equal(t, int32(1), st.ReadyReplicas)

	h.c.expectations.CreationObserved("default/web")
	h.c.Queue().Add("default/web")
	h.settle()
	creates, _, _, _ = h.client.counts()
	assert.Equal(t, before+1, creates, "awake: the missing pod is created")
	assert.Len(t, h.ownedBy(rc), 2)
}

// TestSelectorChangeReleasesAndAdopts is UpdateSelectorToRemoveControllerRef
// and UpdateSelectorToAdopt: when the selector (and template) move to new
// labels, the pods the selector no longer picks are released and replaced,
// and an orphan that the new selector picks is adopted.
func TestSelectorChangeReleasesAndAdopts(t *testing.T) {
	h := newHarness(t, 0, false)
	rc := h.createRC("web", 2)
	h.settle()
	old := h.ownedBy(rc)
	require.Len(t, old, 2)
	stray := h.createPod("stray", map[string]string{"app": "web2"})

	cur := h.getRC("web").DeepCopy()
	cur.Spec.Selector = map[string]string{"app": "web2"}
	cur.Spec.Template.Metadata.Labels = map[string]string{"app": "web2"}
	_, err := h.rcs.Update(h.ctx, cur)
	require.NoError(t, err)
	h.settle()

	for _, p := range old {
		got, err := h.pods.Get(h.ctx, "default", p.Metadata.Name)
		require.NoError(t, err)
		assert.Nil(t, api.GetControllerOf(&got.Metadata), "%s released", p.Metadata.Name)
	}
	owned := h.ownedBy(rc)
	require.Len(t, owned, 2)
	names := []string{owned[0].Metadata.Name, owned[1].Metadata.Name}
	assert.Contains(t, names, stray.Metadata.Name, "the orphan matching the new selector is adopted")
	for _, p := range owned {
		assert.Equal(t, "web2", p.Metadata.Labels["app"])
	}
	st := h.getRC("web").Status
	assert.Equal(t, int32(2), st.Replicas)
	assert.Equal(t, h.getRC("web").Metadata.Generation, st.ObservedGeneration)
}

// TestSpecReplicasChange is SpecReplicasChange: scaled 2 → 3 → 0 → 2 the pods
// follow; a template change bumps the generation and observedGeneration
// follows it.
func TestSpecReplicasChange(t *testing.T) {
	h := newHarness(t, 0, false)
	rc := h.createRC("web", 2)
	h.settle()
	for _, n := range []int32{3, 0, 2} {
		h.scale("web", n)
		h.settle()
		assert.Len(t, h.ownedBy(rc), int(n), "scaled to %d", n)
		assert.Equal(t, n, h.getRC("web").Status.Replicas)
	}
	cur := h.getRC("web").DeepCopy()
	gen := cur.Metadata.Generation
	cur.Spec.Template.Spec.Containers[0].Image = "nginx:2"
	_, err := h.rcs.Update(h.ctx, cur)
	require.NoError(t, err)
	h.settle()
	got := h.getRC("web")
	assert.Greater(t, got.Metadata.Generation, gen)
	assert.Equal(t, got.Metadata.Generation, got.Status.ObservedGeneration)
}

// TestLaterPodVersionsDoNotKeepTheFirst checks that what every version of a
// created pod shares with the pod newPod built — its owner reference — does
// not keep that first version's pod alive once it is replaced.
func TestLaterPodVersionsDoNotKeepTheFirst(t *testing.T) {
	r := int32(1)
	rc := &api.ReplicationController{
		Metadata: api.ObjectMeta{Namespace: "default", Name: "web", UID: "uid-web"},
		Spec: api.ReplicationControllerSpec{Replicas: &r, Selector: map[string]string{"app": "web"}, Template: &api.PodTemplateSpec{
			Metadata: api.ObjectMeta{Labels: map[string]string{"app": "web"}},
			Spec:     api.PodSpec{Containers: []api.Container{{Name: "app", Image: "nginx"}}},
		}},
	}
	v := rcKind().view(rc)
	first, err := rcKind().newPod(&v)
	require.NoError(t, err)
	later := *first // a status write's new version: a copy of the struct, sharing the rest
	gone := weak.Make(first)
	first = nil
	runtime.GC()
	assert.Nil(t, gone.Value(), "the first version's pod is collected")
	require.Len(t, later.Metadata.OwnerReferences, 1)
	assert.True(t, *later.Metadata.OwnerReferences[0].Controller)
}
