package apiserver

import (
	"reflect"
	"strconv"

	"github.com/miniplane/miniplane/api"
)

// kind describes one resource the server serves: its names, its scope, and
// the per-kind rules (Kubernetes calls them a strategy) that the generic
// create, update and delete paths apply.
type kind struct {
	gr         GroupResource
	kind       string // "Pod"
	apiVersion string // "v1", "coordination.k8s.io/v1"
	namespaced bool
	newObj     func() api.Object

	// hasStatus: the kind has a status subresource, so a main update keeps
	// the stored status and a status update changes only status.
	hasStatus bool
	// resetStatusOnCreate: create ignores the status the client sent (pods,
	// replication controllers, services), as Kubernetes' strategies do.
	resetStatusOnCreate bool

	defaults       func(api.Object)
	validate       func(api.Object) FieldErrors
	validateUpdate func(obj, old api.Object) FieldErrors

	// fields returns the field-selector values of an object beyond
	// metadata.name and metadata.namespace; nil when the kind has none.
	fields func(api.Object) map[string]string
	// fieldNames are the extra field-selector fields the kind supports.
	fieldNames []string

	// defaultPropagation is what a delete without a policy does to dependents.
	defaultPropagation api.DeletionPropagation
	// graceSeconds, when set, makes deletion graceful: it returns the grace
	// period a delete without one gets, or 0 to delete at once.
	graceSeconds func(api.Object) int64
}

// typed adapts per-kind functions written for a concrete type to the
// api.Object hooks of a kind.
func typed[T api.Object](k *kind, defaults func(T), validate func(T) FieldErrors, validateUpdate func(obj, old T) FieldErrors) *kind {
	k.defaults = func(o api.Object) { defaults(o.(T)) }
	k.validate = func(o api.Object) FieldErrors { return validate(o.(T)) }
	k.validateUpdate = func(o, old api.Object) FieldErrors { return validateUpdate(o.(T), old.(T)) }
	return k
}

func newKinds() []*kind {
	return []*kind{
		typed(&kind{
			gr: GroupResource{Resource: "namespaces"}, kind: "Namespace", apiVersion: "v1",
			newObj: func() api.Object { return &api.Namespace{} }, hasStatus: true,
			fields: func(o api.Object) map[string]string {
				return map[string]string{"status.phase": string(o.(*api.Namespace).Status.Phase)}
			},
			fieldNames: []string{"status.phase"},
		}, defaultNamespace, validateNamespace, validateNamespaceUpdate),
		typed(&kind{
			gr: GroupResource{Resource: "pods"}, kind: "Pod", apiVersion: "v1", namespaced: true,
			newObj: func() api.Object { return &api.Pod{} }, hasStatus: true, resetStatusOnCreate: true,
			fields:       podFields,
			fieldNames:   []string{"spec.nodeName", "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName", "status.phase", "status.podIP", "status.nominatedNodeName"},
			graceSeconds: podGraceSeconds,
		}, defaultPod, validatePod, validatePodUpdate),
		typed(&kind{
			gr: GroupResource{Resource: "replicationcontrollers"}, kind: "ReplicationController", apiVersion: "v1", namespaced: true,
			newObj: func() api.Object { return &api.ReplicationController{} }, hasStatus: true, resetStatusOnCreate: true,
			fields: func(o api.Object) map[string]string {
				return map[string]string{"status.replicas": strconv.Itoa(int(o.(*api.ReplicationController).Status.Replicas))}
			},
			fieldNames: []string{"status.replicas"},
			// Kubernetes keeps v1 replication controllers on the pre-garbage-
			// collector default: deleting one orphans its pods unless the client
			// asks otherwise (kubectl asks for Background).
			defaultPropagation: api.DeletePropagationOrphan,
		}, defaultReplicationController, validateReplicationController, validateReplicationControllerUpdate),
		typed(&kind{
			gr: GroupResource{Resource: "services"}, kind: "Service", apiVersion: "v1", namespaced: true,
			newObj: func() api.Object { return &api.Service{} }, hasStatus: true, resetStatusOnCreate: true,
		}, defaultService, validateService, validateServiceUpdate),
		typed(&kind{
			gr: GroupResource{Resource: "endpoints"}, kind: "Endpoints", apiVersion: "v1", namespaced: true,
			newObj: func() api.Object { return &api.Endpoints{} },
		}, defaultEndpoints, validateEndpoints, validateEndpointsUpdate),
		typed(&kind{
			gr: GroupResource{Resource: "nodes"}, kind: "Node", apiVersion: "v1",
			newObj: func() api.Object { return &api.Node{} }, hasStatus: true,
			fields: func(o api.Object) map[string]string {
				return map[string]string{"spec.unschedulable": strconv.FormatBool(o.(*api.Node).Spec.Unschedulable)}
			},
			fieldNames: []string{"spec.unschedulable"},
		}, defaultNode, validateNode, validateNodeUpdate),
		typed(&kind{
			gr: GroupResource{Group: "coordination.k8s.io", Resource: "leases"}, kind: "Lease", apiVersion: "coordination.k8s.io/v1", namespaced: true,
			newObj: func() api.Object { return &api.Lease{} },
		}, defaultLease, validateLease, validateLeaseUpdate),
		typed(&kind{
			gr: GroupResource{Resource: "events"}, kind: "Event", apiVersion: "v1", namespaced: true,
			newObj:     func() api.Object { return &api.Event{} },
			fields:     eventFields,
			fieldNames: []string{"involvedObject.kind", "involvedObject.namespace", "involvedObject.name", "involvedObject.uid", "involvedObject.apiVersion", "involvedObject.resourceVersion", "involvedObject.fieldPath", "reason", "reportingComponent", "source", "type"},
		}, defaultEvent, validateEvent, validateEventUpdate),
	}
}

func podFields(o api.Object) map[string]string {
	p := o.(*api.Pod)
	return map[string]string{
		"spec.nodeName":            p.Spec.NodeName,
		"spec.restartPolicy":       string(p.Spec.RestartPolicy),
		"spec.schedulerName":       p.Spec.SchedulerName,
		"spec.serviceAccountName":  p.Spec.ServiceAccountName,
		"status.phase":             string(p.Status.Phase),
		"status.podIP":             p.Status.PodIP,
		"status.nominatedNodeName": "",
	}
}

func eventFields(o api.Object) map[string]string {
	e := o.(*api.Event)
	return map[string]string{
		"involvedObject.kind":            e.InvolvedObject.Kind,
		"involvedObject.namespace":       e.InvolvedObject.Namespace,
		"involvedObject.name":            e.InvolvedObject.Name,
		"involvedObject.uid":             string(e.InvolvedObject.UID),
		"involvedObject.apiVersion":      e.InvolvedObject.APIVersion,
		"involvedObject.resourceVersion": e.InvolvedObject.ResourceVersion,
		"involvedObject.fieldPath":       e.InvolvedObject.FieldPath,
		"reason":                         e.Reason,
		"reportingComponent":             e.ReportingController,
		"source":                         e.Source.Component,
		"type":                           e.Type,
	}
}

// DefaultTerminationGracePeriodSeconds is a pod's grace period when its spec
// names none, as in Kubernetes.
const DefaultTerminationGracePeriodSeconds = 30

// podGraceSeconds is the grace period a delete without one gives a pod: its
// spec's, except that a pod never bound to a node, or already finished, has
// nothing to stop and goes at once (Kubernetes' pod CheckGracefulDelete).
func podGraceSeconds(o api.Object) int64 {
	p := o.(*api.Pod)
	if p.Spec.NodeName == "" || p.Status.Phase == api.PodSucceeded || p.Status.Phase == api.PodFailed {
		return 0
	}
	if p.Spec.TerminationGracePeriodSeconds != nil {
		return *p.Spec.TerminationGracePeriodSeconds
	}
	return DefaultTerminationGracePeriodSeconds
}

// specOf returns the Spec field of obj, or nil for a kind without one.
// Generation tracks changes to it.
func specOf(obj api.Object) any {
	f := reflect.ValueOf(obj).Elem().FieldByName("Spec")
	if !f.IsValid() {
		return nil
	}
	return f.Interface()
}

// copyStatus sets dst's Status field to src's (a shallow copy: src is owned
// by the server and never changed after).
func copyStatus(dst, src api.Object) {
	reflect.ValueOf(dst).Elem().FieldByName("Status").Set(reflect.ValueOf(src).Elem().FieldByName("Status"))
}

// withStatus returns what a status update of old to in's status stores: a
// copy of old, sharing its metadata and spec, with a deep copy of in's
// status. Only the status is copied, for it is all a status update reads of
// the client's object; in is the client's and is not kept. in and old are
// of one kind.
func withStatus(old, in api.Object) api.Object {
	switch o := old.(type) {
	case *api.Pod:
		n := *o
		in.(*api.Pod).Status.DeepCopyInto(&n.Status)
		return &n
	case *api.ReplicationController:
		n := *o
		in.(*api.ReplicationController).Status.DeepCopyInto(&n.Status)
		return &n
	case *api.Service:
		n := *o
		in.(*api.Service).Status.DeepCopyInto(&n.Status)
		return &n
	case *api.Node:
		n := *o
		in.(*api.Node).Status.DeepCopyInto(&n.Status)
		return &n
	}
	next := shallowCopy(old)
	copyStatus(next, in.DeepCopyObject())
	return next
}

// sameStatus reports whether two objects of one kind have equal statuses.
func sameStatus(a, b api.Object) bool {
	switch x := a.(type) {
	case *api.Pod:
		return reflect.DeepEqual(&x.Status, &b.(*api.Pod).Status)
	case *api.ReplicationController:
		return reflect.DeepEqual(&x.Status, &b.(*api.ReplicationController).Status)
	case *api.Node:
		return reflect.DeepEqual(&x.Status, &b.(*api.Node).Status)
	}
	return reflect.DeepEqual(reflect.ValueOf(a).Elem().FieldByName("Status").Interface(),
		reflect.ValueOf(b).Elem().FieldByName("Status").Interface())
}

func copyOf[T any](p *T) *T {
	c := *p
	return &c
}

// resetStatus sets obj's Status to the zero value.
func resetStatus(obj api.Object) {
	f := reflect.ValueOf(obj).Elem().FieldByName("Status")
	f.Set(reflect.Zero(f.Type()))
}

// shallowCopy returns a new object whose top-level struct is a copy of obj's
// (maps, slices and pointers are shared). Safe for changing top-level value
// fields such as metadata.resourceVersion of a shared object.
func shallowCopy(obj api.Object) api.Object {
	switch o := obj.(type) { // the kinds served, without reflection
	case *api.Pod:
		return copyOf(o)
	case *api.ReplicationController:
		return copyOf(o)
	case *api.Service:
		return copyOf(o)
	case *api.Endpoints:
		return copyOf(o)
	case *api.Node:
		return copyOf(o)
	case *api.Namespace:
		return copyOf(o)
	case *api.Event:
		return copyOf(o)
	case *api.Lease:
		return copyOf(o)
	}
	v := reflect.ValueOf(obj).Elem()
	c := reflect.New(v.Type())
	c.Elem().Set(v)
	return c.Interface().(api.Object)
}
