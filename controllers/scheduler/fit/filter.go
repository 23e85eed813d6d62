package fit

import (
	"strconv"

	"github.com/miniplane/miniplane/api"
)

// Taint keys the control plane sets, and which the filters look at.
const (
	// TaintNodeUnschedulable is what a cordoned node is tainted with; a pod
	// that tolerates it may go to a cordoned node (NodeUnschedulable).
	TaintNodeUnschedulable = "node.kubernetes.io/unschedulable"
	// TaintNodeNotReady is the node lifecycle controller's taint of a node
	// whose Ready condition is False.
	TaintNodeNotReady = "node.kubernetes.io/not-ready"
	// TaintNodeUnreachable is its taint of a node whose Ready condition is
	// Unknown: its kubelet stopped posting status.
	TaintNodeUnreachable = "node.kubernetes.io/unreachable"
)

// The filters' reasons, worded as kube-scheduler v1.32's plugins word them.
const (
	ReasonUnschedulable = "node(s) were unschedulable"                                 // NodeUnschedulable
	ReasonNodeAffinity  = "node(s) didn't match Pod's node affinity/selector"          // NodeAffinity
	ReasonTooManyPods   = "Too many pods"                                              // NodeResourcesFit
	ReasonNodePorts     = "node(s) didn't have free ports for the requested pod ports" // NodePorts
)

// Pod is a pod as the filters see it: its spec and its requests, worked
// out once (NewPod) for all the nodes it is tried on.
type Pod struct {
	Spec      *api.PodSpec
	Requests  *Resource  // nil: it requests nothing
	HostPorts []HostPort // PodHostPorts; nil: none
}

// NewPod returns the filters' view of a pod spec.
func NewPod(spec *api.PodSpec) *Pod {
	return &Pod{Spec: spec, Requests: PodRequests(spec), HostPorts: PodHostPorts(spec)}
}

// HostPort is a port of the node a container asks for. Every host port
// is on all the node's addresses (hostIP 0.0.0.0, which miniplane's
// ContainerPort does not let a pod narrow), so two of the same protocol
// and number conflict. Kubernetes: framework.ProtocolPort.
type HostPort struct {
	Protocol api.Protocol
	Port     int32
}

// PodHostPorts returns the host ports the pod's containers ask for, nil
// if none; a port without a protocol is TCP's. Kubernetes: NodePorts'
// getContainerPorts.
func PodHostPorts(spec *api.PodSpec) []HostPort {
	var out []HostPort
	for i := range spec.Containers {
		for _, p := range spec.Containers[i].Ports {
			if p.HostPort <= 0 {
				continue
			}
			proto := p.Protocol
			if proto == "" {
				proto = api.ProtocolTCP
			}
			out = append(out, HostPort{Protocol: proto, Port: p.HostPort})
		}
	}
	return out
}

// portsConflict reports whether any of want is in use. Kubernetes:
// NodePorts' fitsPorts.
func portsConflict(want []HostPort, used map[HostPort]int) bool {
	for _, p := range want {
		if used[p] > 0 {
			return true
		}
	}
	return false
}

// Node is a node as the filters see it: what it is, and what its pods
// already hold.
type Node struct {
	Name          string
	Labels        map[string]string
	Unschedulable bool        // spec.unschedulable: cordoned
	Taints        []api.Taint // its spec's, and the node lifecycle's (not-ready, unreachable)
	Allocatable   Resource    // what its pods may request in all
	AllowedPods   int         // status.allocatable.pods
	// Requested is what its unfinished pods request, Pods how many they
	// are, and UsedPorts how many of them hold each host port.
	Requested Resource
	Pods      int
	UsedPorts map[HostPort]int
}

// Status is one node's verdict: nil Reasons means the pod fits.
// Unresolvable says no preemption could make it fit (the framework's
// UnschedulableAndUnresolvable).
type Status struct {
	Reasons      []string
	Unresolvable bool
}

// Fits reports whether the verdict is that the pod fits.
func (s Status) Fits() bool { return len(s.Reasons) == 0 }

// Filter runs the filters on pod and node in kube-scheduler's order and
// returns the first failure, or a Status that Fits.
func Filter(pod *Pod, node *Node) Status {
	if node.Unschedulable && !Tolerates(pod.Spec.Tolerations, &api.Taint{Key: TaintNodeUnschedulable, Effect: api.TaintEffectNoSchedule}) {
		return Status{Reasons: []string{ReasonUnschedulable}, Unresolvable: true}
	}
	if t := untolerated(node.Taints, pod.Spec.Tolerations); t != nil {
		return Status{Reasons: []string{"node(s) had untolerated taint {" + t.Key + ": " + t.Value + "}"}, Unresolvable: true}
	}
	if !MatchesNodeAffinity(pod.Spec, node.Name, node.Labels) {
		return Status{Reasons: []string{ReasonNodeAffinity}, Unresolvable: true}
	}
	if portsConflict(pod.HostPorts, node.UsedPorts) {
		return Status{Reasons: []string{ReasonNodePorts}}
	}
	if reasons := insufficient(pod.Requests, node); len(reasons) > 0 {
		return Status{Reasons: reasons}
	}
	return Status{}
}

// toleratesTaint reports whether t tolerates taint. Kubernetes:
// corev1.Toleration.ToleratesTaint.
func toleratesTaint(t *api.Toleration, taint *api.Taint) bool {
	if t.Effect != "" && t.Effect != taint.Effect {
		return false
	}
	if t.Key != "" && t.Key != taint.Key {
		return false
	}
	switch t.Operator {
	case "", api.TolerationOpEqual:
		return t.Value == taint.Value
	case api.TolerationOpExists:
		return true
	}
	return false
}

// Tolerates reports whether any of tolerations tolerates taint.
func Tolerates(tolerations []api.Toleration, taint *api.Taint) bool {
	for i := range tolerations {
		if toleratesTaint(&tolerations[i], taint) {
			return true
		}
	}
	return false
}

// untolerated returns the first NoSchedule or NoExecute taint that no
// toleration tolerates, or nil. Kubernetes: FindMatchingUntoleratedTaint
// with DoNotScheduleTaintsFilterFunc.
func untolerated(taints []api.Taint, tolerations []api.Toleration) *api.Taint {
	for i := range taints {
		t := &taints[i]
		if t.Effect != api.TaintEffectNoSchedule && t.Effect != api.TaintEffectNoExecute {
			continue
		}
		if !Tolerates(tolerations, t) {
			return t
		}
	}
	return nil
}

// MatchesNodeAffinity reports whether a node (its name and labels)
// satisfies the pod's nodeSelector and its required node affinity: every
// nodeSelector label, and at least one term of the affinity, a term
// matching when all its expressions and fields do (an empty term matches
// no node). Kubernetes: nodeaffinity.GetRequiredNodeAffinity(pod).Match.
func MatchesNodeAffinity(spec *api.PodSpec, name string, labels map[string]string) bool {
	for k, v := range spec.NodeSelector {
		if got, ok := labels[k]; !ok || got != v {
			return false
		}
	}
	if spec.Affinity == nil || spec.Affinity.NodeAffinity == nil || spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return true
	}
	for _, term := range spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		if termMatches(&term, name, labels) {
			return true
		}
	}
	return false
}

func termMatches(term *api.NodeSelectorTerm, name string, labels map[string]string) bool {
	if len(term.MatchExpressions) == 0 && len(term.MatchFields) == 0 {
		return false
	}
	for _, r := range term.MatchExpressions {
		v, has := labels[r.Key]
		if !requirementMatches(r, v, has) {
			return false
		}
	}
	for _, r := range term.MatchFields {
		if r.Key != "metadata.name" || !requirementMatches(r, name, true) {
			return false
		}
	}
	return true
}

// requirementMatches reports whether a label (its value v, if has) meets
// r. Kubernetes: labels.Requirement.Matches; Gt and Lt compare integers
// and never match a label that is missing or not one.
func requirementMatches(r api.NodeSelectorRequirement, v string, has bool) bool {
	switch r.Operator {
	case "In":
		return has && contains(r.Values, v)
	case "NotIn":
		return !has || !contains(r.Values, v)
	case "Exists":
		return has
	case "DoesNotExist":
		return !has
	case "Gt", "Lt":
		if !has || len(r.Values) != 1 {
			return false
		}
		got, err1 := strconv.ParseInt(v, 10, 64)
		want, err2 := strconv.ParseInt(r.Values[0], 10, 64)
		if err1 != nil || err2 != nil {
			return false
		}
		if r.Operator == "Gt" {
			return got > want
		}
		return got < want
	}
	return false
}

func contains(values []string, v string) bool {
	for _, s := range values {
		if s == v {
			return true
		}
	}
	return false
}

// insufficient returns what the node lacks for the pod's requests, in
// NodeResourcesFit's words: the pod count first, then cpu, memory,
// ephemeral storage and the extended resources by name. Kubernetes:
// fitsRequest.
func insufficient(req *Resource, n *Node) []string {
	var reasons []string
	if n.Pods+1 > n.AllowedPods {
		reasons = append(reasons, ReasonTooManyPods)
	}
	if req.IsZero() {
		return reasons
	}
	free := n.Allocatable
	if req.MilliCPU > 0 && req.MilliCPU > free.MilliCPU-n.Requested.MilliCPU {
		reasons = append(reasons, "Insufficient "+api.ResourceCPU)
	}
	if req.Memory > 0 && req.Memory > free.Memory-n.Requested.Memory {
		reasons = append(reasons, "Insufficient "+api.ResourceMemory)
	}
	if req.EphemeralStorage > 0 && req.EphemeralStorage > free.EphemeralStorage-n.Requested.EphemeralStorage {
		reasons = append(reasons, "Insufficient "+ResourceEphemeralStorage)
	}
	for _, name := range scalarNames(req) {
		if q := req.Scalar[name]; q > 0 && q > free.Scalar[name]-n.Requested.Scalar[name] {
			reasons = append(reasons, "Insufficient "+name)
		}
	}
	return reasons
}
