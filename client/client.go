package client

import (
	"context"
	"errors"

	"github.com/miniplane/miniplane/api"
)

// The resources a Server serves, by the names Client methods take: the
// plural, or plural.group where one plural is served in several groups.
const (
	Namespaces             = "namespaces"
	Pods                   = "pods"
	ReplicationControllers = "replicationcontrollers"
	Services               = "services"
	Endpoints              = "endpoints"
	EndpointSlices         = "endpointslices"
	Nodes                  = "nodes"
	Leases                 = "leases"
	Events                 = "events"
	ConfigMaps             = "configmaps"
	Secrets                = "secrets"
	ServiceAccounts        = "serviceaccounts"
	ResourceQuotas         = "resourcequotas"
	PersistentVolumes      = "persistentvolumes"
	PersistentVolumeClaims = "persistentvolumeclaims"
	StorageClasses         = "storageclasses"
	CSINodes               = "csinodes"
	CSIDrivers             = "csidrivers"
	CSIStorageCapacities   = "csistoragecapacities"
	VolumeAttachments      = "volumeattachments"
	PodDisruptionBudgets   = "poddisruptionbudgets"
	Deployments            = "deployments"
	DaemonSets             = "daemonsets"
	ControllerRevisions    = "controllerrevisions"
	Jobs                   = "jobs"
	CronJobs               = "cronjobs"
	ReplicaSets            = "replicasets"
	StatefulSets           = "statefulsets"
	PriorityClasses        = "priorityclasses"
	Ingresses              = "ingresses"
	IngressClasses         = "ingressclasses"
	NetworkPolicies        = "networkpolicies"
	PodTemplates           = "podtemplates"
	LimitRanges            = "limitranges"
	Roles                  = "roles"
	RoleBindings           = "rolebindings"
	ClusterRoles           = "clusterroles"
	ClusterRoleBindings    = "clusterrolebindings"
	RuntimeClasses         = "runtimeclasses"
	// CertificateSigningRequests are certificates.k8s.io/v1's.
	CertificateSigningRequests = "certificatesigningrequests"
	// The flowcontrol.apiserver.k8s.io/v1 resources.
	FlowSchemas                 = "flowschemas"
	PriorityLevelConfigurations = "prioritylevelconfigurations"
	// CustomResourceDefinitions add kinds at run time; their objects are
	// api.Unstructured, named by plural.group ("widgets.demo.example.com").
	CustomResourceDefinitions = "customresourcedefinitions"
	// The admissionregistration.k8s.io/v1 resources.
	ValidatingAdmissionPolicies       = "validatingadmissionpolicies"
	ValidatingAdmissionPolicyBindings = "validatingadmissionpolicybindings"
	ValidatingWebhookConfigurations   = "validatingwebhookconfigurations"
	MutatingWebhookConfigurations     = "mutatingwebhookconfigurations"
	// EventsK8sIO is events.k8s.io/v1 Events: the objects of Events, stored
	// once and shown in the newer version (api.EventsV1Event).
	EventsK8sIO = "events.events.k8s.io"
	// HorizontalPodAutoscalers are stored in autoscaling/v2
	// (api.HorizontalPodAutoscaler); HorizontalPodAutoscalersV1 shows the
	// same objects in autoscaling/v1 (api.HorizontalPodAutoscalerV1).
	HorizontalPodAutoscalers   = "horizontalpodautoscalers"
	HorizontalPodAutoscalersV1 = "horizontalpodautoscalers.v1.autoscaling"
	// APIServices are apiregistration.k8s.io/v1 APIServices.
	APIServices = "apiservices"
)

// Client is how the rest of miniplane talks to the API server.
// *apiserver.Server implements it; the simulator wraps it to inject faults;
// consumers declare the smaller interfaces they need. Objects it returns are shared: treat them
// as immutable. It neither changes nor keeps the objects it is given (the
// server copies what it stores, as a remote one would serialize it): a
// caller may reuse one once the call has returned — unless it hands the
// object over (Handover), and then it gives up all of it. namespace is "" for
// cluster-scoped resources and, in List and Watch, for all namespaces.
type Client interface {
	// Create stores a new object of obj's kind; the kind says the resource.
	Create(ctx context.Context, obj api.Object, opts ...WriteOption) (api.Object, error)
	// Get returns one object.
	Get(ctx context.Context, resource, namespace, name string, opts GetOptions) (api.Object, error)
	// List returns the objects that match opts' selectors, in key order.
	List(ctx context.Context, resource, namespace string, opts ListOptions) (*List, error)
	// Watch streams changes to the objects that match opts' selectors.
	Watch(ctx context.Context, resource, namespace string, opts ListOptions) (Watcher, error)
	// Update replaces an object's spec and metadata; its status is kept.
	Update(ctx context.Context, obj api.Object, opts ...WriteOption) (api.Object, error)
	// UpdateStatus replaces an object's status; nothing else changes.
	UpdateStatus(ctx context.Context, obj api.Object, opts ...WriteOption) (api.Object, error)
	// Delete deletes an object, or marks it for deletion when a grace period
	// or finalizers hold it; it returns the object's last state.
	Delete(ctx context.Context, resource, namespace, name string, opts api.DeleteOptions) (api.Object, error)
}

// GetOptions qualify a Get. Kubernetes: metav1.GetOptions.
type GetOptions struct {
	// ResourceVersion "" or "0" reads the latest state; "N" asks for a state
	// no older than N, which is the latest too, or fails with a Timeout when
	// the store has not reached N.
	ResourceVersion string
}

// Values of ListOptions.ResourceVersionMatch.
const (
	MatchNotOlderThan = "NotOlderThan"
	MatchExact        = "Exact"
)

// ListOptions qualify a List or a Watch, with Kubernetes' meanings.
// Kubernetes: metav1.ListOptions.
type ListOptions struct {
	// LabelSelector and FieldSelector filter the objects; "" matches all.
	LabelSelector string
	FieldSelector string
	// ResourceVersion and ResourceVersionMatch say which state to read or
	// where a watch starts: "" is the latest (a watch first lists it as ADDED
	// events), "0" is any (here: the latest), "N" is not older than N, or
	// exactly N with ResourceVersionMatch Exact (or, for a list with Limit,
	// by the legacy rule). A watch from N starts strictly after N.
	ResourceVersion      string
	ResourceVersionMatch string
	// Limit and Continue page a list: at most Limit items, and a Continue
	// token for the rest, read at the first page's revision.
	Limit    int64
	Continue string

	// AllowWatchBookmarks lets a watch send BOOKMARK events.
	AllowWatchBookmarks bool
	// SendInitialEvents makes a watch start with the current state as ADDED
	// events followed, when AllowWatchBookmarks is set, by a BOOKMARK
	// annotated k8s.io/initial-events-end (the streaming list); it needs
	// ResourceVersionMatch NotOlderThan.
	SendInitialEvents *bool
}

// List is one page of a list. Kubernetes: the XxxList types' metadata+items.
type List struct {
	Metadata api.ListMeta
	Items    []api.Object
}

// WatchEvent is one event of a watch: Type is api.WatchAdded, ...Modified,
// ...Deleted or ...Bookmark with the Object, or api.WatchError with the
// Status saying why the watch ended (Object is then nil).
type WatchEvent struct {
	Type   string
	Object api.Object
	Status *api.Status
}

// ErrWatchClosed is what Watcher.Poll returns once the watch has ended.
var ErrWatchClosed = errors.New("watch closed")

// Watcher is a watch in progress. Delivery is a step: Poll returns what is
// pending at once; Ready is closed when Poll may have more. After an ERROR
// event, or Stop, Poll returns ErrWatchClosed.
type Watcher interface {
	// Poll appends up to limit pending events (all when limit <= 0) to dst.
	Poll(dst []WatchEvent, limit int) ([]WatchEvent, error)
	// Ready returns a channel closed when Poll may return something new.
	Ready() <-chan struct{}
	// Stop ends the watch; it is safe to call more than once.
	Stop()
}
