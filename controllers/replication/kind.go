package replication

import (
	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/client"
)

// The controller is one implementation with two front-ends, as in
// Kubernetes, where the replication manager is the ReplicaSet controller
// fed ReplicationControllers converted to ReplicaSets
// (pkg/controller/replication/conversion.go). Here nothing is converted
// wholesale: each front-end is a kind, a small adapter that reads its
// objects into an rsView — the fields the shared core reads, pointing into
// the cached object — and writes a status back in its own shape. The
// core's status is the ReplicaSet's, as upstream.

// kind is one front-end: the names of the kind the controller manages and
// the adapter between its objects and the core.
type kind struct {
	// name is the controller's name in logs and the loop ("replication",
	// "replicaset"); queue is its work queue's name, as Kubernetes names it.
	name, queue string
	// resource, kindName and apiVersion name the kind: in requests, and in
	// the controller references the controller writes and recognizes.
	resource, kindName, apiVersion string
	adapter
}

// adapter reads and writes one kind's objects for the core. Its methods
// take the kind's objects only, and copy nothing they need not.
type adapter interface {
	// view returns the core's view of obj, as cached: it shares obj.
	view(obj api.Object) rsView
	// status returns obj's status in the ReplicaSet's shape; its
	// conditions may share obj's.
	status(obj api.Object) api.ReplicaSetStatus
	// withStatus returns a shallow copy of obj whose status is st, to
	// write: it shares the rest with obj.
	withStatus(obj api.Object, st api.ReplicaSetStatus) api.Object
	// typed returns obj with its kind and apiVersion set, for an event:
	// obj itself if they are set, else a shallow copy with them.
	typed(obj api.Object) api.Object
}

// rsView is what the core reads of one ReplicationController or
// ReplicaSet: Kubernetes' core sees both as a ReplicaSet. It points into the
// cached object, which nobody changes.
type rsView struct {
	obj             api.Object
	meta            *api.ObjectMeta
	replicas        int32 // spec.replicas, nil read as 1 (the server's default)
	minReadySeconds int32
	template        *api.PodTemplateSpec // nil only for an RC without one
	// The selector: an RC's equality set (set), or a ReplicaSet's label
	// selector (labelSelector, with set its matchLabels).
	set           map[string]string
	labelSelector *api.LabelSelector
}

// selectsNothing reports whether the selector is empty. The server refuses
// an empty selector on both kinds; were one stored, it would claim every
// pod of the namespace, so the core leaves such an object alone.
func (v *rsView) selectsNothing() bool {
	if v.labelSelector == nil {
		return len(v.set) == 0
	}
	return len(v.labelSelector.MatchLabels) == 0 && len(v.labelSelector.MatchExpressions) == 0
}

// selector returns the view's selector as an api.Selector, for listing
// with a lister. It fails on a ReplicaSet selector the server would have
// refused (an unknown operator, a bad key).
func (v *rsView) selector() (api.Selector, error) {
	if v.labelSelector == nil {
		return api.SelectorFromSet(v.set), nil
	}
	return api.LabelSelectorAsSelector(v.labelSelector)
}

// matcher returns a labelMatcher for the view's selector, reading an
// equality set's pairs into buf. A set-only selector (every RC, and a
// ReplicaSet with matchLabels only) is matched as pairs, the fast way; a
// ReplicaSet with matchExpressions through its api.Selector.
func (v *rsView) matcher(buf []api.LabelPair) (labelMatcher, error) {
	if v.labelSelector == nil || len(v.labelSelector.MatchExpressions) == 0 {
		return newLabelMatcher(buf, v.set), nil
	}
	sel, err := api.LabelSelectorAsSelector(v.labelSelector)
	if err != nil {
		return labelMatcher{}, err
	}
	return labelMatcher{sel: &sel}, nil
}

// matches reports whether the selector matches labels, for one object
// (the pod handlers' question). An invalid selector matches nothing.
func (v *rsView) matches(labels map[string]string) bool {
	if v.labelSelector == nil || len(v.labelSelector.MatchExpressions) == 0 {
		return matchesSet(v.set, labels)
	}
	sel, err := api.LabelSelectorAsSelector(v.labelSelector)
	return err == nil && sel.Matches(labels)
}

// templateLabels returns the labels of the pods the view creates.
func (v *rsView) templateLabels() map[string]string {
	if v.template == nil {
		return nil
	}
	return v.template.Metadata.Labels
}

// rcKind is the ReplicationController front-end: Kubernetes'
// pkg/controller/replication.
func rcKind() kind {
	return kind{
		name: "replication", queue: "replicationmanager",
		resource: client.ReplicationControllers, kindName: "ReplicationController", apiVersion: "v1",
		adapter: rcAdapter{},
	}
}

// rsKind is the ReplicaSet front-end: Kubernetes' pkg/controller/replicaset.
func rsKind() kind {
	return kind{
		name: "replicaset", queue: "replicaset",
		resource: client.ReplicaSets, kindName: "ReplicaSet", apiVersion: "apps/v1",
		adapter: rsAdapter{},
	}
}

// rcAdapter adapts *api.ReplicationController.
type rcAdapter struct{}

func (rcAdapter) view(obj api.Object) rsView {
	rc := obj.(*api.ReplicationController)
	return rsView{
		obj: rc, meta: &rc.Metadata, replicas: replicasOf(rc.Spec.Replicas),
		minReadySeconds: rc.Spec.MinReadySeconds, template: rc.Spec.Template, set: rc.Spec.Selector,
	}
}

func (rcAdapter) status(obj api.Object) api.ReplicaSetStatus {
	s := &obj.(*api.ReplicationController).Status
	out := api.ReplicaSetStatus{
		Replicas: s.Replicas, FullyLabeledReplicas: s.FullyLabeledReplicas, ReadyReplicas: s.ReadyReplicas,
		AvailableReplicas: s.AvailableReplicas, ObservedGeneration: s.ObservedGeneration,
	}
	if len(s.Conditions) > 0 {
		out.Conditions = make([]api.ReplicaSetCondition, len(s.Conditions))
		for i, c := range s.Conditions {
			out.Conditions[i] = api.ReplicaSetCondition{
				Type: string(c.Type), Status: c.Status, LastTransitionTime: c.LastTransitionTime,
				Reason: c.Reason, Message: c.Message,
			}
		}
	}
	return out
}

func (rcAdapter) withStatus(obj api.Object, st api.ReplicaSetStatus) api.Object {
	next := *obj.(*api.ReplicationController)
	next.Status = api.ReplicationControllerStatus{
		Replicas: st.Replicas, FullyLabeledReplicas: st.FullyLabeledReplicas, ReadyReplicas: st.ReadyReplicas,
		AvailableReplicas: st.AvailableReplicas, ObservedGeneration: st.ObservedGeneration,
	}
	if len(st.Conditions) > 0 {
		next.Status.Conditions = make([]api.ReplicationControllerCondition, len(st.Conditions))
		for i, c := range st.Conditions {
			next.Status.Conditions[i] = api.ReplicationControllerCondition{
				Type: api.ReplicationControllerConditionType(c.Type), Status: c.Status,
				LastTransitionTime: c.LastTransitionTime, Reason: c.Reason, Message: c.Message,
			}
		}
	}
	return &next
}

func (rcAdapter) typed(obj api.Object) api.Object {
	rc := obj.(*api.ReplicationController)
	if rc.Kind != "" {
		return rc
	}
	cp := *rc
	cp.TypeMeta = api.TypeMeta{APIVersion: "v1", Kind: "ReplicationController"}
	return &cp
}

// rsAdapter adapts *api.ReplicaSet.
type rsAdapter struct{}

func (rsAdapter) view(obj api.Object) rsView {
	rs := obj.(*api.ReplicaSet)
	v := rsView{
		obj: rs, meta: &rs.Metadata, replicas: replicasOf(rs.Spec.Replicas),
		minReadySeconds: rs.Spec.MinReadySeconds, template: &rs.Spec.Template,
		labelSelector: rs.Spec.Selector,
	}
	if v.labelSelector == nil {
		v.labelSelector = &api.LabelSelector{} // selects nothing here (selectsNothing)
	}
	v.set = v.labelSelector.MatchLabels
	return v
}

func (rsAdapter) status(obj api.Object) api.ReplicaSetStatus {
	return obj.(*api.ReplicaSet).Status
}

func (rsAdapter) withStatus(obj api.Object, st api.ReplicaSetStatus) api.Object {
	next := *obj.(*api.ReplicaSet)
	next.Status = st
	return &next
}

// replicasOf returns spec.replicas; nil means 1, the server's default.
func replicasOf(replicas *int32) int32 {
	if replicas == nil {
		return 1
	}
	return *replicas
}

func (rsAdapter) typed(obj api.Object) api.Object {
	rs := obj.(*api.ReplicaSet)
	if rs.Kind != "" {
		return rs
	}
	cp := *rs
	cp.TypeMeta = api.TypeMeta{APIVersion: "apps/v1", Kind: "ReplicaSet"}
	return &cp
}
