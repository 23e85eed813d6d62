package httpapi_test

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver"
)

// servedResource is one resource as discovery and kubectl api-resources
// should show it. The discovery tests derive what they expect from api's
// registry, so adding a kind touches none of them; what keeps them honest is
// that discovery is built by the code under test from the Server's kinds,
// and that kubeAPIServerFacts and kubeAPIServerGroups, written by hand from
// kube-apiserver v1.32, must hold as well.
type servedResource struct {
	group, version, resource, kind string
	namespaced                     bool
	shortNames, categories         []string
	verbs                          []string
	// preferred says the version is its group's preferred one, the one
	// kubectl api-resources lists and aggregated discovery lists first.
	preferred bool
}

// allVerbs are the verbs of every stored kind.
var allVerbs = []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}

// inAll is the categories of a kind that kubectl get all lists.
var inAll = []string{"all"}

// reviewResources are the authentication and authorization reviews: served
// for create only and stored nowhere, so api's registry does not hold them.
// Kubernetes: pkg/registry/authentication and pkg/registry/authorization.
var reviewResources = []servedResource{
	{group: "authentication.k8s.io", resource: "selfsubjectreviews", kind: "SelfSubjectReview"},
	{group: "authentication.k8s.io", resource: "tokenreviews", kind: "TokenReview"},
	{group: "authorization.k8s.io", resource: "localsubjectaccessreviews", kind: "LocalSubjectAccessReview", namespaced: true},
	{group: "authorization.k8s.io", resource: "selfsubjectaccessreviews", kind: "SelfSubjectAccessReview"},
	{group: "authorization.k8s.io", resource: "selfsubjectrulesreviews", kind: "SelfSubjectRulesReview"},
	{group: "authorization.k8s.io", resource: "subjectaccessreviews", kind: "SubjectAccessReview"},
}

// kubeAPIServerGroups are the groups kube-apiserver v1.32 serves with its
// default flags; miniplane serves each of them.
var kubeAPIServerGroups = []string{"admissionregistration.k8s.io", "apiextensions.k8s.io", "apiregistration.k8s.io",
	"apps", "authentication.k8s.io", "authorization.k8s.io", "autoscaling", "batch", "certificates.k8s.io",
	"coordination.k8s.io", "discovery.k8s.io", "events.k8s.io", "flowcontrol.apiserver.k8s.io", "networking.k8s.io",
	"node.k8s.io", "policy", "rbac.authorization.k8s.io", "scheduling.k8s.io", "storage.k8s.io"}

// kubeAPIServerFacts are a few resources as kube-apiserver v1.32 serves
// them, written by hand: discovery must show each exactly so, whatever the
// registry says.
var kubeAPIServerFacts = []servedResource{
	{version: "v1", resource: "pods", kind: "Pod", namespaced: true, shortNames: []string{"po"}, categories: inAll, verbs: allVerbs, preferred: true},
	{version: "v1", resource: "nodes", kind: "Node", shortNames: []string{"no"}, verbs: allVerbs, preferred: true},
	{version: "v1", resource: "services", kind: "Service", namespaced: true, shortNames: []string{"svc"}, categories: inAll, verbs: allVerbs, preferred: true},
	{version: "v1", resource: "secrets", kind: "Secret", namespaced: true, verbs: allVerbs, preferred: true},
	{group: "apps", version: "v1", resource: "deployments", kind: "Deployment", namespaced: true, shortNames: []string{"deploy"}, categories: inAll, verbs: allVerbs, preferred: true},
	{group: "batch", version: "v1", resource: "jobs", kind: "Job", namespaced: true, categories: inAll, verbs: allVerbs, preferred: true},
	{group: "autoscaling", version: "v2", resource: "horizontalpodautoscalers", kind: "HorizontalPodAutoscaler", namespaced: true, shortNames: []string{"hpa"}, categories: inAll, verbs: allVerbs, preferred: true},
	{group: "autoscaling", version: "v1", resource: "horizontalpodautoscalers", kind: "HorizontalPodAutoscaler", namespaced: true, shortNames: []string{"hpa"}, categories: inAll, verbs: allVerbs},
	{group: "events.k8s.io", version: "v1", resource: "events", kind: "Event", namespaced: true, shortNames: []string{"ev"}, verbs: allVerbs, preferred: true},
	{group: "apiextensions.k8s.io", version: "v1", resource: "customresourcedefinitions", kind: "CustomResourceDefinition", shortNames: []string{"crd", "crds"}, categories: []string{"api-extensions"}, verbs: allVerbs, preferred: true},
	{group: "rbac.authorization.k8s.io", version: "v1", resource: "clusterroles", kind: "ClusterRole", verbs: allVerbs, preferred: true},
	{group: "storage.k8s.io", version: "v1", resource: "csistoragecapacities", kind: "CSIStorageCapacity", namespaced: true, verbs: allVerbs, preferred: true},
	{group: "authorization.k8s.io", version: "v1", resource: "localsubjectaccessreviews", kind: "LocalSubjectAccessReview", namespaced: true, verbs: []string{"create"}, preferred: true},
}

// servedResources returns what discovery must list: every type api's
// registry holds, with the short names the Server's kind declares, and the
// reviews; sorted by group, then resource, then version.
func servedResources(t testing.TB, srv *apiserver.Server) []servedResource {
	t.Helper()
	var out []servedResource
	for _, ti := range api.RegisteredTypes() {
		ri, ok := srv.Resource(ti.Name)
		require.True(t, ok, "%s is registered and served", ti.Name)
		out = append(out, servedResource{group: ti.Group, version: ti.Version, resource: ti.Resource, kind: ti.Kind,
			namespaced: ti.Namespaced, shortNames: ri.ShortNames, categories: ri.Categories, verbs: allVerbs,
			// a version served beside the stored one is named plural.version.group
			preferred: ti.Name != ti.Resource+"."+ti.Version+"."+ti.Group})
	}
	for _, r := range reviewResources {
		r.version, r.verbs, r.preferred = "v1", []string{"create"}, true
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b servedResource) int {
		return cmp.Or(strings.Compare(a.group, b.group), strings.Compare(a.resource, b.resource), strings.Compare(a.version, b.version))
	})
	return out
}

// discoveryKey is how TestAggregatedDiscovery names a resource: group/resource
// in the preferred version, group/version/resource in another.
func (r servedResource) discoveryKey() string {
	if r.preferred {
		return r.group + "/" + r.resource
	}
	return r.group + "/" + r.version + "/" + r.resource
}

// discoveryValue is what TestAggregatedDiscovery reads of a resource:
// "Kind Scope [shortNames] [verbs]", and " categories c,d" if it has any.
func (r servedResource) discoveryValue() string {
	scope := "Cluster"
	if r.namespaced {
		scope = "Namespaced"
	}
	v := r.kind + " " + scope + " [" + strings.Join(r.shortNames, ",") + "] " + fmt.Sprint(r.verbs)
	if len(r.categories) > 0 {
		v += " categories " + strings.Join(r.categories, ",")
	}
	return v
}

// apiResourcesRow is the resource's row of kubectl api-resources, split on
// spaces as columns splits it (no short names, no column).
func (r servedResource) apiResourcesRow() []string {
	row := []string{r.resource}
	if len(r.shortNames) > 0 {
		row = append(row, strings.Join(r.shortNames, ","))
	}
	apiVersion := r.version
	if r.group != "" {
		apiVersion = r.group + "/" + r.version
	}
	return append(row, apiVersion, fmt.Sprint(r.namespaced), r.kind)
}
