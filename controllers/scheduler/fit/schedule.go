package fit

import (
	"sort"
	"strconv"
	"strings"
)

// The preemption plugin's words for a node where evicting pods would not
// help: its filter failure was unresolvable, or (every pod having the same
// priority in miniplane) no pod there has a lower priority to evict.
const (
	ReasonPreemptionNotHelpful = "Preemption is not helpful for scheduling"
	ReasonNoPreemptionVictims  = "No preemption victims found for incoming pod"
)

// NoNodesMessage is the scheduler's message when there are no nodes at all.
// Kubernetes: ErrNoNodesAvailable.
const NoNodesMessage = "no nodes available to schedule pods"

// Schedule picks the node for pod among nodes: of those that fit, the one
// with the fewest pods, ties broken by name, so that pods spread evenly
// and the choice does not depend on the order of nodes. When none fits, ok
// is false and why is kube-scheduler's message (Message).
func Schedule(pod *Pod, nodes []Node) (name string, ok bool, why string) {
	var best *Node
	var statuses []Status
	for i := range nodes {
		n := &nodes[i]
		st := Filter(pod, n)
		if !st.Fits() {
			statuses = append(statuses, st)
			continue
		}
		if best == nil || n.Pods < best.Pods || n.Pods == best.Pods && n.Name < best.Name {
			best = n
		}
	}
	if best != nil {
		return best.Name, true, ""
	}
	return "", false, Message(len(nodes), statuses)
}

// Message is the FailedScheduling message for a pod that fits none of
// numNodes nodes, whose verdicts are statuses, when no pod has a lower
// priority to preempt: kube-scheduler's FitError (FitErrorMessage) with
// the DefaultPreemption postfilter's own FitError after "preemption:",
// each node "not helpful" where its failure is unresolvable, else without
// victims.
func Message(numNodes int, statuses []Status) string {
	if numNodes == 0 {
		return NoNodesMessage
	}
	preemption := make([]string, len(statuses))
	for i, st := range statuses {
		preemption[i] = ReasonNoPreemptionVictims
		if st.Unresolvable {
			preemption[i] = ReasonPreemptionNotHelpful
		}
	}
	return FitErrorMessage(numNodes, statuses, NodesMessage(numNodes, preemption))
}

// FitErrorMessage is kube-scheduler's FitError: "0/N nodes are
// available:", then each filter reason with how many nodes gave it,
// sorted as strings, then the postfilter's message after "preemption: "
// unless it is "" (preemption nominated a node).
func FitErrorMessage(numNodes int, statuses []Status, postFilter string) string {
	if numNodes == 0 {
		return NoNodesMessage
	}
	filter := map[string]int{}
	for _, st := range statuses {
		for _, r := range st.Reasons {
			filter[r]++
		}
	}
	var b strings.Builder
	b.WriteString("0/" + strconv.Itoa(numNodes) + " nodes are available:")
	writeHistogram(&b, filter)
	if postFilter != "" {
		b.WriteString(" preemption: ")
		b.WriteString(postFilter)
	}
	return b.String()
}

// NodesMessage is "0/N nodes are available:" and the histogram of
// reasons, one a node: the FitError the preemption postfilter returns
// when no node is a candidate.
func NodesMessage(numNodes int, reasons []string) string {
	counts := map[string]int{}
	for _, r := range reasons {
		counts[r]++
	}
	var b strings.Builder
	b.WriteString("0/" + strconv.Itoa(numNodes) + " nodes are available:")
	writeHistogram(&b, counts)
	return b.String()
}

// writeHistogram writes " <count> <reason>, ... ." with the entries
// sorted as strings, as kube-scheduler's sortReasonsHistogram does (so
// "10 ..." sorts before "2 ...").
func writeHistogram(b *strings.Builder, counts map[string]int) {
	if len(counts) == 0 {
		return
	}
	entries := make([]string, 0, len(counts))
	for reason, n := range counts {
		entries = append(entries, strconv.Itoa(n)+" "+reason)
	}
	sort.Strings(entries)
	b.WriteString(" ")
	b.WriteString(strings.Join(entries, ", "))
	b.WriteString(".")
}

// ReasonUnboundImmediateClaims is the VolumeBinding plugin's PreFilter
// verdict (UnschedulableAndUnresolvable) on a pod one of whose claims is
// not bound yet. Kubernetes: volumebinding's PreFilter.
const ReasonUnboundImmediateClaims = "pod has unbound immediate PersistentVolumeClaims"

// PreFilterMessage is the FailedScheduling message for a pod a PreFilter
// plugin turned away before any node was tried, for why: kube-scheduler's
// FitError with its PreFilterMsg — "0/N nodes are available: why." — and
// the preemption postfilter's, which finds no node where preempting helps.
func PreFilterMessage(numNodes int, why string) string {
	if numNodes == 0 {
		return NoNodesMessage
	}
	available := "0/" + strconv.Itoa(numNodes) + " nodes are available:"
	return available + " " + why + ". preemption: " + available + " " + strconv.Itoa(numNodes) + " " + ReasonPreemptionNotHelpful + "."
}
