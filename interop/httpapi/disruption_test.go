package httpapi

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/miniplane/miniplane/controllers/manager"
	"github.com/miniplane/miniplane/plane"
	"github.com/miniplane/miniplane/plane/planetest"
)

// TestEvictionBlockedUntilTheBudgetAllowsIt follows Kubernetes' conformance
// test "should block an eviction until the PDB is updated to allow it"
// (test/e2e/apps/disruption.go) with a stock clientset against a whole
// plane in a synctest bubble (disruption, replica set and endpoints
// controllers, scheduler and kubelets, on virtual time): a budget of 3 over
// a replica set of 3 refuses an eviction with the DisruptionBudget cause;
// updated to 2 it allows one; merge-patched to maxUnavailable 0 it refuses
// again; deleted, it no longer stands in the way.
func TestEvictionBlockedUntilTheBudgetAllowsIt(t *testing.T) {
	synctest.Test(t, evictionBlockedUntilTheBudgetAllowsIt)
}

func evictionBlockedUntilTheBudgetAllowsIt(t *testing.T) {
	const bound = 5 * time.Minute // virtual
	opts := manager.DefaultOptions()
	opts.Nodes = 2
	p := planetest.Start(t, plane.Config{Seed: 1, Options: &opts})
	cs, err := kubernetes.NewForConfig(&rest.Config{Host: p.Host(), Transport: p.Transport()})
	require.NoError(t, err)
	ctx := t.Context()
	const ns = metav1.NamespaceDefault
	labels := map[string]string{"foo": "bar"}
	pdbs, pods := cs.PolicyV1().PodDisruptionBudgets(ns), cs.CoreV1().Pods(ns)

	_, err = pdbs.Create(ctx, &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: "foo"},
		Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: ptr.To(intstr.FromInt32(3)), Selector: &metav1.LabelSelector{MatchLabels: labels}}},
		metav1.CreateOptions{})
	require.NoError(t, err)
	_, err = cs.AppsV1().ReplicaSets(ns).Create(ctx, &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "rs"},
		Spec: appsv1.ReplicaSetSpec{Replicas: ptr.To[int32](3), Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "nginx:1.27"}}}}}},
		metav1.CreateOptions{})
	require.NoError(t, err)

	// settled waits until the budget has seen its spec and want healthy pods.
	settled := func(what string, want int32) {
		t.Helper()
		require.Eventually(t, func() bool {
			pdb, err := pdbs.Get(ctx, "foo", metav1.GetOptions{})
			return err == nil && pdb.Status.ObservedGeneration == pdb.Generation && pdb.Status.CurrentHealthy == want
		}, bound, 10*time.Millisecond, what)
	}
	runningPod := func() string {
		t.Helper()
		l, err := pods.List(ctx, metav1.ListOptions{LabelSelector: "foo=bar"})
		require.NoError(t, err)
		for _, p := range l.Items {
			if p.Status.Phase == corev1.PodRunning && p.DeletionTimestamp == nil {
				return p.Name
			}
		}
		t.Fatal("no running pod")
		return ""
	}
	evict := func(name string) error {
		return pods.EvictV1(ctx, &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}})
	}
	refused := func(err error) {
		t.Helper()
		require.Error(t, err)
		assert.True(t, apierrors.IsTooManyRequests(err), "429, got %v", err)
		assert.True(t, apierrors.HasStatusCause(err, policyv1.DisruptionBudgetCause), "the DisruptionBudget cause, got %#v", err)
		assert.Equal(t, "Cannot evict pod as it would violate the pod's disruption budget.", err.Error())
	}

	settled("three healthy pods counted", 3)
	first := runningPod()
	refused(evict(first))

	pdb, err := pdbs.Get(ctx, "foo", metav1.GetOptions{})
	require.NoError(t, err)
	pdb.Spec.MinAvailable = ptr.To(intstr.FromInt32(2))
	_, err = pdbs.Update(ctx, pdb, metav1.UpdateOptions{})
	require.NoError(t, err)
	settled("the update observed", 3)
	require.NoError(t, evict(first), "now evictable")

	_, err = pdbs.Patch(ctx, "foo", types.MergePatchType, []byte(`{"spec":{"minAvailable":null,"maxUnavailable":0}}`), metav1.PatchOptions{})
	require.NoError(t, err)
	settled("the patch observed, the evicted pod replaced", 3)
	second := runningPod()
	refused(evict(second))

	require.NoError(t, pdbs.Delete(ctx, "foo", metav1.DeleteOptions{}))
	require.NoError(t, evict(second), "no budget left")
}
