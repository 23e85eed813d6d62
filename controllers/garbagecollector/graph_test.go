package garbagecollector

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/internal/testenv"
)

var (
	rcKind, _  = kindByResource(client.ReplicationControllers)
	podKind, _ = kindByResource(client.Pods)
)

func testRC(uid api.UID, finalizers ...string) *api.ReplicationController {
	rc := &api.ReplicationController{
		TypeMeta: api.TypeMeta{APIVersion: "v1", Kind: "ReplicationController"},
		Metadata: api.ObjectMeta{Namespace: "default", Name: "rc-" + string(uid), UID: uid, Finalizers: finalizers},
	}
	if len(finalizers) > 0 {
		ts := api.NewTime(testenv.Epoch())
		rc.Metadata.DeletionTimestamp = &ts
	}
	return rc
}

func testPod(uid api.UID, owners ...api.OwnerReference) *api.Pod {
	return &api.Pod{Metadata: api.ObjectMeta{Namespace: "default", Name: "pod-" + string(uid), UID: uid, OwnerReferences: owners}}
}

// gstep is one notification to the graph: observe obj, or remove it.
type gstep struct {
	obj    api.Object
	remove bool
}

func TestGraphNotifications(t *testing.T) {
	rcA := testRC("a")
	block, noBlock := ref(rcA), plainRef(rcA)
	no := false
	noBlock.BlockOwnerDeletion = &no
	for _, tc := range []struct {
		name     string
		before   []gstep
		step     gstep
		wantKeys []string
		// wantVirtual lists the UIDs that must be virtual nodes after the step;
		// wantAbsent those with no node.
		wantVirtual []api.UID
		wantAbsent  []api.UID
	}{
		{name: "dependent before its owner makes a virtual owner to verify",
			step: gstep{obj: testPod("p", block)}, wantKeys: []string{"delete/a"}, wantVirtual: []api.UID{"a"}},
		{name: "owner seen after its dependent is no longer virtual",
			before: []gstep{{obj: testPod("p", block)}}, step: gstep{obj: rcA}},
		{name: "dependent of a known owner calls for no work",
			before: []gstep{{obj: rcA}}, step: gstep{obj: testPod("p", block)}},
		{name: "owner starting a foreground deletion: itself and every dependent",
			before:   []gstep{{obj: rcA}, {obj: testPod("p2", block)}, {obj: testPod("p1", noBlock)}},
			step:     gstep{obj: testRC("a", api.FinalizerDeleteDependents)},
			wantKeys: []string{"delete/a", "delete/p1", "delete/p2"}},
		{name: "an owner still deleting in the foreground is not queued again",
			before: []gstep{{obj: rcA}, {obj: testPod("p", block)}, {obj: testRC("a", api.FinalizerDeleteDependents)}},
			step:   gstep{obj: testRC("a", api.FinalizerDeleteDependents)}},
		{name: "owner with the orphan finalizer",
			before: []gstep{{obj: rcA}}, step: gstep{obj: testRC("a", api.FinalizerOrphanDependents)}, wantKeys: []string{"orphan/a"}},
		{name: "blocking dependent gone: the waiting owner looks again",
			before:   []gstep{{obj: rcA}, {obj: testPod("p", block)}, {obj: testRC("a", api.FinalizerDeleteDependents)}},
			step:     gstep{obj: testPod("p", block), remove: true},
			wantKeys: []string{"delete/a"}, wantAbsent: []api.UID{"p"}},
		{name: "dependent no longer blocking: the waiting owner looks again",
			before:   []gstep{{obj: rcA}, {obj: testPod("p", block)}, {obj: testRC("a", api.FinalizerDeleteDependents)}},
			step:     gstep{obj: testPod("p", noBlock)},
			wantKeys: []string{"delete/a"}},
		{name: "non-blocking dependent gone: the waiting owner has nothing new",
			before: []gstep{{obj: rcA}, {obj: testPod("p", noBlock)}, {obj: testRC("a", api.FinalizerDeleteDependents)}},
			step:   gstep{obj: testPod("p", noBlock), remove: true}},
		{name: "owner removed: it stays virtual while dependents name it, and they look",
			before:   []gstep{{obj: rcA}, {obj: testPod("p", block)}},
			step:     gstep{obj: rcA, remove: true},
			wantKeys: []string{"delete/p"}, wantVirtual: []api.UID{"a"}},
		{name: "new dependent of an owner not yet seen: the owner is verified again",
			before: []gstep{{obj: testPod("p", block)}}, step: gstep{obj: testPod("q", block)},
			wantKeys: []string{"delete/a"}, wantVirtual: []api.UID{"a"}},
		{name: "new dependent of a removed owner that others still name: the owner is verified again",
			before: []gstep{{obj: rcA}, {obj: testPod("p", block)}, {obj: rcA, remove: true}},
			step:   gstep{obj: testPod("q", block)}, wantKeys: []string{"delete/a"}, wantVirtual: []api.UID{"a"}},
		{name: "dependent of a virtual owner updated, its reference unchanged: no work",
			before: []gstep{{obj: testPod("p", block)}}, step: gstep{obj: testPod("p", block)},
			wantVirtual: []api.UID{"a"}},
		{name: "last dependent of a virtual owner gone: the virtual node goes",
			before: []gstep{{obj: testPod("p", block)}}, step: gstep{obj: testPod("p", block), remove: true},
			wantAbsent: []api.UID{"a", "p"}},
		{name: "reference dropped: the virtual owner goes",
			before: []gstep{{obj: testPod("p", block)}}, step: gstep{obj: testPod("p")},
			wantAbsent: []api.UID{"a"}},
		{name: "blocking dependent of a waiting owner updated, its reference unchanged: no work",
			before: []gstep{{obj: rcA}, {obj: testPod("p", block)}, {obj: testRC("a", api.FinalizerDeleteDependents)}},
			step:   gstep{obj: testPod("p", block)}},
		{name: "owners reordered: no work, the edges stay",
			before: []gstep{{obj: rcA}, {obj: testRC("b")}, {obj: testPod("p", block, ref(testRC("b")))}},
			step:   gstep{obj: testPod("p", ref(testRC("b")), block)}},
		{name: "an owner not yet seen added next to a known one: it is verified",
			before: []gstep{{obj: rcA}, {obj: testPod("p", block)}},
			step:   gstep{obj: testPod("p", block, ref(testRC("b")))}, wantKeys: []string{"delete/b"}, wantVirtual: []api.UID{"b"}},
		{name: "removal of an object never seen is ignored",
			step: gstep{obj: testPod("p", block), remove: true}, wantAbsent: []api.UID{"p"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := newGraph()
			apply := func(s gstep) []string {
				if s.remove {
					return g.remove(s.obj)
				}
				k := podKind
				if _, ok := s.obj.(*api.ReplicationController); ok {
					k = rcKind
				}
				return g.observe(&k, s.obj)
			}
			for _, s := range tc.before {
				apply(s)
			}
			assert.Equal(t, tc.wantKeys, apply(tc.step))
			require.Empty(t, g.check(), "graph invariant")
			for _, uid := range tc.wantVirtual {
				n, ok := g.snapshot(uid)
				if assert.True(t, ok, "node %s", uid) {
					assert.True(t, n.virtual, "node %s is virtual", uid)
				}
			}
			for _, uid := range tc.wantAbsent {
				_, ok := g.snapshot(uid)
				assert.False(t, ok, "no node %s", uid)
			}
		})
	}
}

func TestGraphSnapshotBlockingDependents(t *testing.T) {
	rcA := testRC("a")
	no := false
	nonBlocking := ref(rcA)
	nonBlocking.BlockOwnerDeletion = &no
	g := newGraph()
	g.observe(&rcKind, rcA)
	g.observe(&podKind, testPod("p2", ref(rcA)))
	g.observe(&podKind, testPod("p1", nonBlocking))
	g.observe(&podKind, testPod("p3", plainRef(rcA)))

	n, ok := g.snapshot("a")
	require.True(t, ok)
	var deps, blocking []api.UID
	for _, d := range n.dependents {
		deps = append(deps, d.uid)
	}
	for _, d := range n.blocking {
		blocking = append(blocking, d.id.uid)
	}
	assert.Equal(t, []api.UID{"p1", "p2", "p3"}, deps, "dependents sorted by name")
	assert.Equal(t, []api.UID{"p2", "p3"}, blocking, "only references with blockOwnerDeletion block")
}

func TestSameEdges(t *testing.T) {
	a, b := testRC("a"), testRC("b")
	no := false
	aNoBlock := ref(a)
	aNoBlock.BlockOwnerDeletion = &no
	aRenamed := ref(a)
	aRenamed.Name = "renamed"
	aAbsent := ref(a)
	aAbsent.BlockOwnerDeletion = nil
	for _, tc := range []struct {
		name string
		x, y []api.OwnerReference
		want bool
	}{
		{"both empty", nil, []api.OwnerReference{}, true},
		{"same", []api.OwnerReference{ref(a), ref(b)}, []api.OwnerReference{ref(a), ref(b)}, true},
		{"other fields do not make edges", []api.OwnerReference{ref(a)}, []api.OwnerReference{aRenamed}, true},
		{"an absent flag blocks nothing, as false", []api.OwnerReference{aAbsent}, []api.OwnerReference{aNoBlock}, true},
		{"blocking changed", []api.OwnerReference{ref(a)}, []api.OwnerReference{aNoBlock}, false},
		{"owner added", []api.OwnerReference{ref(a)}, []api.OwnerReference{ref(a), ref(b)}, false},
		{"owner replaced", []api.OwnerReference{ref(a)}, []api.OwnerReference{ref(b)}, false},
		{"reordered", []api.OwnerReference{ref(a), ref(b)}, []api.OwnerReference{ref(b), ref(a)}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, sameEdges(tc.x, tc.y))
			assert.Equal(t, tc.want, sameEdges(tc.y, tc.x), "symmetric")
		})
	}
}

// TestUnchangedForGraph checks which updates the handler may skip, and
// that observing the new object after a skippable update would indeed
// change no node and call for no work.
func TestUnchangedForGraph(t *testing.T) {
	a, b := testRC("a"), testRC("b")
	no := false
	aNoBlock := ref(a)
	aNoBlock.BlockOwnerDeletion = &no
	deleting := func(finalizers ...string) func(*api.Pod) {
		return func(p *api.Pod) {
			ts := api.NewTime(testenv.Epoch())
			p.Metadata.DeletionTimestamp, p.Metadata.Finalizers = &ts, finalizers
		}
	}
	pod := func(change func(*api.Pod), refs ...api.OwnerReference) *api.Pod {
		p := testPod("p", refs...)
		if change != nil {
			change(p)
		}
		return p
	}
	for _, tc := range []struct {
		name     string
		old, cur *api.Pod
		want     bool
	}{
		{"status write", pod(nil, ref(a)), pod(func(p *api.Pod) { p.Status.Phase = api.PodRunning }, ref(a)), true},
		{"no owners", pod(nil), pod(nil), true},
		{"owner added", pod(nil, ref(a)), pod(nil, ref(a), ref(b)), false},
		{"blocking dropped", pod(nil, ref(a)), pod(nil, aNoBlock), false},
		{"another object under the name", pod(nil, ref(a)), pod(func(p *api.Pod) { p.Metadata.UID = "p2" }, ref(a)), false},
		{"deletion starts", pod(nil, ref(a)), pod(deleting(), ref(a)), false},
		{"still being deleted", pod(deleting(), ref(a)), pod(deleting(), ref(a)), true},
		{"foreground deletion starts", pod(deleting(), ref(a)), pod(deleting(api.FinalizerDeleteDependents), ref(a)), false},
		{"still deleting in the foreground", pod(deleting(api.FinalizerDeleteDependents), ref(a)), pod(deleting(api.FinalizerDeleteDependents), ref(a)), true},
		{"orphaning: queued on every update", pod(deleting(api.FinalizerOrphanDependents), ref(a)), pod(deleting(api.FinalizerOrphanDependents), ref(a)), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := unchangedForGraph(&tc.old.Metadata, &tc.cur.Metadata)
			assert.Equal(t, tc.want, got)
			if !got {
				return
			}
			g := newGraph()
			g.observe(&rcKind, a)
			g.observe(&podKind, tc.old)
			before, _ := g.snapshot("p")
			beforeOwner, _ := g.snapshot("a")
			assert.Empty(t, g.observe(&podKind, tc.cur), "no work")
			after, _ := g.snapshot("p")
			afterOwner, _ := g.snapshot("a")
			assert.Equal(t, before, after)
			assert.Equal(t, beforeOwner, afterOwner)
		})
	}
}

// TestGraphNodesShareTheirKind checks the kinds that nodes point to rather
// than copy: an observed node's is the one its observer passed, and a
// virtual owner's is what kindOfRef says of its reference (a bare kind for
// one the server does not serve), one kindInfo per kind however many
// owners name it; none of them is changed by what the graph does next.
func TestGraphNodesShareTheirKind(t *testing.T) {
	g := newGraph()
	rcA, rcB := testRC("a"), testRC("b")
	widget := api.OwnerReference{APIVersion: "example.com/v1", Kind: "Widget", Name: "w", UID: "w"}
	g.observe(&podKind, testPod("p1", ref(rcA)))
	g.observe(&podKind, testPod("p2", ref(rcB), widget))
	require.Empty(t, g.check())

	snap := func(uid api.UID) snapshot {
		s, ok := g.snapshot(uid)
		require.True(t, ok, "node %s", uid)
		return s
	}
	wantRC, ok := kindOfRef("v1", "ReplicationController")
	require.True(t, ok)
	assert.Equal(t, wantRC, *snap("a").id.kind, "a virtual owner's kind is its reference's")
	assert.Same(t, snap("a").id.kind, snap("b").id.kind, "owners of one kind share it")
	assert.Equal(t, kindInfo{kind: "Widget", group: "example.com"}, *snap("w").id.kind, "a kind the server does not serve")
	assert.Same(t, &podKind, snap("p1").id.kind, "an observed node keeps its observer's kind")

	g.observe(&rcKind, rcA) // the owner shows up: its node takes the observer's kind
	assert.Same(t, &rcKind, snap("a").id.kind)
	g.remove(rcB) // never observed: nothing changes
	assert.Equal(t, wantRC, *snap("b").id.kind, "shared kinds are never changed")
	assert.Equal(t, map[kindInfo]*kindInfo{wantRC: snap("b").id.kind, {kind: "Widget", group: "example.com"}: snap("w").id.kind}, g.kinds)
	require.Empty(t, g.check())
}
