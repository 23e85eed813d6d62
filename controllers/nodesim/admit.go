package nodesim

import (
	"context"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client/record"
	"github.com/miniplane/miniplane/controllers/scheduler/fit"
	"github.com/miniplane/miniplane/informer"
)

// The kubelet's admission of a pod bound to its node, as far as host
// ports go: a pod that asks for a host port another admitted pod there
// holds is rejected — Failed, reason the predicate's name — as the
// kubelet's predicate admit handler (lifecycle/predicate.go,
// generalFilter) rejects it. A pod bound by its creator (spec.nodeName)
// bypasses the scheduler's NodePorts filter and meets this one.
const (
	reasonNodePorts  = "NodePorts"
	messageNodePorts = "Predicate NodePorts failed: " + fit.ReasonNodePorts
)

// portsRejected reports whether the kubelet turns pod away at admission:
// it is a pending pod not yet accepted that asks for a host port held by
// another pod on its node that the kubelet accepted and that has not
// finished.
func (c *Controller) portsRejected(pod *api.Pod) bool {
	if pod.Status.Phase != api.PodPending && pod.Status.Phase != "" || pod.Status.HostIP != "" || pod.Metadata.DeletionTimestamp != nil {
		return false
	}
	want := fit.PodHostPorts(&pod.Spec)
	if want == nil {
		return false
	}
	keys, _ := c.podInf.Indexer().IndexKeys(informer.NodeNameIndex, pod.Spec.NodeName)
	for _, k := range keys {
		obj, ok := c.podInf.Indexer().Get(k)
		other, _ := obj.(*api.Pod)
		if !ok || other == nil || other.Metadata.UID == pod.Metadata.UID || other.Status.HostIP == "" || finished(other) {
			continue
		}
		for _, held := range fit.PodHostPorts(&other.Spec) {
			for _, p := range want {
				if p == held {
					return true
				}
			}
		}
	}
	return false
}

// rejectPorts writes the rejection of a pod portsRejected turned away, and
// the kubelet's event.
func (c *Controller) rejectPorts(ctx context.Context, pod *api.Pod, hostIP string, krec *record.EventRecorder) error {
	c.eventMessage(ctx, krec, pod, api.EventTypeWarning, reasonNodePorts, messageNodePorts)
	np := pod.DeepCopy()
	np.Status.Phase, np.Status.Reason, np.Status.Message = api.PodFailed, reasonNodePorts, messageNodePorts
	np.Status.HostIP = hostIP
	if hostIP != "" {
		np.Status.HostIPs = []api.HostIP{{IP: hostIP}}
	}
	_, err := c.client.UpdateStatus(ctx, np)
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}
