package garbagecollector

import (
	"strings"

	"github.com/miniplane/miniplane/apiserver"
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
		{kind: "CSIDriver", group: "storage.k8s.io", resource: apiserver.CSIDrivers},
		{kind: "CSINode", group: "storage.k8s.io", resource: apiserver.CSINodes},
		{kind: "CSIStorageCapacity", group: "storage.k8s.io", resource: apiserver.CSIStorageCapacities, namespaced: true},
		{kind: "ConfigMap", resource: apiserver.ConfigMaps, namespaced: true},
		{kind: "Endpoints", resource: apiserver.Endpoints, namespaced: true},
		{kind: "Event", resource: apiserver.Events, namespaced: true},
		{kind: "Lease", group: "coordination.k8s.io", resource: apiserver.Leases, namespaced: true},
		{kind: "Namespace", resource: apiserver.Namespaces},
		{kind: "Node", resource: apiserver.Nodes},
		{kind: "PersistentVolume", resource: apiserver.PersistentVolumes},
		{kind: "PersistentVolumeClaim", resource: apiserver.PersistentVolumeClaims, namespaced: true},
		{kind: "Pod", resource: apiserver.Pods, namespaced: true},
		{kind: "PodDisruptionBudget", group: "policy", resource: apiserver.PodDisruptionBudgets, namespaced: true},
		{kind: "ReplicaSet", group: "apps", resource: apiserver.ReplicaSets, namespaced: true},
		{kind: "ReplicationController", resource: apiserver.ReplicationControllers, namespaced: true},
		{kind: "Secret", resource: apiserver.Secrets, namespaced: true},
		{kind: "Service", resource: apiserver.Services, namespaced: true},
		{kind: "ServiceAccount", resource: apiserver.ServiceAccounts, namespaced: true},
		{kind: "StatefulSet", group: "apps", resource: apiserver.StatefulSets, namespaced: true},
		{kind: "StorageClass", group: "storage.k8s.io", resource: apiserver.StorageClasses},
		{kind: "VolumeAttachment", group: "storage.k8s.io", resource: apiserver.VolumeAttachments},
	}
}

// DefaultResources are the resources the collector watches when Config
// names none: all that the server serves but events, which Kubernetes'
// collector ignores by default too (there are many, and nothing owns them).
func DefaultResources() []string {
	var out []string
	for _, k := range servedKinds() {
		if k.resource != apiserver.Events {
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
	group := ""
	if g, _, found := strings.Cut(apiVersion, "/"); found {
		group = g
	}
	for _, k := range servedKinds() {
		if k.kind == kind && k.group == group {
			return k, true
		}
	}
	return kindInfo{}, false
}
