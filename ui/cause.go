package ui

import (
	"github.com/miniplane/miniplane/api"
)

// Cause is the reconcile that made a controller's write and the watch
// event that started that reconcile.
type Cause struct {
	// Controller is the controller's name (its field manager, as
	// controllers/manager names them: "replicationcontroller", "endpoint").
	Controller string `json:"controller"`
	// Key is the workqueue key the reconcile synced ("default/web").
	Key string `json:"key"`
	// Reconcile is the reconcile's sequence number in its controller; 0
	// when not known (inferred causes).
	Reconcile int64 `json:"reconcile,omitempty"`
	// TriggerRevision is the revision of the write whose watch event
	// enqueued Key; 0 when none is in the history window.
	TriggerRevision int64 `json:"triggerRevision,omitempty"`
	// Inferred says the cause was inferred from the objects by Rule
	// rather than reported by the controller.
	Inferred bool   `json:"inferred,omitempty"`
	Rule     string `json:"rule,omitempty"`
}

// Causes is the seam for exact causes: the plane fills it once the
// controllers report each reconcile (controller, key, sequence number, the
// revision of the event that enqueued the key) and the revisions of the
// writes it made. CauseOf returns the cause of the write at rev, if it
// knows it; the timeline infers the causes of the rest (see scanner).
type Causes interface {
	CauseOf(rev int64) (Cause, bool)
}

// Inference rules, named in Cause.Rule.
const (
	// RuleOwner: a replication controller's write to a pod it owns (by
	// its controller ownerReference) or to its own status was made by a
	// reconcile of the owner's key. The reconcile that created or deleted
	// pods was started by what changes how many it wants or has: the
	// latest earlier write to the owner's spec (its creation included) or,
	// by another writer, one that ended an owned pod (deleted it, marked it
	// for deletion, or finished it). A status write may also follow any
	// other writer's change to an owned pod (its readiness counts). The
	// controller's own writes re-enqueue it too, but those reconciles only
	// confirm what it did; bindings and kubelet updates change no count.
	RuleOwner = "owner"
	// RuleService: the endpoints controller's write to Endpoints ns/name
	// was made by a reconcile of the service ns/name, started by the
	// latest earlier write to that service or to a pod in its namespace
	// by another writer.
	RuleService = "service"
)

// scanner infers causes while the history is read in revision order: it
// remembers, per reconcile key, the latest write that could have enqueued
// it.
type scanner struct {
	exact Causes
	// ownerCount and ownerAny are, per "namespace/rc", the latest write
	// that changed the replicas wanted or had, and the latest that
	// changed anything the status counts (RuleOwner).
	ownerCount, ownerAny map[string]int64
	// serviceInput is, per "namespace/service", the latest write to the
	// service, and podInput per namespace the latest pod write by another
	// writer than the endpoints controller (RuleService).
	serviceInput map[string]int64
	podInput     map[string]int64
}

func (h *Handler) newScanner() *scanner {
	return &scanner{exact: h.cfg.Causes, ownerCount: map[string]int64{}, ownerAny: map[string]int64{}, serviceInput: map[string]int64{}, podInput: map[string]int64{}}
}

// The controllers' field managers, as controllers/manager names them (its
// constants; ui does not import the manager).
const (
	replicationManager = "replicationcontroller"
	endpointsManager   = "endpoint"
)

// add reads one write, in revision order, and returns its row with its
// cause filled when one is known or can be inferred.
func (sc *scanner) add(s scanned) *Row {
	row := s.row
	if sc.exact != nil {
		if c, ok := sc.exact.CauseOf(row.Revision); ok {
			row.Cause = &c
		}
	}
	obj := s.cur
	if obj == nil {
		obj = s.prev
	}
	m := obj.GetObjectMeta()
	switch o := obj.(type) {
	case *api.ReplicationController:
		key := m.Namespace + "/" + m.Name
		if row.Actor == replicationManager {
			sc.infer(row, RuleOwner, replicationManager, key, max(sc.ownerCount[key], sc.ownerAny[key]))
		} else if specChanged(s.prev, s.cur) {
			sc.ownerCount[key] = row.Revision
		}
	case *api.Pod:
		if ref := controllerOf(m); ref != nil && ref.Kind == "ReplicationController" {
			key := m.Namespace + "/" + ref.Name
			switch {
			case row.Actor == replicationManager:
				sc.infer(row, RuleOwner, replicationManager, key, sc.ownerCount[key])
			case podEnded(s.prev, s.cur):
				sc.ownerCount[key] = row.Revision
				sc.ownerAny[key] = row.Revision
			default:
				sc.ownerAny[key] = row.Revision
			}
		}
		if row.Actor != endpointsManager {
			sc.podInput[m.Namespace] = row.Revision
		}
	case *api.Service:
		sc.serviceInput[m.Namespace+"/"+m.Name] = row.Revision
	case *api.Endpoints:
		if row.Actor == endpointsManager {
			key := m.Namespace + "/" + o.Metadata.Name
			sc.infer(row, RuleService, endpointsManager, key, max(sc.serviceInput[key], sc.podInput[m.Namespace]))
		}
	}
	return row
}

// infer fills row's cause by rule unless an exact one is known.
func (sc *scanner) infer(row *Row, rule, controller, key string, trigger int64) {
	if row.Cause != nil {
		return
	}
	row.Cause = &Cause{Controller: controller, Key: key, TriggerRevision: trigger, Inferred: true, Rule: rule}
}

// controllerOf returns the ownerReference with controller: true, or nil.
func controllerOf(m *api.ObjectMeta) *api.OwnerReference {
	for i, r := range m.OwnerReferences {
		if r.Controller != nil && *r.Controller {
			return &m.OwnerReferences[i]
		}
	}
	return nil
}

// specChanged says whether a replication controller write created it or
// changed its spec: what can ask its controller for different pods.
func specChanged(prev, cur api.Object) bool {
	if prev == nil || cur == nil {
		return true
	}
	return prev.GetObjectMeta().Generation != cur.GetObjectMeta().Generation
}

// podEnded says whether a write took a pod out of its controller's count:
// deleted it, marked it for deletion, or moved it to Succeeded or Failed.
func podEnded(prev, cur api.Object) bool {
	if cur == nil {
		return true
	}
	c := cur.(*api.Pod)
	if !api.IsPodActive(c) {
		p, ok := prev.(*api.Pod)
		return !ok || api.IsPodActive(p)
	}
	return false
}
