package client_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/client"
)

func TestResourceOfNamesTheConstants(t *testing.T) {
	tests := []struct {
		obj  api.Object
		want string
	}{
		{&api.Namespace{}, client.Namespaces},
		{&api.Pod{}, client.Pods},
		{&api.ReplicationController{}, client.ReplicationControllers},
		{&api.Service{}, client.Services},
		{&api.Endpoints{}, client.Endpoints},
		{&api.EndpointSlice{}, client.EndpointSlices},
		{&api.Node{}, client.Nodes},
		{&api.Lease{}, client.Leases},
		{&api.Event{}, client.Events},
		{&api.EventsV1Event{}, client.EventsK8sIO},
		{&api.ConfigMap{}, client.ConfigMaps},
		{&api.Secret{}, client.Secrets},
		{&api.ServiceAccount{}, client.ServiceAccounts},
		{&api.ResourceQuota{}, client.ResourceQuotas},
		{&api.PersistentVolume{}, client.PersistentVolumes},
		{&api.PersistentVolumeClaim{}, client.PersistentVolumeClaims},
		{&api.StorageClass{}, client.StorageClasses},
		{&api.CSINode{}, client.CSINodes},
		{&api.CSIDriver{}, client.CSIDrivers},
		{&api.CSIStorageCapacity{}, client.CSIStorageCapacities},
		{&api.VolumeAttachment{}, client.VolumeAttachments},
		{&api.PodDisruptionBudget{}, client.PodDisruptionBudgets},
		{&api.ReplicaSet{}, client.ReplicaSets},
		{&api.StatefulSet{}, client.StatefulSets},
		{&api.PriorityClass{}, client.PriorityClasses},
		{&api.RuntimeClass{}, client.RuntimeClasses},
		{&api.CertificateSigningRequest{}, client.CertificateSigningRequests},
		{&api.FlowSchema{}, client.FlowSchemas},
		{&api.PriorityLevelConfiguration{}, client.PriorityLevelConfigurations},
		{&api.Ingress{}, client.Ingresses},
		{&api.IngressClass{}, client.IngressClasses},
		{&api.NetworkPolicy{}, client.NetworkPolicies},
		{&api.PodTemplate{}, client.PodTemplates},
		{&api.LimitRange{}, client.LimitRanges},
		{&api.CustomResourceDefinition{}, client.CustomResourceDefinitions},
		{&api.ValidatingAdmissionPolicy{}, client.ValidatingAdmissionPolicies},
		{&api.ValidatingAdmissionPolicyBinding{}, client.ValidatingAdmissionPolicyBindings},
		{&api.ValidatingWebhookConfiguration{}, client.ValidatingWebhookConfigurations},
		{&api.MutatingWebhookConfiguration{}, client.MutatingWebhookConfigurations},
		{&api.Deployment{}, client.Deployments},
		{&api.DaemonSet{}, client.DaemonSets},
		{&api.ControllerRevision{}, client.ControllerRevisions},
		{&api.Job{}, client.Jobs},
		{&api.CronJob{}, client.CronJobs},
		{&api.Role{}, client.Roles},
		{&api.RoleBinding{}, client.RoleBindings},
		{&api.ClusterRole{}, client.ClusterRoles},
		{&api.ClusterRoleBinding{}, client.ClusterRoleBindings},
		{&api.HorizontalPodAutoscaler{}, client.HorizontalPodAutoscalers},
		{&api.HorizontalPodAutoscalerV1{}, client.HorizontalPodAutoscalersV1},
		{&api.APIService{}, client.APIServices},
		{(*api.Pod)(nil), client.Pods},
		{&api.Scale{}, ""},
		{nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			assert.Equal(t, tt.want, client.ResourceOf(tt.obj))
		})
	}
	assert.Len(t, api.RegisteredTypes(), len(tests)-3, "every registered type has a constant")
}

func TestForPanicsOnAnUnservedType(t *testing.T) {
	assert.PanicsWithValue(t, "client.For: *api.Scale is not a served kind", func() { client.For[*api.Scale](nil) })
	assert.Equal(t, client.Leases, client.For[*api.Lease](nil).Resource())
}

func TestWriteOptions(t *testing.T) {
	mf := []api.ManagedFieldsEntry{{Manager: "kubectl"}}
	tests := []struct {
		name string
		opts []client.WriteOption
		want client.WriteOptions
	}{
		{"none", nil, client.WriteOptions{}},
		{"dry run", []client.WriteOption{client.DryRun()}, client.WriteOptions{DryRun: true}},
		{"managed fields", []client.WriteOption{client.WithManagedFields(mf)}, client.WriteOptions{ManagedFields: mf}},
		{"both, in order", []client.WriteOption{client.WithManagedFields(mf), client.DryRun()}, client.WriteOptions{DryRun: true, ManagedFields: mf}},
		{"a WriteOptions is an option", []client.WriteOption{client.WriteOptions{DryRun: true}}, client.WriteOptions{DryRun: true}},
		{"a zero WriteOptions unsets nothing", []client.WriteOption{client.DryRun(), client.WriteOptions{}}, client.WriteOptions{DryRun: true}},
		{"handover", []client.WriteOption{client.Handover()}, client.WriteOptions{Handover: true}},
		{"all three", []client.WriteOption{client.Handover(), client.WithManagedFields(mf), client.DryRun()}, client.WriteOptions{DryRun: true, ManagedFields: mf, Handover: true}},
		{"an option of another type", []client.WriteOption{client.DryRun(), managerOption{mf}}, client.WriteOptions{DryRun: true, ManagedFields: mf}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, client.NewWriteOptions(tt.opts...))
		})
	}
}

// managerOption is an option from outside the package.
type managerOption struct{ entries []api.ManagedFieldsEntry }

func (m managerOption) ApplyToWrite(o *client.WriteOptions) { o.ManagedFields = m.entries }

// The write paths call NewWriteOptions for every write.
func TestWriteOptionsOfThisPackageAllocateNothing(t *testing.T) {
	opts := []client.WriteOption{client.Handover(), client.DryRun(), client.WriteOptions{Handover: true}}
	allocs := testing.AllocsPerRun(100, func() { _ = client.NewWriteOptions(opts...) })
	assert.Zero(t, allocs)
}
