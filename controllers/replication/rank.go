package replication

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/miniplane/miniplane/api"
)

// PodDeletionCostAnnotation lets a user say which pods of a controller
// should go first on scale-down: lower cost first. Its value is an int32;
// a missing or malformed value counts as 0. Kubernetes:
// core/v1.PodDeletionCost.
const PodDeletionCostAnnotation = "controller.kubernetes.io/pod-deletion-cost"

// PodsToDelete returns the n pods of pods that should be deleted first on a
// scale-down, in the order to delete them. related are the pods of every
// controller that shares this one's owner (for a replication controller
// with no owner, its own pods): a pod whose node runs more of them is
// "doubled up" and goes earlier. now is the time the log-scale comparisons
// of ready and creation times are relative to.
//
// When n covers all the pods nothing is sorted, as in Kubernetes
// (getPodsToDelete in pkg/controller/replicaset).
func PodsToDelete(pods, related []*api.Pod, n int, now time.Time) []*api.Pod {
	if n <= 0 {
		return nil
	}
	if n >= len(pods) {
		return slices.Clone(pods)
	}
	onNode := make(map[string]int)
	for _, p := range related {
		if api.IsPodActive(p) {
			onNode[p.Spec.NodeName]++
		}
	}
	// Each pod is read once into its key: a stable sort compares every
	// pod some 2·log2(n) times, and reading a pod (its conditions, its
	// annotations, two logarithms) costs more than comparing two keys.
	// The order is compareWhy's, which compares the same keys.
	// The sort moves indexes, which hold no pointer: moving a pointer
	// costs a write barrier while the collector runs.
	keys := make([]rankKey, len(pods))
	order := make([]int32, len(pods))
	for i, p := range pods {
		keys[i] = newRankKey(rankedPod{pod: p, rank: onNode[p.Spec.NodeName]}, now)
		order[i] = int32(i)
	}
	slices.SortStableFunc(order, func(a, b int32) int {
		c, _ := compareKeys(&keys[a], &keys[b])
		return c
	})
	out := make([]*api.Pod, n)
	for i := range out {
		out[i] = pods[order[i]]
	}
	return out
}

// rankedPod is a pod with the number of active related pods on its node.
type rankedPod struct {
	pod  *api.Pod
	rank int
}

// phaseOrder ranks phases for deletion: Pending (and any phase not
// listed) first, then Unknown, then Running.
func phaseOrder(p api.PodPhase) int {
	switch p {
	case api.PodUnknown:
		return 1
	case api.PodRunning:
		return 2
	}
	return 0
}

// compareForDeletion orders two pods for deletion: negative when a should
// go before b. The first rule that tells them apart decides (Kubernetes:
// controller.ActivePodsWithRanks.Less, with PodDeletionCost and
// LogarithmicScaleDown on):
//
//  1. not yet scheduled before scheduled;
//  2. Pending before Unknown before Running;
//  3. not ready before ready;
//  4. lower pod-deletion-cost before higher;
//  5. more related pods on the same node before fewer;
//  6. if both are ready: ready more recently before ready longer, compared
//     on a log2 scale of the time since now, equal buckets by UID;
//  7. more container restarts before fewer;
//  8. created more recently before older (a zero time first), on the same
//     log2 scale, equal buckets by UID.
//
// Pods equal by every rule are ordered by UID, which the apiserver draws
// from its seeded source: pseudo-random, and the same on every run.
func compareForDeletion(a, b rankedPod, now time.Time) int {
	c, _ := compareWhy(a, b, now)
	return c
}

// RankRule names the rule of the deletion ranking that tells two pods
// apart (see compareForDeletion).
type RankRule int

// The rules, in the order they are tried.
const (
	RuleScheduled    RankRule = iota // not yet scheduled first
	RulePhase                        // Pending, then Unknown, then Running
	RuleReady                        // not ready first
	RuleDeletionCost                 // lower pod-deletion-cost first
	RuleDoubledUp                    // more related pods on its node first
	RuleReadyTime                    // ready more recently first (log2 buckets of time since ready)
	RuleReadyTimeUID                 // ready times differ, in one log2 bucket: by uid
	RuleRestarts                     // more restarts first
	RuleCreationTime                 // created more recently first (log2 buckets of age)
	RuleUID                          // the same by every rule: by uid
)

var rankRuleText = [...]string{
	RuleScheduled:    "not yet scheduled goes first",
	RulePhase:        "Pending goes before Unknown before Running",
	RuleReady:        "not ready goes first",
	RuleDeletionCost: "lower pod-deletion-cost goes first",
	RuleDoubledUp:    "more related pods on its node goes first",
	RuleReadyTime:    "ready more recently goes first",
	RuleReadyTimeUID: "ready at different times but in the same log2 bucket of time since: the lower uid goes first",
	RuleRestarts:     "more restarts goes first",
	RuleCreationTime: "created more recently goes first",
	RuleUID:          "the same by every rule (times are kept to the second and compared in log2 buckets): the lower uid goes first",
}

func (r RankRule) String() string { return rankRuleText[r] }

// RankRuleOf returns the rule that decides whether a or b goes first on a
// scale-down, as PodsToDelete ranks them with related and now: what a
// reader needs to explain its order.
func RankRuleOf(a, b *api.Pod, related []*api.Pod, now time.Time) RankRule {
	onNode := make(map[string]int)
	for _, p := range related {
		if api.IsPodActive(p) {
			onNode[p.Spec.NodeName]++
		}
	}
	_, rule := compareWhy(rankedPod{a, onNode[a.Spec.NodeName]}, rankedPod{b, onNode[b.Spec.NodeName]}, now)
	return rule
}

// compareWhy is compareForDeletion, and the rule that decided.
func compareWhy(a, b rankedPod, now time.Time) (int, RankRule) {
	ka, kb := newRankKey(a, now), newRankKey(b, now)
	return compareKeys(&ka, &kb)
}

// rankKey is what the deletion ranking reads of a pod, read once: the
// value of every rule of compareForDeletion that depends on one pod
// alone, with the log2 buckets of its times relative to the ranking's
// now.
type rankKey struct {
	pod       *api.Pod
	rank      int // active related pods on its node
	scheduled bool
	phase     int // phaseOrder
	ready     bool
	cost      int32
	restarts  int32
	// nowZero says the ranking has no now: times compare as times, not
	// by bucket (compareKeyTimes).
	nowZero                    bool
	readyAt, createdAt         time.Time
	readyBucket, createdBucket int64
}

func newRankKey(r rankedPod, now time.Time) rankKey {
	p := r.pod
	k := rankKey{
		pod:       p,
		rank:      r.rank,
		scheduled: p.Spec.NodeName != "",
		phase:     phaseOrder(p.Status.Phase),
		ready:     api.IsPodReady(p),
		cost:      deletionCost(p),
		restarts:  maxRestarts(p),
		nowZero:   now.IsZero(),
		createdAt: p.Metadata.CreationTimestamp.Time,
	}
	if k.ready {
		k.readyAt = readyTime(p)
	}
	if !k.nowZero {
		k.readyBucket, k.createdBucket = ageBucket(k.readyAt, now), ageBucket(k.createdAt, now)
	}
	return k
}

// compareKeys is compareWhy on two pods' keys: the first rule that tells
// them apart decides (see compareForDeletion).
func compareKeys(a, b *rankKey) (int, RankRule) {
	if a.scheduled != b.scheduled {
		return boolFirst(!a.scheduled), RuleScheduled
	}
	if a.phase != b.phase {
		return cmp.Compare(a.phase, b.phase), RulePhase
	}
	if a.ready != b.ready {
		return boolFirst(!a.ready), RuleReady
	}
	if a.cost != b.cost {
		return cmp.Compare(a.cost, b.cost), RuleDeletionCost
	}
	if a.rank != b.rank {
		return cmp.Compare(b.rank, a.rank), RuleDoubledUp
	}
	uidA, uidB := a.pod.Metadata.UID, b.pod.Metadata.UID
	if a.ready && b.ready && !a.readyAt.Equal(b.readyAt) {
		if c := compareKeyTimes(a.readyAt, b.readyAt, a.readyBucket, b.readyBucket, a.nowZero); c != 0 {
			return c, RuleReadyTime
		}
		return cmp.Compare(uidA, uidB), RuleReadyTimeUID
	}
	if a.restarts != b.restarts {
		return cmp.Compare(b.restarts, a.restarts), RuleRestarts
	}
	if !a.createdAt.Equal(b.createdAt) {
		if c := compareKeyTimes(a.createdAt, b.createdAt, a.createdBucket, b.createdBucket, a.nowZero); c != 0 {
			return c, RuleCreationTime
		}
	}
	return cmp.Compare(uidA, uidB), RuleUID
}

// compareKeyTimes orders two different times for deletion: a zero time
// first, then the later time first. With a known now, times in the same
// power of two of age (bucketA and bucketB, ageBucket relative to now)
// are equal (0), so that pods of similar age are picked pseudo-randomly
// rather than strictly youngest first.
func compareKeyTimes(ta, tb time.Time, bucketA, bucketB int64, nowZero bool) int {
	if ta.IsZero() || tb.IsZero() {
		return boolFirst(ta.IsZero())
	}
	if nowZero {
		return tb.Compare(ta)
	}
	return cmp.Compare(bucketA, bucketB)
}

// ageBucket is floor(log2(now - t in nanoseconds)), or -1 for a time not
// before now.
func ageBucket(t, now time.Time) int64 {
	d := now.Sub(t)
	if d <= 0 {
		return -1
	}
	return int64(math.Log2(float64(d)))
}

// boolFirst returns -1 when a's rule holds (a goes first), else 1.
func boolFirst(aFirst bool) int {
	if aFirst {
		return -1
	}
	return 1
}

// deletionCost reads the pod-deletion-cost annotation; missing or invalid
// is 0.
func deletionCost(p *api.Pod) int32 {
	v, ok := p.Metadata.Annotations[PodDeletionCostAnnotation]
	if !ok {
		return 0
	}
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil {
		return 0
	}
	return int32(n)
}

// readyTime is when a ready pod last became ready (zero when unknown).
func readyTime(p *api.Pod) time.Time {
	for _, c := range p.Status.Conditions {
		if c.Type == api.PodReady && c.Status == api.ConditionTrue {
			return c.LastTransitionTime.Time
		}
	}
	return time.Time{}
}

// maxRestarts is the highest restart count among the pod's containers.
func maxRestarts(p *api.Pod) int32 {
	var n int32
	for _, s := range p.Status.ContainerStatuses {
		n = max(n, s.RestartCount)
	}
	return n
}
