package nodesim

import (
	"context"
	"fmt"
	"strings"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client/record"
	"github.com/miniplane/miniplane/controllers/nodesim/container"
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

// reject writes the rejection of a pod the kubelet turned away at
// admission (Failed, with reason and message), and the kubelet's event.
// Kubernetes: kubelet.rejectPod.
func (c *Controller) reject(ctx context.Context, pod *api.Pod, hostIP string, krec *record.EventRecorder, reason, message string) error {
	c.eventMessage(ctx, krec, pod, api.EventTypeWarning, reason, message)
	np := pod.DeepCopy()
	np.Status.Phase, np.Status.Reason, np.Status.Message = api.PodFailed, reason, message
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

// reasonSysctlForbidden is the reason of a pod the kubelet refuses for a
// sysctl its node does not allow. Kubernetes: sysctl.ForbiddenReason.
const reasonSysctlForbidden = "SysctlForbidden"

// sysctlForbidden returns, for a pending pod not yet accepted that sets a
// sysctl neither safe (container.SafeSysctls) nor allowed by the node
// (Config.AllowedUnsafeSysctls: names, or prefixes ending in "*"), the
// message the kubelet rejects it with; "" if it admits it. Kubernetes: the
// kubelet's sysctl admit handler (pkg/kubelet/sysctl, patternAllowlist).
// Its refusal of a namespaced sysctl under hostNetwork or hostIPC has
// nothing to refuse: miniplane's pods do not share the host's namespaces.
func (c *Controller) sysctlForbidden(pod *api.Pod) string {
	sc := pod.Spec.SecurityContext
	if sc == nil || len(sc.Sysctls) == 0 || pod.Status.Phase != api.PodPending && pod.Status.Phase != "" ||
		pod.Status.HostIP != "" || pod.Metadata.DeletionTimestamp != nil {
		return ""
	}
	for _, s := range sc.Sysctls {
		if !sysctlAllowed(container.NormalizeSysctl(s.Name), c.cfg.AllowedUnsafeSysctls) {
			return fmt.Sprintf("Pod was rejected: forbidden sysctl: %q not allowlisted", container.NormalizeSysctl(s.Name))
		}
	}
	return ""
}

// sysctlAllowed reports whether the kubelet allows a pod to set the sysctl
// name (with dots): a safe one, or one unsafe that matches a pattern of
// the node's.
func sysctlAllowed(name string, unsafe []string) bool {
	for _, s := range container.SafeSysctls {
		if s.Name == name {
			return true
		}
	}
	for _, p := range unsafe {
		p = container.NormalizeSysctl(p)
		if prefix, ok := strings.CutSuffix(p, "*"); ok && strings.HasPrefix(name, prefix) || p == name {
			return true
		}
	}
	return false
}
