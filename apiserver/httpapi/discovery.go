package httpapi

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
)

// The discovery documents, in Kubernetes' JSON shapes
// (k8s.io/apimachinery/pkg/apis/meta/v1 and apidiscovery/v2).

type apiVersions struct {
	Kind                       string                      `json:"kind"`
	Versions                   []string                    `json:"versions"`
	ServerAddressByClientCIDRs []serverAddressByClientCIDR `json:"serverAddressByClientCIDRs"`
}

type serverAddressByClientCIDR struct {
	ClientCIDR    string `json:"clientCIDR"`
	ServerAddress string `json:"serverAddress"`
}

type apiGroupList struct {
	Kind       string     `json:"kind"`
	APIVersion string     `json:"apiVersion"`
	Groups     []apiGroup `json:"groups"`
}

type apiGroup struct {
	Kind             string                     `json:"kind,omitempty"`
	APIVersion       string                     `json:"apiVersion,omitempty"`
	Name             string                     `json:"name"`
	Versions         []groupVersionForDiscovery `json:"versions"`
	PreferredVersion groupVersionForDiscovery   `json:"preferredVersion"`
}

type groupVersionForDiscovery struct {
	GroupVersion string `json:"groupVersion"`
	Version      string `json:"version"`
}

type apiResourceList struct {
	Kind         string        `json:"kind"`
	APIVersion   string        `json:"apiVersion"`
	GroupVersion string        `json:"groupVersion"`
	Resources    []apiResource `json:"resources"`
}

type apiResource struct {
	Name         string   `json:"name"`
	SingularName string   `json:"singularName"`
	Namespaced   bool     `json:"namespaced"`
	Group        string   `json:"group,omitempty"`
	Version      string   `json:"version,omitempty"`
	Kind         string   `json:"kind"`
	Verbs        []string `json:"verbs"`
	ShortNames   []string `json:"shortNames,omitempty"`
	Categories   []string `json:"categories,omitempty"`
}

type discoveryList struct {
	Kind       string           `json:"kind"`
	APIVersion string           `json:"apiVersion"`
	Metadata   struct{}         `json:"metadata"`
	Items      []discoveryGroup `json:"items"`
}

type discoveryGroup struct {
	Metadata struct {
		Name string `json:"name,omitempty"`
	} `json:"metadata"`
	Versions []discoveryVersion `json:"versions"`
}

type discoveryVersion struct {
	Version   string              `json:"version"`
	Resources []discoveryResource `json:"resources"`
	Freshness string              `json:"freshness"`
}

type discoveryResource struct {
	Resource         string                 `json:"resource"`
	ResponseKind     groupVersionKind       `json:"responseKind"`
	Scope            string                 `json:"scope"`
	SingularResource string                 `json:"singularResource"`
	Verbs            []string               `json:"verbs"`
	ShortNames       []string               `json:"shortNames,omitempty"`
	Categories       []string               `json:"categories,omitempty"`
	Subresources     []discoverySubresource `json:"subresources,omitempty"`
}

type discoverySubresource struct {
	Subresource  string           `json:"subresource"`
	ResponseKind groupVersionKind `json:"responseKind"`
	Verbs        []string         `json:"verbs"`
}

type groupVersionKind struct {
	Group   string `json:"group"`
	Version string `json:"version"`
	Kind    string `json:"kind"`
}

// apiVersion returns "group/version", or "version" in the core group.
func (k groupVersionKind) apiVersion() string {
	if k.Group == "" {
		return k.Version
	}
	return k.Group + "/" + k.Version
}

// Verbs of the served resources and subresources.
var (
	resourceVerbs    = []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}
	subresourceVerbs = []string{"get", "patch", "update"}
	createVerbs      = []string{"create"} // binding, eviction
)

// subresource is one subresource of a resource, as discovery lists it.
type subresource struct {
	name  string
	kind  groupVersionKind
	verbs []string
}

func subresourcesOf(r apiserver.ResourceInfo) []subresource {
	self := groupVersionKind{Group: r.Group, Version: r.Version, Kind: r.Kind}
	var out []subresource
	if r.HasBinding {
		out = append(out, subresource{"binding", groupVersionKind{Version: "v1", Kind: "Binding"}, createVerbs})
	}
	if r.HasEviction {
		// kubectl drain evicts only when the core group lists pods/eviction
		// with its group and version; else it deletes.
		out = append(out, subresource{"eviction", groupVersionKind{Group: "policy", Version: "v1", Kind: evictionKind}, createVerbs})
	}
	if r.Resource == client.Pods {
		out = append(out, subresource{"ephemeralcontainers", self, subresourceVerbs})
		out = append(out, subresource{"log", self, []string{"get"}}) // logs.go
	}
	if r.Resource == client.Namespaces && r.Group == "" {
		out = append(out, subresource{"finalize", self, []string{"update"}})
	}
	if r.HasApproval {
		out = append(out, subresource{"approval", self, subresourceVerbs})
	}
	if r.HasScale {
		out = append(out, subresource{"scale", groupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"}, subresourceVerbs})
	}
	if r.HasStatus {
		out = append(out, subresource{"status", self, subresourceVerbs})
	}
	return out
}

// aggregatedMediaType returns the aggregated discovery media type the
// Accept header asks for ("" when it asks for none): kubectl asks for v2,
// then v2beta1, then plain JSON, and tells the answers apart only by
// Content-Type.
func aggregatedMediaType(accept string) (contentType, apiVersion string) {
	for _, mt := range parseAccept(accept) {
		if mt.typ != "application/json" || mt.params["as"] != "APIGroupDiscoveryList" || mt.params["g"] != "apidiscovery.k8s.io" {
			continue
		}
		switch v := mt.params["v"]; v {
		case "v2", "v2beta1":
			return "application/json;g=apidiscovery.k8s.io;v=" + v + ";as=APIGroupDiscoveryList", "apidiscovery.k8s.io/" + v
		}
	}
	return "", ""
}

// serveRootDiscovery answers /api (core) or /apis (named groups), in the
// aggregated form when asked for, else the legacy one.
func (h *Handler) serveRootDiscovery(w http.ResponseWriter, r *http.Request, core bool) {
	if ct, apiVersion := aggregatedMediaType(r.Header.Get("Accept")); ct != "" {
		list := discoveryList{Kind: "APIGroupDiscoveryList", APIVersion: apiVersion, Items: []discoveryGroup{}}
		for _, gv := range h.discoveryGroups() {
			if (gv.group == "") != core {
				continue
			}
			v := discoveryVersion{Version: gv.version, Freshness: "Current", Resources: discoveryResources(gv)}
			if n := len(list.Items); n > 0 && list.Items[n-1].Metadata.Name == gv.group {
				list.Items[n-1].Versions = append(list.Items[n-1].Versions, v)
				continue
			}
			var g discoveryGroup
			g.Metadata.Name = gv.group
			g.Versions = []discoveryVersion{v}
			list.Items = append(list.Items, g)
		}
		writeJSONAs(w, ct, list)
		return
	}
	if core {
		writeJSON(w, http.StatusOK, apiVersions{
			Kind: "APIVersions", Versions: []string{"v1"},
			ServerAddressByClientCIDRs: []serverAddressByClientCIDR{{ClientCIDR: "0.0.0.0/0", ServerAddress: r.Host}},
		})
		return
	}
	writeJSON(w, http.StatusOK, apiGroupList{Kind: "APIGroupList", APIVersion: "v1", Groups: namedGroups(h.discoveryGroups())})
}

// namedGroups returns the named groups of gvs (sorted as discoveryGroups
// sorts them), each with its versions and the first as the preferred one.
func namedGroups(gvs []*groupVersion) []apiGroup {
	out := []apiGroup{}
	for _, gv := range gvs {
		if gv.group == "" {
			continue
		}
		v := groupVersionForDiscovery{GroupVersion: gv.groupVersion(), Version: gv.version}
		if n := len(out); n > 0 && out[n-1].Name == gv.group {
			out[n-1].Versions = append(out[n-1].Versions, v)
			continue
		}
		out = append(out, apiGroup{Name: gv.group, Versions: []groupVersionForDiscovery{v}, PreferredVersion: v})
	}
	return out
}

// serveGroup answers /apis/{group}.
func (h *Handler) serveGroup(w http.ResponseWriter, group string) {
	for _, g := range namedGroups(h.discoveryGroups()) {
		if g.Name == group {
			g.Kind, g.APIVersion = "APIGroup", "v1"
			writeJSON(w, http.StatusOK, g)
			return
		}
	}
	writeError(w, notFoundPath())
}

// compareVersionPriority orders two versions of a group as Kubernetes
// does (version.CompareKubeAwareVersionStrings, highest first): GA before
// beta before alpha, a higher major then a higher minor first, and any
// version not of the form v1, v2beta1, v1alpha3 last, alphabetically.
func compareVersionPriority(a, b string) int {
	ka, kb := parseKubeVersion(a), parseKubeVersion(b)
	switch {
	case !ka.ok && !kb.ok:
		return strings.Compare(a, b)
	case !ka.ok:
		return 1
	case !kb.ok:
		return -1
	case ka.level != kb.level:
		return kb.level - ka.level
	case ka.major != kb.major:
		return kb.major - ka.major
	}
	return kb.minor - ka.minor
}

// kubeVersion is a version of the form v<major>[(alpha|beta)<minor>];
// level is 2 for GA, 1 for beta and 0 for alpha.
type kubeVersion struct {
	ok                  bool
	level, major, minor int
}

func parseKubeVersion(v string) kubeVersion {
	rest, ok := strings.CutPrefix(v, "v")
	if !ok {
		return kubeVersion{}
	}
	i := 0
	for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
		i++
	}
	major, err := strconv.Atoi(rest[:i])
	if err != nil || major == 0 || rest[0] == '0' {
		return kubeVersion{}
	}
	kv := kubeVersion{ok: true, level: 2, major: major}
	if rest = rest[i:]; rest == "" {
		return kv
	}
	switch {
	case strings.HasPrefix(rest, "beta"):
		kv.level, rest = 1, rest[len("beta"):]
	case strings.HasPrefix(rest, "alpha"):
		kv.level, rest = 0, rest[len("alpha"):]
	default:
		return kubeVersion{}
	}
	minor, err := strconv.Atoi(rest)
	if err != nil || minor == 0 || rest[0] == '0' {
		return kubeVersion{}
	}
	kv.minor = minor
	return kv
}

func discoveryResources(gv *groupVersion) []discoveryResource {
	out := make([]discoveryResource, 0, len(gv.resources))
	for _, r := range gv.resources {
		d := discoveryResource{
			Resource:         r.Resource,
			ResponseKind:     groupVersionKind{Group: r.Group, Version: r.Version, Kind: r.Kind},
			Scope:            "Cluster",
			SingularResource: r.Singular,
			Verbs:            verbsOf(gv),
			ShortNames:       r.ShortNames,
			Categories:       r.Categories,
		}
		if r.Namespaced {
			d.Scope = "Namespaced"
		}
		for _, s := range subresourcesOf(r) {
			d.Subresources = append(d.Subresources, discoverySubresource{Subresource: s.name, ResponseKind: s.kind, Verbs: s.verbs})
		}
		out = append(out, d)
	}
	return out
}

// serveResourceList answers /api/v1 and /apis/{group}/{version} (legacy
// discovery): the resources, then each subresource as "resource/sub".
func (h *Handler) serveResourceList(w http.ResponseWriter, gv *groupVersion) {
	list := apiResourceList{Kind: "APIResourceList", APIVersion: "v1", GroupVersion: gv.groupVersion()}
	for _, r := range gv.resources {
		list.Resources = append(list.Resources, apiResource{
			Name: r.Resource, SingularName: r.Singular, Namespaced: r.Namespaced, Kind: r.Kind,
			Verbs: verbsOf(gv), ShortNames: r.ShortNames, Categories: r.Categories,
		})
		for _, s := range subresourcesOf(r) {
			res := apiResource{Name: r.Resource + "/" + s.name, Namespaced: r.Namespaced, Kind: s.kind.Kind, Verbs: s.verbs}
			if s.kind.Group != r.Group || s.kind.Version != r.Version {
				res.Group, res.Version = s.kind.Group, s.kind.Version
			}
			list.Resources = append(list.Resources, res)
		}
	}
	writeJSON(w, http.StatusOK, list)
}

// writeJSONAs writes v with a content type other than plain JSON.
func writeJSONAs(w http.ResponseWriter, contentType string, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		writeError(w, apierrors.NewInternalError(err))
		return
	}
	writeRaw(w, http.StatusOK, contentType, b)
}

// mediaType is one entry of an Accept header.
type mediaType struct {
	typ string
	// params are the entry's parameters; nil when it has none (every
	// client-go request but a Table's or a metadata client's): read only.
	params map[string]string
}

// parseAccept splits an Accept header into its media types, in order. An
// entry without parameters costs no allocation but the result's.
func parseAccept(accept string) []mediaType {
	out := make([]mediaType, 0, strings.Count(accept, ",")+1)
	for part := range strings.SplitSeq(accept, ",") {
		typ, rest, hasParams := strings.Cut(part, ";")
		mt := mediaType{typ: strings.ToLower(strings.TrimSpace(typ))}
		if hasParams {
			mt.params = map[string]string{}
			for {
				f, more, ok := strings.Cut(rest, ";")
				k, v, _ := strings.Cut(f, "=")
				mt.params[strings.TrimSpace(k)] = strings.TrimSpace(v)
				if !ok {
					break
				}
				rest = more
			}
		}
		if mt.typ != "" {
			out = append(out, mt)
		}
	}
	return out
}
