package httpapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
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
	const all = " [create delete deletecollection get list patch update watch]"
	tests := []struct {
		path       string
		wantGroups []string
		want       map[string]string // group/resource -> "Kind scope shortNames verbs"
	}{
		{"/api", []string{""}, map[string]string{
			"/pods": "Pod Namespaced [po]" + all, "/replicationcontrollers": "ReplicationController Namespaced [rc]" + all,
			"/services": "Service Namespaced [svc]" + all, "/endpoints": "Endpoints Namespaced [ep]" + all, "/nodes": "Node Cluster [no]" + all,
			"/namespaces": "Namespace Cluster [ns]" + all, "/events": "Event Namespaced [ev]" + all,
			"/configmaps": "ConfigMap Namespaced [cm]" + all, "/secrets": "Secret Namespaced []" + all,
			"/serviceaccounts": "ServiceAccount Namespaced [sa]" + all, "/resourcequotas": "ResourceQuota Namespaced [quota]" + all,
			"/podtemplates":      "PodTemplate Namespaced []" + all,
			"/limitranges":       "LimitRange Namespaced [limits]" + all,
			"/persistentvolumes": "PersistentVolume Cluster [pv]" + all, "/persistentvolumeclaims": "PersistentVolumeClaim Namespaced [pvc]" + all,
		}},
		{"/apis", []string{"admissionregistration.k8s.io", "apiextensions.k8s.io", "apiregistration.k8s.io", "apps", "authentication.k8s.io", "authorization.k8s.io", "autoscaling", "batch", "certificates.k8s.io", "coordination.k8s.io", "discovery.k8s.io", "events.k8s.io", "flowcontrol.apiserver.k8s.io", "networking.k8s.io", "node.k8s.io", "policy", "rbac.authorization.k8s.io", "scheduling.k8s.io", "storage.k8s.io"}, map[string]string{
			"autoscaling/horizontalpodautoscalers":                           "HorizontalPodAutoscaler Namespaced [hpa]" + all,
			"apiregistration.k8s.io/apiservices":                             "APIService Cluster []" + all,
			"autoscaling/v1/horizontalpodautoscalers":                        "HorizontalPodAutoscaler Namespaced [hpa]" + all,
			"apiextensions.k8s.io/customresourcedefinitions":                 "CustomResourceDefinition Cluster [crd,crds]" + all,
			"admissionregistration.k8s.io/validatingadmissionpolicies":       "ValidatingAdmissionPolicy Cluster []" + all,
			"admissionregistration.k8s.io/validatingadmissionpolicybindings": "ValidatingAdmissionPolicyBinding Cluster []" + all,
			"admissionregistration.k8s.io/validatingwebhookconfigurations":   "ValidatingWebhookConfiguration Cluster []" + all,
			"admissionregistration.k8s.io/mutatingwebhookconfigurations":     "MutatingWebhookConfiguration Cluster []" + all,
			"apps/deployments":            "Deployment Namespaced [deploy]" + all,
			"apps/daemonsets":             "DaemonSet Namespaced [ds]" + all,
			"apps/controllerrevisions":    "ControllerRevision Namespaced []" + all,
			"apps/replicasets":            "ReplicaSet Namespaced [rs]" + all,
			"apps/statefulsets":           "StatefulSet Namespaced [sts]" + all,
			"batch/cronjobs":              "CronJob Namespaced [cj]" + all,
			"batch/jobs":                  "Job Namespaced []" + all,
			"policy/poddisruptionbudgets": "PodDisruptionBudget Namespaced [pdb]" + all,
			"rbac.authorization.k8s.io/clusterrolebindings":            "ClusterRoleBinding Cluster []" + all,
			"rbac.authorization.k8s.io/clusterroles":                   "ClusterRole Cluster []" + all,
			"rbac.authorization.k8s.io/rolebindings":                   "RoleBinding Namespaced []" + all,
			"rbac.authorization.k8s.io/roles":                          "Role Namespaced []" + all,
			"storage.k8s.io/storageclasses":                            "StorageClass Cluster [sc]" + all,
			"storage.k8s.io/csinodes":                                  "CSINode Cluster []" + all,
			"storage.k8s.io/csidrivers":                                "CSIDriver Cluster []" + all,
			"storage.k8s.io/csistoragecapacities":                      "CSIStorageCapacity Namespaced []" + all,
			"storage.k8s.io/volumeattachments":                         "VolumeAttachment Cluster []" + all,
			"authentication.k8s.io/selfsubjectreviews":                 "SelfSubjectReview Cluster [] [create]",
			"authorization.k8s.io/localsubjectaccessreviews":           "LocalSubjectAccessReview Namespaced [] [create]",
			"authorization.k8s.io/selfsubjectaccessreviews":            "SelfSubjectAccessReview Cluster [] [create]",
			"authorization.k8s.io/selfsubjectrulesreviews":             "SelfSubjectRulesReview Cluster [] [create]",
			"authorization.k8s.io/subjectaccessreviews":                "SubjectAccessReview Cluster [] [create]",
			"authentication.k8s.io/tokenreviews":                       "TokenReview Cluster [] [create]",
			"coordination.k8s.io/leases":                               "Lease Namespaced []" + all,
			"discovery.k8s.io/endpointslices":                          "EndpointSlice Namespaced []" + all,
			"events.k8s.io/events":                                     "Event Namespaced [ev]" + all,
			"certificates.k8s.io/certificatesigningrequests":           "CertificateSigningRequest Cluster [csr]" + all,
			"flowcontrol.apiserver.k8s.io/flowschemas":                 "FlowSchema Cluster []" + all,
			"flowcontrol.apiserver.k8s.io/prioritylevelconfigurations": "PriorityLevelConfiguration Cluster []" + all,
			"node.k8s.io/runtimeclasses":                               "RuntimeClass Cluster []" + all,
			"scheduling.k8s.io/priorityclasses":                        "PriorityClass Cluster [pc]" + all,
			"networking.k8s.io/ingresses":                              "Ingress Namespaced [ing]" + all,
			"networking.k8s.io/ingressclasses":                         "IngressClass Cluster []" + all,
			"networking.k8s.io/networkpolicies":                        "NetworkPolicy Namespaced [netpol]" + all,
		}},
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
						checkDiscoveryResource(t, r)
					}
				}
			}
			assert.Equal(t, tt.wantGroups, groups, "in order, by group")
			assert.Equal(t, tt.want, got)
		})
	}
}

// checkDiscoveryResource checks one resource of an aggregated discovery
// document: its verbs, categories and subresources.
func checkDiscoveryResource(t *testing.T, r discoveryResource) {
	t.Helper()
	switch r.Resource {
	case "pods", "replicationcontrollers", "services", "deployments", "daemonsets", "replicasets", "statefulsets", "jobs", "cronjobs", "horizontalpodautoscalers":
		assert.Equal(t, []string{"all"}, r.Categories, r.Resource)
	case "customresourcedefinitions", "validatingadmissionpolicies", "validatingadmissionpolicybindings",
		"validatingwebhookconfigurations", "mutatingwebhookconfigurations", "apiservices":
		assert.Equal(t, []string{"api-extensions"}, r.Categories, r.Resource)
	default:
		assert.Empty(t, r.Categories, r.Resource)
	}
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
		assert.Equal(t, []string{"binding /v1 Binding [create]", "eviction policy/v1 Eviction [create]", "log /v1 Pod [get]", "status /v1 Pod [get patch update]"}, subs)
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
			assert.JSONEq(t, `{"kind":"APIGroupList","apiVersion":"v1","groups":[
				{"name":"admissionregistration.k8s.io","versions":[{"groupVersion":"admissionregistration.k8s.io/v1","version":"v1"}],
				 "preferredVersion":{"groupVersion":"admissionregistration.k8s.io/v1","version":"v1"}},
				{"name":"apiextensions.k8s.io","versions":[{"groupVersion":"apiextensions.k8s.io/v1","version":"v1"}],
				 "preferredVersion":{"groupVersion":"apiextensions.k8s.io/v1","version":"v1"}},
				{"name":"apiregistration.k8s.io","versions":[{"groupVersion":"apiregistration.k8s.io/v1","version":"v1"}],
				 "preferredVersion":{"groupVersion":"apiregistration.k8s.io/v1","version":"v1"}},
				{"name":"apps","versions":[{"groupVersion":"apps/v1","version":"v1"}],
				 "preferredVersion":{"groupVersion":"apps/v1","version":"v1"}},
				{"name":"authentication.k8s.io","versions":[{"groupVersion":"authentication.k8s.io/v1","version":"v1"}],
				 "preferredVersion":{"groupVersion":"authentication.k8s.io/v1","version":"v1"}},
				{"name":"authorization.k8s.io","versions":[{"groupVersion":"authorization.k8s.io/v1","version":"v1"}],
				 "preferredVersion":{"groupVersion":"authorization.k8s.io/v1","version":"v1"}},
				{"name":"autoscaling","versions":[{"groupVersion":"autoscaling/v2","version":"v2"},{"groupVersion":"autoscaling/v1","version":"v1"}],
				 "preferredVersion":{"groupVersion":"autoscaling/v2","version":"v2"}},
				{"name":"batch","versions":[{"groupVersion":"batch/v1","version":"v1"}],
				 "preferredVersion":{"groupVersion":"batch/v1","version":"v1"}},
				{"name":"certificates.k8s.io","versions":[{"groupVersion":"certificates.k8s.io/v1","version":"v1"}],
				 "preferredVersion":{"groupVersion":"certificates.k8s.io/v1","version":"v1"}},
				{"name":"coordination.k8s.io","versions":[{"groupVersion":"coordination.k8s.io/v1","version":"v1"}],
				 "preferredVersion":{"groupVersion":"coordination.k8s.io/v1","version":"v1"}},
				{"name":"discovery.k8s.io","versions":[{"groupVersion":"discovery.k8s.io/v1","version":"v1"}],
				 "preferredVersion":{"groupVersion":"discovery.k8s.io/v1","version":"v1"}},
				{"name":"events.k8s.io","versions":[{"groupVersion":"events.k8s.io/v1","version":"v1"}],
				 "preferredVersion":{"groupVersion":"events.k8s.io/v1","version":"v1"}},
				{"name":"flowcontrol.apiserver.k8s.io","versions":[{"groupVersion":"flowcontrol.apiserver.k8s.io/v1","version":"v1"}],
				 "preferredVersion":{"groupVersion":"flowcontrol.apiserver.k8s.io/v1","version":"v1"}},
				{"name":"networking.k8s.io","versions":[{"groupVersion":"networking.k8s.io/v1","version":"v1"}],
				 "preferredVersion":{"groupVersion":"networking.k8s.io/v1","version":"v1"}},
				{"name":"node.k8s.io","versions":[{"groupVersion":"node.k8s.io/v1","version":"v1"}],
				 "preferredVersion":{"groupVersion":"node.k8s.io/v1","version":"v1"}},
				{"name":"policy","versions":[{"groupVersion":"policy/v1","version":"v1"}],
				 "preferredVersion":{"groupVersion":"policy/v1","version":"v1"}},
				{"name":"rbac.authorization.k8s.io","versions":[{"groupVersion":"rbac.authorization.k8s.io/v1","version":"v1"}],
				 "preferredVersion":{"groupVersion":"rbac.authorization.k8s.io/v1","version":"v1"}},
				{"name":"scheduling.k8s.io","versions":[{"groupVersion":"scheduling.k8s.io/v1","version":"v1"}],
				 "preferredVersion":{"groupVersion":"scheduling.k8s.io/v1","version":"v1"}},
				{"name":"storage.k8s.io","versions":[{"groupVersion":"storage.k8s.io/v1","version":"v1"}],
				 "preferredVersion":{"groupVersion":"storage.k8s.io/v1","version":"v1"}}]}`, string(b))
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
