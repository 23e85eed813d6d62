package garbagecollector

import (
	"strings"
	"sync"

	"github.com/miniplane/miniplane/client"
)

// kindInfo is what the collector needs to know of a kind: the resource to
// read and write it through, and whether it lives in a namespace.
type kindInfo struct {
	kind       string
	group      string // "" for the core group
	resource   string
	namespaced bool
}

// servedKinds returns the kinds this server serves, in resource order: each
// stored kind once (events.k8s.io Events are the core Events). A test checks
// it against the server's Resources, so a kind added there and not here
// fails.
func servedKinds() []kindInfo {
	return []kindInfo{
		{kind: "CSIDriver", group: "storage.k8s.io", resource: client.CSIDrivers},
		{kind: "CSINode", group: "storage.k8s.io", resource: client.CSINodes},
		{kind: "CSIStorageCapacity", group: "storage.k8s.io", resource: client.CSIStorageCapacities, namespaced: true},
		{kind: "ClusterRole", group: "rbac.authorization.k8s.io", resource: client.ClusterRoles},
		{kind: "ClusterRoleBinding", group: "rbac.authorization.k8s.io", resource: client.ClusterRoleBindings},
		{kind: "ConfigMap", resource: client.ConfigMaps, namespaced: true},
		{kind: "CustomResourceDefinition", group: "apiextensions.k8s.io", resource: client.CustomResourceDefinitions},
		{kind: "CronJob", group: "batch", resource: client.CronJobs, namespaced: true},
		{kind: "Deployment", group: "apps", resource: client.Deployments, namespaced: true},
		{kind: "DaemonSet", group: "apps", resource: client.DaemonSets, namespaced: true},
		{kind: "ControllerRevision", group: "apps", resource: client.ControllerRevisions, namespaced: true},
		{kind: "Endpoints", resource: client.Endpoints, namespaced: true},
		{kind: "EndpointSlice", group: "discovery.k8s.io", resource: client.EndpointSlices, namespaced: true},
		{kind: "Event", resource: client.Events, namespaced: true},
		{kind: "ResourceQuota", resource: client.ResourceQuotas, namespaced: true},
		{kind: "Job", group: "batch", resource: client.Jobs, namespaced: true},
		{kind: "LimitRange", resource: client.LimitRanges, namespaced: true},
		{kind: "Lease", group: "coordination.k8s.io", resource: client.Leases, namespaced: true},
		{kind: "Namespace", resource: client.Namespaces},
		{kind: "Node", resource: client.Nodes},
		{kind: "PersistentVolume", resource: client.PersistentVolumes},
		{kind: "PersistentVolumeClaim", resource: client.PersistentVolumeClaims, namespaced: true},
		{kind: "Pod", resource: client.Pods, namespaced: true},
		{kind: "PodTemplate", resource: client.PodTemplates, namespaced: true},
		{kind: "PodDisruptionBudget", group: "policy", resource: client.PodDisruptionBudgets, namespaced: true},
		{kind: "PriorityClass", group: "scheduling.k8s.io", resource: client.PriorityClasses},
		{kind: "ReplicaSet", group: "apps", resource: client.ReplicaSets, namespaced: true},
		{kind: "ReplicationController", resource: client.ReplicationControllers, namespaced: true},
		{kind: "Role", group: "rbac.authorization.k8s.io", resource: client.Roles, namespaced: true},
		{kind: "RoleBinding", group: "rbac.authorization.k8s.io", resource: client.RoleBindings, namespaced: true},
		{kind: "Secret", resource: client.Secrets, namespaced: true},
		{kind: "Service", resource: client.Services, namespaced: true},
		{kind: "ServiceAccount", resource: client.ServiceAccounts, namespaced: true},
		{kind: "StatefulSet", group: "apps", resource: client.StatefulSets, namespaced: true},
		{kind: "ValidatingAdmissionPolicy", group: "admissionregistration.k8s.io", resource: client.ValidatingAdmissionPolicies},
		{kind: "ValidatingAdmissionPolicyBinding", group: "admissionregistration.k8s.io", resource: client.ValidatingAdmissionPolicyBindings},
		{kind: "ValidatingWebhookConfiguration", group: "admissionregistration.k8s.io", resource: client.ValidatingWebhookConfigurations},
		{kind: "MutatingWebhookConfiguration", group: "admissionregistration.k8s.io", resource: client.MutatingWebhookConfigurations},
		{kind: "StorageClass", group: "storage.k8s.io", resource: client.StorageClasses},
		{kind: "VolumeAttachment", group: "storage.k8s.io", resource: client.VolumeAttachments},
	}
}

// DefaultResources are the resources the collector watches when Config
// names none: all that the server serves but events, which Kubernetes'
// collector ignores by default too (there are many, and nothing owns them).
func DefaultResources() []string {
	var out []string
	for _, k := range servedKinds() {
		// Nor CustomResourceDefinitions: nothing here owns one, and a
		// collector that watched them would step the simulator's recorded
		// runs differently.
		if k.resource != client.Events && k.resource != client.CustomResourceDefinitions {
			out = append(out, k.resource)
		}
	}
	return out
}

// kindByResource returns the kind served as resource.
func kindByResource(resource string) (kindInfo, bool) {
	for _, k := range servedKinds() {
		if k.resource == resource {
			return k, true
		}
	}
	return kindInfo{}, false
}

// kindOfRef returns the kind an owner reference names, matched by kind and
// API group; false for a kind the server does not serve.
func kindOfRef(apiVersion, kind string) (kindInfo, bool) {
	group := groupOf(apiVersion)
	for _, k := range servedKinds() {
		if k.kind == kind && k.group == group {
			return k, true
		}
	}
	return kindInfo{}, false
}

// groupOf returns the API group of an apiVersion ("" for "v1").
func groupOf(apiVersion string) string {
	if g, _, found := strings.Cut(apiVersion, "/"); found {
		return g
	}
	return ""
}

// customKinds is the collector's table of the custom kinds it has
// followed, by API group and kind (Kubernetes' collector resolves owner
// references through discovery's REST mapper). An entry is replaced when
// a definition of the same group and kind is established again, and never
// removed: an owner of a kind no longer served is then read live and
// found absent, as it is (a definition's removal deletes its objects).
// The zero value is empty and ready.
type customKinds struct {
	// mu guards byGroupKind. It is taken after the graph's mutex, never
	// before.
	mu          sync.Mutex
	byGroupKind map[groupKind]kindInfo
}

type groupKind struct{ group, kind string }

// set records k as the kind its group and kind name.
func (c *customKinds) set(k kindInfo) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byGroupKind == nil {
		c.byGroupKind = make(map[groupKind]kindInfo)
	}
	c.byGroupKind[groupKind{k.group, k.kind}] = k
}

// lookup returns the kind an owner reference names: a served built-in
// kind, or a custom kind followed so far.
func (c *customKinds) lookup(apiVersion, kind string) (kindInfo, bool) {
	if k, ok := kindOfRef(apiVersion, kind); ok {
		return k, true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	k, ok := c.byGroupKind[groupKind{groupOf(apiVersion), kind}]
	return k, ok
}
