package httpapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type discoveryResource struct {
	Resource     string `json:"resource"`
	ResponseKind struct {
		Group, Version, Kind string
	} `json:"responseKind"`
	Scope        string   `json:"scope"`
	Verbs        []string `json:"verbs"`
	ShortNames   []string `json:"shortNames"`
	Categories   []string `json:"categories"`
	Subresources []struct {
		Subresource  string `json:"subresource"`
		ResponseKind struct{ Group, Version, Kind string }
		Verbs        []string `json:"verbs"`
	} `json:"subresources"`
}

type discoveryList struct {
	Kind, APIVersion string
	Items            []struct {
		Metadata struct{ Name string } `json:"metadata"`
		Versions []struct {
			Version   string              `json:"version"`
			Resources []discoveryResource `json:"resources"`
		} `json:"versions"`
	} `json:"items"`
}

// TestAggregatedDiscovery checks the two aggregated documents kubectl
// reads: the exact Content-Type it tells them apart by, and per resource
// the kind, scope, verbs, short names, categories and subresources.
func TestAggregatedDiscovery(t *testing.T) {
	f := newFixture(t, nil)
	wantCore, wantNamed := map[string]string{}, map[string]string{}
	var named []string
	for _, r := range servedResources(t, f.srv) {
		if r.group == "" {
			wantCore[r.discoveryKey()] = r.discoveryValue()
			continue
		}
		wantNamed[r.discoveryKey()] = r.discoveryValue()
		if !slices.Contains(named, r.group) {
			named = append(named, r.group)
		}
	}
	tests := []struct {
		path       string
		wantGroups []string
		want       map[string]string // group/resource -> "Kind scope shortNames verbs"
	}{
		{"/api", []string{""}, wantCore},
		{"/apis", named, wantNamed},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			rec := f.do(t, request{path: tt.path, header: map[string]string{"Accept": acceptDiscovery}})
			require.Equal(t, http.StatusOK, rec.Code)
			assert.Equal(t, "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList", rec.Header().Get("Content-Type"))
			l := decode[discoveryList](t, rec)
			assert.Equal(t, "APIGroupDiscoveryList", l.Kind)
			assert.Equal(t, "apidiscovery.k8s.io/v2", l.APIVersion)
			var groups []string
			got := map[string]string{}
			for _, g := range l.Items {
				groups = append(groups, g.Metadata.Name)
				require.NotEmpty(t, g.Versions)
				for i, v := range g.Versions {
					prefix := g.Metadata.Name + "/" // the preferred version's, then group/version/
					if i > 0 {
						prefix += v.Version + "/"
					}
					for _, r := range v.Resources {
						sn := "[" + strings.Join(r.ShortNames, ",") + "]"
						got[prefix+r.Resource] = r.ResponseKind.Kind + " " + r.Scope + " " + sn + " " + fmt.Sprint(r.Verbs)
						if len(r.Categories) > 0 {
							got[prefix+r.Resource] += " categories " + strings.Join(r.Categories, ",")
						}
						checkDiscoveryResource(t, r)
					}
				}
			}
			assert.Equal(t, tt.wantGroups, groups, "in order, by group")
			assert.Equal(t, tt.want, got, "what api's registry serves")
			for _, fact := range kubeAPIServerFacts {
				if (fact.group == "") == (tt.path == "/api") {
					assert.Equal(t, fact.discoveryValue(), got[fact.discoveryKey()], "as kube-apiserver serves %s", fact.discoveryKey())
				}
			}
			if tt.path == "/apis" {
				assert.Subset(t, groups, kubeAPIServerGroups, "every group kube-apiserver serves")
			}
		})
	}
}

// checkDiscoveryResource checks the subresources of one resource of an
// aggregated discovery document, as kube-apiserver serves them.
func checkDiscoveryResource(t *testing.T, r discoveryResource) {
	t.Helper()
	var subs []string
	for _, s := range r.Subresources {
		subs = append(subs, s.Subresource+" "+s.ResponseKind.Group+"/"+s.ResponseKind.Version+" "+s.ResponseKind.Kind+" "+fmt.Sprint(s.Verbs))
	}
	switch r.Resource {
	case "replicationcontrollers":
		assert.Equal(t, []string{"scale autoscaling/v1 Scale [get patch update]", "status /v1 ReplicationController [get patch update]"}, subs)
	case "deployments":
		assert.Equal(t, []string{"scale autoscaling/v1 Scale [get patch update]", "status apps/v1 Deployment [get patch update]"}, subs)
	case "replicasets":
		assert.Equal(t, []string{"scale autoscaling/v1 Scale [get patch update]", "status apps/v1 ReplicaSet [get patch update]"}, subs)
	case "statefulsets":
		assert.Equal(t, []string{"scale autoscaling/v1 Scale [get patch update]", "status apps/v1 StatefulSet [get patch update]"}, subs)
	case "daemonsets":
		assert.Equal(t, []string{"status apps/v1 DaemonSet [get patch update]"}, subs)
	case "jobs":
		assert.Equal(t, []string{"status batch/v1 Job [get patch update]"}, subs)
	case "cronjobs":
		assert.Equal(t, []string{"status batch/v1 CronJob [get patch update]"}, subs)
	case "certificatesigningrequests":
		assert.Equal(t, []string{"approval certificates.k8s.io/v1 CertificateSigningRequest [get patch update]",
			"status certificates.k8s.io/v1 CertificateSigningRequest [get patch update]"}, subs)
	case "persistentvolumes", "persistentvolumeclaims", "poddisruptionbudgets", "volumeattachments", "flowschemas", "prioritylevelconfigurations", "ingresses":
		assert.Len(t, subs, 1, r.Resource)
		assert.Contains(t, subs[0], "status ", r.Resource)
	case "storageclasses", "priorityclasses", "runtimeclasses", "ingressclasses", "networkpolicies", "podtemplates", "limitranges", "controllerrevisions", "csinodes", "csidrivers", "csistoragecapacities", "endpointslices":
		assert.Empty(t, subs, r.Resource)
	case "pods":
		assert.Equal(t, []string{"binding /v1 Binding [create]", "eviction policy/v1 Eviction [create]", "ephemeralcontainers /v1 Pod [get patch update]", "log /v1 Pod [get]", "status /v1 Pod [get patch update]"}, subs)
	}
}

// TestLegacyDiscovery checks the plain JSON documents served when the
// aggregated form is not asked for, which kubectl falls back to.
func TestLegacyDiscovery(t *testing.T) {
	f := newFixture(t, nil)
	type resource struct {
		Name, SingularName, Kind, Group, Version string
		Namespaced                               bool
		Verbs, ShortNames                        []string
	}
	type resourceList struct {
		Kind, GroupVersion string
		Resources          []resource
	}
	tests := []struct {
		name  string
		path  string
		check func(t *testing.T, body []byte)
	}{
		{"api", "/api", func(t *testing.T, b []byte) {
			assert.JSONEq(t, `{"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":[{"clientCIDR":"0.0.0.0/0","serverAddress":"example.com"}]}`, string(b))
		}},
		{"apis", "/apis", func(t *testing.T, b []byte) {
			type groupVersion struct{ GroupVersion, Version string }
			type group struct {
				Name             string
				Versions         []groupVersion
				PreferredVersion groupVersion
			}
			var l struct {
				Kind, APIVersion string
				Groups           []group
			}
			require.NoError(t, json.Unmarshal(b, &l))
			assert.Equal(t, "APIGroupList", l.Kind)
			assert.Equal(t, "v1", l.APIVersion)
			var want []group // from api's registry: groups by name, the preferred version first
			for _, r := range servedResources(t, f.srv) {
				if r.group == "" {
					continue
				}
				if len(want) == 0 || want[len(want)-1].Name != r.group {
					want = append(want, group{Name: r.group})
				}
				g := &want[len(want)-1]
				gv := groupVersion{r.group + "/" + r.version, r.version}
				switch {
				case slices.Contains(g.Versions, gv):
				case r.preferred:
					g.PreferredVersion = gv
					g.Versions = slices.Insert(g.Versions, 0, gv)
				default:
					g.Versions = append(g.Versions, gv)
				}
			}
			assert.Equal(t, want, l.Groups)
			var names []string
			for _, g := range l.Groups {
				names = append(names, g.Name)
				if g.Name == "autoscaling" { // as kube-apiserver v1.32 serves it
					assert.Equal(t, group{Name: "autoscaling", Versions: []groupVersion{{"autoscaling/v2", "v2"}, {"autoscaling/v1", "v1"}},
						PreferredVersion: groupVersion{"autoscaling/v2", "v2"}}, g)
				}
			}
			assert.Subset(t, names, kubeAPIServerGroups, "every group kube-apiserver serves")
		}},
		{"group", "/apis/coordination.k8s.io", func(t *testing.T, b []byte) {
			assert.JSONEq(t, `{"kind":"APIGroup","apiVersion":"v1","name":"coordination.k8s.io",
				"versions":[{"groupVersion":"coordination.k8s.io/v1","version":"v1"}],
				"preferredVersion":{"groupVersion":"coordination.k8s.io/v1","version":"v1"}}`, string(b))
		}},
		{"core v1", "/api/v1", func(t *testing.T, b []byte) {
			var l resourceList
			require.NoError(t, json.Unmarshal(b, &l))
			assert.Equal(t, "APIResourceList", l.Kind)
			assert.Equal(t, "v1", l.GroupVersion)
			byName := map[string]resource{}
			for _, r := range l.Resources {
				byName[r.Name] = r
			}
			assert.Equal(t, resource{Name: "pods", SingularName: "pod", Kind: "Pod", Namespaced: true,
				Verbs: []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}, ShortNames: []string{"po"}}, byName["pods"])
			assert.Equal(t, resource{Name: "replicationcontrollers/scale", Kind: "Scale", Group: "autoscaling", Version: "v1", Namespaced: true,
				Verbs: []string{"get", "patch", "update"}}, byName["replicationcontrollers/scale"])
			assert.Equal(t, "Pod", byName["pods/status"].Kind)
			assert.Equal(t, []string{"create"}, byName["pods/binding"].Verbs)
			// kubectl drain evicts when pods/eviction names its group and version.
			assert.Equal(t, resource{Name: "pods/eviction", Kind: "Eviction", Group: "policy", Version: "v1", Namespaced: true,
				Verbs: []string{"create"}}, byName["pods/eviction"])
			assert.False(t, byName["namespaces"].Namespaced)
			assert.NotContains(t, byName, "leases")
		}},
		{"coordination v1", "/apis/coordination.k8s.io/v1", func(t *testing.T, b []byte) {
			var l resourceList
			require.NoError(t, json.Unmarshal(b, &l))
			assert.Equal(t, "coordination.k8s.io/v1", l.GroupVersion)
			require.Len(t, l.Resources, 1)
			assert.Equal(t, "leases", l.Resources[0].Name)
			assert.Equal(t, "Lease", l.Resources[0].Kind)
		}},
		{"events v1", "/apis/events.k8s.io/v1", func(t *testing.T, b []byte) {
			var l resourceList
			require.NoError(t, json.Unmarshal(b, &l))
			assert.Equal(t, "events.k8s.io/v1", l.GroupVersion)
			assert.Equal(t, []resource{{Name: "events", SingularName: "event", Kind: "Event", Namespaced: true,
				Verbs: []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}, ShortNames: []string{"ev"}}}, l.Resources)
		}},
		{"version", "/version", func(t *testing.T, b []byte) {
			var v struct{ Major, Minor, GitVersion string }
			require.NoError(t, json.Unmarshal(b, &v))
			assert.Equal(t, "1", v.Major)
			assert.Equal(t, "32", v.Minor, "kubectl's dispatcher picks its client by the minor version")
			assert.Equal(t, "v1.32.0-miniplane", v.GitVersion)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := f.do(t, request{path: tt.path, header: map[string]string{"Accept": "application/json"}})
			require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
			assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
			tt.check(t, rec.Body.Bytes())
		})
	}
}
