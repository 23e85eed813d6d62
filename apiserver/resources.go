package apiserver

import (
	"slices"
	"strings"
	"time"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/store"
)

// ResourceInfo describes one resource a Server serves, for clients that
// route by name and need the kind behind it: the HTTP front's paths and its
// discovery documents. Kubernetes: the APIResource of discovery.
type ResourceInfo struct {
	// Resource is the plural name in paths: "pods".
	Resource string
	// Singular is the singular name: "pod".
	Singular string
	// Group and Version form the API version; Group is "" for core.
	Group, Version string
	// Kind is the kind of the resource's objects: "Pod".
	Kind string
	// Namespaced is false for cluster-scoped resources (nodes, namespaces).
	Namespaced bool
	// HasStatus says the resource has the status subresource.
	HasStatus bool
	// ActedOnBy names the kube-controller-manager controller that acts on
	// the resource's objects in Kubernetes ("deployment"); empty for data
	// and for what the API server or the nodes act on (actedon.go).
	ActedOnBy string
	// NotCalled, when set, is the warning a create of this resource
	// answers because kube-apiserver would act on it and miniplane does
	// not: webhook configurations, whose webhooks are never called.
	NotCalled string
	// HasScale says the resource has the scale subresource (autoscaling/v1 Scale).
	HasScale bool
	// HasBinding says the resource has the binding subresource (pods).
	HasBinding bool
	// HasEviction says the resource has the eviction subresource (pods),
	// which takes a policy/v1 Eviction.
	HasEviction bool
	// HasApproval says the resource has the approval subresource
	// (certificatesigningrequests).
	HasApproval bool
	// ShortNames are kubectl's abbreviations: "po".
	ShortNames []string
	// Categories group resources for `kubectl get all`.
	Categories []string
	// Columns are what `kubectl get` prints for the resource when the kind
	// declares them with its registration; nil leaves the choice to the
	// HTTP front (its own printers, else name and age).
	Columns []Column
	// New returns an empty object of the kind.
	New func() api.Object
	// JSONOnly says the resource is served in JSON only, as kube-apiserver
	// serves custom resources: a protobuf body gets 415 and a protobuf
	// Accept is answered in JSON. CustomResourceDefinitions, built in to
	// apiextensions-apiserver, are served in both.
	JSONOnly bool
	// Schema is a custom resource's structural schema (its OpenAPI
	// document's); nil for built-in kinds, whose schemas come from their Go
	// types.
	Schema *api.JSONSchemaProps
	// ListKind is a custom resource's list kind ("WidgetList"); empty for
	// built-in kinds, whose list kind is their kind + "List".
	ListKind string
	// StoredAs, when not empty, names (as Name does) the resource whose
	// stored objects this one serves in another group or version:
	// events.k8s.io/v1 events are core/v1 events. A client that wants each
	// stored object once watches only the resources where it is empty.
	StoredAs string
}

// Column is one column of the table `kubectl get` prints, as Kubernetes'
// printers declare it (metav1.TableColumnDefinition plus the function that
// fills a row's cell).
type Column struct {
	// Name is the header, "Name" and "Age" included: "Data".
	Name string
	// Type is the OpenAPI type of the cells: "string", "integer".
	Type string
	// Description says what the column shows.
	Description string
	// Priority 0 columns always show; 1 only with -o wide.
	Priority int
	// Cell returns the column's value for an object of the kind. Nil for
	// the Name and Age columns, which every table fills alike (the name,
	// and the time since creationTimestamp on the server's clock).
	Cell func(api.Object) any
}

// APIVersion returns "group/version", or "version" in the core group.
func (r ResourceInfo) APIVersion() string {
	if r.Group == "" {
		return r.Version
	}
	return r.Group + "/" + r.Version
}

// GroupResource returns the resource's name for messages.
func (r ResourceInfo) GroupResource() apierrors.GroupResource {
	return apierrors.GroupResource{Group: r.Group, Resource: r.Resource}
}

// Name returns the name Client calls take for the resource, which tells
// apart resources of one plural in several groups: "pods",
// "leases.coordination.k8s.io", "events.events.k8s.io". A custom
// resource's version other than its storage version is named as kubectl
// names a resource in one version: "widgets.v1beta1.demo.example.com".
func (r ResourceInfo) Name() string {
	gr := r.GroupResource().String()
	if r.StoredAs == gr {
		return r.Resource + "." + r.Version + "." + r.Group
	}
	return gr
}

// Resources returns every resource the server serves, sorted by group and
// then by resource name. A stored kind served in several groups is listed
// in each: events in the core group and in events.k8s.io.
func (s *Server) Resources() []ResourceInfo {
	out := make([]ResourceInfo, 0, len(s.served))
	for _, k := range s.served {
		out = append(out, k.info())
	}
	for _, k := range s.customSorted() {
		out = append(out, k.info())
	}
	slices.SortFunc(out, func(a, b ResourceInfo) int {
		if a.Group != b.Group {
			if a.Group < b.Group {
				return -1
			}
			return 1
		}
		if a.Resource < b.Resource {
			return -1
		}
		if a.Resource > b.Resource {
			return 1
		}
		return 0
	})
	return out
}

// Resource returns the description of one served resource by a name a
// Client call takes (its plural, or plural.group), and false when the server
// does not serve it.
func (s *Server) Resource(resource string) (ResourceInfo, bool) {
	k, err := s.kindFor(resource)
	if err != nil {
		return ResourceInfo{}, false
	}
	return k.info(), true
}

func (k *kind) info() ResourceInfo {
	version := k.apiVersion
	if i := strings.LastIndexByte(version, '/'); i >= 0 {
		version = version[i+1:]
	}
	r := ResourceInfo{
		Resource: k.gr.Resource, Group: k.gr.Group, Version: version, Kind: k.kind,
		Namespaced: k.namespaced, HasStatus: k.status != nil,
		HasScale:    k.scale != nil,
		HasBinding:  k.gr == apierrors.GroupResource{Resource: client.Pods},
		HasEviction: k.gr == apierrors.GroupResource{Resource: client.Pods},
		HasApproval: k.approval,
		ShortNames:  slices.Clone(k.shortNames),
		Categories:  slices.Clone(k.categories),
		Singular:    k.singular,
		Columns:     slices.Clone(k.columns),
		New:         k.newObj,
		ActedOnBy:   actedOnBy[k.gr.Resource],
		NotCalled:   notCalled[k.gr.Resource],
	}
	if r.Singular == "" {
		r.Singular = strings.TrimSuffix(k.gr.Resource, "s")
	}
	if k.custom != nil {
		r.JSONOnly, r.Schema, r.ListKind = true, k.custom.schema, k.custom.listKind
	}
	if st := k.stored(); st != k {
		r.StoredAs = st.gr.String()
	}
	return r
}

// Count returns how many objects of a resource are stored, in every
// namespace; 0 for a resource the server does not serve. Resources that
// share a stored kind count the same objects.
func (s *Server) Count(resource string) int {
	k, err := s.kindFor(resource)
	if err != nil {
		return 0
	}
	n := 0
	_, _, _ = s.store.Range(k.prefix(""), store.ListOptions{}, func(store.Record[api.Object]) bool {
		n++
		return true
	})
	return n
}

// BookmarkInterval returns how often a watch that allows bookmarks gets one
// when it has progressed; a watch served over a stream polls that often.
func (s *Server) BookmarkInterval() time.Duration { return s.bookmarkEvery }
