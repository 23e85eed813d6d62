package api

// IsPodReady reports whether the pod's Ready condition is True: the pod can serve traffic.
// Kubernetes: k8s.io/kubernetes/pkg/api/v1/pod.IsPodReady.
func IsPodReady(pod *Pod) bool {
	conds := pod.Status.Conditions
	for i := range conds { // by index: controllers call this per pod per sync, and a condition is 112 bytes to copy
		if conds[i].Type == PodReady {
			return conds[i].Status == ConditionTrue
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
