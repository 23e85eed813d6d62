package api

// IsPodReady reports whether the pod's Ready condition is True: the pod can serve traffic.
// Kubernetes: k8s.io/kubernetes/pkg/api/v1/pod.IsPodReady.
func IsPodReady(pod *Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == PodReady {
			return c.Status == ConditionTrue
		}
	}
	return false
}

// IsPodActive reports whether the pod still counts towards its controller's replicas: it has
// not finished (phase Succeeded or Failed) and is not being deleted. Kubernetes:
// k8s.io/kubernetes/pkg/controller.IsPodActive.
func IsPodActive(pod *Pod) bool {
	return pod.Status.Phase != PodSucceeded &&
		pod.Status.Phase != PodFailed &&
		pod.Metadata.DeletionTimestamp == nil
}
