package sim

import (
	"encoding/json"
	"reflect"
	"sync"

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
	// Custom says the object is a custom resource, of a kind a
	// CustomResourceDefinition serves; Generation is its
	// metadata.generation. A custom resource's Owner is its controller
	// reference, as a pod's is; so is the Owner of any object a custom
	// resource controls (an operator's ConfigMap), so that a replay can
	// draw what each custom resource owns.
	Custom     bool   `json:"custom,omitempty"`
	Generation *int64 `json:"generation,omitempty"`
}

// kindOf returns an object's kind: its Go type's name, which is the
// Kubernetes kind for every api type, and for a custom resource (which
// has no Go type of its own) the kind it says it is.
func kindOf(obj api.Object) string {
	if u, ok := obj.(*api.Unstructured); ok {
		return u.Kind
	}
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
	if owner, ok := customOwner(obj); ok {
		st.Owner = owner
	}
	switch o := obj.(type) {
	case *api.Unstructured:
		st.Custom = true
		gen := o.Metadata.Generation
		st.Generation = &gen
		st.Owner = controllerOf(o.Metadata)
	case *api.Pod:
		st.Node, st.Phase = o.Spec.NodeName, string(o.Status.Phase)
		ready := false
		for _, c := range o.Status.Conditions {
			if c.Type == api.PodReady {
				ready = c.Status == api.ConditionTrue
			}
		}
		st.Ready = &ready
		st.Owner = controllerOf(o.Metadata)
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

// controllerOf names the object m's controller reference points to, as
// a trace key ("ReplicationController default/web"); "" when none.
func controllerOf(m api.ObjectMeta) string {
	for _, r := range m.OwnerReferences {
		if r.Controller != nil && *r.Controller {
			return r.Kind + " " + m.Namespace + "/" + r.Name
		}
	}
	return ""
}

// builtinKinds holds "apiVersion kind" of every api type, built once and
// only read after.
var builtinKinds = sync.OnceValue(func() map[string]bool {
	out := map[string]bool{}
	for _, t := range api.RegisteredTypes() {
		out[t.APIVersion()+" "+t.Kind] = true
	}
	return out
})

// customOwner returns controllerOf obj when that controller is a custom
// resource: its kind is no api type's.
func customOwner(obj api.Object) (string, bool) {
	m := obj.GetObjectMeta()
	for _, r := range m.OwnerReferences {
		if r.Controller != nil && *r.Controller {
			if builtinKinds()[r.APIVersion+" "+r.Kind] {
				return "", false
			}
			return controllerOf(*m), true
		}
	}
	return "", false
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
