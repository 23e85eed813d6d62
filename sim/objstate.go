package sim

import (
	"encoding/json"
	"reflect"

	"github.com/miniplane/miniplane/api"
)

// ObjState is what a trace's write line records of the object it wrote
// ("obj"): enough to rebuild the cluster views of a replay — pods on
// nodes with their phase and readiness, a replication controller's
// counts, a service's endpoints, the leader's lease — and no more, so a
// trace stays small. Fields that do not apply to the kind are left out.
type ObjState struct {
	// Gone says the write removed the object from the store.
	Gone bool `json:"gone,omitempty"`
	// Deleting says the object has a deletion timestamp (graceful
	// deletion or finalizers pending).
	Deleting bool `json:"deleting,omitempty"`
	// Pod: the node it is bound to, its phase, its Ready condition, and
	// the replication controller that owns it.
	Node  string `json:"node,omitempty"`
	Phase string `json:"phase,omitempty"`
	Ready *bool  `json:"ready,omitempty"`
	Owner string `json:"owner,omitempty"`
	// ReplicationController and ReplicaSet: spec.replicas, status.replicas
	// and status.readyReplicas.
	Desired *int32 `json:"desired,omitempty"`
	Current *int32 `json:"current,omitempty"`
	ReadyN  *int32 `json:"readyReplicas,omitempty"`
	// Endpoints: the pods behind the ready and not-ready addresses.
	Endpoints []string `json:"endpoints,omitempty"`
	NotReady  []string `json:"notReady,omitempty"`
	// Lease: its holder and transitions.
	Holder      string `json:"holder,omitempty"`
	Transitions *int32 `json:"transitions,omitempty"`
}

// kindOf returns an object's kind: its Go type's name, which is the
// Kubernetes kind for every api type.
func kindOf(obj api.Object) string {
	t := reflect.TypeOf(obj)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Name()
}

// stateOf returns obj's ObjState.
func stateOf(obj api.Object) ObjState {
	var st ObjState
	if m := obj.GetObjectMeta(); m.DeletionTimestamp != nil {
		st.Deleting = true
	}
	switch o := obj.(type) {
	case *api.Pod:
		st.Node, st.Phase = o.Spec.NodeName, string(o.Status.Phase)
		ready := false
		for _, c := range o.Status.Conditions {
			if c.Type == api.PodReady {
				ready = c.Status == api.ConditionTrue
			}
		}
		st.Ready = &ready
		for _, r := range o.Metadata.OwnerReferences {
			if r.Controller != nil && *r.Controller {
				st.Owner = r.Kind + " " + o.Metadata.Namespace + "/" + r.Name
			}
		}
	case *api.ReplicationController:
		st.Desired = o.Spec.Replicas
		st.Current, st.ReadyN = &o.Status.Replicas, &o.Status.ReadyReplicas
	case *api.ReplicaSet:
		st.Desired = o.Spec.Replicas
		st.Current, st.ReadyN = &o.Status.Replicas, &o.Status.ReadyReplicas
	case *api.Endpoints:
		st.Endpoints, st.NotReady = []string{}, []string{}
		for _, sub := range o.Subsets {
			st.Endpoints = appendAddresses(st.Endpoints, sub.Addresses)
			st.NotReady = appendAddresses(st.NotReady, sub.NotReadyAddresses)
		}
	case *api.Node:
		ready := nodeIsReady(o)
		st.Ready = &ready
	case *api.Lease:
		if o.Spec.HolderIdentity != nil {
			st.Holder = *o.Spec.HolderIdentity
		}
		st.Transitions = o.Spec.LeaseTransitions
	}
	return st
}

func appendAddresses(out []string, addrs []api.EndpointAddress) []string {
	for _, a := range addrs {
		if a.TargetRef != nil {
			out = append(out, a.TargetRef.Name)
		} else {
			out = append(out, a.IP)
		}
	}
	return out
}

// objJSON returns st as the compact JSON of a trace line's "obj".
func objJSON(st ObjState) string {
	b, err := json.Marshal(st)
	if err != nil {
		panic("sim: encoding an object's state: " + err.Error()) // plain fields only
	}
	return string(b)
}
