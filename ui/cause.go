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
	// Rollout, for a write made on a Deployment's behalf (to it, to a
	// ReplicaSet it controls or to one of their pods), is the write to
	// the Deployment's spec that started the rollout the write belongs
	// to — typically `kubectl set image` — when it is in the history
	// window. The chain of triggers leads there too, one reconcile at a
	// time; this is the shortcut.
	Rollout *RolloutStart `json:"rollout,omitempty"`
}

// RolloutStart is the write that gave a Deployment its current template
// (or replicas): its creation or its latest spec change.
type RolloutStart struct {
	// Deployment is "namespace/name".
	Deployment string `json:"deployment"`
	Revision   int64  `json:"revision"`
	Actor      string `json:"actor"`
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
	// RuleOwner: a workload controller's write to an object it controls
	// (by its controller ownerReference) or to its owner's status was
	// made by a reconcile of the owner's key. The owners are replication
	// controllers and ReplicaSets (of pods, by the replication and replica
	// set controllers) and Deployments (of ReplicaSets, by the deployment
	// controller). The reconcile that created or deleted pods was started
	// by what changes how many it wants or has: the latest earlier write to
	// the owner's spec (its creation included; for a ReplicaSet, the
	// deployment controller scaling it is one) or, by another writer, one
	// that ended an owned pod (deleted it, marked it for deletion, or
	// finished it). A status write may also follow any other writer's
	// change to an owned pod (its readiness counts). A Deployment's
	// reconcile, which creates and scales its ReplicaSets, follows the
	// latest write to its spec or to one of its ReplicaSets by another
	// writer (their status: new pods ready, so old ones may go). The
	// controllers' own writes re-enqueue them too, but those reconciles
	// only confirm what they did; bindings and kubelet updates change no
	// count.
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
	// ownerCount and ownerAny are, per owner ("Kind/namespace/name" of a
	// ReplicationController, ReplicaSet or Deployment), the latest write
	// that changed the replicas wanted or had, and the latest that
	// changed anything its status counts (RuleOwner).
	ownerCount, ownerAny map[string]int64
	// serviceInput is, per "namespace/service", the latest write to the
	// service, and podInput per namespace the latest pod write by another
	// writer than the endpoints controller (RuleService).
	serviceInput map[string]int64
	podInput     map[string]int64
	// rollouts is, per Deployment "namespace/name", the write that
	// started its current rollout; deploymentOf maps a ReplicaSet's
	// "namespace/name" to its Deployment's (Cause.Rollout).
	rollouts     map[string]RolloutStart
	deploymentOf map[string]string
}

func (h *Handler) newScanner() *scanner {
	return &scanner{exact: h.cfg.Causes, ownerCount: map[string]int64{}, ownerAny: map[string]int64{},
		serviceInput: map[string]int64{}, podInput: map[string]int64{},
		rollouts: map[string]RolloutStart{}, deploymentOf: map[string]string{}}
}

// The controllers' field managers, as controllers/manager names them (its
// constants; ui does not import the manager).
const (
	replicationManager = "replicationcontroller"
	replicaSetManager  = "replicaset"
	deploymentManager  = "deployment"
	endpointsManager   = "endpoint"
)

// podManager is the controller that manages pods owned by a kind, or "".
func podManager(ownerKind string) string {
	switch ownerKind {
	case "ReplicationController":
		return replicationManager
	case "ReplicaSet":
		return replicaSetManager
	}
	return ""
}

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
	nsName := m.Namespace + "/" + m.Name
	deployment := "" // the Deployment the write was made for, if any
	switch o := obj.(type) {
	case *api.ReplicationController:
		sc.ownerWrite(row, s, replicationManager, "ReplicationController/"+nsName, nsName)
	case *api.ReplicaSet:
		sc.ownerWrite(row, s, replicaSetManager, "ReplicaSet/"+nsName, nsName)
		if ref := controllerOf(m); ref != nil && ref.Kind == "Deployment" {
			deployment = m.Namespace + "/" + ref.Name
			sc.deploymentOf[nsName] = deployment
			owner := "Deployment/" + deployment
			if row.Actor == deploymentManager {
				sc.infer(row, RuleOwner, deploymentManager, deployment, max(sc.ownerCount[owner], sc.ownerAny[owner]))
			} else {
				sc.ownerAny[owner] = row.Revision
			}
		}
	case *api.Deployment:
		deployment = nsName
		sc.ownerWrite(row, s, deploymentManager, "Deployment/"+nsName, nsName)
		if row.Actor != deploymentManager && s.cur != nil && specChanged(s.prev, s.cur) {
			sc.rollouts[nsName] = RolloutStart{Deployment: nsName, Revision: row.Revision, Actor: row.Actor}
		}
	case *api.Pod:
		if ref := controllerOf(m); ref != nil {
			if manager := podManager(ref.Kind); manager != "" {
				key := m.Namespace + "/" + ref.Name
				owner := ref.Kind + "/" + key
				switch {
				case row.Actor == manager:
					sc.infer(row, RuleOwner, manager, key, sc.ownerCount[owner])
				case podEnded(s.prev, s.cur):
					sc.ownerCount[owner] = row.Revision
					sc.ownerAny[owner] = row.Revision
				default:
					sc.ownerAny[owner] = row.Revision
				}
				if ref.Kind == "ReplicaSet" {
					deployment = sc.deploymentOf[key]
				}
			}
		}
		if row.Actor != endpointsManager {
			sc.podInput[m.Namespace] = row.Revision
		}
	case *api.Service:
		sc.serviceInput[nsName] = row.Revision
	case *api.Endpoints:
		if row.Actor == endpointsManager {
			key := m.Namespace + "/" + o.Metadata.Name
			sc.infer(row, RuleService, endpointsManager, key, max(sc.serviceInput[key], sc.podInput[m.Namespace]))
		}
	}
	if start, ok := sc.rollouts[deployment]; ok && row.Cause != nil && start.Revision < row.Revision {
		c := *row.Cause
		c.Rollout = &start
		row.Cause = &c
	}
	return row
}

// ownerWrite reads a write to an owner, whose controller is manager and
// reconcile key key: the controller's own write (its status, mostly) has
// a cause; another writer's change to its spec is a trigger (RuleOwner).
func (sc *scanner) ownerWrite(row *Row, s scanned, manager, owner, key string) {
	if row.Actor == manager {
		sc.infer(row, RuleOwner, manager, key, max(sc.ownerCount[owner], sc.ownerAny[owner]))
	} else if specChanged(s.prev, s.cur) {
		sc.ownerCount[owner] = row.Revision
	}
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

// specChanged says whether a write to a workload created it or changed
// its spec (its generation): what can ask its controller for different
// pods or ReplicaSets.
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
