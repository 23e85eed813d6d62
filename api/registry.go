package api

import (
	"reflect"
	"sync"
)

// TypeInfo says where the API serves one Go type: its group, version, kind
// and resource, and whether its objects live in a namespace. Kubernetes: a
// GroupVersionKind and its RESTMapping, known here from one table.
type TypeInfo struct {
	// Group is the API group, "" for the core group.
	Group string
	// Version is the served version within the group ("v1").
	Version string
	// Kind is the objects' kind ("ReplicationController").
	Kind string
	// Resource is the plural, lower case ("replicationcontrollers").
	Resource string
	// Namespaced says the objects live in a namespace.
	Namespaced bool
	// Name is the name client methods take for the resource: Resource, or
	// Resource.Group where one plural is served in several groups
	// ("events.events.k8s.io").
	Name string
}

// APIVersion is the apiVersion of the type's objects: "v1", or
// "coordination.k8s.io/v1" outside the core group.
func (t TypeInfo) APIVersion() string {
	if t.Group == "" {
		return t.Version
	}
	return t.Group + "/" + t.Version
}

// registeredTypes is every object type the API serves, one line a kind:
// adding a kind to the API adds it here (DESIGN.md, "How to add a kind").
// Name is filled in by typeInfos, except for a version served beside the
// stored one, named plural.version.group.
func registeredTypes() map[reflect.Type]TypeInfo {
	return map[reflect.Type]TypeInfo{
		typeOf[*Namespace]():                        {Version: "v1", Kind: "Namespace", Resource: "namespaces"},
		typeOf[*Pod]():                              {Version: "v1", Kind: "Pod", Resource: "pods", Namespaced: true},
		typeOf[*ReplicationController]():            {Version: "v1", Kind: "ReplicationController", Resource: "replicationcontrollers", Namespaced: true},
		typeOf[*Service]():                          {Version: "v1", Kind: "Service", Resource: "services", Namespaced: true},
		typeOf[*Endpoints]():                        {Version: "v1", Kind: "Endpoints", Resource: "endpoints", Namespaced: true},
		typeOf[*Node]():                             {Version: "v1", Kind: "Node", Resource: "nodes"},
		typeOf[*Event]():                            {Version: "v1", Kind: "Event", Resource: "events", Namespaced: true},
		typeOf[*ConfigMap]():                        {Version: "v1", Kind: "ConfigMap", Resource: "configmaps", Namespaced: true},
		typeOf[*Secret]():                           {Version: "v1", Kind: "Secret", Resource: "secrets", Namespaced: true},
		typeOf[*ServiceAccount]():                   {Version: "v1", Kind: "ServiceAccount", Resource: "serviceaccounts", Namespaced: true},
		typeOf[*ResourceQuota]():                    {Version: "v1", Kind: "ResourceQuota", Resource: "resourcequotas", Namespaced: true},
		typeOf[*EndpointSlice]():                    {Group: "discovery.k8s.io", Version: "v1", Kind: "EndpointSlice", Resource: "endpointslices", Namespaced: true},
		typeOf[*Lease]():                            {Group: "coordination.k8s.io", Version: "v1", Kind: "Lease", Resource: "leases", Namespaced: true},
		typeOf[*EventsV1Event]():                    {Group: "events.k8s.io", Version: "v1", Kind: "Event", Resource: "events", Namespaced: true},
		typeOf[*PersistentVolume]():                 {Version: "v1", Kind: "PersistentVolume", Resource: "persistentvolumes"},
		typeOf[*PersistentVolumeClaim]():            {Version: "v1", Kind: "PersistentVolumeClaim", Resource: "persistentvolumeclaims", Namespaced: true},
		typeOf[*StorageClass]():                     {Group: "storage.k8s.io", Version: "v1", Kind: "StorageClass", Resource: "storageclasses"},
		typeOf[*CSINode]():                          {Group: "storage.k8s.io", Version: "v1", Kind: "CSINode", Resource: "csinodes"},
		typeOf[*CSIDriver]():                        {Group: "storage.k8s.io", Version: "v1", Kind: "CSIDriver", Resource: "csidrivers"},
		typeOf[*CSIStorageCapacity]():               {Group: "storage.k8s.io", Version: "v1", Kind: "CSIStorageCapacity", Resource: "csistoragecapacities", Namespaced: true},
		typeOf[*VolumeAttachment]():                 {Group: "storage.k8s.io", Version: "v1", Kind: "VolumeAttachment", Resource: "volumeattachments"},
		typeOf[*PodDisruptionBudget]():              {Group: "policy", Version: "v1", Kind: "PodDisruptionBudget", Resource: "poddisruptionbudgets", Namespaced: true},
		typeOf[*Deployment]():                       {Group: "apps", Version: "v1", Kind: "Deployment", Resource: "deployments", Namespaced: true},
		typeOf[*ReplicaSet]():                       {Group: "apps", Version: "v1", Kind: "ReplicaSet", Resource: "replicasets", Namespaced: true},
		typeOf[*StatefulSet]():                      {Group: "apps", Version: "v1", Kind: "StatefulSet", Resource: "statefulsets", Namespaced: true},
		typeOf[*DaemonSet]():                        {Group: "apps", Version: "v1", Kind: "DaemonSet", Resource: "daemonsets", Namespaced: true},
		typeOf[*ControllerRevision]():               {Group: "apps", Version: "v1", Kind: "ControllerRevision", Resource: "controllerrevisions", Namespaced: true},
		typeOf[*Job]():                              {Group: "batch", Version: "v1", Kind: "Job", Resource: "jobs", Namespaced: true},
		typeOf[*CronJob]():                          {Group: "batch", Version: "v1", Kind: "CronJob", Resource: "cronjobs", Namespaced: true},
		typeOf[*RuntimeClass]():                     {Group: "node.k8s.io", Version: "v1", Kind: "RuntimeClass", Resource: "runtimeclasses"},
		typeOf[*CertificateSigningRequest]():        {Group: "certificates.k8s.io", Version: "v1", Kind: "CertificateSigningRequest", Resource: "certificatesigningrequests"},
		typeOf[*FlowSchema]():                       {Group: "flowcontrol.apiserver.k8s.io", Version: "v1", Kind: "FlowSchema", Resource: "flowschemas"},
		typeOf[*PriorityLevelConfiguration]():       {Group: "flowcontrol.apiserver.k8s.io", Version: "v1", Kind: "PriorityLevelConfiguration", Resource: "prioritylevelconfigurations"},
		typeOf[*CustomResourceDefinition]():         {Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition", Resource: "customresourcedefinitions"},
		typeOf[*ValidatingAdmissionPolicy]():        {Group: "admissionregistration.k8s.io", Version: "v1", Kind: "ValidatingAdmissionPolicy", Resource: "validatingadmissionpolicies"},
		typeOf[*ValidatingAdmissionPolicyBinding](): {Group: "admissionregistration.k8s.io", Version: "v1", Kind: "ValidatingAdmissionPolicyBinding", Resource: "validatingadmissionpolicybindings"},
		typeOf[*ValidatingWebhookConfiguration]():   {Group: "admissionregistration.k8s.io", Version: "v1", Kind: "ValidatingWebhookConfiguration", Resource: "validatingwebhookconfigurations"},
		typeOf[*MutatingWebhookConfiguration]():     {Group: "admissionregistration.k8s.io", Version: "v1", Kind: "MutatingWebhookConfiguration", Resource: "mutatingwebhookconfigurations"},
		typeOf[*PodTemplate]():                      {Version: "v1", Kind: "PodTemplate", Resource: "podtemplates", Namespaced: true},
		typeOf[*LimitRange]():                       {Version: "v1", Kind: "LimitRange", Resource: "limitranges", Namespaced: true},
		typeOf[*PriorityClass]():                    {Group: "scheduling.k8s.io", Version: "v1", Kind: "PriorityClass", Resource: "priorityclasses"},
		typeOf[*Ingress]():                          {Group: "networking.k8s.io", Version: "v1", Kind: "Ingress", Resource: "ingresses", Namespaced: true},
		typeOf[*IngressClass]():                     {Group: "networking.k8s.io", Version: "v1", Kind: "IngressClass", Resource: "ingressclasses"},
		typeOf[*NetworkPolicy]():                    {Group: "networking.k8s.io", Version: "v1", Kind: "NetworkPolicy", Resource: "networkpolicies", Namespaced: true},
		typeOf[*Role]():                             {Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "Role", Resource: "roles", Namespaced: true},
		typeOf[*RoleBinding]():                      {Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "RoleBinding", Resource: "rolebindings", Namespaced: true},
		typeOf[*ClusterRole]():                      {Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRole", Resource: "clusterroles"},
		typeOf[*ClusterRoleBinding]():               {Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRoleBinding", Resource: "clusterrolebindings"},
		typeOf[*APIService]():                       {Group: "apiregistration.k8s.io", Version: "v1", Kind: "APIService", Resource: "apiservices"},
		typeOf[*HorizontalPodAutoscaler]():          {Group: "autoscaling", Version: "v2", Kind: "HorizontalPodAutoscaler", Resource: "horizontalpodautoscalers", Namespaced: true},
		typeOf[*HorizontalPodAutoscalerV1]():        {Group: "autoscaling", Version: "v1", Kind: "HorizontalPodAutoscaler", Resource: "horizontalpodautoscalers", Namespaced: true, Name: "horizontalpodautoscalers.v1.autoscaling"},
	}
}

func typeOf[T Object]() reflect.Type { return reflect.TypeFor[T]() }

// typeInfos is registeredTypes with each Name set, built once; it is never
// changed after.
var typeInfos = sync.OnceValue(func() map[reflect.Type]TypeInfo {
	infos := registeredTypes()
	groups := map[string]int{} // plural → how many groups serve it
	for _, ti := range infos {
		if ti.Name == "" {
			groups[ti.Resource]++
		}
	}
	for t, ti := range infos {
		if ti.Name != "" { // a version other than the stored one, named as kubectl names it
			continue
		}
		ti.Name = ti.Resource
		if groups[ti.Resource] > 1 && ti.Group != "" {
			ti.Name += "." + ti.Group
		}
		infos[t] = ti
	}
	return infos
})

// TypeInfoOf returns where the API serves obj's Go type, and false for a
// type it does not serve. A nil pointer of a served type is known too: the
// answer depends on the type only, never on the object's TypeMeta.
func TypeInfoOf(obj Object) (TypeInfo, bool) {
	if obj == nil {
		return TypeInfo{}, false
	}
	ti, ok := typeInfos()[reflect.TypeOf(obj)]
	return ti, ok
}

// RegisteredTypes returns every served type's TypeInfo, in no set order.
func RegisteredTypes() []TypeInfo {
	infos := typeInfos()
	out := make([]TypeInfo, 0, len(infos))
	for _, ti := range infos {
		out = append(out, ti)
	}
	return out
}

// GoType is a served Go type (a pointer to its struct) and where the API serves it.
type GoType struct {
	TypeInfo
	// Type is the pointer type the API decodes into (*Pod).
	Type reflect.Type
}

// RegisteredGoTypes returns every served type with its TypeInfo, in no set order: for
// code that reads the types themselves (apiserver/patch reads their patch tags).
func RegisteredGoTypes() []GoType {
	infos := typeInfos()
	out := make([]GoType, 0, len(infos))
	for t, ti := range infos {
		out = append(out, GoType{TypeInfo: ti, Type: t})
	}
	return out
}
