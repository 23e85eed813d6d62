package httpapi

import (
	"net/http"
	"slices"
	"strings"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
)

// kubernetesResources are the resources kube-apiserver v1.32 serves by
// default, by group ("" is the core group), as `kubectl api-resources`
// lists them against a new cluster. A request for one of them that
// miniplane does not serve is answered with a Status naming it, so a
// learner reads "miniplane does not serve horizontalpodautoscalers.autoscaling"
// instead of kube-apiserver's bare "could not find the requested resource",
// which reads like a typo of theirs.
var kubernetesResources = map[string][]string{
	"":                             {"bindings", "componentstatuses", "configmaps", "endpoints", "events", "limitranges", "namespaces", "nodes", "persistentvolumeclaims", "persistentvolumes", "pods", "podtemplates", "replicationcontrollers", "secrets", "serviceaccounts", "services"},
	"admissionregistration.k8s.io": {"mutatingwebhookconfigurations", "validatingadmissionpolicies", "validatingadmissionpolicybindings", "validatingwebhookconfigurations"},
	"apiextensions.k8s.io":         {"customresourcedefinitions"},
	"apiregistration.k8s.io":       {"apiservices"},
	"apps":                         {"controllerrevisions", "daemonsets", "deployments", "replicasets", "statefulsets"},
	"authentication.k8s.io":        {"selfsubjectreviews", "tokenreviews"},
	"authorization.k8s.io":         {"localsubjectaccessreviews", "selfsubjectaccessreviews", "selfsubjectrulesreviews", "subjectaccessreviews"},
	"autoscaling":                  {"horizontalpodautoscalers"},
	"batch":                        {"cronjobs"},
	"certificates.k8s.io":          {"certificatesigningrequests"},
	"coordination.k8s.io":          {"leases"},
	"events.k8s.io":                {"events"},
	"flowcontrol.apiserver.k8s.io": {"flowschemas", "prioritylevelconfigurations"},
	"networking.k8s.io":            {"ingressclasses", "ingresses", "networkpolicies"},
	"node.k8s.io":                  {"runtimeclasses"},
	"policy":                       {"poddisruptionbudgets"},
	"scheduling.k8s.io":            {"priorityclasses"},
	"storage.k8s.io":               {"csidrivers", "csinodes", "csistoragecapacities", "storageclasses", "volumeattachments"},
}

// unservedResource reads the group and resource of a path kube-apiserver
// would serve ("apis/batch/v1/namespaces/ns/jobs/x", "api/v1/limitranges")
// and reports them when the resource is one of Kubernetes' own.
func unservedResource(path string) (apierrors.GroupResource, bool) {
	segs := strings.Split(path, "/")
	var group string
	switch {
	case len(segs) >= 3 && segs[0] == "api":
		segs = segs[2:]
	case len(segs) >= 4 && segs[0] == "apis":
		group, segs = segs[1], segs[3:]
	default:
		return apierrors.GroupResource{}, false
	}
	if segs[0] == "watch" {
		segs = segs[1:]
	}
	if len(segs) >= 3 && segs[0] == "namespaces" {
		segs = segs[2:]
	}
	if len(segs) == 0 || !slices.Contains(kubernetesResources[group], segs[0]) {
		return apierrors.GroupResource{}, false
	}
	return apierrors.GroupResource{Group: group, Resource: segs[0]}, true
}

// notServed is the answer for a Kubernetes resource miniplane does not
// serve: 404 NotFound, as kube-apiserver answers a resource it lacks, with
// a message that names the resource and says why.
func notServed(gr apierrors.GroupResource) error {
	return &apierrors.StatusError{Status: api.Status{
		TypeMeta: api.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   api.StatusFailure,
		Message:  "miniplane does not serve " + gr.String() + ": it is a Kubernetes resource, but no part of miniplane stores it or acts on it yet (DESIGN.md, \"Deliberately left out\")",
		Reason:   api.StatusReasonNotFound,
		Details:  &api.StatusDetails{Group: gr.Group, Kind: gr.Resource},
		Code:     http.StatusNotFound,
	}}
}

// notFoundFor is the 404 for a path: notServed when it names a Kubernetes
// resource miniplane lacks, kube-apiserver's bare answer otherwise (a
// served resource's unknown subresource, a typo).
func (h *Handler) notFoundFor(path string) error {
	gr, ok := unservedResource(path)
	if !ok {
		return notFoundPath()
	}
	for _, gv := range h.currentRoutes().byPath {
		if info, served := gv.byName[gr.Resource]; served && info.Group == gr.Group {
			return notFoundPath()
		}
	}
	return notServed(gr)
}
