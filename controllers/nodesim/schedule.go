package nodesim

import (
	"fmt"
	"slices"
	"strings"
)

// selectorFits reports whether a node's labels satisfy a pod's nodeSelector.
func selectorFits(nodeSelector, labels map[string]string) bool {
	for k, v := range nodeSelector {
		if got, ok := labels[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// nodeSlot is what the scheduler knows of one node when it places a pod.
type nodeSlot struct {
	Name     string
	Pods     int  // pods bound to it (or assumed bound) that have not finished
	Capacity int  // the most pods it takes: status.allocatable["pods"]
	Ready    bool // Ready condition True, not taken down
	Cordoned bool // spec.unschedulable: kubectl cordon (or drain) took it out of scheduling
	Mismatch bool // its labels do not satisfy the pod's nodeSelector
}

// chooseNode picks the node a pending pod goes to: among the ready,
// uncordoned nodes with room, the one with the fewest pods, ties broken by
// name, so pods spread evenly and the choice does not depend on input
// order. ok is false when no node fits; why then says, in the scheduler's
// words, why not, giving each node the first reason kube-scheduler's
// filters would (NodeUnschedulable runs first).
func chooseNode(nodes []nodeSlot) (name string, ok bool, why string) {
	var best *nodeSlot
	full, cordoned, notReady, mismatch := 0, 0, 0, 0
	for i := range nodes {
		n := &nodes[i]
		switch {
		case n.Cordoned:
			cordoned++
			continue
		case !n.Ready:
			notReady++
			continue
		case n.Mismatch:
			mismatch++
			continue
		case n.Pods >= n.Capacity:
			full++
			continue
		}
		if best == nil || n.Pods < best.Pods || (n.Pods == best.Pods && n.Name < best.Name) {
			best = n
		}
	}
	if best != nil {
		return best.Name, true, ""
	}
	return "", false, unschedulableMessage(len(nodes), full, cordoned, notReady, mismatch)
}

// unschedulableMessage is the FailedScheduling message, shaped like
// kube-scheduler's "0/3 nodes are available: 3 Too many pods.", reasons
// sorted as it sorts them.
func unschedulableMessage(total, full, cordoned, notReady, mismatch int) string {
	var reasons []string
	if full > 0 {
		reasons = append(reasons, fmt.Sprintf("%d Too many pods", full))
	}
	if cordoned > 0 {
		reasons = append(reasons, fmt.Sprintf("%d node(s) were unschedulable", cordoned))
	}
	if notReady > 0 {
		reasons = append(reasons, fmt.Sprintf("%d node(s) were not ready", notReady))
	}
	if mismatch > 0 {
		reasons = append(reasons, fmt.Sprintf("%d node(s) didn't match Pod's node affinity/selector", mismatch))
	}
	slices.Sort(reasons)
	if total == 0 {
		return "no nodes available to schedule pods"
	}
	return fmt.Sprintf("0/%d nodes are available: %s.", total, strings.Join(reasons, ", "))
}
