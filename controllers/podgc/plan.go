package podgc

import (
	"slices"
	"strings"
	"time"

	"github.com/miniplane/miniplane/api"
)

const (
	// checkPeriod is how often the sweep runs. Kubernetes: gcCheckPeriod.
	checkPeriod = 20 * time.Second
	// quarantine is how long a node must be missing from the cache before
	// its pods count as orphans (after a read confirms it is gone).
	// Kubernetes: quarantineTime.
	quarantine = 40 * time.Second
	// TaintOutOfService marks a node whose pods may be force-deleted while
	// it is not Ready. Kubernetes: v1.TaintNodeOutOfService.
	TaintOutOfService = "node.kubernetes.io/out-of-service"
)

// why a sweep deletes a pod.
type why int

const (
	terminated              why = iota // above the threshold
	orphaned                           // its node is gone
	terminatingOutOfService            // terminating on an out-of-service node
	unscheduledTerminating             // terminating, never scheduled
)

// doomed is one pod a sweep deletes, and why.
type doomed struct {
	pod *api.Pod
	why why
}

// sweepPlan is what one sweep does: the pods to delete, in order, and the
// missing nodes whose quarantine is over, for the sweep to confirm gone
// with a read before it deletes their pods.
type sweepPlan struct {
	delete []doomed
	// confirm are the nodes to read; orphansOn their pods, deleted only
	// when the read says NotFound.
	confirm   []string
	orphansOn map[string][]*api.Pod
}

// plan decides a sweep over pods and nodes (the caches) at now. missing
// holds, for each node that pods are bound to but the cache lacks, when
// it was first seen missing; plan adds the newly missing and forgets
// those that came back. threshold is the terminated pods kept (0: no
// limit).
func plan(pods []*api.Pod, nodes []*api.Node, now time.Time, missing map[string]time.Time, threshold int) sweepPlan {
	var p sweepPlan
	byName := make(map[string]*api.Node, len(nodes))
	for _, n := range nodes {
		byName[n.Metadata.Name] = n
	}
	if threshold > 0 {
		var done []*api.Pod
		for _, pod := range pods {
			if isTerminated(pod) {
				done = append(done, pod)
			}
		}
		if n := len(done) - threshold; n > 0 {
			slices.SortFunc(done, byEvictionAndCreation)
			for _, pod := range done[:n] {
				p.delete = append(p.delete, doomed{pod, terminated})
			}
		}
	}
	for _, pod := range pods {
		if pod.Metadata.DeletionTimestamp == nil {
			continue
		}
		if n := byName[pod.Spec.NodeName]; n != nil && !nodeReady(n) && hasTaint(n, TaintOutOfService) {
			p.delete = append(p.delete, doomed{pod, terminatingOutOfService})
		}
	}
	seen := map[string]bool{}
	for _, pod := range pods {
		node := pod.Spec.NodeName
		if node == "" || byName[node] != nil {
			continue
		}
		seen[node] = true
		since, ok := missing[node]
		if !ok {
			missing[node] = now
			continue
		}
		if now.Sub(since) >= quarantine {
			if p.orphansOn == nil {
				p.orphansOn = map[string][]*api.Pod{}
			}
			if len(p.orphansOn[node]) == 0 {
				p.confirm = append(p.confirm, node)
			}
			p.orphansOn[node] = append(p.orphansOn[node], pod)
		}
	}
	for node := range missing {
		if !seen[node] {
			delete(missing, node) // back, or no pod is bound to it any more
		}
	}
	slices.Sort(p.confirm)
	for _, pod := range pods {
		if pod.Metadata.DeletionTimestamp != nil && pod.Spec.NodeName == "" {
			p.delete = append(p.delete, doomed{pod, unscheduledTerminating})
		}
	}
	return p
}

// isTerminated: the pod's phase is neither Pending, Running nor Unknown.
func isTerminated(p *api.Pod) bool {
	switch p.Status.Phase {
	case api.PodPending, api.PodRunning, api.PodUnknown:
		return false
	}
	return true
}

// evicted: the kubelet evicted the pod. Kubernetes: eviction.PodIsEvicted.
func evicted(p *api.Pod) bool { return p.Status.Phase == api.PodFailed && p.Status.Reason == "Evicted" }

// byEvictionAndCreation orders evicted pods first, then the oldest, then
// by name. Kubernetes: byEvictionAndCreationTimestamp.
func byEvictionAndCreation(a, b *api.Pod) int {
	if ea, eb := evicted(a), evicted(b); ea != eb {
		if ea {
			return -1
		}
		return 1
	}
	if c := a.Metadata.CreationTimestamp.Compare(b.Metadata.CreationTimestamp.Time); c != 0 {
		return c
	}
	return strings.Compare(a.Metadata.Name, b.Metadata.Name)
}

func nodeReady(n *api.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == api.NodeReady {
			return c.Status == api.ConditionTrue
		}
	}
	return false
}

func hasTaint(n *api.Node, key string) bool {
	return slices.ContainsFunc(n.Spec.Taints, func(t api.Taint) bool { return t.Key == key })
}
