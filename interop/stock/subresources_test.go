package stock

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/miniplane/miniplane/interop/internal/planetest"
)

// subresourceCase exercises one served subresource through the method the
// typed client has for it; key is as discovery lists it ("v1 pods/status").
type subresourceCase struct {
	key string
	run func(t *testing.T, cs kubernetes.Interface)
}

func subresourceCases() []subresourceCase {
	return []subresourceCase{
		{"v1 pods/status", testPodStatus},
		{"v1 pods/binding", testPodBinding},
		{"v1 pods/eviction", testPodEviction},
		{"v1 pods/ephemeralcontainers", testPodEphemeralContainers},
		{"v1 pods/log", testPodLog},
		{"v1 replicationcontrollers/scale", testScale},
		{"v1 replicationcontrollers/status", testReplicationControllerStatus},
		{"v1 services/status", testServiceStatus},
		{"v1 nodes/status", testNodeStatus},
		{"v1 namespaces/status", testNamespaceStatus},
		{"v1 namespaces/finalize", testNamespaceFinalize},
		{"v1 persistentvolumes/status", testPersistentVolumeStatus},
		{"v1 persistentvolumeclaims/status", testPersistentVolumeClaimStatus},
		{"v1 resourcequotas/status", testResourceQuotaStatus},
		{"storage.k8s.io/v1 volumeattachments/status", testVolumeAttachmentStatus},
		{"policy/v1 poddisruptionbudgets/status", testPodDisruptionBudgetStatus},
		{"networking.k8s.io/v1 ingresses/status", testIngressStatus},
		{"admissionregistration.k8s.io/v1 validatingadmissionpolicies/status", testValidatingAdmissionPolicyStatus},
		{"apps/v1 replicasets/status", testReplicaSetStatus},
		{"apps/v1 deployments/status", testDeploymentStatus},
		{"apps/v1 daemonsets/status", testDaemonSetStatus},
		{"batch/v1 jobs/status", testJobStatus},
		{"batch/v1 cronjobs/status", testCronJobStatus},
		{"apps/v1 deployments/scale", testDeploymentScale},
		{"apps/v1 statefulsets/status", testStatefulSetStatus},
		{"apps/v1 replicasets/scale", testReplicaSetScale},
		{"apps/v1 statefulsets/scale", testStatefulSetScale},
		{"certificates.k8s.io/v1 certificatesigningrequests/status", testCertificateSigningRequestStatus},
		{"certificates.k8s.io/v1 certificatesigningrequests/approval", testCertificateSigningRequestApproval},
		{"flowcontrol.apiserver.k8s.io/v1 flowschemas/status", testFlowSchemaStatus},
		{"flowcontrol.apiserver.k8s.io/v1 prioritylevelconfigurations/status", testPriorityLevelConfigurationStatus},
		{"autoscaling/v1 horizontalpodautoscalers", testHPAv1},
		{"autoscaling/v1 horizontalpodautoscalers/status", testHPAStatus("v1")},
		{"autoscaling/v2 horizontalpodautoscalers/status", testHPAStatus("v2")},
		{"apiregistration.k8s.io/v1 apiservices", testAPIServices},
		{"apiregistration.k8s.io/v1 apiservices/status", testAPIServiceStatus},
	}
}

// checkStatusUpdate creates obj, lets setStatus change its status and its
// spec, writes it through the status subresource, and checks that the
// answer has the new status and the old spec.
func checkStatusUpdate[T object](t *testing.T, client interface {
	Create(context.Context, T, metav1.CreateOptions) (T, error)
	UpdateStatus(context.Context, T, metav1.UpdateOptions) (T, error)
}, obj T, setStatus func(T), check func(t *testing.T, got T)) {
	t.Helper()
	ctx := boundedContext(t)
	created, err := client.Create(ctx, obj, metav1.CreateOptions{})
	require.NoError(t, err)
	setStatus(created)
	got, err := client.UpdateStatus(ctx, created, metav1.UpdateOptions{})
	require.NoError(t, err, "UpdateStatus")
	check(t, got)
}

func testPersistentVolumeStatus(t *testing.T, cs kubernetes.Interface) {
	pv := schedulingCase[*corev1.PersistentVolume](t, "persistentvolumes").fresh("status-pv", "")
	checkStatusUpdate(t, cs.CoreV1().PersistentVolumes(), pv, func(pv *corev1.PersistentVolume) {
		pv.Status.Phase = corev1.VolumeAvailable
		pv.Spec.StorageClassName = "changed"
	}, func(t *testing.T, pv *corev1.PersistentVolume) {
		assert.Equal(t, corev1.VolumeAvailable, pv.Status.Phase)
		assert.Empty(t, pv.Spec.StorageClassName, "a status update kept the spec")
	})
}

func testPersistentVolumeClaimStatus(t *testing.T, cs kubernetes.Interface) {
	pvc := schedulingCase[*corev1.PersistentVolumeClaim](t, "persistentvolumeclaims").fresh("status-pvc", metav1.NamespaceDefault)
	checkStatusUpdate(t, cs.CoreV1().PersistentVolumeClaims(metav1.NamespaceDefault), pvc, func(c *corev1.PersistentVolumeClaim) {
		c.Status.Phase = corev1.ClaimBound
		c.Status.Capacity = corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}
	}, func(t *testing.T, c *corev1.PersistentVolumeClaim) {
		assert.Equal(t, corev1.ClaimBound, c.Status.Phase)
		assert.Equal(t, "1Gi", ptr.To(c.Status.Capacity[corev1.ResourceStorage]).String())
	})
}

func testResourceQuotaStatus(t *testing.T, cs kubernetes.Interface) {
	q := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "status-quota", Namespace: metav1.NamespaceDefault},
		Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("10")}}}
	checkStatusUpdate(t, cs.CoreV1().ResourceQuotas(metav1.NamespaceDefault), q, func(q *corev1.ResourceQuota) {
		q.Status.Hard = corev1.ResourceList{corev1.ResourcePods: resource.MustParse("10")}
		q.Status.Used = corev1.ResourceList{corev1.ResourcePods: resource.MustParse("3")}
		q.Spec.Hard = corev1.ResourceList{corev1.ResourcePods: resource.MustParse("99")}
	}, func(t *testing.T, q *corev1.ResourceQuota) {
		assert.Equal(t, "3", ptr.To(q.Status.Used[corev1.ResourcePods]).String())
		assert.Equal(t, "10", ptr.To(q.Spec.Hard[corev1.ResourcePods]).String(), "a status update kept the spec")
	})
}

func testVolumeAttachmentStatus(t *testing.T, cs kubernetes.Interface) {
	va := schedulingCase[*storagev1.VolumeAttachment](t, "volumeattachments").fresh("status-va", "")
	checkStatusUpdate(t, cs.StorageV1().VolumeAttachments(), va, func(va *storagev1.VolumeAttachment) {
		va.Status.Attached = true
		va.Status.AttachmentMetadata = map[string]string{"dev": "/dev/xvdf"}
	}, func(t *testing.T, va *storagev1.VolumeAttachment) {
		assert.True(t, va.Status.Attached)
		assert.Equal(t, "/dev/xvdf", va.Status.AttachmentMetadata["dev"])
	})
}

func testPodDisruptionBudgetStatus(t *testing.T, cs kubernetes.Interface) {
	pdb := schedulingCase[*policyv1.PodDisruptionBudget](t, "poddisruptionbudgets").fresh("status-pdb", metav1.NamespaceDefault)
	checkStatusUpdate(t, cs.PolicyV1().PodDisruptionBudgets(metav1.NamespaceDefault), pdb, func(p *policyv1.PodDisruptionBudget) {
		p.Status.DisruptionsAllowed, p.Status.ExpectedPods = 1, 3
	}, func(t *testing.T, p *policyv1.PodDisruptionBudget) {
		assert.Equal(t, int32(1), p.Status.DisruptionsAllowed)
		assert.Equal(t, int32(3), p.Status.ExpectedPods)
	})
}

func testIngressStatus(t *testing.T, cs kubernetes.Interface) {
	in := networkingKindCases()[0].(crud[*networkingv1.Ingress, *networkingv1.IngressList]).fresh("status-ing", metav1.NamespaceDefault)
	checkStatusUpdate(t, cs.NetworkingV1().Ingresses(metav1.NamespaceDefault), in, func(in *networkingv1.Ingress) {
		in.Status.LoadBalancer.Ingress = []networkingv1.IngressLoadBalancerIngress{{IP: "192.0.2.1"}}
		in.Spec.IngressClassName = ptr.To("changed")
	}, func(t *testing.T, in *networkingv1.Ingress) {
		assert.Equal(t, "192.0.2.1", in.Status.LoadBalancer.Ingress[0].IP)
		assert.Nil(t, in.Spec.IngressClassName, "a status update kept the spec")
	})
}

func testReplicaSetStatus(t *testing.T, cs kubernetes.Interface) {
	rs := schedulingCase[*appsv1.ReplicaSet](t, "replicasets").fresh("status-rs", metav1.NamespaceDefault)
	checkStatusUpdate(t, cs.AppsV1().ReplicaSets(metav1.NamespaceDefault), rs, func(rs *appsv1.ReplicaSet) {
		rs.Status.Replicas, rs.Status.ReadyReplicas = 2, 1
		rs.Spec.Replicas = ptr.To[int32](7)
	}, func(t *testing.T, rs *appsv1.ReplicaSet) {
		assert.Equal(t, int32(2), rs.Status.Replicas)
		assert.Equal(t, int32(0), *rs.Spec.Replicas, "a status update kept the spec")
	})
}

func testDeploymentStatus(t *testing.T, cs kubernetes.Interface) {
	d := schedulingCase[*appsv1.Deployment](t, "deployments").fresh("status-deploy", metav1.NamespaceDefault)
	checkStatusUpdate(t, cs.AppsV1().Deployments(metav1.NamespaceDefault), d, func(d *appsv1.Deployment) {
		d.Status.Replicas, d.Status.UpdatedReplicas = 2, 1
		d.Spec.Replicas = ptr.To[int32](7)
	}, func(t *testing.T, d *appsv1.Deployment) {
		assert.Equal(t, int32(1), d.Status.UpdatedReplicas)
		assert.Equal(t, int32(0), *d.Spec.Replicas, "a status update kept the spec")
	})
}

func testDaemonSetStatus(t *testing.T, cs kubernetes.Interface) {
	ds := schedulingCase[*appsv1.DaemonSet](t, "daemonsets").fresh("status-ds", metav1.NamespaceDefault)
	checkStatusUpdate(t, cs.AppsV1().DaemonSets(metav1.NamespaceDefault), ds, func(ds *appsv1.DaemonSet) {
		ds.Status.DesiredNumberScheduled, ds.Status.NumberMisscheduled = 5, 1
		ds.Spec.MinReadySeconds = 7
	}, func(t *testing.T, ds *appsv1.DaemonSet) {
		assert.Equal(t, int32(1), ds.Status.NumberMisscheduled)
		assert.Equal(t, int32(0), ds.Spec.MinReadySeconds, "a status update kept the spec")
	})
}

func testJobStatus(t *testing.T, cs kubernetes.Interface) {
	j := schedulingCase[*batchv1.Job](t, "jobs").fresh("status-job", metav1.NamespaceDefault)
	checkStatusUpdate(t, cs.BatchV1().Jobs(metav1.NamespaceDefault), j, func(j *batchv1.Job) {
		j.Status.Active = 1
		j.Spec.Parallelism = ptr.To[int32](7)
	}, func(t *testing.T, j *batchv1.Job) {
		assert.Equal(t, int32(1), j.Status.Active)
		assert.Equal(t, int32(1), *j.Spec.Parallelism, "a status update kept the spec")
	})
}

func testCronJobStatus(t *testing.T, cs kubernetes.Interface) {
	cj := schedulingCase[*batchv1.CronJob](t, "cronjobs").fresh("status-cj", metav1.NamespaceDefault)
	checkStatusUpdate(t, cs.BatchV1().CronJobs(metav1.NamespaceDefault), cj, func(cj *batchv1.CronJob) {
		now := metav1.Now()
		cj.Status.LastScheduleTime = &now
		cj.Spec.Schedule = "@hourly"
	}, func(t *testing.T, cj *batchv1.CronJob) {
		assert.NotNil(t, cj.Status.LastScheduleTime)
		assert.Equal(t, "*/5 * * * *", cj.Spec.Schedule, "a status update kept the spec")
	})
}

func testStatefulSetStatus(t *testing.T, cs kubernetes.Interface) {
	ss := schedulingCase[*appsv1.StatefulSet](t, "statefulsets").fresh("status-sts", metav1.NamespaceDefault)
	checkStatusUpdate(t, cs.AppsV1().StatefulSets(metav1.NamespaceDefault), ss, func(ss *appsv1.StatefulSet) {
		ss.Status.Replicas, ss.Status.AvailableReplicas = 2, 2
	}, func(t *testing.T, ss *appsv1.StatefulSet) {
		assert.Equal(t, int32(2), ss.Status.AvailableReplicas)
	})
}

// scaler is the scale subresource of a typed client.
type scaler interface {
	GetScale(ctx context.Context, name string, opts metav1.GetOptions) (*autoscalingv1.Scale, error)
	UpdateScale(ctx context.Context, name string, scale *autoscalingv1.Scale, opts metav1.UpdateOptions) (*autoscalingv1.Scale, error)
}

// checkScale scales name from 0 to 4 and checks the Scale's selector.
func checkScale(t *testing.T, c scaler, name string) {
	t.Helper()
	ctx := boundedContext(t)
	sc, err := c.GetScale(ctx, name, metav1.GetOptions{})
	require.NoError(t, err, "GetScale")
	assert.Equal(t, int32(0), sc.Spec.Replicas)
	assert.Equal(t, "app=web", sc.Status.Selector)
	sc.Spec.Replicas = 4
	got, err := c.UpdateScale(ctx, name, sc, metav1.UpdateOptions{})
	require.NoError(t, err, "UpdateScale")
	assert.Equal(t, int32(4), got.Spec.Replicas)
}

func testReplicaSetScale(t *testing.T, cs kubernetes.Interface) {
	rss := cs.AppsV1().ReplicaSets(metav1.NamespaceDefault)
	_, err := rss.Create(boundedContext(t), schedulingCase[*appsv1.ReplicaSet](t, "replicasets").fresh("scale-rs", metav1.NamespaceDefault), metav1.CreateOptions{})
	require.NoError(t, err)
	checkScale(t, rss, "scale-rs")
}

func testDeploymentScale(t *testing.T, cs kubernetes.Interface) {
	ds := cs.AppsV1().Deployments(metav1.NamespaceDefault)
	_, err := ds.Create(boundedContext(t), schedulingCase[*appsv1.Deployment](t, "deployments").fresh("scale-deploy", metav1.NamespaceDefault), metav1.CreateOptions{})
	require.NoError(t, err)
	checkScale(t, ds, "scale-deploy")
}

func testStatefulSetScale(t *testing.T, cs kubernetes.Interface) {
	sss := cs.AppsV1().StatefulSets(metav1.NamespaceDefault)
	_, err := sss.Create(boundedContext(t), schedulingCase[*appsv1.StatefulSet](t, "statefulsets").fresh("scale-sts", metav1.NamespaceDefault), metav1.CreateOptions{})
	require.NoError(t, err)
	checkScale(t, sss, "scale-sts")
}

// TestSubresources drives every served subresource through a stock
// clientset: UpdateStatus of each kind with a status (a status update
// changes the status and nothing else), the replication controller's
// GetScale and UpdateScale, a pod's Bind and EvictV1.
func TestSubresources(t *testing.T) {
	p, cs := start(t)
	srv := discover(t, cs)
	for _, c := range subresourceCases() {
		t.Run(c.key, func(t *testing.T) {
			if _, ok := srv[c.key]; !ok {
				t.Skipf("the server does not serve %s (discovery does not list it)", c.key)
			}
			t.Parallel()
			c.run(t, clientset(t, p))
		})
	}
}

// TestEveryServedResourceHasACase fails when discovery lists a resource or
// subresource that this package does not exercise: a kind added to the
// server must come with its stock-client case.
func TestEveryServedResourceHasACase(t *testing.T) {
	_, cs := start(t)
	known := map[string]bool{}
	for _, c := range kindCases() {
		known[key(c.resource())] = true
	}
	for _, c := range subresourceCases() {
		known[c.key] = true
	}
	for _, k := range crdKeys {
		known[k] = true
	}
	for k := range discover(t, cs) {
		assert.True(t, known[k], "discovery lists %q, which has no case in interop/stock", k)
	}
}

func testPodStatus(t *testing.T, cs kubernetes.Interface) {
	ctx := boundedContext(t)
	pods := cs.CoreV1().Pods(metav1.NamespaceDefault)
	p, err := pods.Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "status-pod"}, Spec: podSpec()}, metav1.CreateOptions{})
	require.NoError(t, err)

	p.Status.Phase = corev1.PodRunning
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	p.Spec.Containers[0].Image = "nginx:9" // a status update must not change the spec
	got, err := pods.UpdateStatus(ctx, p, metav1.UpdateOptions{})
	require.NoError(t, err, "UpdateStatus")
	assert.Equal(t, corev1.PodRunning, got.Status.Phase)
	require.Len(t, got.Status.Conditions, 1)
	assert.Equal(t, corev1.ConditionTrue, got.Status.Conditions[0].Status)
	assert.Equal(t, "nginx:1.27", got.Spec.Containers[0].Image, "a status update kept the spec")

	stored, err := pods.Get(ctx, "status-pod", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, corev1.PodRunning, stored.Status.Phase)
	assert.Equal(t, got.ResourceVersion, stored.ResourceVersion)
}

func testPodBinding(t *testing.T, cs kubernetes.Interface) {
	ctx := boundedContext(t)
	_, err := cs.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "binding-node"}}, metav1.CreateOptions{})
	require.NoError(t, err)
	pods := cs.CoreV1().Pods(metav1.NamespaceDefault)
	_, err = pods.Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "binding-pod"}, Spec: podSpec()}, metav1.CreateOptions{})
	require.NoError(t, err)

	binding := &corev1.Binding{
		ObjectMeta: metav1.ObjectMeta{Name: "binding-pod"},
		Target:     corev1.ObjectReference{Kind: "Node", Name: "binding-node"},
	}
	require.NoError(t, pods.Bind(ctx, binding, metav1.CreateOptions{}), "Bind")
	p, err := pods.Get(ctx, "binding-pod", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, "binding-node", p.Spec.NodeName)

	binding.Target.Name = "another-node"
	err = pods.Bind(ctx, binding, metav1.CreateOptions{})
	assert.True(t, apierrors.IsConflict(err), "binding a bound pod again: want a conflict, got %v", err)
}

func testPodEviction(t *testing.T, cs kubernetes.Interface) {
	ctx := boundedContext(t)
	pods := cs.CoreV1().Pods(metav1.NamespaceDefault)
	_, err := pods.Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "evicted-pod"}, Spec: podSpec()}, metav1.CreateOptions{})
	require.NoError(t, err)

	eviction := &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: "evicted-pod", Namespace: metav1.NamespaceDefault}}
	require.NoError(t, pods.EvictV1(ctx, eviction), "EvictV1")
	// The pod was never scheduled, so it goes at once (no grace period).
	_, err = pods.Get(ctx, "evicted-pod", metav1.GetOptions{})
	assert.True(t, apierrors.IsNotFound(err), "get after eviction: %v", err)

	eviction.Name = "no-such-pod"
	err = pods.EvictV1(ctx, eviction)
	assert.True(t, apierrors.IsNotFound(err), "evicting a missing pod: want not found, got %v", err)
}

// testPodEphemeralContainers adds an ephemeral container through
// UpdateEphemeralContainers, which takes nothing else of the pod sent, and
// is refused when it would remove one.
func testPodEphemeralContainers(t *testing.T, cs kubernetes.Interface) {
	ctx := boundedContext(t)
	pods := cs.CoreV1().Pods(metav1.NamespaceDefault)
	pod, err := pods.Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "debugged-pod"}, Spec: podSpec()}, metav1.CreateOptions{})
	require.NoError(t, err)

	sent := pod.DeepCopy()
	sent.Labels = map[string]string{"ignored": "yes"}
	sent.Spec.EphemeralContainers = []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{
		Name: "debugger", Image: "busybox", Command: []string{"sleep", "1000"}, TerminationMessagePolicy: corev1.TerminationMessageReadFile}}}
	got, err := pods.UpdateEphemeralContainers(ctx, "debugged-pod", sent, metav1.UpdateOptions{})
	require.NoError(t, err, "UpdateEphemeralContainers")
	require.Len(t, got.Spec.EphemeralContainers, 1)
	assert.Equal(t, corev1.PullAlways, got.Spec.EphemeralContainers[0].ImagePullPolicy, "defaulted")
	assert.Empty(t, got.Labels, "only the ephemeral containers are taken")

	got.Spec.EphemeralContainers = nil
	_, err = pods.UpdateEphemeralContainers(ctx, "debugged-pod", got, metav1.UpdateOptions{})
	assert.True(t, apierrors.IsInvalid(err), "removing one: %v", err)
	assert.ErrorContains(t, err, `existing ephemeral containers "debugger" may not be removed`)
}

// testNamespaceFinalize adds and removes a finalizer through Finalize, as
// the conformance test "should apply a finalizer to a Namespace" does; a
// plain Update leaves spec.finalizers as they are.
func testNamespaceFinalize(t *testing.T, cs kubernetes.Interface) {
	ctx := boundedContext(t)
	nss := cs.CoreV1().Namespaces()
	ns, err := nss.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "finalized"}}, metav1.CreateOptions{})
	require.NoError(t, err)
	require.Equal(t, []corev1.FinalizerName{corev1.FinalizerKubernetes}, ns.Spec.Finalizers)

	ns.Spec.Finalizers = append(ns.Spec.Finalizers, "e2e.example.com/fake")
	ns, err = nss.Finalize(ctx, ns, metav1.UpdateOptions{})
	require.NoError(t, err, "Finalize")
	assert.Equal(t, []corev1.FinalizerName{corev1.FinalizerKubernetes, "e2e.example.com/fake"}, ns.Spec.Finalizers)

	ns.Spec.Finalizers = nil
	ns, err = nss.Update(ctx, ns, metav1.UpdateOptions{})
	require.NoError(t, err, "Update")
	assert.Len(t, ns.Spec.Finalizers, 2, "a plain update keeps spec.finalizers")
}

func testPodLog(t *testing.T, cs kubernetes.Interface) {
	ctx := boundedContext(t)
	pods := cs.CoreV1().Pods(metav1.NamespaceDefault)
	_, err := pods.Create(ctx, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "logged-pod"},
		Spec:       corev1.PodSpec{NodeName: "node-1", Containers: podSpec().Containers},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
	lines := planetest.LogLines("logged-pod", "app")

	got, err := pods.GetLogs("logged-pod", &corev1.PodLogOptions{}).DoRaw(ctx)
	require.NoError(t, err, "GetLogs")
	assert.Equal(t, strings.Join(lines, "\n")+"\n", string(got))

	got, err = pods.GetLogs("logged-pod", &corev1.PodLogOptions{Container: "app", TailLines: ptr.To[int64](1)}).DoRaw(ctx)
	require.NoError(t, err, "GetLogs with tailLines")
	assert.Equal(t, lines[1]+"\n", string(got))

	_, err = pods.GetLogs("logged-pod", &corev1.PodLogOptions{Container: "nope"}).DoRaw(ctx)
	assert.True(t, apierrors.IsBadRequest(err), "the log of a container the pod lacks: want bad request, got %v", err)
}

func testScale(t *testing.T, cs kubernetes.Interface) {
	ctx := boundedContext(t)
	rcs := cs.CoreV1().ReplicationControllers(metav1.NamespaceDefault)
	_, err := rcs.Create(ctx, replicationController("scaled", metav1.NamespaceDefault, 1), metav1.CreateOptions{})
	require.NoError(t, err)

	scale, err := rcs.GetScale(ctx, "scaled", metav1.GetOptions{})
	require.NoError(t, err, "GetScale")
	assert.Equal(t, "scaled", scale.Name)
	assert.Equal(t, int32(1), scale.Spec.Replicas)
	assert.Equal(t, "rc=scaled", scale.Status.Selector)

	scale.Spec.Replicas = 3
	got, err := rcs.UpdateScale(ctx, "scaled", scale, metav1.UpdateOptions{})
	require.NoError(t, err, "UpdateScale")
	assert.Equal(t, int32(3), got.Spec.Replicas)
	rc, err := rcs.Get(ctx, "scaled", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, ptr.To[int32](3), rc.Spec.Replicas)

	stale := scale.DeepCopy() // its resourceVersion is from before the update
	stale.Spec.Replicas = 5
	_, err = rcs.UpdateScale(ctx, "scaled", stale, metav1.UpdateOptions{})
	assert.True(t, apierrors.IsConflict(err), "UpdateScale at a stale resourceVersion: want a conflict, got %v", err)

	_, err = rcs.UpdateScale(ctx, "scaled", &autoscalingv1.Scale{
		ObjectMeta: metav1.ObjectMeta{Name: "scaled", Namespace: metav1.NamespaceDefault},
		Spec:       autoscalingv1.ScaleSpec{Replicas: -1},
	}, metav1.UpdateOptions{})
	assert.True(t, apierrors.IsInvalid(err), "UpdateScale to -1 replicas: want invalid, got %v", err)
	rc, err = rcs.Get(ctx, "scaled", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, ptr.To[int32](3), rc.Spec.Replicas, "refused scale updates changed nothing")
}

func testReplicationControllerStatus(t *testing.T, cs kubernetes.Interface) {
	ctx := boundedContext(t)
	rcs := cs.CoreV1().ReplicationControllers(metav1.NamespaceDefault)
	rc, err := rcs.Create(ctx, replicationController("status-rc", metav1.NamespaceDefault, 2), metav1.CreateOptions{})
	require.NoError(t, err)

	rc.Status = corev1.ReplicationControllerStatus{Replicas: 2, ReadyReplicas: 1, AvailableReplicas: 1, FullyLabeledReplicas: 2, ObservedGeneration: rc.Generation}
	rc.Spec.Replicas = ptr.To[int32](7) // a status update must not change the spec
	got, err := rcs.UpdateStatus(ctx, rc, metav1.UpdateOptions{})
	require.NoError(t, err, "UpdateStatus")
	assert.Equal(t, int32(2), got.Status.Replicas)
	assert.Equal(t, int32(1), got.Status.ReadyReplicas)
	assert.Equal(t, rc.Generation, got.Status.ObservedGeneration)
	assert.Equal(t, ptr.To[int32](2), got.Spec.Replicas, "a status update kept the spec")
}

func testServiceStatus(t *testing.T, cs kubernetes.Interface) {
	ctx := boundedContext(t)
	services := cs.CoreV1().Services(metav1.NamespaceDefault)
	s, err := services.Create(ctx, &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "status-svc"},
		Spec: corev1.ServiceSpec{
			Type:     corev1.ServiceTypeLoadBalancer,
			Selector: map[string]string{"app": "web"},
			Ports:    []corev1.ServicePort{{Port: 80}},
		},
	}, metav1.CreateOptions{})
	require.NoError(t, err)

	s.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.10"}}
	s.Spec.Selector = map[string]string{"app": "other"} // a status update must not change the spec
	got, err := services.UpdateStatus(ctx, s, metav1.UpdateOptions{})
	require.NoError(t, err, "UpdateStatus")
	require.Len(t, got.Status.LoadBalancer.Ingress, 1)
	assert.Equal(t, "192.0.2.10", got.Status.LoadBalancer.Ingress[0].IP)
	assert.Equal(t, map[string]string{"app": "web"}, got.Spec.Selector, "a status update kept the spec")
}

func testNodeStatus(t *testing.T, cs kubernetes.Interface) {
	ctx := boundedContext(t)
	nodes := cs.CoreV1().Nodes()
	n, err := nodes.Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "status-node"}}, metav1.CreateOptions{})
	require.NoError(t, err)

	n.Status = corev1.NodeStatus{
		Capacity:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourcePods: resource.MustParse("110")},
		Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady"}},
		Addresses:  []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "10.0.0.7"}},
	}
	n.Spec.Unschedulable = true // a status update must not change the spec
	got, err := nodes.UpdateStatus(ctx, n, metav1.UpdateOptions{})
	require.NoError(t, err, "UpdateStatus")
	require.Len(t, got.Status.Conditions, 1)
	assert.Equal(t, corev1.ConditionTrue, got.Status.Conditions[0].Status)
	cpu := got.Status.Capacity[corev1.ResourceCPU]
	assert.Equal(t, "4", cpu.String())
	assert.Equal(t, []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "10.0.0.7"}}, got.Status.Addresses)
	assert.False(t, got.Spec.Unschedulable, "a status update kept the spec")
}

func testNamespaceStatus(t *testing.T, cs kubernetes.Interface) {
	ctx := boundedContext(t)
	namespaces := cs.CoreV1().Namespaces()
	ns, err := namespaces.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "status-ns"}}, metav1.CreateOptions{})
	require.NoError(t, err)
	require.Equal(t, corev1.NamespaceActive, ns.Status.Phase)
	require.Equal(t, []corev1.FinalizerName{corev1.FinalizerKubernetes}, ns.Spec.Finalizers)

	ns.Spec.Finalizers = nil // a status update must not change the spec
	got, err := namespaces.UpdateStatus(ctx, ns, metav1.UpdateOptions{})
	require.NoError(t, err, "UpdateStatus")
	assert.Equal(t, corev1.NamespaceActive, got.Status.Phase)
	assert.Equal(t, []corev1.FinalizerName{corev1.FinalizerKubernetes}, got.Spec.Finalizers, "a status update kept the spec")
}
