package apiserver_test

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
)

// TestDryRunWritesStoreNothing checks that every write with DryRun runs its
// checks and returns what it would store, while the store's revision and
// contents stay as they were.
func TestDryRunWritesStoreNothing(t *testing.T) {
	dry := client.WriteOptions{DryRun: true}
	tests := []struct {
		name    string
		write   func(s *apiserver.Server) (api.Object, error)
		wantErr func(error) bool
		check   func(t *testing.T, got api.Object)
	}{
		{
			name: "create returns the defaulted object with a uid",
			write: func(s *apiserver.Server) (api.Object, error) {
				return s.Create(ctx, pod("default", "new", nil), dry)
			},
			check: func(t *testing.T, got api.Object) {
				p := got.(*api.Pod)
				assert.NotEmpty(t, p.Metadata.UID)
				assert.Empty(t, p.Metadata.ResourceVersion)
				assert.Equal(t, api.RestartPolicyAlways, p.Spec.RestartPolicy)
			},
		},
		{
			name: "create of an existing name is AlreadyExists",
			write: func(s *apiserver.Server) (api.Object, error) {
				return s.Create(ctx, pod("default", "web", nil), dry)
			},
			wantErr: apierrors.IsAlreadyExists,
		},
		{
			name: "invalid create is Invalid",
			write: func(s *apiserver.Server) (api.Object, error) {
				return s.Create(ctx, &api.Pod{Metadata: api.ObjectMeta{Namespace: "default", Name: "bad"}}, dry)
			},
			wantErr: apierrors.IsInvalid,
		},
		{
			name: "update returns the changed object",
			write: func(s *apiserver.Server) (api.Object, error) {
				p := pod("default", "web", map[string]string{"env": "prod"})
				return s.Update(ctx, p, dry)
			},
			check: func(t *testing.T, got api.Object) {
				assert.Equal(t, "prod", got.GetObjectMeta().Labels["env"])
			},
		},
		{
			name: "update at a stale resourceVersion is Conflict",
			write: func(s *apiserver.Server) (api.Object, error) {
				p := pod("default", "web", nil)
				p.Metadata.ResourceVersion = "1"
				return s.Update(ctx, p, dry)
			},
			wantErr: apierrors.IsConflict,
		},
		{
			name: "status update returns the new status",
			write: func(s *apiserver.Server) (api.Object, error) {
				p := pod("default", "web", nil)
				p.Status.Phase = api.PodRunning
				return s.UpdateStatus(ctx, p, dry)
			},
			check: func(t *testing.T, got api.Object) { assert.Equal(t, api.PodRunning, got.(*api.Pod).Status.Phase) },
		},
		{
			name: "scale returns the new replicas",
			write: func(s *apiserver.Server) (api.Object, error) {
				return s.UpdateScale(ctx, client.ReplicationControllers, "default", &api.Scale{Metadata: api.ObjectMeta{Name: "frontend"}, Spec: api.ScaleSpec{Replicas: 7}}, dry)
			},
			check: func(t *testing.T, got api.Object) { assert.Equal(t, int32(7), got.(*api.Scale).Spec.Replicas) },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newServer(t)
			_, err := s.Create(ctx, pod("default", "web", nil))
			require.NoError(t, err)
			_, err = s.Create(ctx, rc("default", "frontend", 2))
			require.NoError(t, err)
			rev := s.Store().Rev()
			before, err := s.List(ctx, client.Pods, "", client.ListOptions{})
			require.NoError(t, err)

			got, err := tt.write(s)
			if tt.wantErr != nil {
				require.Error(t, err)
				assert.True(t, tt.wantErr(err), "error %v", err)
			} else {
				require.NoError(t, err)
				tt.check(t, got)
			}
			assert.Equal(t, rev, s.Store().Rev(), "a dry run wrote to the store")
			after, err := s.List(ctx, client.Pods, "", client.ListOptions{})
			require.NoError(t, err)
			assert.Equal(t, before.Items, after.Items)
		})
	}
}

// declaredColumns are the table columns kinds declare with their
// registration, by resource; the others' are the HTTP front's.
var declaredColumns = map[string][]string{
	"configmaps":      {"Name", "Data", "Age"},
	"secrets":         {"Name", "Type", "Data", "Age"},
	"serviceaccounts": {"Name", "Secrets", "Age"},
	"resourcequotas":  {"Name", "Age", "Request", "Limit"},
	"persistentvolumes": {"Name", "Capacity", "Access Modes", "Reclaim Policy", "Status", "Claim", "StorageClass",
		"VolumeAttributesClass", "Reason", "Age", "VolumeMode"},
	"persistentvolumeclaims":      {"Name", "Status", "Volume", "Capacity", "Access Modes", "StorageClass", "VolumeAttributesClass", "Age", "VolumeMode"},
	"storageclasses":              {"Name", "Provisioner", "ReclaimPolicy", "VolumeBindingMode", "AllowVolumeExpansion", "Age"},
	"validatingadmissionpolicies": {"Name", "Validations", "ParamKind", "Age"},
	"csinodes.storage.k8s.io":     {"Name", "Drivers", "Age"},
	"csidrivers":                  {"Name", "AttachRequired", "PodInfoOnMount", "StorageCapacity", "TokenRequests", "RequiresRepublish", "Modes", "Age"},
	"csistoragecapacities":        {"Name", "StorageClassName", "Capacity"},
	"volumeattachments":           {"Name", "Attacher", "PV", "Node", "Attached", "Age"},
	"poddisruptionbudgets.policy": {"Name", "Min Available", "Max Unavailable", "Allowed Disruptions", "Age"},
	"daemonsets":                  {"Name", "Desired", "Current", "Ready", "Up-to-date", "Available", "Node Selector", "Age", "Containers", "Images", "Selector"},
	"controllerrevisions":         {"Name", "Controller", "Revision", "Age"},
	"deployments":                 {"Name", "Ready", "Up-to-date", "Available", "Age", "Containers", "Images", "Selector"},
	"replicasets":                 {"Name", "Desired", "Current", "Ready", "Age", "Containers", "Images", "Selector"},
	"statefulsets.apps":           {"Name", "Ready", "Age", "Containers", "Images"},
	"customresourcedefinitions":   {"Name", "Created At"},
	"endpointslices":              {"Name", "AddressType", "Ports", "Endpoints", "Age"},
	"limitranges":                 {"Name", "Created At"},
	"podtemplates":                {"Name", "Containers", "Images", "Pod Labels"},
	"priorityclasses":             {"Name", "Value", "Global-Default", "Age", "PreemptionPolicy"},
	"ingresses":                   {"Name", "Class", "Hosts", "Address", "Ports", "Age"},
	"ingressclasses":              {"Name", "Controller", "Parameters", "Age"},
	"networkpolicies":             {"Name", "Pod-Selector", "Age"},
	"roles":                       {"Name", "Created At"},
	"clusterroles":                {"Name", "Created At"},
	"rolebindings":                {"Name", "Role", "Age", "Users", "Groups", "ServiceAccounts"},
	"clusterrolebindings":         {"Name", "Role", "Age", "Users", "Groups", "ServiceAccounts"},
	"runtimeclasses":              {"Name", "Handler", "Age"},
	"certificatesigningrequests":  {"Name", "Age", "SignerName", "Requestor", "RequestedDuration", "Condition"},
	"flowschemas":                 {"Name", "PriorityLevel", "MatchingPrecedence", "DistinguisherMethod", "Age", "MissingPL"},
	"prioritylevelconfigurations": {"Name", "Type", "NominalConcurrencyShares", "Queues", "HandSize", "QueueLengthLimit", "Age"},
	"apiservices":                 {"Name", "Service", "Available", "Age"},
	"horizontalpodautoscalers":    {"Name", "Reference", "Targets", "MinPods", "MaxPods", "Replicas", "Age"},
	"cronjobs":                    {"Name", "Schedule", "Timezone", "Suspend", "Active", "Last Schedule", "Age", "Containers", "Images", "Selector"},
}

// TestResources checks the descriptions the HTTP front routes and
// discovers by.
func TestResources(t *testing.T) {
	s, _ := newServer(t)
	all := s.Resources()
	require.Len(t, all, len(api.RegisteredTypes()), "one resource per type api registers")
	assert.Empty(t, all[0].Group, "the core group first")
	assert.True(t, slices.IsSortedFunc(all, func(a, b apiserver.ResourceInfo) int {
		return cmp.Or(strings.Compare(a.Group, b.Group), strings.Compare(a.Resource, b.Resource))
	}), "sorted by group, then by resource")

	tests := []struct {
		resource   string
		want       apiserver.ResourceInfo
		apiVersion string
		goType     string
	}{
		{"pods", apiserver.ResourceInfo{Resource: "pods", Singular: "pod", Version: "v1", Kind: "Pod", Namespaced: true, HasStatus: true, HasBinding: true, HasEviction: true, ShortNames: []string{"po"}, Categories: []string{"all"}}, "v1", ""},
		{"replicationcontrollers", apiserver.ResourceInfo{Resource: "replicationcontrollers", Singular: "replicationcontroller", Version: "v1", Kind: "ReplicationController", Namespaced: true, HasStatus: true, HasScale: true, ShortNames: []string{"rc"}, Categories: []string{"all"}, ActedOnBy: "replicationcontroller"}, "v1", ""},
		{"endpoints", apiserver.ResourceInfo{Resource: "endpoints", Singular: "endpoints", Version: "v1", Kind: "Endpoints", Namespaced: true, ShortNames: []string{"ep"}}, "v1", ""},
		{"nodes", apiserver.ResourceInfo{Resource: "nodes", Singular: "node", Version: "v1", Kind: "Node", HasStatus: true, ShortNames: []string{"no"}}, "v1", ""},
		{"leases", apiserver.ResourceInfo{Resource: "leases", Singular: "lease", Group: "coordination.k8s.io", Version: "v1", Kind: "Lease", Namespaced: true}, "coordination.k8s.io/v1", ""},
		{"leases.coordination.k8s.io", apiserver.ResourceInfo{Resource: "leases", Singular: "lease", Group: "coordination.k8s.io", Version: "v1", Kind: "Lease", Namespaced: true}, "coordination.k8s.io/v1", ""},
		{"events", apiserver.ResourceInfo{Resource: "events", Singular: "event", Version: "v1", Kind: "Event", Namespaced: true, ShortNames: []string{"ev"}}, "v1", ""},
		{"configmaps", apiserver.ResourceInfo{Resource: "configmaps", Singular: "configmap", Version: "v1", Kind: "ConfigMap", Namespaced: true, ShortNames: []string{"cm"}}, "v1", ""},
		{"secrets", apiserver.ResourceInfo{Resource: "secrets", Singular: "secret", Version: "v1", Kind: "Secret", Namespaced: true}, "v1", ""},
		{"serviceaccounts", apiserver.ResourceInfo{Resource: "serviceaccounts", Singular: "serviceaccount", Version: "v1", Kind: "ServiceAccount", Namespaced: true, ShortNames: []string{"sa"}}, "v1", ""},
		{"resourcequotas", apiserver.ResourceInfo{Resource: "resourcequotas", Singular: "resourcequota", Version: "v1", Kind: "ResourceQuota", Namespaced: true, HasStatus: true, ShortNames: []string{"quota"}, ActedOnBy: "resourcequota"}, "v1", ""},
		{"persistentvolumes", apiserver.ResourceInfo{Resource: "persistentvolumes", Singular: "persistentvolume", Version: "v1", Kind: "PersistentVolume", HasStatus: true, ShortNames: []string{"pv"}, ActedOnBy: "persistentvolume-binder"}, "v1", ""},
		{"persistentvolumeclaims", apiserver.ResourceInfo{Resource: "persistentvolumeclaims", Singular: "persistentvolumeclaim", Version: "v1", Kind: "PersistentVolumeClaim", Namespaced: true, HasStatus: true, ShortNames: []string{"pvc"}, ActedOnBy: "persistentvolume-binder"}, "v1", ""},
		{"storageclasses", apiserver.ResourceInfo{Resource: "storageclasses", Singular: "storageclass", Group: "storage.k8s.io", Version: "v1", Kind: "StorageClass", ShortNames: []string{"sc"}}, "storage.k8s.io/v1", ""},
		{"csinodes.storage.k8s.io", apiserver.ResourceInfo{Resource: "csinodes", Singular: "csinode", Group: "storage.k8s.io", Version: "v1", Kind: "CSINode"}, "storage.k8s.io/v1", ""},
		{"csidrivers", apiserver.ResourceInfo{Resource: "csidrivers", Singular: "csidriver", Group: "storage.k8s.io", Version: "v1", Kind: "CSIDriver"}, "storage.k8s.io/v1", ""},
		{"csistoragecapacities", apiserver.ResourceInfo{Resource: "csistoragecapacities", Singular: "csistoragecapacity", Group: "storage.k8s.io", Version: "v1", Kind: "CSIStorageCapacity", Namespaced: true}, "storage.k8s.io/v1", ""},
		{"volumeattachments", apiserver.ResourceInfo{Resource: "volumeattachments", Singular: "volumeattachment", Group: "storage.k8s.io", Version: "v1", Kind: "VolumeAttachment", HasStatus: true}, "storage.k8s.io/v1", ""},
		{"poddisruptionbudgets.policy", apiserver.ResourceInfo{Resource: "poddisruptionbudgets", Singular: "poddisruptionbudget", Group: "policy", Version: "v1", Kind: "PodDisruptionBudget", Namespaced: true, HasStatus: true, ShortNames: []string{"pdb"}, ActedOnBy: "disruption"}, "policy/v1", ""},
		{"replicasets", apiserver.ResourceInfo{Resource: "replicasets", Singular: "replicaset", Group: "apps", Version: "v1", Kind: "ReplicaSet", Namespaced: true, HasStatus: true, HasScale: true, ShortNames: []string{"rs"}, Categories: []string{"all"}, ActedOnBy: "replicaset"}, "apps/v1", ""},
		{"statefulsets.apps", apiserver.ResourceInfo{Resource: "statefulsets", Singular: "statefulset", Group: "apps", Version: "v1", Kind: "StatefulSet", Namespaced: true, HasStatus: true, HasScale: true, ShortNames: []string{"sts"}, Categories: []string{"all"}, ActedOnBy: "statefulset"}, "apps/v1", ""},
		{"daemonsets", apiserver.ResourceInfo{Resource: "daemonsets", Singular: "daemonset", Group: "apps", Version: "v1", Kind: "DaemonSet", Namespaced: true, HasStatus: true, ShortNames: []string{"ds"}, Categories: []string{"all"}, ActedOnBy: "daemonset"}, "apps/v1", ""},
		{"controllerrevisions", apiserver.ResourceInfo{Resource: "controllerrevisions", Singular: "controllerrevision", Group: "apps", Version: "v1", Kind: "ControllerRevision", Namespaced: true}, "apps/v1", ""},
		{"cronjobs", apiserver.ResourceInfo{Resource: "cronjobs", Singular: "cronjob", Group: "batch", Version: "v1", Kind: "CronJob", Namespaced: true, HasStatus: true, ShortNames: []string{"cj"}, Categories: []string{"all"}, ActedOnBy: "cronjob"}, "batch/v1", ""},
		{"validatingadmissionpolicies", apiserver.ResourceInfo{Resource: "validatingadmissionpolicies", Singular: "validatingadmissionpolicy", Group: "admissionregistration.k8s.io", Version: "v1", Kind: "ValidatingAdmissionPolicy", HasStatus: true, Categories: []string{"api-extensions"}}, "admissionregistration.k8s.io/v1", ""},
		{"endpointslices", apiserver.ResourceInfo{Resource: "endpointslices", Singular: "endpointslice", Group: "discovery.k8s.io", Version: "v1", Kind: "EndpointSlice", Namespaced: true}, "discovery.k8s.io/v1", ""},
		{"limitranges", apiserver.ResourceInfo{Resource: "limitranges", Singular: "limitrange", Version: "v1", Kind: "LimitRange", Namespaced: true, ShortNames: []string{"limits"}}, "v1", ""},
		{"podtemplates", apiserver.ResourceInfo{Resource: "podtemplates", Singular: "podtemplate", Version: "v1", Kind: "PodTemplate", Namespaced: true}, "v1", ""},
		{"runtimeclasses", apiserver.ResourceInfo{Resource: "runtimeclasses", Singular: "runtimeclass", Group: "node.k8s.io", Version: "v1", Kind: "RuntimeClass"}, "node.k8s.io/v1", ""},
		{"certificatesigningrequests", apiserver.ResourceInfo{Resource: "certificatesigningrequests", Singular: "certificatesigningrequest", Group: "certificates.k8s.io", Version: "v1", Kind: "CertificateSigningRequest", HasStatus: true, HasApproval: true, ShortNames: []string{"csr"}, ActedOnBy: "csrcleaner",
			NotCalled: "certificates are not signed here: kube-controller-manager's csrapproving and csrsigning do not run in miniplane, so this CertificateSigningRequest is approved and issued only by whoever writes its approval and status"}, "certificates.k8s.io/v1", ""},
		{"flowschemas", apiserver.ResourceInfo{Resource: "flowschemas", Singular: "flowschema", Group: "flowcontrol.apiserver.k8s.io", Version: "v1", Kind: "FlowSchema", HasStatus: true,
			NotCalled: "API Priority and Fairness is not done here: this FlowSchema is stored and validated, but miniplane never classifies, queues or refuses a request by it"}, "flowcontrol.apiserver.k8s.io/v1", ""},
		{"prioritylevelconfigurations", apiserver.ResourceInfo{Resource: "prioritylevelconfigurations", Singular: "prioritylevelconfiguration", Group: "flowcontrol.apiserver.k8s.io", Version: "v1", Kind: "PriorityLevelConfiguration", HasStatus: true,
			NotCalled: "API Priority and Fairness is not done here: this PriorityLevelConfiguration is stored and validated, but miniplane never queues or refuses a request by it"}, "flowcontrol.apiserver.k8s.io/v1", ""},
		{"ingresses", apiserver.ResourceInfo{Resource: "ingresses", Singular: "ingress", Group: "networking.k8s.io", Version: "v1", Kind: "Ingress", Namespaced: true, HasStatus: true, ShortNames: []string{"ing"},
			NotCalled: "nothing acts on this Ingress: no ingress controller runs here, so it is stored and validated but routes no traffic"}, "networking.k8s.io/v1", ""},
		{"ingressclasses", apiserver.ResourceInfo{Resource: "ingressclasses", Singular: "ingressclass", Group: "networking.k8s.io", Version: "v1", Kind: "IngressClass"}, "networking.k8s.io/v1", ""},
		{"networkpolicies", apiserver.ResourceInfo{Resource: "networkpolicies", Singular: "networkpolicy", Group: "networking.k8s.io", Version: "v1", Kind: "NetworkPolicy", Namespaced: true, ShortNames: []string{"netpol"},
			NotCalled: "nothing acts on this NetworkPolicy: no network plugin runs here, so it is stored and validated but enforces nothing"}, "networking.k8s.io/v1", ""},
		{"priorityclasses", apiserver.ResourceInfo{Resource: "priorityclasses", Singular: "priorityclass", Group: "scheduling.k8s.io", Version: "v1", Kind: "PriorityClass", ShortNames: []string{"pc"}}, "scheduling.k8s.io/v1", ""},
		{"roles", apiserver.ResourceInfo{Resource: "roles", Singular: "role", Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "Role", Namespaced: true}, "rbac.authorization.k8s.io/v1", ""},
		{"rolebindings", apiserver.ResourceInfo{Resource: "rolebindings", Singular: "rolebinding", Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "RoleBinding", Namespaced: true}, "rbac.authorization.k8s.io/v1", ""},
		{"clusterroles", apiserver.ResourceInfo{Resource: "clusterroles", Singular: "clusterrole", Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRole"}, "rbac.authorization.k8s.io/v1", ""},
		{"clusterrolebindings", apiserver.ResourceInfo{Resource: "clusterrolebindings", Singular: "clusterrolebinding", Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRoleBinding"}, "rbac.authorization.k8s.io/v1", ""},
		{"apiservices", apiserver.ResourceInfo{Resource: "apiservices", Singular: "apiservice", Group: "apiregistration.k8s.io", Version: "v1", Kind: "APIService", HasStatus: true, Categories: []string{"api-extensions"},
			NotCalled: "API aggregation is not done here: an APIService naming a service is stored and validated, but miniplane never proxies to it"}, "apiregistration.k8s.io/v1", ""},
		{"horizontalpodautoscalers", apiserver.ResourceInfo{Resource: "horizontalpodautoscalers", Singular: "horizontalpodautoscaler", Group: "autoscaling", Version: "v2", Kind: "HorizontalPodAutoscaler", Namespaced: true, HasStatus: true, ShortNames: []string{"hpa"}, Categories: []string{"all"}, ActedOnBy: "horizontalpodautoscaling"}, "autoscaling/v2", ""},
		{"events.events.k8s.io", apiserver.ResourceInfo{Resource: "events", Singular: "event", Group: "events.k8s.io", Version: "v1", Kind: "Event", Namespaced: true, ShortNames: []string{"ev"}, StoredAs: "events"}, "events.k8s.io/v1", "*api.EventsV1Event"},
	}
	for _, tt := range tests {
		t.Run(tt.resource, func(t *testing.T) {
			got, ok := s.Resource(tt.resource)
			require.True(t, ok)
			require.NotNil(t, got.New)
			goType := tt.goType
			if goType == "" {
				goType = "*api." + tt.want.Kind
			}
			assert.Equal(t, goType, fmt.Sprintf("%T", got.New()))
			got.New = nil
			var columns []string
			for _, c := range got.Columns {
				columns = append(columns, c.Name)
			}
			assert.Equal(t, declaredColumns[tt.resource], columns, "the columns the kind declares")
			got.Columns = nil
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.apiVersion, got.APIVersion())
			assert.Equal(t, tt.want.GroupResource().String(), got.Name())
		})
	}
	v1, ok := s.Resource(client.HorizontalPodAutoscalersV1)
	require.True(t, ok, "autoscaling/v1 is served beside v2")
	assert.Equal(t, "autoscaling/v1", v1.APIVersion())
	assert.Equal(t, "horizontalpodautoscalers.autoscaling", v1.StoredAs)
	assert.Equal(t, client.HorizontalPodAutoscalersV1, v1.Name())
	_, ok = s.Resource("componentstatuses")
	assert.False(t, ok)
}

// TestSubresourceManagedFields checks WriteOptions.ManagedFields: a status
// or scale update replaces managedFields with them, and without them keeps
// the stored ones, as before.
func TestSubresourceManagedFields(t *testing.T) {
	mf := []api.ManagedFieldsEntry{{Manager: "kubectl", Operation: "Update", Subresource: "scale", FieldsType: "FieldsV1", FieldsV1: []byte(`{"f:spec":{"f:replicas":{}}}`)}}
	s, _ := newServer(t)
	created, err := s.Create(ctx, rc("default", "frontend", 2))
	require.NoError(t, err)
	_, err = s.UpdateScale(ctx, client.ReplicationControllers, "default", &api.Scale{Metadata: api.ObjectMeta{Name: "frontend"}, Spec: api.ScaleSpec{Replicas: 3}}, client.WriteOptions{ManagedFields: mf})
	require.NoError(t, err)
	got, err := client.For[*api.ReplicationController](s).Get(ctx, "default", "frontend")
	require.NoError(t, err)
	assert.Equal(t, mf, got.Metadata.ManagedFields)

	_, err = s.UpdateScale(ctx, client.ReplicationControllers, "default", &api.Scale{Metadata: api.ObjectMeta{Name: "frontend"}, Spec: api.ScaleSpec{Replicas: 4}})
	require.NoError(t, err)
	got, err = client.For[*api.ReplicationController](s).Get(ctx, "default", "frontend")
	require.NoError(t, err)
	assert.Equal(t, mf, got.Metadata.ManagedFields, "kept without the option")

	status := created.DeepCopyObject().(*api.ReplicationController)
	status.Status.Replicas = 2
	status.Metadata.ResourceVersion = "" // unconditional: the scale updates moved it
	mf2 := []api.ManagedFieldsEntry{{Manager: "rc-controller", Operation: "Update", Subresource: "status"}}
	_, err = s.UpdateStatus(ctx, status, client.WriteOptions{ManagedFields: mf2})
	require.NoError(t, err)
	got, err = client.For[*api.ReplicationController](s).Get(ctx, "default", "frontend")
	require.NoError(t, err)
	assert.Equal(t, int32(2), got.Status.Replicas)
	assert.Equal(t, mf2, got.Metadata.ManagedFields)
}
