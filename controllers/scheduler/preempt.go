package scheduler

import (
	"context"
	"maps"
	"slices"
	"time"

	"go.uber.org/zap"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/controllers/scheduler/fit"
	"github.com/miniplane/miniplane/informer"
)

// Preemption, as kube-scheduler's DefaultPreemption plugin does it
// (framework/plugins/defaultpreemption, framework/preemption): when a pod
// fits no node, find the nodes where evicting pods of lower priority would
// make it fit, keeping as many of them as still lets it fit (the most
// important first, those whose eviction a PodDisruptionBudget forbids
// before the others), pick the node whose victims hurt least, and evict
// them. The pod is nominated to the node (status.nominatedNodeName) and
// waits for its victims to go. Left out: the nominated pods' claim on
// their node when other pods are filtered (a pod of lower priority may
// take the room first, and the preemptor preempts again).

// The postfilter's messages where the pod may not preempt. Kubernetes:
// DefaultPreemption.PodEligibleToPreemptOthers.
const (
	notEligibleNever       = "not eligible due to preemptionPolicy=Never."
	notEligibleTerminating = "not eligible due to a terminating pod on the nominated node."
)

// The DisruptionTarget condition a victim is given before it is deleted.
// Kubernetes: v1.PodReasonPreemptionByScheduler, prepareCandidate.
const (
	conditionDisruptionTarget   api.PodConditionType = "DisruptionTarget"
	reasonPreemptionByScheduler                      = "PreemptionByScheduler"
)

// candidate is a node where preemption makes the pod fit, and its victims,
// most important first; violations counts those whose eviction a
// PodDisruptionBudget forbids. Kubernetes: preemption.Candidate.
type candidate struct {
	node       string
	victims    []*api.Pod
	violations int
}

// podPriority is a pod's priority, 0 when admission gave it none.
// Kubernetes: corev1helpers.PodPriority.
func podPriority(p *api.Pod) int32 {
	if p.Spec.Priority != nil {
		return *p.Spec.Priority
	}
	return 0
}

// startTime is when a pod started, its creation if it has not.
// Kubernetes: util.GetPodStartTime.
func startTime(p *api.Pod) time.Time {
	if p.Status.StartTime != nil {
		return p.Status.StartTime.Time
	}
	return p.Metadata.CreationTimestamp.Time
}

// moreImportant orders pods by priority, then by start: the earlier
// started is the more important. Kubernetes: util.MoreImportantPod.
func moreImportant(a, b *api.Pod) bool {
	if pa, pb := podPriority(a), podPriority(b); pa != pb {
		return pa > pb
	}
	return startTime(a).Before(startTime(b))
}

// budget is a PodDisruptionBudget as preemption reads it.
type budget struct {
	namespace string
	selector  api.Selector
	allowed   int32
	disrupted map[string]api.Time
}

// budgetsOf makes the budgets of pdbs; one whose selector is empty or
// does not parse selects nothing, as upstream.
func budgetsOf(pdbs []*api.PodDisruptionBudget) []budget {
	var out []budget
	for _, pdb := range pdbs {
		sel := pdb.Spec.Selector
		if sel == nil || len(sel.MatchLabels) == 0 && len(sel.MatchExpressions) == 0 {
			continue
		}
		s, err := api.LabelSelectorAsSelector(sel)
		if err != nil {
			continue
		}
		out = append(out, budget{namespace: pdb.Metadata.Namespace, selector: s, allowed: pdb.Status.DisruptionsAllowed, disrupted: pdb.Status.DisruptedPods})
	}
	return out
}

// splitByBudget splits pods, in order, into those whose eviction some
// budget forbids — each pod takes one of its budgets' allowed
// disruptions, unless the budget counts it disrupted already — and the
// others. Kubernetes: filterPodsWithPDBViolation.
func splitByBudget(pods []*api.Pod, budgets []budget) (violating, nonViolating []*api.Pod) {
	allowed := make([]int32, len(budgets))
	for i, b := range budgets {
		allowed[i] = b.allowed
	}
	for _, p := range pods {
		violates := false
		for i, b := range budgets {
			if b.namespace != p.Metadata.Namespace || !b.selector.Matches(p.Metadata.Labels) {
				continue
			}
			if _, ok := b.disrupted[p.Metadata.Name]; ok {
				continue
			}
			if allowed[i]--; allowed[i] < 0 {
				violates = true
			}
		}
		if violates {
			violating = append(violating, p)
		} else {
			nonViolating = append(nonViolating, p)
		}
	}
	return violating, nonViolating
}

// withPod returns n with p's requests, host ports and slot added (delta
// 1) or taken away (delta -1); n's maps are its own.
func withPod(n *fit.Node, p *api.Pod, delta int) {
	n.Pods += delta
	if req := fit.PodRequests(&p.Spec); req != nil {
		if delta > 0 {
			n.Requested.Add(req)
		} else {
			n.Requested.Sub(req)
		}
	}
	for _, hp := range fit.PodHostPorts(&p.Spec) {
		if n.UsedPorts == nil {
			n.UsedPorts = map[fit.HostPort]int{}
		}
		n.UsedPorts[hp] += delta
	}
}

// selectVictims finds the fewest pods of node to evict for pod to fit
// there: every unfinished pod of lower priority is taken away; if pod then
// fits, each is given back, the most important first and those a budget
// protects before the others, unless pod no longer fits with it. It
// returns the candidate, or the reasons the node is none. Kubernetes:
// DefaultPreemption.SelectVictimsOnNode.
func selectVictims(pod *fit.Pod, node fit.Node, priority int32, pods []*api.Pod, budgets []budget) (*candidate, []string) {
	var potential []*api.Pod
	for _, p := range pods {
		if !finished(p) && podPriority(p) < priority {
			potential = append(potential, p)
		}
	}
	if len(potential) == 0 {
		return nil, []string{fit.ReasonNoPreemptionVictims}
	}
	n := node
	n.Requested.Scalar = maps.Clone(node.Requested.Scalar)
	n.UsedPorts = maps.Clone(node.UsedPorts)
	for _, p := range potential {
		withPod(&n, p, -1)
	}
	if st := fit.Filter(pod, &n); !st.Fits() {
		return nil, st.Reasons
	}
	slices.SortStableFunc(potential, func(a, b *api.Pod) int {
		switch {
		case moreImportant(a, b):
			return -1
		case moreImportant(b, a):
			return 1
		}
		return 0
	})
	violating, nonViolating := splitByBudget(potential, budgets)
	c := &candidate{node: node.Name}
	reprieve := func(p *api.Pod) bool {
		withPod(&n, p, 1)
		if fit.Filter(pod, &n).Fits() {
			return true
		}
		withPod(&n, p, -1)
		c.victims = append(c.victims, p)
		return false
	}
	for _, p := range violating {
		if !reprieve(p) {
			c.violations++
		}
	}
	for _, p := range nonViolating {
		reprieve(p)
	}
	slices.SortStableFunc(c.victims, func(a, b *api.Pod) int {
		if moreImportant(a, b) {
			return -1
		}
		if moreImportant(b, a) {
			return 1
		}
		return 0
	})
	return c, nil
}

// better reports whether candidate a hurts less than b: fewer budgets
// violated, then a lower highest victim priority, a lower sum of
// priorities, fewer victims, and the latest start among the victims of
// the highest priority. Kubernetes: pickOneNodeForPreemption.
func better(a, b *candidate) bool {
	if a.violations != b.violations {
		return a.violations < b.violations
	}
	if ha, hb := podPriority(a.victims[0]), podPriority(b.victims[0]); ha != hb {
		return ha < hb
	}
	if sa, sb := prioritySum(a.victims), prioritySum(b.victims); sa != sb {
		return sa < sb
	}
	if len(a.victims) != len(b.victims) {
		return len(a.victims) < len(b.victims)
	}
	return earliestOfHighest(a.victims).After(earliestOfHighest(b.victims))
}

// prioritySum adds the victims' priorities, each shifted to be positive,
// as upstream, so that more victims never sum lower.
func prioritySum(victims []*api.Pod) int64 {
	var s int64
	for _, v := range victims {
		s += int64(podPriority(v)) + 1<<31
	}
	return s
}

// earliestOfHighest is the earliest start among the victims of the
// highest priority (victims are most important first).
func earliestOfHighest(victims []*api.Pod) time.Time {
	top := podPriority(victims[0])
	earliest := startTime(victims[0])
	for _, v := range victims[1:] {
		if podPriority(v) == top && startTime(v).Before(earliest) {
			earliest = startTime(v)
		}
	}
	return earliest
}

// postFilter is the preemption postfilter for pod, which fits none of
// nodes, whose verdicts are statuses: the candidate to preempt on, or the
// postfilter's message. Kubernetes: DefaultPreemption.PostFilter and
// Evaluator.Preempt.
func (c *Controller) postFilter(pod *api.Pod, fp *fit.Pod, nodes []fit.Node, statuses []fit.Status) (*candidate, string) {
	if pod.Spec.PreemptionPolicy != nil && *pod.Spec.PreemptionPolicy == api.PreemptNever {
		return nil, notEligibleNever
	}
	priority := podPriority(pod)
	if nom := pod.Status.NominatedNodeName; nom != "" {
		i := slices.IndexFunc(nodes, func(n fit.Node) bool { return n.Name == nom })
		if i >= 0 && !statuses[i].Unresolvable {
			for _, p := range c.podsOn(nom) {
				if p.Metadata.DeletionTimestamp != nil && podPriority(p) < priority {
					return nil, notEligibleTerminating // its victims are on their way out
				}
			}
		}
	}
	var budgets []budget
	if pdbs := c.pdbs.List(api.Selector{}); len(pdbs) > 0 {
		budgets = budgetsOf(pdbs)
	}
	var best *candidate
	var reasons []string
	for i := range nodes {
		if statuses[i].Unresolvable {
			reasons = append(reasons, fit.ReasonPreemptionNotHelpful)
			continue
		}
		cand, why := selectVictims(fp, nodes[i], priority, c.podsOn(nodes[i].Name), budgets)
		if cand == nil {
			reasons = append(reasons, why...)
			continue
		}
		if best == nil || better(cand, best) {
			best = cand
		}
	}
	if best == nil {
		return nil, fit.NodesMessage(len(nodes), reasons)
	}
	return best, ""
}

// podsOn lists the cached pods bound to node, in key order.
func (c *Controller) podsOn(node string) []*api.Pod {
	keys, _ := c.podInf.Indexer().IndexKeys(informer.NodeNameIndex, node)
	slices.Sort(keys)
	out := make([]*api.Pod, 0, len(keys))
	for _, k := range keys {
		if obj, ok := c.podInf.Indexer().Get(k); ok {
			if p, ok := obj.(*api.Pod); ok {
				out = append(out, p)
			}
		}
	}
	return out
}

// preempt evicts cand's victims for pod: each is given the DisruptionTarget
// condition, then deleted, with the Preempted event; then pod is nominated
// to the node. Kubernetes: Evaluator.prepareCandidate and the nomination
// the scheduler's failure handler writes.
func (c *Controller) preempt(ctx context.Context, pod *api.Pod, cand *candidate) error {
	name := pod.Spec.SchedulerName
	if name == "" {
		name = Component // the API server's default
	}
	message := name + ": preempting to accommodate a higher priority pod"
	for _, v := range cand.victims {
		if cond, ok := conditionOf(v, conditionDisruptionTarget); !ok || cond.Status != api.ConditionTrue || cond.Reason != reasonPreemptionByScheduler {
			nv := v.DeepCopy()
			nv.Status.Conditions = setCondition(nv.Status.Conditions, conditionDisruptionTarget, api.ConditionTrue, reasonPreemptionByScheduler, message, c.clock.Now())
			if _, err := c.client.UpdateStatus(ctx, nv); err != nil && !apierrors.IsNotFound(err) {
				return err
			}
		}
		if _, err := c.client.Delete(ctx, "pods", v.Metadata.Namespace, v.Metadata.Name, api.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
		c.log.Info("preempted", zap.String("victim", api.KeyOf(&v.Metadata)), zap.String("preemptor", api.KeyOf(&pod.Metadata)), zap.String("node", cand.node))
		c.event(ctx, v, api.EventTypeNormal, "Preempted", "Preempted by pod "+string(pod.Metadata.UID)+" on node "+cand.node)
	}
	return nil
}
