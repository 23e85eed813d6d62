package daemon

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/controllers/replication"
	"github.com/miniplane/miniplane/controllers/scheduler/fit"
)

// The taints every daemon pod tolerates, beyond the two fit names. The
// node lifecycle controller sets them from the node's conditions
// (TaintNodesByCondition). Kubernetes: v1.TaintNode*.
const (
	taintNodeDiskPressure       = "node.kubernetes.io/disk-pressure"
	taintNodeMemoryPressure     = "node.kubernetes.io/memory-pressure"
	taintNodePIDPressure        = "node.kubernetes.io/pid-pressure"
	taintNodeNetworkUnavailable = "node.kubernetes.io/network-unavailable"
)

// objectNameField is the one field a node selector's matchFields may name.
const objectNameField = "metadata.name"

// daemonTolerations are the tolerations AddDaemonTolerations gives every
// daemon pod, in upstream's order: a daemon pod is not evicted from a node
// that goes not-ready or unreachable, and is scheduled despite the
// condition taints and a cordon. Kubernetes: AddOrUpdateDaemonPodTolerations
// (pkg/controller/daemon/util). The network-unavailable toleration upstream
// adds for hostNetwork pods is left out: miniplane's pods have no
// hostNetwork.
var daemonTolerations = []api.Toleration{
	{Key: fit.TaintNodeNotReady, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute},
	{Key: fit.TaintNodeUnreachable, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute},
	{Key: taintNodeDiskPressure, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule},
	{Key: taintNodeMemoryPressure, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule},
	{Key: taintNodePIDPressure, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule},
	{Key: fit.TaintNodeUnschedulable, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule},
}

// AddDaemonTolerations adds the daemon tolerations to spec, replacing a
// toleration with the same key, operator, value and effect. spec must be
// the caller's own copy. Kubernetes: AddOrUpdateDaemonPodTolerations and
// AddOrUpdateTolerationInPodSpec.
func AddDaemonTolerations(spec *api.PodSpec) {
	for _, want := range daemonTolerations {
		i := slices.IndexFunc(spec.Tolerations, func(t api.Toleration) bool {
			return t.Key == want.Key && t.Operator == want.Operator && t.Value == want.Value && t.Effect == want.Effect
		})
		if i < 0 {
			spec.Tolerations = append(spec.Tolerations, want)
		} else {
			spec.Tolerations[i] = want
		}
	}
}

// ShouldRun says whether ds's pod belongs on node: shouldRun when a node
// without one should get one; shouldContinueRunning when a pod already
// there may stay. The node must match the template's nodeName, nodeSelector
// and required node affinity; an untolerated NoSchedule or NoExecute taint
// stops new pods, and only an untolerated NoExecute one evicts a pod
// already there. The daemon tolerations count. Kubernetes:
// NodeShouldRunDaemonPod and predicates.
func ShouldRun(node *api.Node, ds *api.DaemonSet) (shouldRun, shouldContinueRunning bool) {
	spec := &ds.Spec.Template.Spec
	if spec.NodeName != "" && spec.NodeName != node.Metadata.Name {
		return false, false
	}
	if !fit.MatchesNodeAffinity(spec, node.Metadata.Name, node.Metadata.Labels) {
		return false, false
	}
	tolerations := podTolerations(spec)
	for i := range node.Spec.Taints {
		t := &node.Spec.Taints[i]
		if t.Effect != api.TaintEffectNoSchedule && t.Effect != api.TaintEffectNoExecute {
			continue
		}
		if !fit.Tolerates(tolerations, t) {
			if t.Effect == api.TaintEffectNoExecute {
				return false, false
			}
			return false, !untoleratedNoExecute(node.Spec.Taints, tolerations)
		}
	}
	return true, true
}

// podTolerations are the tolerations a pod of the template would carry.
func podTolerations(spec *api.PodSpec) []api.Toleration {
	s := api.PodSpec{Tolerations: slices.Clone(spec.Tolerations)}
	AddDaemonTolerations(&s)
	return s.Tolerations
}

func untoleratedNoExecute(taints []api.Taint, tolerations []api.Toleration) bool {
	for i := range taints {
		if taints[i].Effect == api.TaintEffectNoExecute && !fit.Tolerates(tolerations, &taints[i]) {
			return true
		}
	}
	return false
}

// PinToNode returns affinity with its required node affinity replaced by
// one term that matches node by metadata.name, so that the scheduler
// places the pod there; affinity is not changed. The daemon set
// controller creates pods unbound, as upstream's does. Kubernetes:
// ReplaceDaemonSetPodNodeNameNodeAffinity.
func PinToNode(affinity *api.Affinity, node string) *api.Affinity {
	out := &api.Affinity{}
	if affinity != nil {
		out = affinity.DeepCopy()
	}
	if out.NodeAffinity == nil {
		out.NodeAffinity = &api.NodeAffinity{}
	}
	out.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution = &api.NodeSelector{
		NodeSelectorTerms: []api.NodeSelectorTerm{{MatchFields: []api.NodeSelectorRequirement{{
			Key: objectNameField, Operator: "In", Values: []string{node},
		}}}},
	}
	return out
}

// TargetNode is the node a daemon pod is for: the node it is bound to, or
// else the one its required node affinity pins it to by metadata.name;
// false when it names none. Kubernetes: GetTargetNodeName.
func TargetNode(pod *api.Pod) (string, bool) {
	if pod.Spec.NodeName != "" {
		return pod.Spec.NodeName, true
	}
	a := pod.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return "", false
	}
	for _, term := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		for _, r := range term.MatchFields {
			if r.Key == objectNameField && r.Operator == "In" {
				if len(r.Values) != 1 {
					return "", false
				}
				return r.Values[0], true
			}
		}
	}
	return "", false
}

// IsPodUpdated reports whether pod runs ds's current template: its
// controller-revision-hash label is hash, or its pod-template-generation
// label is generation (nil for none). Kubernetes: IsPodUpdated.
func IsPodUpdated(pod *api.Pod, hash string, generation *int64) bool {
	if generation != nil && pod.Metadata.Labels[api.DaemonSetTemplateGenerationLabel] == strconv.FormatInt(*generation, 10) {
		return true
	}
	return hash != "" && pod.Metadata.Labels[api.DaemonSetUniqueLabelKey] == hash
}

// TemplateGeneration is the template generation the API server keeps in
// ds's annotation, nil when there is none or it does not parse.
// Kubernetes: GetTemplateGeneration.
func TemplateGeneration(ds *api.DaemonSet) *int64 {
	v, ok := ds.Metadata.Annotations[api.DaemonSetTemplateGenerationAnnotation]
	if !ok {
		return nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return nil
	}
	return &n
}

// State is what a decision is made from: the daemon set, every node, the
// pods the daemon set controls grouped by the node they are for, the
// current revision's hash and the time. Decisions do not change it.
type State struct {
	DS *api.DaemonSet
	// Nodes are all the nodes, in name order.
	Nodes []*api.Node
	// PodsByNode are the daemon set's pods by TargetNode, without the
	// terminal pods already being deleted.
	PodsByNode map[string][]*api.Pod
	// Hash is the current revision's controller-revision-hash.
	Hash string
	// Now is the time pods' availability is judged at.
	Now time.Time
	// BackedOff are the nodes whose failed pod the controller deleted too
	// recently to delete another (upstream's failedPodsBackoff).
	BackedOff map[string]bool
}

// Event is an event the controller records on the daemon set.
type Event struct {
	Warning         bool
	Reason, Message string
}

// Decision is what a sync does: create a pod on each node in Create,
// delete each pod in Delete, record Events, and note FailedNodes (whose
// failed pod it deletes) for back-off.
type Decision struct {
	Create      []string
	Delete      []*api.Pod
	Events      []Event
	FailedNodes []string
}

// The reasons of the events the controller records. Kubernetes: the
// daemon set controller's and the pod control's reasons.
const (
	reasonFailedDaemonPod    = "FailedDaemonPod"
	reasonSucceededDaemonPod = "SucceededDaemonPod"
	reasonSelectingAll       = "SelectingAll"
)

// Decide is a sync's decision: Manage's, or when that changes nothing,
// the rolling update's (for a RollingUpdate daemon set), as upstream's
// updateDaemonSet runs rollingUpdate only once manage's writes are seen.
func Decide(s *State) Decision {
	d := Manage(s)
	if len(d.Create) > 0 || len(d.Delete) > 0 {
		return d
	}
	if s.DS.Spec.UpdateStrategy.Type == api.RollingUpdateDaemonSetStrategyType {
		ru := RollingUpdate(s)
		ru.Events = append(d.Events, ru.Events...)
		ru.FailedNodes = d.FailedNodes
		return ru
	}
	return d
}

// Manage makes every node run what it should: a pod where one belongs and
// none runs, none where none belongs, no failed or succeeded pods, and at
// most one pod per node (two while surging), and deletes unscheduled pods
// for nodes that no longer exist. Kubernetes: manage and
// podsShouldBeOnNode.
func Manage(s *State) Decision {
	var d Decision
	known := map[string]bool{}
	for _, node := range s.Nodes {
		known[node.Metadata.Name] = true
		podsShouldBeOnNode(s, node, &d)
	}
	// Pods for nodes that are gone: the unscheduled ones are deleted
	// here; the bound ones are the pod garbage collector's (podgc), as
	// upstream (getUnscheduledPodsWithoutNode).
	for _, name := range sortedKeys(s.PodsByNode) {
		if known[name] {
			continue
		}
		for _, p := range s.PodsByNode[name] {
			if p.Metadata.DeletionTimestamp == nil && p.Spec.NodeName == "" {
				d.Delete = append(d.Delete, p)
			}
		}
	}
	return d
}

func podsShouldBeOnNode(s *State, node *api.Node, d *Decision) {
	ds, name := s.DS, node.Metadata.Name
	shouldRun, shouldContinueRunning := ShouldRun(node, ds)
	pods, exists := s.PodsByNode[name]
	switch {
	case shouldRun && !exists:
		d.Create = append(d.Create, name)
	case shouldContinueRunning:
		var running []*api.Pod
		for _, p := range pods {
			switch {
			case p.Metadata.DeletionTimestamp != nil:
			case p.Status.Phase == api.PodFailed:
				if s.BackedOff[name] {
					continue
				}
				d.FailedNodes = append(d.FailedNodes, name)
				d.Events = append(d.Events, Event{Warning: true, Reason: reasonFailedDaemonPod,
					Message: fmt.Sprintf("Found failed daemon pod %s/%s on node %s, will try to kill it", p.Metadata.Namespace, p.Metadata.Name, name)})
				d.Delete = append(d.Delete, p)
			case p.Status.Phase == api.PodSucceeded:
				d.Events = append(d.Events, Event{Reason: reasonSucceededDaemonPod,
					Message: fmt.Sprintf("Found succeeded daemon pod %s/%s on node %s, will try to delete it", p.Metadata.Namespace, p.Metadata.Name, name)})
				d.Delete = append(d.Delete, p)
			default:
				running = append(running, p)
			}
		}
		sortPods(running)
		if !allowsSurge(ds) {
			// Keep the oldest; more than one is an accident.
			if len(running) > 1 {
				d.Delete = append(d.Delete, running[1:]...)
			}
			return
		}
		if len(running) <= 1 {
			if len(running) == 0 && shouldRun {
				d.Create = append(d.Create, name)
			}
			return
		}
		// Surging: keep the oldest new pod and the oldest old pod, and the
		// old one only while it is ready and the new one is not available.
		var oldestNew, oldestOld *api.Pod
		gen := TemplateGeneration(ds)
		for _, p := range running {
			switch {
			case IsPodUpdated(p, s.Hash, gen) && oldestNew == nil:
				oldestNew = p
			case !IsPodUpdated(p, s.Hash, gen) && oldestOld == nil:
				oldestOld = p
			default:
				d.Delete = append(d.Delete, p)
			}
		}
		if oldestNew != nil && oldestOld != nil &&
			(!api.IsPodReady(oldestOld) || replication.IsPodAvailable(oldestNew, ds.Spec.MinReadySeconds, s.Now)) {
			d.Delete = append(d.Delete, oldestOld)
		}
	case exists:
		for _, p := range pods {
			if p.Metadata.DeletionTimestamp == nil {
				d.Delete = append(d.Delete, p)
			}
		}
	}
}

// sortPods orders pods as upstream's podByCreationTimestampAndPhase: bound
// pods first, then by creation time, then by name.
func sortPods(pods []*api.Pod) {
	slices.SortStableFunc(pods, func(a, b *api.Pod) int {
		if ab, bb := a.Spec.NodeName != "", b.Spec.NodeName != ""; ab != bb {
			if ab {
				return -1
			}
			return 1
		}
		if c := a.Metadata.CreationTimestamp.Compare(b.Metadata.CreationTimestamp.Time); c != 0 {
			return c
		}
		return strings.Compare(a.Metadata.Name, b.Metadata.Name)
	})
}

func allowsSurge(ds *api.DaemonSet) bool {
	n, _ := surgeCount(ds, 1)
	return n != 0
}

// surgeCount and unavailableCount are the rolling update's bounds for
// desired nodes, percentages rounded up; 0 for OnDelete. Kubernetes:
// SurgeCount and UnavailableCount.
func surgeCount(ds *api.DaemonSet, desired int) (int, error) {
	ru := ds.Spec.UpdateStrategy.RollingUpdate
	if ds.Spec.UpdateStrategy.Type != api.RollingUpdateDaemonSetStrategyType || ru == nil || ru.MaxSurge == nil {
		return 0, nil
	}
	return scaled(*ru.MaxSurge, desired)
}

func unavailableCount(ds *api.DaemonSet, desired int) (int, error) {
	ru := ds.Spec.UpdateStrategy.RollingUpdate
	if ds.Spec.UpdateStrategy.Type != api.RollingUpdateDaemonSetStrategyType || ru == nil || ru.MaxUnavailable == nil {
		return 0, nil
	}
	return scaled(*ru.MaxUnavailable, desired)
}

// scaled is an integer, or a percentage of total rounded up. Kubernetes:
// intstr.GetScaledValueFromIntOrPercent with roundUp.
func scaled(v api.IntOrString, total int) (int, error) {
	if v.Type == api.Int {
		return int(v.IntVal), nil
	}
	digits, ok := strings.CutSuffix(v.StrVal, "%")
	n, err := strconv.Atoi(digits)
	if !ok || err != nil {
		return 0, fmt.Errorf("invalid value for IntOrString: invalid value %q", v.StrVal)
	}
	return int(math.Ceil(float64(n) * float64(total) / 100)), nil
}

// RollingUpdate replaces old pods with new ones within the strategy's
// bounds. Without surge it deletes old pods, at most maxUnavailable
// unavailable at once, and Manage creates their successors on the next
// sync; with surge it creates new pods beside old ones, at most maxSurge
// at once, and deletes an old pod once its successor is available.
// Kubernetes: rollingUpdate, findUpdatedPodsOnNode and
// updatedDesiredNodeCounts.
func RollingUpdate(s *State) Decision {
	ds := s.DS
	byNode := map[string][]*api.Pod{}
	for name, pods := range s.PodsByNode {
		byNode[name] = pods
	}
	nodes := map[string]*api.Node{}
	desired := 0
	for _, node := range s.Nodes {
		nodes[node.Metadata.Name] = node
		if shouldRun, _ := ShouldRun(node, ds); shouldRun {
			desired++
			if _, ok := byNode[node.Metadata.Name]; !ok {
				byNode[node.Metadata.Name] = nil
			}
		}
	}
	maxUnavailable, _ := unavailableCount(ds, desired)
	maxSurge, _ := surgeCount(ds, desired)
	if desired > 0 && maxUnavailable == 0 && maxSurge == 0 {
		maxUnavailable = 1 // an impossible configuration: accept unavailability
	}
	available := func(p *api.Pod) bool { return replication.IsPodAvailable(p, ds.Spec.MinReadySeconds, s.Now) }
	names := sortedKeys(byNode)
	gen := TemplateGeneration(ds)
	var d Decision

	if maxSurge == 0 {
		unavailable := 0
		var replace, candidates []*api.Pod
		for _, name := range names {
			newPod, oldPod, ok := updatedPodsOnNode(byNode[name], s.Hash, gen)
			switch {
			case !ok, oldPod == nil && newPod == nil, oldPod != nil && newPod != nil:
				unavailable++ // Manage will sort the node out
			case newPod != nil:
				if !available(newPod) {
					unavailable++
				}
			case !available(oldPod):
				replace = append(replace, oldPod)
				unavailable++
			case unavailable < maxUnavailable:
				candidates = append(candidates, oldPod)
			}
		}
		remaining := min(max(maxUnavailable-unavailable, 0), len(candidates))
		d.Delete = append(replace, candidates[:remaining]...)
		return d
	}

	surge, numAvailable := 0, 0
	var allowedNew, candidateNew []string
	var shouldNotRun []*api.Pod
	for _, name := range names {
		newPod, oldPod, ok := updatedPodsOnNode(byNode[name], s.Hash, gen)
		if !ok {
			surge++
			continue
		}
		if (oldPod != nil && available(oldPod)) || (oldPod == nil && newPod != nil && available(newPod)) {
			numAvailable++
		}
		switch {
		case oldPod == nil:
		case newPod == nil:
			shouldRun := false
			if node := nodes[name]; node != nil {
				shouldRun, _ = ShouldRun(node, ds)
			}
			switch {
			case !available(oldPod) && !shouldRun:
				d.Delete = append(d.Delete, oldPod)
			case !available(oldPod):
				allowedNew = append(allowedNew, name)
			case !shouldRun:
				shouldNotRun = append(shouldNotRun, oldPod)
			case surge < maxSurge:
				candidateNew = append(candidateNew, name)
			}
		case !available(newPod):
			surge++
		default:
			d.Delete = append(d.Delete, oldPod)
		}
	}
	// With surge the owner expects full availability: a pod on a node that
	// no longer should run one goes only once enough others are available.
	if deletable := min(numAvailable-desired, len(shouldNotRun)); deletable > 0 {
		d.Delete = append(d.Delete, shouldNotRun[:deletable]...)
	}
	remaining := min(max(maxSurge-surge, 0), len(candidateNew))
	d.Create = append(allowedNew, candidateNew[:remaining]...)
	return d
}

// updatedPodsOnNode returns the node's one new and one old pod, ignoring
// pods being deleted, and false when there are more of either. Kubernetes:
// findUpdatedPodsOnNode.
func updatedPodsOnNode(pods []*api.Pod, hash string, gen *int64) (newPod, oldPod *api.Pod, ok bool) {
	for _, p := range pods {
		if p.Metadata.DeletionTimestamp != nil {
			continue
		}
		if IsPodUpdated(p, hash, gen) {
			if newPod != nil {
				return nil, nil, false
			}
			newPod = p
		} else {
			if oldPod != nil {
				return nil, nil, false
			}
			oldPod = p
		}
	}
	return newPod, oldPod, true
}

// Status is the daemon set's status counted from s; ObservedGeneration and
// the fields the counts do not cover are ds's. Kubernetes:
// updateDaemonSetStatus.
func Status(s *State) api.DaemonSetStatus {
	ds := s.DS
	st := ds.Status
	var desired, current, misscheduled, ready, updated, available int32
	gen := TemplateGeneration(ds)
	for _, node := range s.Nodes {
		shouldRun, _ := ShouldRun(node, ds)
		pods := s.PodsByNode[node.Metadata.Name]
		if !shouldRun {
			if len(pods) > 0 {
				misscheduled++
			}
			continue
		}
		desired++
		if len(pods) == 0 {
			continue
		}
		current++
		pods = slices.Clone(pods)
		sortPods(pods)
		p := pods[0]
		if api.IsPodReady(p) {
			ready++
			if replication.IsPodAvailable(p, ds.Spec.MinReadySeconds, s.Now) {
				available++
			}
		}
		if IsPodUpdated(p, s.Hash, gen) {
			updated++
		}
	}
	st.DesiredNumberScheduled, st.CurrentNumberScheduled, st.NumberMisscheduled = desired, current, misscheduled
	st.NumberReady, st.UpdatedNumberScheduled, st.NumberAvailable = ready, updated, available
	st.NumberUnavailable = desired - available
	return st
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
