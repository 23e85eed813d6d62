package apiserver

import (
	"reflect"
	"strconv"
	"time"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/apiserver/celrules"
)

// kind describes one resource the server serves: its names, its scope, and
// the per-kind rules (Kubernetes calls them a strategy) that the generic
// create, update and delete paths apply.
type kind struct {
	gr         apierrors.GroupResource
	kind       string // "Pod"
	apiVersion string // "v1", "coordination.k8s.io/v1"
	namespaced bool
	newObj     func() api.Object
	// keyPrefix is "/registry/<stored resource>/", the start of every store
	// key of k's objects (see key); register sets it.
	keyPrefix string

	// singular is the singular name in discovery; empty means the plural
	// without its final "s".
	singular string
	// shortNames are kubectl's abbreviations ("po"), and categories the
	// groups `kubectl get` expands ("all"), as Kubernetes' REST storage
	// declares them (ShortNamesProvider, CategoriesProvider).
	shortNames, categories []string
	// columns are kubectl's columns for the kind (Kubernetes'
	// pkg/printers/internalversion), declared here so the HTTP front needs
	// no entry of its own. See ResourceInfo.Columns.
	columns []Column

	// status, when set, gives the kind a status subresource: a main update
	// keeps the stored status and a status update changes only status.
	// Made by statusOf.
	status *statusHooks
	// resetStatusOnCreate: create ignores the status the client sent (pods,
	// replication controllers, services), as Kubernetes' strategies do.
	resetStatusOnCreate bool
	// statusTakesAnnotations: a status update also stores the client's
	// metadata.annotations. Kubernetes' status strategy for Deployments
	// resets only spec and labels, and the deployment controller relies on
	// it: it writes the deployment.kubernetes.io/revision annotation with
	// UpdateStatus (sync.go, getNewReplicaSet), which kubectl rollout undo
	// then reads back.
	statusTakesAnnotations bool
	// prepareStatus, when set, is the kind's status strategy: it turns a
	// status update's object (next, a copy of the stored one with the
	// client's status, its own to change) into what is stored, and
	// validates it; approval says the write is the approval subresource's,
	// which only CertificateSigningRequests have (approval set).
	prepareStatus func(next, old api.Object, approval bool, now api.Time) apierrors.FieldErrors
	// approval gives the kind the approval subresource
	// (CertificateSigningRequests): a status update through prepareStatus
	// that may change only the conditions.
	approval bool
	// keepSpec: a main update keeps the stored spec, which only
	// subresources or nothing may change (CertificateSigningRequests).
	keepSpec bool
	// uidBeforeDefaults: create draws the object's uid before defaulting
	// it, because the defaults use it (a Job's generated selector), as
	// kube-apiserver fills the system fields before PrepareForCreate.
	uidBeforeDefaults bool
	// shallowCopy returns a new object whose top-level struct is a copy of
	// obj's (see the function shallowCopy); set by typed.
	shallowCopy func(obj api.Object) api.Object
	// spec returns a pointer to obj's Spec field, whose changes raise
	// metadata.generation; nil for a kind without one. Set by typed.
	spec func(obj api.Object) any
	// generationFields, for a kind without a spec whose generation still
	// moves (EndpointSlice), returns what its generation follows.
	generationFields func(obj api.Object) any
	// equal reports whether two objects of the kind are equal, as
	// reflect.DeepEqual would (see objectEqual); update's no-op check.
	// Set by typed.
	equal func(a, b api.Object) bool

	defaults       func(api.Object)
	validate       func(api.Object) apierrors.FieldErrors
	validateUpdate func(obj, old api.Object) apierrors.FieldErrors
	// validateStatus, when set, checks a status update (Kubernetes' status
	// strategy's ValidateUpdate); nil for kinds whose status kube-apiserver
	// checks only as metadata.
	validateStatus func(obj, old api.Object) apierrors.FieldErrors

	// fields returns the field-selector values of an object beyond
	// metadata.name and metadata.namespace; nil when the kind has none.
	fields func(api.Object) map[string]string
	// fieldNames are the extra field-selector fields the kind supports.
	fieldNames []string

	// scale, when set, gives the kind a scale subresource (autoscaling/v1
	// Scale) over its spec.replicas.
	scale *scaleHooks

	// sweepAt, when set, says whether and when Server.Sweep must look at
	// an object just written with a deletion, instead of at its
	// deletionTimestamp when it has a grace period; sweep, when set, is what
	// Sweep does then instead of removing it (a terminating namespace
	// empties itself first). Kubernetes gives this work to the namespace
	// controller.
	sweepAt func(obj api.Object, now time.Time) (time.Time, bool)
	sweep   func(s *Server, key string, obj api.Object, now time.Time) int

	// defaultPropagation is what a delete without a policy does to dependents.
	defaultPropagation api.DeletionPropagation
	// graceSeconds, when set, makes deletion graceful: it returns the grace
	// period a delete without one gets, or 0 to delete at once.
	graceSeconds func(api.Object) int64

	// storage, when set, is the kind whose stored objects this one serves
	// in another API group or version, as kube-apiserver serves the one
	// Event storage as core/v1 and events.k8s.io/v1 Events: the store keys
	// and objects are storage's, every hook above takes an object of
	// storage's type, and toStored and fromStored convert at the edge.
	// Nil for a kind served as it is stored. See servedAs.
	storage    *kind
	toStored   func(api.Object) api.Object
	fromStored func(api.Object) api.Object

	// custom is set on the kinds CustomResourceDefinitions add (crd.go).
	custom *customInfo
}

// crdResource names the CustomResourceDefinitions resource.
const crdResource = "customresourcedefinitions.apiextensions.k8s.io"

// servedAs returns stored served once more, as kindName in apiVersion under
// gr, with objects of newObj's type that toStored and fromStored convert
// (each returning a new object that shares nothing with its argument). It
// keeps stored's strategy (scope, status, defaulting, deletion), whose hooks
// run on the stored form; the caller replaces what differs by version, as
// Kubernetes' strategies do by request version: validation and the
// field-selector labels.
func servedAs(stored *kind, gr apierrors.GroupResource, kindName, apiVersion string, newObj func() api.Object,
	toStored, fromStored func(api.Object) api.Object) *kind {
	k := *stored
	k.gr, k.kind, k.apiVersion, k.newObj = gr, kindName, apiVersion, newObj
	k.storage, k.toStored, k.fromStored = stored, toStored, fromStored
	return &k
}

// stored returns the kind whose objects the store holds for k: k itself,
// or the kind k serves in another version.
func (k *kind) stored() *kind {
	if k.storage != nil {
		return k.storage
	}
	return k
}

// in returns a new object of the stored kind made from obj, an object of
// k's type that stays its caller's: the server owns the result.
func (k *kind) in(obj api.Object) api.Object {
	if k.toStored == nil {
		return obj.DeepCopyObject()
	}
	return k.toStored(obj)
}

// out returns a stored object as k shows it: the object itself (shared and
// immutable) for a kind served as stored that fromStored leaves as it is,
// else its conversion, carrying k's apiVersion and kind. nil stays nil.
func (k *kind) out(obj api.Object) api.Object {
	if k.fromStored == nil || obj == nil {
		return obj
	}
	c := k.fromStored(obj)
	if c != obj {
		*c.GetTypeMeta() = api.TypeMeta{APIVersion: k.apiVersion, Kind: k.kind}
	}
	return c
}

// typed adapts per-kind functions written for a concrete type to the
// api.Object hooks of a kind, and gives it its shallow copy.
func typed[O any, T interface {
	*O
	api.Object
}](k *kind, defaults func(T), validate func(T) apierrors.FieldErrors, validateUpdate func(obj, old T) apierrors.FieldErrors) *kind {
	k.shallowCopy = func(o api.Object) api.Object {
		c := *o.(T)
		return T(&c)
	}
	// The field is found once per kind: reflect's FieldByName allocates
	// when it looks past an embedded struct for a field that is not there
	// (Endpoints and Events have no spec), and a spec taken by value would
	// be copied to the heap on every update.
	if f, ok := reflect.TypeFor[O]().FieldByName("Spec"); ok && len(f.Index) == 1 {
		i := f.Index[0]
		k.spec = func(o api.Object) any { return reflect.ValueOf(o).Elem().Field(i).Addr().Interface() }
	}
	k.equal = objectEqual[O, T]()
	k.defaults = func(o api.Object) { defaults(o.(T)) }
	k.validate = func(o api.Object) apierrors.FieldErrors { return validate(o.(T)) }
	k.validateUpdate = func(o, old api.Object) apierrors.FieldErrors { return validateUpdate(o.(T), old.(T)) }
	return k
}

// The Name and Age columns every kind's table starts and ends with; their
// cells are filled by the table, not by the kind.
var (
	nameColumn = Column{Name: "Name", Type: "string", Description: "Name must be unique within a namespace."}
	ageColumn  = Column{Name: "Age", Type: "string", Description: "The time since the object was created."}
)

// newKinds returns every kind the server serves: the stored kinds, then the
// kinds that serve a stored one in another group or version.
func newKinds(rules *celrules.Compiler) []*kind {
	events := typed(&kind{
		gr: apierrors.GroupResource{Resource: "events"}, kind: "Event", apiVersion: "v1", namespaced: true, shortNames: []string{"ev"},
		newObj:     func() api.Object { return &api.Event{} },
		fields:     eventFields,
		fieldNames: []string{"involvedObject.kind", "involvedObject.namespace", "involvedObject.name", "involvedObject.uid", "involvedObject.apiVersion", "involvedObject.resourceVersion", "involvedObject.fieldPath", "reason", "reportingComponent", "source", "type"},
	}, defaultEvent, validateEvent, validateEventUpdate)
	kinds := []*kind{
		typed(&kind{
			gr: apierrors.GroupResource{Resource: "namespaces"}, kind: "Namespace", apiVersion: "v1", shortNames: []string{"ns"},
			newObj: func() api.Object { return &api.Namespace{} },
			// kube-apiserver's namespace status strategy resets only the
			// spec: a status patch's annotations are stored with it
			// (conformance: "should apply changes to a namespace status").
			// Its labels are too there, but not yet here.
			status: statusOf(func(o *api.Namespace) *api.NamespaceStatus { return &o.Status }), statusTakesAnnotations: true,
			fields: func(o api.Object) map[string]string {
				return map[string]string{"status.phase": string(o.(*api.Namespace).Status.Phase)}
			},
			fieldNames: []string{"status.phase"},
			sweepAt: func(o api.Object, now time.Time) (time.Time, bool) {
				return now, o.(*api.Namespace).Status.Phase == api.NamespaceTerminating
			},
			sweep: func(s *Server, key string, o api.Object, now time.Time) int {
				return s.sweepNamespace(key, o.(*api.Namespace), now)
			},
		}, defaultNamespace, validateNamespace, validateNamespaceUpdate),
		typed(&kind{
			gr: apierrors.GroupResource{Resource: "pods"}, kind: "Pod", apiVersion: "v1", namespaced: true, shortNames: []string{"po"}, categories: []string{"all"},
			newObj: func() api.Object { return &api.Pod{} },
			status: statusOf(func(o *api.Pod) *api.PodStatus { return &o.Status }), resetStatusOnCreate: true,
			fields:       podFields,
			fieldNames:   []string{"spec.nodeName", "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName", "status.phase", "status.podIP", "status.nominatedNodeName"},
			graceSeconds: podGraceSeconds,
		}, defaultPod, validatePodCreate, validatePodUpdate),
		typed(&kind{
			gr: apierrors.GroupResource{Resource: "replicationcontrollers"}, kind: "ReplicationController", apiVersion: "v1", namespaced: true,
			shortNames: []string{"rc"}, categories: []string{"all"},
			newObj: func() api.Object { return &api.ReplicationController{} },
			status: statusOf(func(o *api.ReplicationController) *api.ReplicationControllerStatus { return &o.Status }), resetStatusOnCreate: true,
			fields: func(o api.Object) map[string]string {
				return map[string]string{"status.replicas": strconv.Itoa(int(o.(*api.ReplicationController).Status.Replicas))}
			},
			fieldNames: []string{"status.replicas"},
			// Kubernetes keeps v1 replication controllers on the pre-garbage-
			// collector default: deleting one orphans its pods unless the client
			// asks otherwise (kubectl asks for Background).
			defaultPropagation: api.DeletePropagationOrphan,
			scale: &scaleHooks{
				replicas: func(o api.Object) *int32 { return o.(*api.ReplicationController).Spec.Replicas },
				set:      func(o api.Object, n int32) { o.(*api.ReplicationController).Spec.Replicas = &n },
				status: func(o api.Object) (int32, string) {
					rc := o.(*api.ReplicationController)
					return rc.Status.Replicas, api.SelectorFromSet(rc.Spec.Selector).String()
				},
			},
		}, defaultReplicationController, validateReplicationController, validateReplicationControllerUpdate),
		typed(&kind{
			gr: apierrors.GroupResource{Resource: "services"}, kind: "Service", apiVersion: "v1", namespaced: true, shortNames: []string{"svc"}, categories: []string{"all"},
			newObj: func() api.Object { return &api.Service{} },
			// kube-apiserver's service status strategy resets only the spec:
			// a status patch's annotations are stored with it (conformance:
			// "should complete a service status lifecycle").
			status: statusOf(func(o *api.Service) *api.ServiceStatus { return &o.Status }), resetStatusOnCreate: true, statusTakesAnnotations: true,
		}, defaultService, validateService, validateServiceUpdate),
		typed(&kind{
			gr: apierrors.GroupResource{Resource: "endpoints"}, kind: "Endpoints", apiVersion: "v1", namespaced: true, singular: "endpoints", shortNames: []string{"ep"},
			newObj: func() api.Object { return &api.Endpoints{} },
		}, defaultEndpoints, validateEndpoints, validateEndpointsUpdate),
		typed(&kind{
			gr: apierrors.GroupResource{Resource: "nodes"}, kind: "Node", apiVersion: "v1", shortNames: []string{"no"},
			newObj: func() api.Object { return &api.Node{} },
			status: statusOf(func(o *api.Node) *api.NodeStatus { return &o.Status }),
			fields: func(o api.Object) map[string]string {
				return map[string]string{"spec.unschedulable": strconv.FormatBool(o.(*api.Node).Spec.Unschedulable)}
			},
			fieldNames: []string{"spec.unschedulable"},
		}, defaultNode, validateNode, validateNodeUpdate),
		typed(&kind{
			gr: apierrors.GroupResource{Group: "coordination.k8s.io", Resource: "leases"}, kind: "Lease", apiVersion: "coordination.k8s.io/v1", namespaced: true,
			newObj: func() api.Object { return &api.Lease{} },
		}, defaultLease, validateLease, validateLeaseUpdate),
		typed(&kind{
			gr: apierrors.GroupResource{Resource: "configmaps"}, kind: "ConfigMap", apiVersion: "v1", namespaced: true, shortNames: []string{"cm"},
			newObj: func() api.Object { return &api.ConfigMap{} },
			columns: []Column{nameColumn,
				{Name: "Data", Type: "string", Description: "Data contains the configuration data.", Cell: func(o api.Object) any {
					c := o.(*api.ConfigMap)
					return int64(len(c.Data) + len(c.BinaryData))
				}},
				ageColumn},
		}, defaultConfigMap, validateConfigMap, validateConfigMapUpdate),
		typed(&kind{
			gr: apierrors.GroupResource{Resource: "secrets"}, kind: "Secret", apiVersion: "v1", namespaced: true,
			newObj: func() api.Object { return &api.Secret{} },
			columns: []Column{nameColumn,
				{Name: "Type", Type: "string", Description: "Used to facilitate programmatic handling of secret data.",
					Cell: func(o api.Object) any { return string(o.(*api.Secret).Type) }},
				{Name: "Data", Type: "string", Description: "Data contains the secret data.",
					Cell: func(o api.Object) any { return int64(len(o.(*api.Secret).Data)) }},
				ageColumn},
			fields: func(o api.Object) map[string]string {
				return map[string]string{"type": string(o.(*api.Secret).Type)}
			},
			fieldNames: []string{"type"},
		}, defaultSecret, validateSecret, validateSecretUpdate),
		typed(&kind{
			gr: apierrors.GroupResource{Resource: "serviceaccounts"}, kind: "ServiceAccount", apiVersion: "v1", namespaced: true, shortNames: []string{"sa"},
			newObj: func() api.Object { return &api.ServiceAccount{} },
			columns: []Column{nameColumn,
				{Name: "Secrets", Type: "string", Description: "Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use.",
					Cell: func(o api.Object) any { return int64(len(o.(*api.ServiceAccount).Secrets)) }},
				ageColumn},
		}, defaultServiceAccount, validateServiceAccount, validateServiceAccountUpdate),
		typed(&kind{
			gr: apierrors.GroupResource{Resource: "resourcequotas"}, kind: "ResourceQuota", apiVersion: "v1", namespaced: true, shortNames: []string{"quota"},
			newObj: func() api.Object { return &api.ResourceQuota{} }, resetStatusOnCreate: true,
			status:  statusOf(func(o *api.ResourceQuota) *api.ResourceQuotaStatus { return &o.Status }),
			columns: resourceQuotaColumns,
		}, defaultResourceQuota, validateResourceQuota, validateResourceQuotaUpdate),
	}
	kinds = append(kinds, endpointSliceKind())
	kinds = append(kinds, schedulingKinds()...)
	kinds = append(kinds, batchKinds()...)
	kinds = append(kinds, runtimeClassKind(), certificateSigningRequestKind())
	kinds = append(kinds, flowControlKinds()...)
	kinds = append(kinds, admissionKinds(rules)...)
	kinds = append(kinds, podAdmissionKinds()...)
	kinds = append(kinds, rbacKinds()...)
	kinds = append(kinds, networkingKinds()...)
	kinds = append(kinds, autoscalingKinds()...)
	kinds = append(kinds, apiServiceKind())
	kinds = append(kinds, typed(&kind{
		gr: apierrors.GroupResource{Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions"}, kind: "CustomResourceDefinition",
		apiVersion: "apiextensions.k8s.io/v1", shortNames: []string{"crd", "crds"}, categories: []string{"api-extensions"},
		newObj: func() api.Object { return &api.CustomResourceDefinition{} },
		status: statusOf(func(o *api.CustomResourceDefinition) *api.CustomResourceDefinitionStatus { return &o.Status }), resetStatusOnCreate: true,
		columns: []Column{nameColumn,
			{Name: "Created At", Type: "date", Description: "The time the definition was created.", Cell: createdAt}},
	}, defaultCRD, func(c *api.CustomResourceDefinition) apierrors.FieldErrors { return validateCRD(c, rules) },
		func(c, old *api.CustomResourceDefinition) apierrors.FieldErrors {
			return validateCRDUpdate(c, old, rules)
		}))
	return append(kinds, events, eventsV1(events))
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
		"status.nominatedNodeName": p.Status.NominatedNodeName,
	}
}

func eventFields(o api.Object) map[string]string {
	e := o.(*api.Event)
	// source is the deprecated source's component or, when an event has
	// none (events.k8s.io writers set only reportingController), its
	// reporting controller: Kubernetes' EventToSelectableFields.
	source := e.Source.Component
	if source == "" {
		source = e.ReportingController
	}
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
		"source":                         source,
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

// statusHooks are the operations on a kind's status that the generic
// create, update and status-update paths need, made by statusOf from one
// accessor so that none needs reflection or a per-kind type switch. A kind
// has a status subresource exactly when it has them.
type statusHooks struct {
	// with returns what a status update of old to in's status stores: a
	// copy of old, sharing its metadata and spec, with a deep copy of in's
	// status. Only the status is copied, for it is all a status update
	// reads of the client's object; in is the client's and is not kept.
	with func(old, in api.Object) api.Object
	// take is with for a status handed over (client.Handover): the copy of
	// old keeps in's status itself, not a copy of it.
	take func(old, in api.Object) api.Object
	// same reports whether two objects have equal statuses, as
	// reflect.DeepEqual would (see statusEqual).
	same func(a, b api.Object) bool
	// reset sets obj's status to the zero value (create ignores the
	// client's status).
	reset func(obj api.Object)
	// keep sets dst's status to src's, shallowly: src is owned by the
	// server and never changed after (a main update keeps the stored status).
	keep func(dst, src api.Object)
}

// statusOf returns the status hooks of the kind whose objects are T, from
// get, which returns a pointer to an object's status. A status type with
// references has a DeepCopyInto, which copies it; one without is copied by
// value.
func statusOf[O, S any, T interface {
	*O
	api.Object
}](get func(T) *S) *statusHooks {
	deepCopy := func(in, out *S) { *out = *in }
	if _, ok := any(new(S)).(interface{ DeepCopyInto(*S) }); ok {
		deepCopy = func(in, out *S) { any(in).(interface{ DeepCopyInto(*S) }).DeepCopyInto(out) }
	}
	equal := statusEqual[S]()
	return &statusHooks{
		with: func(old, in api.Object) api.Object {
			n := *old.(T)
			deepCopy(get(in.(T)), get(&n))
			return T(&n)
		},
		take: func(old, in api.Object) api.Object {
			n := *old.(T)
			*get(&n) = *get(in.(T))
			return T(&n)
		},
		same:  func(a, b api.Object) bool { return equal(get(a.(T)), get(b.(T))) },
		reset: func(obj api.Object) { *get(obj.(T)) = *new(S) },
		keep:  func(dst, src api.Object) { *get(dst.(T)) = *get(src.(T)) },
	}
}

// shallowCopy returns a new object whose top-level struct is a copy of obj's
// (maps, slices and pointers are shared). Safe for changing top-level value
// fields such as metadata.resourceVersion of a shared object. Every kind's
// own copy (kind.shallowCopy, made by typed) is as fast; this one is for
// callers that hold an object but not its kind.
func shallowCopy(obj api.Object) api.Object {
	switch o := obj.(type) { // the hot kinds, without reflection
	case *api.Pod:
		return copyOf(o)
	case *api.Endpoints:
		return copyOf(o)
	case *api.Node:
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

func copyOf[T any](p *T) *T {
	c := *p
	return &c
}
