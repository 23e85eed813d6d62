package clientgo

import (
	"fmt"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/miniplane/miniplane/api"
)

// Namespaces is how many namespaces the benchmark pods are spread over: pod
// i lives in "ns-<i mod Namespaces>".
const Namespaces = 100

// Both sides get the same pod i: its name, namespace, one label and one
// container.
func podName(i int) string      { return "pod-" + strconv.Itoa(i) }
func podNamespace(i int) string { return "ns-" + strconv.Itoa(i%Namespaces) }
func podLabels(i int) map[string]string {
	return map[string]string{"app": "a" + strconv.Itoa(i%10)}
}

const (
	containerName  = "app"
	containerImage = "nginx:1.27"
)

// NamespaceName returns the name of namespace n of the Namespaces the pods
// use.
func NamespaceName(n int) string { return podNamespace(n) }

// MiniplanePod returns pod i as a client sends it to miniplane's API server:
// name, namespace, labels and one container, nothing the server fills in.
func MiniplanePod(i int) *api.Pod {
	return &api.Pod{
		Metadata: api.ObjectMeta{Namespace: podNamespace(i), Name: podName(i), Labels: podLabels(i)},
		Spec:     api.PodSpec{Containers: []api.Container{{Name: containerName, Image: containerImage}}},
	}
}

// ClientGoPod returns the same pod as MiniplanePod(i), as client-go's type.
func ClientGoPod(i int) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: podNamespace(i), Name: podName(i), Labels: podLabels(i)},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: containerName, Image: containerImage}}},
	}
}

// ClientGoStoredPod returns ClientGoPod(i) as an API server stores it at
// resourceVersion rv: with a uid, a creation timestamp, generation 1 and the
// defaults miniplane's server sets (restart and DNS policy, grace period,
// scheduler, image pull policy, phase Pending). It is what client-go's informer is fed where
// miniplane's informer reads the stored objects from its server.
func ClientGoStoredPod(i int, rv int64, created time.Time) *corev1.Pod {
	p := ClientGoPod(i)
	p.UID = types.UID(fmt.Sprintf("00000000-0000-4000-8000-%012d", i))
	p.ResourceVersion = strconv.FormatInt(rv, 10)
	p.Generation = 1
	p.CreationTimestamp = metav1.NewTime(created)
	grace := int64(30)
	p.Spec.RestartPolicy = corev1.RestartPolicyAlways
	p.Spec.DNSPolicy = corev1.DNSClusterFirst
	p.Spec.TerminationGracePeriodSeconds = &grace
	p.Spec.SchedulerName = corev1.DefaultSchedulerName
	p.Spec.Containers[0].ImagePullPolicy = corev1.PullIfNotPresent
	p.Status.Phase = corev1.PodPending
	return p
}
