package garbagecollector

import (
	"cmp"
	"slices"
	"sync"

	"github.com/miniplane/miniplane/api"
)

// identity names one object: enough to read it live and to tell it from
// another object that later took its name. kind is never nil and what it
// points to never changes: it is shared by every object of the kind (the
// observers' kinds, or the graph's interned ones for owners known only
// from a reference), so that a node, one per object of the cluster, does
// not carry a copy of its kind's three strings.
type identity struct {
	kind      *kindInfo
	namespace string
	name      string
	uid       api.UID
}

// node is one object in the ownership graph. Kubernetes: graph.go's node.
type node struct {
	id identity
	// virtual: the object is referenced as an owner but no informer has shown
	// it (yet), or it was shown and deleted while dependents still name it.
	virtual bool
	// owners are the observed object's ownerReferences (nil while virtual),
	// shared with the cached object, which is immutable: read only.
	owners []api.OwnerReference
	// dependents are the nodes whose owners reference this node's UID; nil
	// until it has one (most objects, pods, never do).
	dependents map[api.UID]*node
	// beingDeleted: the object has a deletionTimestamp.
	beingDeleted bool
	// deletingDependents: it is being deleted in the foreground.
	deletingDependents bool
}

// graph is the owner→dependents graph built from informer notifications.
// Kubernetes: GraphBuilder's uidToNode.
//
// Invariant, checked by tests: for every observed node n and every owner
// reference r of n, nodes[r.UID] exists and its dependents hold n; every
// node in a dependents set is in nodes; a virtual node has dependents.
type graph struct {
	// mu guards nodes and every node in it, and kinds.
	mu    sync.Mutex
	nodes map[api.UID]*node
	// kinds holds one kindInfo per kind that virtual nodes' identities
	// name. Entries are never changed or removed.
	kinds map[kindInfo]*kindInfo
	// custom resolves references to custom kinds, besides the built-in
	// ones; it has a lock of its own.
	custom *customKinds
}

func newGraph() *graph {
	return &graph{nodes: make(map[api.UID]*node), kinds: make(map[kindInfo]*kindInfo), custom: &customKinds{}}
}

// kindLocked returns the graph's interned k.
func (g *graph) kindLocked(k kindInfo) *kindInfo {
	p, ok := g.kinds[k]
	if !ok {
		p = new(kindInfo) // not &k: k would be moved to the heap on every call
		*p = k
		g.kinds[k] = p
	}
	return p
}

// Work keys: the queue holds "delete/<uid>" and "orphan/<uid>".
const (
	deletePrefix = "delete/"
	orphanPrefix = "orphan/"
)

func deleteKey(uid api.UID) string { return deletePrefix + string(uid) }
func orphanKey(uid api.UID) string { return orphanPrefix + string(uid) }

// observe records an added or updated object of kind k and returns the work
// keys the change calls for, in a deterministic order. The node keeps k,
// which must never change: the caller passes the same k for every object
// of the kind.
func (g *graph) observe(k *kindInfo, obj api.Object) []string {
	m := obj.GetObjectMeta()
	g.mu.Lock()
	defer g.mu.Unlock()

	n := g.nodes[m.UID]
	var oldOwners []api.OwnerReference
	wasDeletingDependents := false
	if n == nil {
		n = &node{}
		g.nodes[m.UID] = n
	} else {
		oldOwners = n.owners
		wasDeletingDependents = n.deletingDependents
	}
	n.id = identity{kind: k, namespace: m.Namespace, name: m.Name, uid: m.UID}
	n.virtual = false
	n.owners = m.OwnerReferences
	n.beingDeleted = m.DeletionTimestamp != nil
	n.deletingDependents = deletingDependents(m)

	var keys []string
	if !sameEdges(oldOwners, n.owners) {
		keys = g.relinkLocked(n, oldOwners, n.owners)
	}
	if orphaning(m) {
		keys = append(keys, orphanKey(m.UID))
	}
	if n.deletingDependents && !wasDeletingDependents {
		// It starts waiting: its dependents are to go, and it may have none.
		keys = append(keys, deleteKey(m.UID))
		for _, d := range sortedNodes(n.dependents) {
			keys = append(keys, deleteKey(d.id.uid))
		}
	}
	return keys
}

// unchangedForGraph reports whether an update of an object from old to cur
// leaves the graph as it is and calls for no work, so that the handler
// need not observe cur (a status write, most of a pod's updates, takes no
// lock then and looks up no node). It holds when the object is the same
// (UID), with the same edges (sameEdges), its deletion neither starting
// nor moving to or from the foreground, and no orphaning, whose every
// update observe queues again. The informer hands a handler an update
// only for an object it handed it before, so the graph holds old as
// observed. Kubernetes' GraphBuilder acts on an update only through its
// owner references' diff and the deletion transitions, as this does.
func unchangedForGraph(old, cur *api.ObjectMeta) bool {
	return old.UID == cur.UID &&
		(old.DeletionTimestamp == nil) == (cur.DeletionTimestamp == nil) &&
		deletingDependents(old) == deletingDependents(cur) &&
		!orphaning(cur) &&
		sameEdges(old.OwnerReferences, cur.OwnerReferences)
}

// remove records an object's deletion and returns the work keys it calls
// for: its dependents lost an owner, and owners waiting on it may be done.
func (g *graph) remove(obj api.Object) []string {
	m := obj.GetObjectMeta()
	g.mu.Lock()
	defer g.mu.Unlock()
	n := g.nodes[m.UID]
	if n == nil || n.virtual {
		return nil
	}
	return g.removeLocked(n)
}

// removeLocked is remove of the observed node n.
func (g *graph) removeLocked(n *node) []string {
	keys := g.relinkLocked(n, n.owners, nil)
	n.owners = nil
	if len(n.dependents) == 0 {
		delete(g.nodes, n.id.uid)
		return keys
	}
	// Dependents still name it: keep it as a virtual node until they drop
	// the reference or go, and let each decide now.
	n.virtual, n.beingDeleted, n.deletingDependents = true, false, false
	for _, d := range sortedNodes(n.dependents) {
		keys = append(keys, deleteKey(d.id.uid))
	}
	return keys
}

// relinkLocked moves n's edges from the old owner references to the new
// ones and returns the work keys that calls for: an owner newly referenced
// that no informer shows — never seen, or removed while other dependents
// still name it — is a virtual node to verify (again), so that a dependent
// seen only after its owner went is collected too; an owner waiting for
// its dependents that n stops blocking is to look again.
func (g *graph) relinkLocked(n *node, oldRefs, newRefs []api.OwnerReference) []string {
	var keys []string
	for _, old := range oldRefs {
		i := slices.IndexFunc(newRefs, func(r api.OwnerReference) bool { return r.UID == old.UID })
		o := g.nodes[old.UID]
		if o == nil {
			continue
		}
		if i < 0 {
			delete(o.dependents, n.id.uid)
			if o.virtual && len(o.dependents) == 0 {
				delete(g.nodes, old.UID)
				continue
			}
		}
		if o.deletingDependents && blocks(old) && (i < 0 || !blocks(newRefs[i])) {
			keys = append(keys, deleteKey(old.UID))
		}
	}
	for _, ref := range newRefs {
		if slices.ContainsFunc(oldRefs, func(r api.OwnerReference) bool { return r.UID == ref.UID }) {
			continue
		}
		o := g.nodes[ref.UID]
		if o == nil {
			o = &node{virtual: true, id: g.virtualIdentityLocked(n.id, ref)}
			g.nodes[ref.UID] = o
		}
		if o.dependents == nil {
			o.dependents = make(map[api.UID]*node)
		}
		o.dependents[n.id.uid] = n
		if o.virtual {
			// An earlier check of it may have found it absent and queued
			// only the dependents it had then.
			keys = append(keys, deleteKey(ref.UID))
		}
	}
	return keys
}

// sameEdges reports whether two lists of owner references make the same
// edges: the same owners, in the same order, each blocking its owner's
// deletion or not alike. relinkLocked would then find every reference in
// both lists and change nothing, so observe skips it: most updates (every
// status write) keep an object's references, and relinking costs a map
// lookup per owner. Kubernetes' referencesDiffs finds no difference
// either.
func sameEdges(a, b []api.OwnerReference) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].UID != b[i].UID || blocks(a[i]) != blocks(b[i]) {
			return false
		}
	}
	return true
}

// virtualIdentityLocked is the identity of an owner known only from a reference
// of dependent: in the dependent's namespace when its kind is namespaced.
func (g *graph) virtualIdentityLocked(dependent identity, ref api.OwnerReference) identity {
	k, ok := g.custom.lookup(ref.APIVersion, ref.Kind)
	if !ok {
		k = kindInfo{kind: ref.Kind, group: groupOf(ref.APIVersion)}
	}
	id := identity{kind: g.kindLocked(k), name: ref.Name, uid: ref.UID}
	if k.namespaced || !ok {
		// A kind not (yet) served is kept in the dependent's namespace:
		// adoptKind clears it if the kind turns out cluster-scoped.
		id.namespace = dependent.namespace
	}
	return id
}

// adoptKind gives the virtual owners of a kind not served so far — their
// kind has its group and name but no resource — the kind k, now served,
// and returns the work keys to verify them: an owner named before its
// definition was established is then read live like any other.
func (g *graph) adoptKind(k kindInfo) []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	p := g.kindLocked(k)
	var adopted []*node
	for _, n := range g.nodes {
		if n.virtual && n.id.kind.resource == "" && n.id.kind.kind == k.kind && n.id.kind.group == k.group {
			adopted = append(adopted, n)
		}
	}
	var keys []string
	for _, n := range sortedNodes(nodeSet(adopted)) {
		n.id.kind = p
		if !k.namespaced {
			n.id.namespace = ""
		}
		keys = append(keys, deleteKey(n.id.uid))
	}
	return keys
}

// removeKind removes every observed node of the kind k points to, as if
// its informer had shown each deleted, and returns the work keys that
// calls for: the collector stops watching a kind whose definition went,
// with every object of it.
func (g *graph) removeKind(k *kindInfo) []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	var gone []*node
	for _, n := range g.nodes {
		if !n.virtual && n.id.kind == k {
			gone = append(gone, n)
		}
	}
	var keys []string
	for _, n := range sortedNodes(nodeSet(gone)) {
		keys = append(keys, g.removeLocked(n)...)
	}
	return keys
}

// nodeSet returns the nodes as a set by UID.
func nodeSet(nodes []*node) map[api.UID]*node {
	out := make(map[api.UID]*node, len(nodes))
	for _, n := range nodes {
		out[n.id.uid] = n
	}
	return out
}

// sortedNodes returns the nodes of set by namespace, name and UID.
func sortedNodes(set map[api.UID]*node) []*node {
	out := make([]*node, 0, len(set))
	for _, n := range set {
		out = append(out, n)
	}
	slices.SortFunc(out, func(a, b *node) int {
		return cmp.Or(cmp.Compare(a.id.namespace, b.id.namespace), cmp.Compare(a.id.name, b.id.name), cmp.Compare(a.id.uid, b.id.uid))
	})
	return out
}

// snapshot is a copy of what a sync needs of a node, read under the lock.
type snapshot struct {
	id                 identity
	virtual            bool
	beingDeleted       bool
	deletingDependents bool
	// dependents are the node's dependents, sorted; blocking those whose
	// reference to the node has blockOwnerDeletion, with whether each is
	// itself deleting dependents.
	dependents []identity
	blocking   []blockingDependent
	// dependentDeletingDependents: some dependent is being deleted in the
	// foreground.
	dependentDeletingDependents bool
}

type blockingDependent struct {
	id                 identity
	deletingDependents bool
}

// snapshot returns a copy of the node of uid, or false when there is none.
func (g *graph) snapshot(uid api.UID) (snapshot, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := g.nodes[uid]
	if n == nil {
		return snapshot{}, false
	}
	s := snapshot{id: n.id, virtual: n.virtual, beingDeleted: n.beingDeleted, deletingDependents: n.deletingDependents}
	for _, d := range sortedNodes(n.dependents) {
		s.dependents = append(s.dependents, d.id)
		s.dependentDeletingDependents = s.dependentDeletingDependents || d.deletingDependents
		for _, ref := range d.owners {
			if ref.UID == uid && blocks(ref) {
				s.blocking = append(s.blocking, blockingDependent{id: d.id, deletingDependents: d.deletingDependents})
				break
			}
		}
	}
	return s, true
}

// check returns the first violation of the graph's invariant, or "".
func (g *graph) check() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	for uid, n := range g.nodes {
		if n.id.uid != uid {
			return "node " + string(uid) + " has identity " + string(n.id.uid)
		}
		if n.virtual && len(n.dependents) == 0 {
			return "virtual node " + string(uid) + " has no dependents"
		}
		for duid, d := range n.dependents {
			if g.nodes[duid] != d {
				return "dependent " + string(duid) + " of " + string(uid) + " is not in the graph"
			}
			if !slices.ContainsFunc(d.owners, func(r api.OwnerReference) bool { return r.UID == uid }) {
				return "dependent " + string(duid) + " of " + string(uid) + " does not reference it"
			}
		}
		for _, ref := range n.owners {
			o := g.nodes[ref.UID]
			if o == nil || o.dependents[uid] != n {
				return "owner " + string(ref.UID) + " of " + string(uid) + " does not list it"
			}
		}
	}
	return ""
}
