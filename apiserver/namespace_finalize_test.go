package apiserver_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
)

const fakeFinalizer = "e2e.example.com/fakeFinalizer"

// getNamespace reads a namespace, failing the test if it is gone.
func getNamespace(t *testing.T, s *apiserver.Server, name string) *api.Namespace {
	t.Helper()
	got, err := s.Get(ctx, client.Namespaces, "", name, client.GetOptions{})
	require.NoError(t, err)
	return got.(*api.Namespace)
}

// sweepUntilSettled runs Sweep at each time it asks for, as Run would.
func sweepUntilSettled(s *apiserver.Server, clk interface{ SetTime(time.Time) }) {
	for i := 0; i < 20; i++ {
		s.Sweep()
		next, ok := s.NextSweep()
		if !ok {
			return
		}
		clk.SetTime(next)
	}
}

// TestFinalizeChangesOnlyThroughItsSubresource: the conformance test's
// steps (Namespaces "should apply a finalizer to a Namespace"): the
// finalize subresource adds and removes a finalizer; a plain update keeps
// spec.finalizers as stored; a bad finalizer name is refused and nothing
// changes.
func TestFinalizeChangesOnlyThroughItsSubresource(t *testing.T) {
	s, _ := newServer(t)
	_, err := s.Create(ctx, &api.Namespace{Metadata: api.ObjectMeta{Name: "e2e-ns"}})
	require.NoError(t, err)

	ns := getNamespace(t, s, "e2e-ns").DeepCopy()
	require.Equal(t, []string{api.FinalizerKubernetes}, ns.Spec.Finalizers)
	ns.Spec.Finalizers = append(ns.Spec.Finalizers, fakeFinalizer)
	got, err := s.FinalizeNamespace(ctx, ns)
	require.NoError(t, err)
	assert.Equal(t, []string{api.FinalizerKubernetes, fakeFinalizer}, got.Spec.Finalizers)

	plain := getNamespace(t, s, "e2e-ns").DeepCopy()
	plain.Spec.Finalizers = nil
	plain.Metadata.Labels["team"] = "blue"
	updated, err := s.Update(ctx, plain)
	require.NoError(t, err)
	assert.Equal(t, []string{api.FinalizerKubernetes, fakeFinalizer}, updated.(*api.Namespace).Spec.Finalizers,
		"a plain update keeps spec.finalizers")
	assert.Equal(t, "blue", updated.GetObjectMeta().Labels["team"], "and makes its other changes")

	bad := getNamespace(t, s, "e2e-ns").DeepCopy()
	bad.Spec.Finalizers = []string{"no slash"}
	_, err = s.FinalizeNamespace(ctx, bad)
	require.True(t, apierrors.IsInvalid(err), "got %v", err)
	assert.Contains(t, err.Error(), "spec.finalizers")
	assert.Equal(t, []string{api.FinalizerKubernetes, fakeFinalizer}, getNamespace(t, s, "e2e-ns").Spec.Finalizers, "nothing stored changed")

	back := getNamespace(t, s, "e2e-ns").DeepCopy()
	back.Spec.Finalizers = []string{api.FinalizerKubernetes}
	got, err = s.FinalizeNamespace(ctx, back)
	require.NoError(t, err)
	assert.Equal(t, []string{api.FinalizerKubernetes}, got.Spec.Finalizers)
}

// TestAnotherFinalizerHoldsAnEmptiedNamespace: the namespace's content goes
// and its "kubernetes" finalizer with it, but another finalizer keeps it
// Terminating (an update of its labels meanwhile must not delete it) until
// a finalize write removes that one too.
func TestAnotherFinalizerHoldsAnEmptiedNamespace(t *testing.T) {
	s, clk := newServer(t)
	_, err := s.Create(ctx, &api.Namespace{Metadata: api.ObjectMeta{Name: "held"},
		Spec: api.NamespaceSpec{Finalizers: []string{api.FinalizerKubernetes, fakeFinalizer}}})
	require.NoError(t, err)
	_, err = s.Create(ctx, rc("held", "web", 1))
	require.NoError(t, err)

	_, err = s.Delete(ctx, client.Namespaces, "", "held", api.DeleteOptions{})
	require.NoError(t, err)
	sweepUntilSettled(s, clk)

	_, err = s.Get(ctx, client.ReplicationControllers, "held", "web", client.GetOptions{})
	require.True(t, apierrors.IsNotFound(err), "content deleted, got %v", err)
	ns := getNamespace(t, s, "held")
	assert.Equal(t, []string{fakeFinalizer}, ns.Spec.Finalizers, "the namespace controller's own finalizer is off")
	assert.Equal(t, api.NamespaceTerminating, ns.Status.Phase)
	for _, c := range ns.Status.Conditions {
		assert.Equal(t, api.ConditionFalse, c.Status, "%s: %s", c.Type, c.Message)
	}

	relabel := ns.DeepCopy()
	relabel.Metadata.Labels["still"] = "here"
	_, err = s.Update(ctx, relabel)
	require.NoError(t, err)
	ns = getNamespace(t, s, "held")
	assert.Equal(t, "here", ns.Metadata.Labels["still"], "an update of a held namespace stores it")

	ns = ns.DeepCopy()
	ns.Spec.Finalizers = nil
	_, err = s.FinalizeNamespace(ctx, ns)
	require.NoError(t, err)
	_, err = s.Get(ctx, client.Namespaces, "", "held", client.GetOptions{})
	assert.True(t, apierrors.IsNotFound(err), "its last finalizer gone, the namespace is deleted; got %v", err)
}

// TestTerminatingNamespaceSaysWhatRemains: while an object held by a
// finalizer stays, the namespace's conditions say what remains, in the
// namespace controller's words; once it goes, they say all is removed and
// the namespace goes too.
func TestTerminatingNamespaceSaysWhatRemains(t *testing.T) {
	s, clk := newServer(t)
	_, err := s.Create(ctx, &api.Namespace{Metadata: api.ObjectMeta{Name: "team"}})
	require.NoError(t, err)
	held := &api.ConfigMap{Metadata: api.ObjectMeta{Namespace: "team", Name: "keep", Finalizers: []string{"example.com/hold"}}}
	_, err = s.Create(ctx, held)
	require.NoError(t, err)

	_, err = s.Delete(ctx, client.Namespaces, "", "team", api.DeleteOptions{})
	require.NoError(t, err)
	s.Sweep()

	conds := map[string]api.NamespaceCondition{}
	for _, c := range getNamespace(t, s, "team").Status.Conditions {
		conds[c.Type] = c
	}
	require.Len(t, conds, 5)
	assert.Equal(t, api.ConditionTrue, conds["NamespaceContentRemaining"].Status)
	assert.Equal(t, "SomeResourcesRemain", conds["NamespaceContentRemaining"].Reason)
	assert.Equal(t, "Some resources are remaining: configmaps. has 1 resource instances", conds["NamespaceContentRemaining"].Message)
	assert.Equal(t, "SomeFinalizersRemain", conds["NamespaceFinalizersRemaining"].Reason)
	assert.Equal(t, "Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances", conds["NamespaceFinalizersRemaining"].Message)
	assert.Equal(t, "ResourcesDiscovered", conds["NamespaceDeletionDiscoveryFailure"].Reason)

	cm, err := s.Get(ctx, client.ConfigMaps, "team", "keep", client.GetOptions{})
	require.NoError(t, err)
	release := cm.(*api.ConfigMap).DeepCopy()
	release.Metadata.Finalizers = nil
	_, err = s.Update(ctx, release)
	require.NoError(t, err)
	sweepUntilSettled(s, clk)
	_, err = s.Get(ctx, client.Namespaces, "", "team", client.GetOptions{})
	assert.True(t, apierrors.IsNotFound(err), "got %v", err)
}
