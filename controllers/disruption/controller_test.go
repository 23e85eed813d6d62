package disruption

import (
	"context"
	"fmt"
	"math/rand/v2"
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
// clock, stepping the informers and the controller by hand. No other
// controller runs: the tests write pods' readiness and owners themselves.
type harness struct {
	t   *testing.T
	ctx context.Context
	clk *clock.Fake
	srv *apiserver.Server
	c   *Controller
}

func newHarness(t *testing.T) *harness {
	clk := clock.NewFake(t0)
	srv, err := apiserver.New(apiserver.Config{Clock: clk, Rand: rand.New(rand.NewPCG(1, 2))})
	require.NoError(t, err)
	log := zaptest.NewLogger(t)
	c, err := New(Config{
		Client: srv, Factory: informer.NewFactory(srv, "", clk, log), Clock: clk, Logger: log,
		Recorder: record.NewEventRecorder(srv, clk, "controllermanager", "test"),
	})
	require.NoError(t, err)
	h := &harness{t: t, ctx: t.Context(), clk: clk, srv: srv, c: c}
	h.settle()
	require.True(t, c.HasSynced())
	return h
}

// settle runs informers and controller until nothing is left to do now.
func (h *harness) settle() {
	for testenv.SyncInformers(h.ctx, h.c.informers...) || h.c.ProcessOne(h.ctx) {
	}
}

// advance moves the clock by d, settling at every timer on the way.
func (h *harness) advance(d time.Duration) {
	end := h.clk.Now().Add(d)
	for {
		h.settle()
		next, ok := h.clk.NextDeadline()
		if !ok || next.After(end) {
			break
		}
		if next.After(h.clk.Now()) {
			h.clk.SetTime(next)
		}
	}
	h.clk.SetTime(end)
	h.settle()
}

func (h *harness) create(obj api.Object) api.Object {
	h.t.Helper()
	out, err := h.srv.Create(h.ctx, obj)
	require.NoError(h.t, err)
	h.settle()
	return out
}

// addPods creates n pods labelled app=web, Ready or not, controlled by
// owner when it is set.
func (h *harness) addPods(prefix string, n int, ready bool, owner api.Object) {
	h.t.Helper()
	for i := range n {
		p := pod(fmt.Sprintf("%s-%d", prefix, i), ready, "")
		p.Spec.Containers = []api.Container{{Name: "c", Image: "nginx"}}
		if owner != nil {
			ti, _ := api.TypeInfoOf(owner)
			m := owner.GetObjectMeta()
			p.Metadata.OwnerReferences = []api.OwnerReference{{APIVersion: ti.APIVersion(), Kind: ti.Kind, Name: m.Name, UID: m.UID, Controller: ptr(true)}}
		}
		st := p.Status
		created := h.create(p).(*api.Pod)
		created = created.DeepCopy()
		created.Status = st
		_, err := h.srv.UpdateStatus(h.ctx, created)
		require.NoError(h.t, err)
	}
	h.settle()
}

func (h *harness) setReady(name string, ready bool) {
	h.t.Helper()
	o, err := h.srv.Get(h.ctx, client.Pods, "default", name, client.GetOptions{})
	require.NoError(h.t, err)
	p := o.(*api.Pod).DeepCopy()
	p.Status.Conditions = pod(name, ready, "").Status.Conditions
	_, err = h.srv.UpdateStatus(h.ctx, p)
	require.NoError(h.t, err)
	h.settle()
}

func (h *harness) budget() *api.PodDisruptionBudget {
	h.t.Helper()
	o, err := h.srv.Get(h.ctx, client.PodDisruptionBudgets, "default", "pdb", client.GetOptions{})
	require.NoError(h.t, err)
	return o.(*api.PodDisruptionBudget)
}

// status is the four counts a test checks: allowed, current, desired,
// expected (upstream's VerifyPdbStatus order).
func (h *harness) status() [4]int32 {
	st := h.budget().Status
	return [4]int32{st.DisruptionsAllowed, st.CurrentHealthy, st.DesiredHealthy, st.ExpectedPods}
}

func (h *harness) events() []string {
	l, err := h.srv.List(h.ctx, client.Events, "default", client.ListOptions{})
	require.NoError(h.t, err)
	var out []string
	for _, o := range l.Items {
		e := o.(*api.Event)
		out = append(out, e.Type+" "+e.Reason+" "+e.InvolvedObject.Kind+"/"+e.InvolvedObject.Name+": "+e.Message)
	}
	return out
}

func rc(name string, n int32) *api.ReplicationController {
	return &api.ReplicationController{Metadata: api.ObjectMeta{Namespace: "default", Name: name}, Spec: api.ReplicationControllerSpec{
		Replicas: &n, Selector: map[string]string{"rc": name},
		Template: &api.PodTemplateSpec{Metadata: api.ObjectMeta{Labels: map[string]string{"rc": name}},
			Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx"}}}},
	}}
}

func newBudget(mut func(*api.PodDisruptionBudgetSpec)) *api.PodDisruptionBudget {
	pdb := budget(mut)
	pdb.Metadata.Generation = 0
	return pdb
}

// TestSyncFollowsThePods ports upstream's sync scenarios: the status as
// pods come, become ready or not, and their controllers scale.
func TestSyncFollowsThePods(t *testing.T) {
	t.Run("integer minAvailable (TestUnavailable)", func(t *testing.T) {
		h := newHarness(t)
		h.create(newBudget(func(s *api.PodDisruptionBudgetSpec) { s.MinAvailable = intOr(3) }))
		assert.Equal(t, [4]int32{0, 0, 3, 0}, h.status())
		h.addPods("web", 4, true, nil)
		assert.Equal(t, [4]int32{1, 4, 3, 4}, h.status())
		h.setReady("web-0", false)
		assert.Equal(t, [4]int32{0, 3, 3, 4}, h.status())
		pdb := h.budget()
		assert.Equal(t, pdb.Metadata.Generation, pdb.Status.ObservedGeneration)
		c := api.FindStatusCondition(pdb.Status.Conditions, api.DisruptionAllowedCondition)
		require.NotNil(t, c)
		assert.Equal(t, api.InsufficientPodsReason, c.Reason)
	})
	t.Run("an empty selector counts every pod of the namespace (TestNoSelector)", func(t *testing.T) {
		h := newHarness(t)
		h.create(newBudget(func(s *api.PodDisruptionBudgetSpec) { s.MinAvailable = intOr(3); s.Selector = &api.LabelSelector{} }))
		assert.Equal(t, [4]int32{0, 0, 3, 0}, h.status())
		h.addPods("web", 1, true, nil)
		assert.Equal(t, [4]int32{0, 1, 3, 1}, h.status())
	})
	t.Run("percentage over a ReplicationController (TestReplicationController)", func(t *testing.T) {
		h := newHarness(t)
		owner := h.create(rc("web", 3))
		h.create(newBudget(func(s *api.PodDisruptionBudgetSpec) { s.MinAvailable = pct("34%") }))
		h.addPods("a", 1, true, owner)
		assert.Equal(t, [4]int32{0, 1, 2, 3}, h.status())
		h.addPods("b", 1, true, owner)
		assert.Equal(t, [4]int32{0, 2, 2, 3}, h.status())
		h.addPods("c", 1, true, owner)
		assert.Equal(t, [4]int32{1, 3, 2, 3}, h.status())
	})
	t.Run("maxUnavailable over a Deployment's ReplicaSet, scaled (TestIntegerMaxUnavailableWithScaling)", func(t *testing.T) {
		h := newHarness(t)
		seven := int32(7)
		dep := h.create(&api.Deployment{Metadata: api.ObjectMeta{Namespace: "default", Name: "web"}, Spec: api.DeploymentSpec{
			Replicas: &seven, Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: api.PodTemplateSpec{Metadata: api.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx"}}}},
		}}).(*api.Deployment)
		rs := &api.ReplicaSet{Metadata: api.ObjectMeta{Namespace: "default", Name: "web-1", OwnerReferences: []api.OwnerReference{
			{APIVersion: "apps/v1", Kind: "Deployment", Name: "web", UID: dep.Metadata.UID, Controller: ptr(true)}}},
			Spec: api.ReplicaSetSpec{Replicas: &seven, Selector: dep.Spec.Selector, Template: dep.Spec.Template}}
		owner := h.create(rs)
		h.create(newBudget(func(s *api.PodDisruptionBudgetSpec) { s.MaxUnavailable = intOr(2) }))
		h.addPods("web", 1, true, owner)
		assert.Equal(t, [4]int32{0, 1, 5, 7}, h.status())
		d := dep.DeepCopy()
		five := int32(5)
		d.Spec.Replicas = &five
		_, err := h.srv.Update(h.ctx, d)
		require.NoError(t, err)
		h.setReady("web-0", false) // a pod event wakes the budget, as the ReplicaSet's pods would
		assert.Equal(t, [4]int32{0, 0, 3, 5}, h.status())
	})
	t.Run("percentage over a StatefulSet (TestStatefulSetController)", func(t *testing.T) {
		h := newHarness(t)
		three := int32(3)
		owner := h.create(&api.StatefulSet{Metadata: api.ObjectMeta{Namespace: "default", Name: "db"}, Spec: api.StatefulSetSpec{
			Replicas: &three, ServiceName: "db", Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: api.PodTemplateSpec{Metadata: api.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx"}}}},
		}})
		h.create(newBudget(func(s *api.PodDisruptionBudgetSpec) { s.MinAvailable = pct("34%") }))
		h.addPods("db", 3, true, owner)
		assert.Equal(t, [4]int32{1, 3, 2, 3}, h.status())
	})
}

// TestSyncRecordsEvents: a budget with no pods says so; a percentage over
// naked pods says they are unmanaged; a pod owned by a kind with no scale
// fails the sync safe (TestScaleFinderNoResource).
func TestSyncRecordsEvents(t *testing.T) {
	t.Run("no pods", func(t *testing.T) {
		h := newHarness(t)
		h.create(newBudget(func(s *api.PodDisruptionBudgetSpec) { s.MinAvailable = intOr(1) }))
		assert.Contains(t, h.events(), "Normal NoPods PodDisruptionBudget/pdb: No matching pods found")
	})
	t.Run("unmanaged pods (TestStatusForUnmanagedPod)", func(t *testing.T) {
		h := newHarness(t)
		h.create(newBudget(func(s *api.PodDisruptionBudgetSpec) { s.MaxUnavailable = intOr(1) }))
		h.addPods("naked", 1, true, nil)
		assert.Equal(t, [4]int32{0, 1, 0, 0}, h.status())
		assert.Contains(t, h.events(), "Warning UnmanagedPods PodDisruptionBudget/pdb: Pods selected by this PodDisruptionBudget (selector: app=web) were found "+
			"to be unmanaged. As a result, the status of the PDB cannot be calculated correctly, which may result in undefined behavior. "+
			`To account for these pods please set ".spec.minAvailable" field of the PDB to an integer value.`)
	})
	t.Run("an owner with no scale fails safe", func(t *testing.T) {
		h := newHarness(t)
		h.create(newBudget(func(s *api.PodDisruptionBudgetSpec) { s.MaxUnavailable = intOr(1) }))
		job := &api.Job{Metadata: api.ObjectMeta{Namespace: "default", Name: "j", UID: "job-uid"}}
		h.addPods("j", 1, true, job)
		pdb := h.budget()
		assert.Equal(t, int32(0), pdb.Status.DisruptionsAllowed)
		c := api.FindStatusCondition(pdb.Status.Conditions, api.DisruptionAllowedCondition)
		require.NotNil(t, c)
		assert.Equal(t, api.SyncFailedReason, c.Reason)
		assert.Equal(t, "jobs.batch does not implement the scale subresource", c.Message)
		assert.Contains(t, h.events(), "Warning CalculateExpectedPodCountFailed PodDisruptionBudget/pdb: "+
			"Failed to calculate the number of expected pods: jobs.batch does not implement the scale subresource")
	})
	t.Run("an owner of no known kind fails safe", func(t *testing.T) {
		h := newHarness(t)
		h.create(newBudget(func(s *api.PodDisruptionBudgetSpec) { s.MaxUnavailable = intOr(1) }))
		h.addPods("w", 1, true, nil)
		p, err := h.srv.Get(h.ctx, client.Pods, "default", "w-0", client.GetOptions{})
		require.NoError(t, err)
		pp := p.(*api.Pod).DeepCopy()
		pp.Metadata.OwnerReferences = []api.OwnerReference{{APIVersion: "example.com/v1", Kind: "Widget", Name: "w", UID: "w-uid", Controller: ptr(true)}}
		_, err = h.srv.Update(h.ctx, pp)
		require.NoError(t, err)
		h.settle()
		c := api.FindStatusCondition(h.budget().Status.Conditions, api.DisruptionAllowedCondition)
		require.NotNil(t, c)
		assert.Equal(t, `no matches for kind "Widget" in version "example.com/v1"`, c.Message)
	})
}

// TestDisruptedPodsExpire: an entry the eviction added keeps its pod out
// of currentHealthy until DeletionTimeout passes without the pod's
// deletion; then the pod counts again and the pod gets a NotDeleted event.
func TestDisruptedPodsExpire(t *testing.T) {
	h := newHarness(t)
	h.create(newBudget(func(s *api.PodDisruptionBudgetSpec) { s.MinAvailable = intOr(1) }))
	h.addPods("web", 3, true, nil)
	require.Equal(t, [4]int32{2, 3, 1, 3}, h.status())

	pdb := h.budget().DeepCopy()
	pdb.Status.DisruptionsAllowed = 1
	pdb.Status.DisruptedPods = map[string]api.Time{"web-0": api.NewTime(h.clk.Now())}
	_, err := h.srv.UpdateStatus(h.ctx, pdb)
	require.NoError(t, err)
	h.settle()
	assert.Equal(t, [4]int32{1, 2, 1, 3}, h.status(), "web-0 is about to go")
	assert.Contains(t, h.budget().Status.DisruptedPods, "web-0")

	h.advance(DeletionTimeout - time.Second)
	assert.Contains(t, h.budget().Status.DisruptedPods, "web-0", "not yet expired")
	h.advance(2 * time.Second)
	assert.Equal(t, [4]int32{2, 3, 1, 3}, h.status(), "the entry expired: web-0 counts again")
	assert.Empty(t, h.budget().Status.DisruptedPods)
	assert.Contains(t, h.events(), "Warning NotDeleted Pod/web-0: Pod was expected by PDB default/pdb to be deleted but it wasn't")
}

// TestSpecChangeIsObserved: a budget's new generation is reflected in
// observedGeneration, which the eviction subresource waits for.
func TestSpecChangeIsObserved(t *testing.T) {
	h := newHarness(t)
	h.create(newBudget(func(s *api.PodDisruptionBudgetSpec) { s.MinAvailable = intOr(3) }))
	h.addPods("web", 3, true, nil)
	require.Equal(t, [4]int32{0, 3, 3, 3}, h.status())
	pdb := h.budget().DeepCopy()
	pdb.Spec.MinAvailable = intOr(1)
	updated, err := h.srv.Update(h.ctx, pdb)
	require.NoError(t, err)
	require.Greater(t, updated.GetObjectMeta().Generation, pdb.Status.ObservedGeneration)
	h.settle()
	assert.Equal(t, [4]int32{2, 3, 1, 3}, h.status())
	assert.Equal(t, updated.GetObjectMeta().Generation, h.budget().Status.ObservedGeneration)
}

// TestCustomResourceScale ports TestScaleResource and
// TestScaleFinderNoResource: a percentage budget over pods a custom
// resource controls counts the replicas its scale subresource names; a
// custom kind without one fails the sync safe with upstream's message.
func TestCustomResourceScale(t *testing.T) {
	for _, tt := range []struct {
		name      string
		scale     bool
		wantState [4]int32
		wantMsg   string
	}{
		{"with a scale subresource", true, [4]int32{1, 10, 9, 10}, ""},
		{"without one", false, [4]int32{0, 0, 0, 0}, "widgets.demo.example.com does not implement the scale subresource"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			v := api.CustomResourceDefinitionVersion{Name: "v1", Served: true, Storage: true,
				Schema: &api.CustomResourceValidation{OpenAPIV3Schema: &api.JSONSchemaProps{Type: "object", XPreserveUnknownFields: ptr(true)}}}
			if tt.scale {
				v.Subresources = &api.CustomResourceSubresources{Scale: &api.CustomResourceSubresourceScale{
					SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.replicas"}}
			}
			h.create(&api.CustomResourceDefinition{
				Metadata: api.ObjectMeta{Name: "widgets.demo.example.com"},
				Spec: api.CustomResourceDefinitionSpec{Group: "demo.example.com", Scope: api.NamespaceScoped,
					Names: api.CustomResourceDefinitionNames{Plural: "widgets", Kind: "Widget"}, Versions: []api.CustomResourceDefinitionVersion{v}},
			})
			w := &api.Unstructured{}
			require.NoError(t, w.UnmarshalJSON([]byte(`{"apiVersion":"demo.example.com/v1","kind":"Widget","metadata":{"name":"w","namespace":"default"},"spec":{"replicas":10}}`)))
			owner := h.create(w)
			h.create(newBudget(func(s *api.PodDisruptionBudgetSpec) { s.MaxUnavailable = pct("10%") }))
			for i := range 10 {
				p := pod(fmt.Sprintf("w-%d", i), true, "")
				p.Spec.Containers = []api.Container{{Name: "c", Image: "nginx"}}
				m := owner.GetObjectMeta()
				p.Metadata.OwnerReferences = []api.OwnerReference{{APIVersion: "demo.example.com/v1", Kind: "Widget", Name: m.Name, UID: m.UID, Controller: ptr(true)}}
				created := h.create(p).(*api.Pod).DeepCopy()
				created.Status = pod("", true, "").Status
				_, err := h.srv.UpdateStatus(h.ctx, created)
				require.NoError(t, err)
			}
			h.settle()
			if tt.wantMsg == "" {
				assert.Equal(t, tt.wantState, h.status())
				return
			}
			c := api.FindStatusCondition(h.budget().Status.Conditions, api.DisruptionAllowedCondition)
			require.NotNil(t, c)
			assert.Equal(t, api.SyncFailedReason, c.Reason)
			assert.Equal(t, tt.wantMsg, c.Message)
		})
	}
}
