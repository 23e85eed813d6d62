package replication

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
)

// podOpt shapes a test pod.
type podOpt func(*api.Pod)

func node(n string) podOpt { return func(p *api.Pod) { p.Spec.NodeName = n } }

func phase(ph api.PodPhase) podOpt { return func(p *api.Pod) { p.Status.Phase = ph } }

// readySince makes the pod Running and Ready since t.
func readySince(t time.Time) podOpt {
	return func(p *api.Pod) {
		p.Status.Phase = api.PodRunning
		p.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: api.ConditionTrue, LastTransitionTime: api.NewTime(t)}}
	}
}

func notReady() podOpt {
	return func(p *api.Pod) {
		p.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: api.ConditionFalse}}
	}
}

func cost(c int) podOpt {
	return func(p *api.Pod) {
		if p.Metadata.Annotations == nil {
			p.Metadata.Annotations = map[string]string{}
		}
		p.Metadata.Annotations[PodDeletionCostAnnotation] = strconv.Itoa(c)
	}
}

func restarts(n int32) podOpt {
	return func(p *api.Pod) {
		p.Status.ContainerStatuses = []api.ContainerStatus{{Name: "c", RestartCount: n}}
	}
}

func created(t time.Time) podOpt {
	return func(p *api.Pod) { p.Metadata.CreationTimestamp = api.NewTime(t) }
}

func uid(u string) podOpt { return func(p *api.Pod) { p.Metadata.UID = api.UID(u) } }

func newTestPod(name string, opts ...podOpt) *api.Pod {
	p := &api.Pod{Metadata: api.ObjectMeta{Namespace: "default", Name: name, UID: api.UID("uid-" + name)}}
	p.Status.Phase = api.PodRunning
	for _, o := range opts {
		o(p)
	}
	return p
}

func names(pods []*api.Pod) []string {
	out := make([]string, len(pods))
	for i, p := range pods {
		out[i] = p.Metadata.Name
	}
	return out
}

func TestPodsToDelete(t *testing.T) {
	now := t0
	tests := []struct {
		name    string
		pods    []*api.Pod
		related []*api.Pod // nil: the pods themselves
		n       int
		want    []string
	}{
		{
			name: "unscheduled before scheduled",
			pods: []*api.Pod{newTestPod("a", node("n1"), phase(api.PodPending)), newTestPod("b", phase(api.PodPending))},
			n:    1, want: []string{"b"},
		},
		{
			name: "pending before unknown before running",
			pods: []*api.Pod{
				newTestPod("run", node("n1"), readySince(now.Add(-time.Hour))),
				newTestPod("unk", node("n2"), phase(api.PodUnknown)),
				newTestPod("pend", node("n3"), phase(api.PodPending)),
			},
			n: 2, want: []string{"pend", "unk"},
		},
		{
			name: "not ready before ready",
			pods: []*api.Pod{newTestPod("ready", node("n1"), readySince(now.Add(-time.Hour))), newTestPod("nr", node("n2"), notReady())},
			n:    1, want: []string{"nr"},
		},
		{
			name: "lower deletion cost first",
			pods: []*api.Pod{
				newTestPod("high", node("n1"), readySince(now.Add(-time.Hour)), cost(100)),
				newTestPod("low", node("n2"), readySince(now.Add(-time.Hour)), cost(-5)),
				newTestPod("none", node("n3"), readySince(now.Add(-time.Hour))),
			},
			n: 2, want: []string{"low", "none"},
		},
		{
			name: "malformed deletion cost counts as zero",
			pods: []*api.Pod{
				newTestPod("neg", node("n1"), readySince(now.Add(-time.Hour)), cost(-1)),
				newTestPod("bad", node("n2"), readySince(now.Add(-time.Hour)), func(p *api.Pod) {
					p.Metadata.Annotations = map[string]string{PodDeletionCostAnnotation: "x"}
				}),
			},
			n: 1, want: []string{"neg"},
		},
		{
			name: "doubled up before alone",
			pods: []*api.Pod{
				newTestPod("alone", node("n1"), readySince(now.Add(-time.Hour))),
				newTestPod("pair1", node("n2"), readySince(now.Add(-time.Hour))),
				newTestPod("pair2", node("n2"), readySince(now.Add(-time.Hour))),
			},
			n: 2, want: []string{"pair1", "pair2"},
		},
		{
			name: "related pods of siblings count for doubling up",
			pods: []*api.Pod{
				newTestPod("a", node("n1"), readySince(now.Add(-time.Hour))),
				newTestPod("b", node("n2"), readySince(now.Add(-time.Hour))),
			},
			related: []*api.Pod{
				newTestPod("a", node("n1")), newTestPod("b", node("n2")),
				newTestPod("sibling", node("n2")),
			},
			n: 1, want: []string{"b"},
		},
		{
			name: "ready more recently first, on a log scale",
			pods: []*api.Pod{
				newTestPod("old", node("n1"), readySince(now.Add(-10*time.Hour))),
				newTestPod("new", node("n2"), readySince(now.Add(-10*time.Minute))),
			},
			n: 1, want: []string{"new"},
		},
		{
			name: "ready times in the same log bucket: UID decides, not restarts",
			pods: []*api.Pod{
				newTestPod("x", node("n1"), readySince(now.Add(-100*time.Second)), uid("b"), restarts(9)),
				newTestPod("y", node("n2"), readySince(now.Add(-101*time.Second)), uid("a")),
			},
			n: 1, want: []string{"y"},
		},
		{
			name: "more restarts first",
			pods: []*api.Pod{
				newTestPod("calm", node("n1"), notReady(), restarts(1)),
				newTestPod("crashy", node("n2"), notReady(), restarts(7)),
			},
			n: 1, want: []string{"crashy"},
		},
		{
			name: "newer first, zero creation time first of all",
			pods: []*api.Pod{
				newTestPod("old", node("n1"), notReady(), created(now.Add(-48*time.Hour))),
				newTestPod("new", node("n2"), notReady(), created(now.Add(-time.Minute))),
				newTestPod("zero", node("n3"), notReady()),
			},
			n: 2, want: []string{"zero", "new"},
		},
		{
			name: "creation times in the same log bucket: UID decides",
			pods: []*api.Pod{
				newTestPod("p", node("n1"), notReady(), created(now.Add(-70*time.Second)), uid("z")),
				newTestPod("q", node("n2"), notReady(), created(now.Add(-80*time.Second)), uid("c")),
			},
			n: 1, want: []string{"q"},
		},
		{
			name: "complete tie: UID decides",
			pods: []*api.Pod{newTestPod("p", node("n1"), uid("9")), newTestPod("q", node("n2"), uid("1"))},
			n:    1, want: []string{"q"},
		},
		{
			name: "kubernetes order: unscheduled pending, scheduled pending, not ready, doubled up, alone",
			pods: []*api.Pod{
				newTestPod("ready-alone", node("n3"), readySince(now.Add(-time.Hour))),
				newTestPod("ready-pair", node("n1"), readySince(now.Add(-time.Hour))),
				newTestPod("not-ready", node("n1"), notReady()),
				newTestPod("sched-pending", node("n2"), phase(api.PodPending)),
				newTestPod("unsched-pending", phase(api.PodPending)),
			},
			n:    4,
			want: []string{"unsched-pending", "sched-pending", "not-ready", "ready-pair"},
		},
		{
			name: "deleting all: no sort, input order",
			pods: []*api.Pod{newTestPod("ready", node("n1"), readySince(now)), newTestPod("pending", phase(api.PodPending))},
			n:    5, want: []string{"ready", "pending"},
		},
		{
			name: "nothing to delete",
			pods: []*api.Pod{newTestPod("a")},
			n:    0, want: []string{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			related := tt.related
			if related == nil {
				related = tt.pods
			}
			assert.Equal(t, tt.want, names(PodsToDelete(tt.pods, related, tt.n, now)))
		})
	}
}

// TestRankRuleOf names the rule that puts the first pod before the second,
// one case per rule, and checks that the rule agrees with PodsToDelete.
func TestRankRuleOf(t *testing.T) {
	now := t0
	ready := readySince(now.Add(-time.Hour))
	tests := []struct {
		name    string
		a, b    *api.Pod
		related []*api.Pod
		want    RankRule
	}{
		{"unscheduled", newTestPod("a", phase(api.PodPending)), newTestPod("b", node("n1"), phase(api.PodPending)), nil, RuleScheduled},
		{"pending", newTestPod("a", node("n1"), phase(api.PodPending)), newTestPod("b", node("n2"), ready), nil, RulePhase},
		{"not ready", newTestPod("a", node("n1"), notReady()), newTestPod("b", node("n2"), ready), nil, RuleReady},
		{"cost", newTestPod("a", node("n1"), ready, cost(-1)), newTestPod("b", node("n2"), ready), nil, RuleDeletionCost},
		{"doubled up", newTestPod("a", node("n1"), ready), newTestPod("b", node("n2"), ready),
			[]*api.Pod{newTestPod("a", node("n1")), newTestPod("c", node("n1")), newTestPod("b", node("n2"))}, RuleDoubledUp},
		{"ready more recently", newTestPod("a", node("n1"), readySince(now.Add(-time.Minute))), newTestPod("b", node("n2"), ready), nil, RuleReadyTime},
		{"ready in one log bucket", newTestPod("a", node("n1"), readySince(now.Add(-100*time.Second)), uid("a")),
			newTestPod("b", node("n2"), readySince(now.Add(-90*time.Second)), uid("b")), nil, RuleReadyTimeUID},
		{"restarts", newTestPod("a", node("n1"), ready, restarts(2)), newTestPod("b", node("n2"), ready), nil, RuleRestarts},
		{"created more recently", newTestPod("a", node("n1"), ready, created(now.Add(-time.Minute))),
			newTestPod("b", node("n2"), ready, created(now.Add(-time.Hour))), nil, RuleCreationTime},
		{"ready in the same second: uid", newTestPod("a", node("n1"), readySince(now.Add(-1500*time.Millisecond)), created(now.Add(-2*time.Second)), uid("a")),
			newTestPod("b", node("n2"), readySince(now.Add(-1200*time.Millisecond)), created(now.Add(-2*time.Second)), uid("b")), nil, RuleUID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, RankRuleOf(tt.a, tt.b, tt.related, now), "got %q", RankRuleOf(tt.a, tt.b, tt.related, now))
			related := tt.related
			if related == nil {
				related = []*api.Pod{tt.a, tt.b}
			}
			assert.Equal(t, []string{"a"}, names(PodsToDelete([]*api.Pod{tt.b, tt.a}, related, 1, now)), "the rule's winner goes first")
		})
	}
}

// plainCompareWhy is the deletion ranking read from the pods at every
// comparison, as it was before PodsToDelete read each pod once into a
// rankKey: the reference TestRankKeysArePlainRanking holds it to.
func plainCompareWhy(a, b rankedPod, now time.Time) (int, RankRule) {
	pa, pb := a.pod, b.pod
	if (pa.Spec.NodeName == "") != (pb.Spec.NodeName == "") {
		return boolFirst(pa.Spec.NodeName == ""), RuleScheduled
	}
	if oa, ob := phaseOrder(pa.Status.Phase), phaseOrder(pb.Status.Phase); oa != ob {
		return cmp.Compare(oa, ob), RulePhase
	}
	readyA, readyB := api.IsPodReady(pa), api.IsPodReady(pb)
	if readyA != readyB {
		return boolFirst(!readyA), RuleReady
	}
	if ca, cb := deletionCost(pa), deletionCost(pb); ca != cb {
		return cmp.Compare(ca, cb), RuleDeletionCost
	}
	if a.rank != b.rank {
		return cmp.Compare(b.rank, a.rank), RuleDoubledUp
	}
	if readyA && readyB {
		ta, tb := readyTime(pa), readyTime(pb)
		if !ta.Equal(tb) {
			if c := plainCompareTimes(ta, tb, now); c != 0 {
				return c, RuleReadyTime
			}
			return cmp.Compare(pa.Metadata.UID, pb.Metadata.UID), RuleReadyTimeUID
		}
	}
	if ra, rb := maxRestarts(pa), maxRestarts(pb); ra != rb {
		return cmp.Compare(rb, ra), RuleRestarts
	}
	ta, tb := pa.Metadata.CreationTimestamp.Time, pb.Metadata.CreationTimestamp.Time
	if !ta.Equal(tb) {
		if c := plainCompareTimes(ta, tb, now); c != 0 {
			return c, RuleCreationTime
		}
	}
	return cmp.Compare(pa.Metadata.UID, pb.Metadata.UID), RuleUID
}

func plainCompareTimes(ta, tb, now time.Time) int {
	if ta.IsZero() || tb.IsZero() {
		return boolFirst(ta.IsZero())
	}
	if now.IsZero() {
		return tb.Compare(ta)
	}
	return cmp.Compare(ageBucket(ta, now), ageBucket(tb, now))
}

// randomRankPods returns n pods that differ, at random, in every field the
// ranking reads, with few values each so that many pairs tie on the
// first rules and reach the later ones.
func randomRankPods(r *rand.Rand, n int, now time.Time) []*api.Pod {
	pods := make([]*api.Pod, n)
	for i := range pods {
		var opts []podOpt
		if r.IntN(4) > 0 {
			opts = append(opts, node("n"+strconv.Itoa(r.IntN(3))))
		}
		switch r.IntN(4) {
		case 0:
			opts = append(opts, phase(api.PodPending))
		case 1:
			opts = append(opts, phase(api.PodUnknown))
		case 2:
			opts = append(opts, notReady())
		default:
			opts = append(opts, readySince(now.Add(-time.Duration(r.IntN(200))*time.Second)))
		}
		if r.IntN(5) == 0 {
			opts = append(opts, cost(r.IntN(3)-1))
		}
		if r.IntN(3) == 0 {
			opts = append(opts, restarts(int32(r.IntN(3))))
		}
		if r.IntN(6) > 0 {
			opts = append(opts, created(now.Add(-time.Duration(r.IntN(400))*time.Second)))
		}
		opts = append(opts, uid(strconv.Itoa(r.IntN(1000))))
		pods[i] = newTestPod("p"+strconv.Itoa(i), opts...)
	}
	return pods
}

// TestRankKeysArePlainRanking checks the ranking on keys read once per pod
// (rankKey) against the plain one that reads the pods at every
// comparison: the same answer and rule for every pair, and PodsToDelete's
// order that of a stable sort by the plain comparison, with and without a
// now.
func TestRankKeysArePlainRanking(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, now := range []time.Time{t0, {}} {
		for round := range 50 {
			pods := randomRankPods(r, 40, t0)
			related := pods[:r.IntN(len(pods))]
			onNode := map[string]int{}
			for _, p := range related {
				if api.IsPodActive(p) {
					onNode[p.Spec.NodeName]++
				}
			}
			ranked := make([]rankedPod, len(pods))
			for i, p := range pods {
				ranked[i] = rankedPod{pod: p, rank: onNode[p.Spec.NodeName]}
			}
			for _, a := range ranked {
				for _, b := range ranked {
					wantC, wantRule := plainCompareWhy(a, b, now)
					gotC, gotRule := compareWhy(a, b, now)
					require.Equal(t, wantC, gotC, "round %d: %s vs %s", round, a.pod.Metadata.Name, b.pod.Metadata.Name)
					require.Equal(t, wantRule, gotRule, "round %d: %s vs %s", round, a.pod.Metadata.Name, b.pod.Metadata.Name)
				}
			}
			plain := slices.Clone(ranked)
			slices.SortStableFunc(plain, func(a, b rankedPod) int {
				c, _ := plainCompareWhy(a, b, now)
				return c
			})
			want := make([]*api.Pod, len(plain))
			for i, rp := range plain {
				want[i] = rp.pod
			}
			n := 1 + r.IntN(len(pods)-1)
			assert.Equal(t, names(want[:n]), names(PodsToDelete(pods, related, n, now)), "round %d", round)
		}
	}
}
