package protowire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/encoding/protowire"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	batchv1 "k8s.io/api/batch/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	networkingv1 "k8s.io/api/networking/v1"
	nodev1 "k8s.io/api/node/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/protobuf"
)

// message is what gogo generates on every k8s.io/api type.
type message interface {
	Marshal() ([]byte, error)
	Unmarshal([]byte) error
}

// kind pairs one of miniplane's top-level types with its k8s.io/api counterpart.
type kind struct {
	// apiVersion and kind name the type in an envelope; empty for WatchEvent, which travels
	// in a watch frame rather than an envelope.
	apiVersion, kind string
	ours             reflect.Type
	theirs           func() message
}

// kinds lists every kind miniplane serves in protobuf (every built-in one: custom resources
// are JSON only), its list, and the other top-level bodies. CustomResourceDefinitions are
// checked against k8s.io/apiextensions-apiserver's types.
var kinds = []kind{
	{"v1", "Pod", reflect.TypeFor[api.Pod](), func() message { return &corev1.Pod{} }},
	{"v1", "PodList", reflect.TypeFor[api.PodList](), func() message { return &corev1.PodList{} }},
	{"v1", "ReplicationController", reflect.TypeFor[api.ReplicationController](), func() message { return &corev1.ReplicationController{} }},
	{"v1", "ReplicationControllerList", reflect.TypeFor[api.ReplicationControllerList](), func() message { return &corev1.ReplicationControllerList{} }},
	{"v1", "Service", reflect.TypeFor[api.Service](), func() message { return &corev1.Service{} }},
	{"v1", "ServiceList", reflect.TypeFor[api.ServiceList](), func() message { return &corev1.ServiceList{} }},
	{"v1", "Endpoints", reflect.TypeFor[api.Endpoints](), func() message { return &corev1.Endpoints{} }},
	{"v1", "EndpointsList", reflect.TypeFor[api.EndpointsList](), func() message { return &corev1.EndpointsList{} }},
	{"v1", "Node", reflect.TypeFor[api.Node](), func() message { return &corev1.Node{} }},
	{"v1", "NodeList", reflect.TypeFor[api.NodeList](), func() message { return &corev1.NodeList{} }},
	{"discovery.k8s.io/v1", "EndpointSlice", reflect.TypeFor[api.EndpointSlice](), func() message { return &discoveryv1.EndpointSlice{} }},
	{"discovery.k8s.io/v1", "EndpointSliceList", reflect.TypeFor[api.EndpointSliceList](), func() message { return &discoveryv1.EndpointSliceList{} }},
	{"coordination.k8s.io/v1", "Lease", reflect.TypeFor[api.Lease](), func() message { return &coordinationv1.Lease{} }},
	{"coordination.k8s.io/v1", "LeaseList", reflect.TypeFor[api.LeaseList](), func() message { return &coordinationv1.LeaseList{} }},
	{"v1", "Event", reflect.TypeFor[api.Event](), func() message { return &corev1.Event{} }},
	{"v1", "EventList", reflect.TypeFor[api.EventList](), func() message { return &corev1.EventList{} }},
	{"v1", "Namespace", reflect.TypeFor[api.Namespace](), func() message { return &corev1.Namespace{} }},
	{"v1", "NamespaceList", reflect.TypeFor[api.NamespaceList](), func() message { return &corev1.NamespaceList{} }},
	{"v1", "ConfigMap", reflect.TypeFor[api.ConfigMap](), func() message { return &corev1.ConfigMap{} }},
	{"v1", "ConfigMapList", reflect.TypeFor[api.ConfigMapList](), func() message { return &corev1.ConfigMapList{} }},
	{"v1", "Secret", reflect.TypeFor[api.Secret](), func() message { return &corev1.Secret{} }},
	{"v1", "SecretList", reflect.TypeFor[api.SecretList](), func() message { return &corev1.SecretList{} }},
	{"v1", "ServiceAccount", reflect.TypeFor[api.ServiceAccount](), func() message { return &corev1.ServiceAccount{} }},
	{"v1", "ServiceAccountList", reflect.TypeFor[api.ServiceAccountList](), func() message { return &corev1.ServiceAccountList{} }},
	{"v1", "ResourceQuota", reflect.TypeFor[api.ResourceQuota](), func() message { return &corev1.ResourceQuota{} }},
	{"v1", "ResourceQuotaList", reflect.TypeFor[api.ResourceQuotaList](), func() message { return &corev1.ResourceQuotaList{} }},
	{"v1", "PersistentVolume", reflect.TypeFor[api.PersistentVolume](), func() message { return &corev1.PersistentVolume{} }},
	{"v1", "PersistentVolumeList", reflect.TypeFor[api.PersistentVolumeList](), func() message { return &corev1.PersistentVolumeList{} }},
	{"v1", "PersistentVolumeClaim", reflect.TypeFor[api.PersistentVolumeClaim](), func() message { return &corev1.PersistentVolumeClaim{} }},
	{"v1", "PersistentVolumeClaimList", reflect.TypeFor[api.PersistentVolumeClaimList](), func() message { return &corev1.PersistentVolumeClaimList{} }},
	{"storage.k8s.io/v1", "StorageClass", reflect.TypeFor[api.StorageClass](), func() message { return &storagev1.StorageClass{} }},
	{"storage.k8s.io/v1", "StorageClassList", reflect.TypeFor[api.StorageClassList](), func() message { return &storagev1.StorageClassList{} }},
	{"storage.k8s.io/v1", "CSINode", reflect.TypeFor[api.CSINode](), func() message { return &storagev1.CSINode{} }},
	{"storage.k8s.io/v1", "CSINodeList", reflect.TypeFor[api.CSINodeList](), func() message { return &storagev1.CSINodeList{} }},
	{"storage.k8s.io/v1", "CSIDriver", reflect.TypeFor[api.CSIDriver](), func() message { return &storagev1.CSIDriver{} }},
	{"storage.k8s.io/v1", "CSIDriverList", reflect.TypeFor[api.CSIDriverList](), func() message { return &storagev1.CSIDriverList{} }},
	{"storage.k8s.io/v1", "CSIStorageCapacity", reflect.TypeFor[api.CSIStorageCapacity](), func() message { return &storagev1.CSIStorageCapacity{} }},
	{"storage.k8s.io/v1", "CSIStorageCapacityList", reflect.TypeFor[api.CSIStorageCapacityList](), func() message { return &storagev1.CSIStorageCapacityList{} }},
	{"storage.k8s.io/v1", "VolumeAttachment", reflect.TypeFor[api.VolumeAttachment](), func() message { return &storagev1.VolumeAttachment{} }},
	{"storage.k8s.io/v1", "VolumeAttachmentList", reflect.TypeFor[api.VolumeAttachmentList](), func() message { return &storagev1.VolumeAttachmentList{} }},
	{"policy/v1", "PodDisruptionBudget", reflect.TypeFor[api.PodDisruptionBudget](), func() message { return &policyv1.PodDisruptionBudget{} }},
	{"policy/v1", "PodDisruptionBudgetList", reflect.TypeFor[api.PodDisruptionBudgetList](), func() message { return &policyv1.PodDisruptionBudgetList{} }},
	{"batch/v1", "Job", reflect.TypeFor[api.Job](), func() message { return &batchv1.Job{} }},
	{"batch/v1", "JobList", reflect.TypeFor[api.JobList](), func() message { return &batchv1.JobList{} }},
	{"batch/v1", "CronJob", reflect.TypeFor[api.CronJob](), func() message { return &batchv1.CronJob{} }},
	{"batch/v1", "CronJobList", reflect.TypeFor[api.CronJobList](), func() message { return &batchv1.CronJobList{} }},
	{"v1", "LimitRange", reflect.TypeFor[api.LimitRange](), func() message { return &corev1.LimitRange{} }},
	{"v1", "LimitRangeList", reflect.TypeFor[api.LimitRangeList](), func() message { return &corev1.LimitRangeList{} }},
	{"v1", "PodTemplate", reflect.TypeFor[api.PodTemplate](), func() message { return &corev1.PodTemplate{} }},
	{"v1", "PodTemplateList", reflect.TypeFor[api.PodTemplateList](), func() message { return &corev1.PodTemplateList{} }},
	{"scheduling.k8s.io/v1", "PriorityClass", reflect.TypeFor[api.PriorityClass](), func() message { return &schedulingv1.PriorityClass{} }},
	{"scheduling.k8s.io/v1", "PriorityClassList", reflect.TypeFor[api.PriorityClassList](), func() message { return &schedulingv1.PriorityClassList{} }},
	{"node.k8s.io/v1", "RuntimeClass", reflect.TypeFor[api.RuntimeClass](), func() message { return &nodev1.RuntimeClass{} }},
	{"node.k8s.io/v1", "RuntimeClassList", reflect.TypeFor[api.RuntimeClassList](), func() message { return &nodev1.RuntimeClassList{} }},
	{"certificates.k8s.io/v1", "CertificateSigningRequest", reflect.TypeFor[api.CertificateSigningRequest](), func() message { return &certificatesv1.CertificateSigningRequest{} }},
	{"certificates.k8s.io/v1", "CertificateSigningRequestList", reflect.TypeFor[api.CertificateSigningRequestList](), func() message { return &certificatesv1.CertificateSigningRequestList{} }},
	{"flowcontrol.apiserver.k8s.io/v1", "FlowSchema", reflect.TypeFor[api.FlowSchema](), func() message { return &flowcontrolv1.FlowSchema{} }},
	{"flowcontrol.apiserver.k8s.io/v1", "FlowSchemaList", reflect.TypeFor[api.FlowSchemaList](), func() message { return &flowcontrolv1.FlowSchemaList{} }},
	{"flowcontrol.apiserver.k8s.io/v1", "PriorityLevelConfiguration", reflect.TypeFor[api.PriorityLevelConfiguration](), func() message { return &flowcontrolv1.PriorityLevelConfiguration{} }},
	{"flowcontrol.apiserver.k8s.io/v1", "PriorityLevelConfigurationList", reflect.TypeFor[api.PriorityLevelConfigurationList](), func() message { return &flowcontrolv1.PriorityLevelConfigurationList{} }},
	{"networking.k8s.io/v1", "Ingress", reflect.TypeFor[api.Ingress](), func() message { return &networkingv1.Ingress{} }},
	{"networking.k8s.io/v1", "IngressList", reflect.TypeFor[api.IngressList](), func() message { return &networkingv1.IngressList{} }},
	{"networking.k8s.io/v1", "IngressClass", reflect.TypeFor[api.IngressClass](), func() message { return &networkingv1.IngressClass{} }},
	{"networking.k8s.io/v1", "IngressClassList", reflect.TypeFor[api.IngressClassList](), func() message { return &networkingv1.IngressClassList{} }},
	{"networking.k8s.io/v1", "NetworkPolicy", reflect.TypeFor[api.NetworkPolicy](), func() message { return &networkingv1.NetworkPolicy{} }},
	{"networking.k8s.io/v1", "NetworkPolicyList", reflect.TypeFor[api.NetworkPolicyList](), func() message { return &networkingv1.NetworkPolicyList{} }},
	{"rbac.authorization.k8s.io/v1", "Role", reflect.TypeFor[api.Role](), func() message { return &rbacv1.Role{} }},
	{"rbac.authorization.k8s.io/v1", "RoleList", reflect.TypeFor[api.RoleList](), func() message { return &rbacv1.RoleList{} }},
	{"rbac.authorization.k8s.io/v1", "RoleBinding", reflect.TypeFor[api.RoleBinding](), func() message { return &rbacv1.RoleBinding{} }},
	{"rbac.authorization.k8s.io/v1", "RoleBindingList", reflect.TypeFor[api.RoleBindingList](), func() message { return &rbacv1.RoleBindingList{} }},
	{"rbac.authorization.k8s.io/v1", "ClusterRole", reflect.TypeFor[api.ClusterRole](), func() message { return &rbacv1.ClusterRole{} }},
	{"rbac.authorization.k8s.io/v1", "ClusterRoleList", reflect.TypeFor[api.ClusterRoleList](), func() message { return &rbacv1.ClusterRoleList{} }},
	{"rbac.authorization.k8s.io/v1", "ClusterRoleBinding", reflect.TypeFor[api.ClusterRoleBinding](), func() message { return &rbacv1.ClusterRoleBinding{} }},
	{"rbac.authorization.k8s.io/v1", "ClusterRoleBindingList", reflect.TypeFor[api.ClusterRoleBindingList](), func() message { return &rbacv1.ClusterRoleBindingList{} }},
	{"apps/v1", "Deployment", reflect.TypeFor[api.Deployment](), func() message { return &appsv1.Deployment{} }},
	{"apps/v1", "DeploymentList", reflect.TypeFor[api.DeploymentList](), func() message { return &appsv1.DeploymentList{} }},
	{"apps/v1", "DaemonSet", reflect.TypeFor[api.DaemonSet](), func() message { return &appsv1.DaemonSet{} }},
	{"apps/v1", "DaemonSetList", reflect.TypeFor[api.DaemonSetList](), func() message { return &appsv1.DaemonSetList{} }},
	{"apps/v1", "ControllerRevision", reflect.TypeFor[api.ControllerRevision](), func() message { return &appsv1.ControllerRevision{} }},
	{"apps/v1", "ControllerRevisionList", reflect.TypeFor[api.ControllerRevisionList](), func() message { return &appsv1.ControllerRevisionList{} }},
	{"apps/v1", "ReplicaSet", reflect.TypeFor[api.ReplicaSet](), func() message { return &appsv1.ReplicaSet{} }},
	{"apps/v1", "ReplicaSetList", reflect.TypeFor[api.ReplicaSetList](), func() message { return &appsv1.ReplicaSetList{} }},
	{"apps/v1", "StatefulSet", reflect.TypeFor[api.StatefulSet](), func() message { return &appsv1.StatefulSet{} }},
	{"apps/v1", "StatefulSetList", reflect.TypeFor[api.StatefulSetList](), func() message { return &appsv1.StatefulSetList{} }},
	{"apiextensions.k8s.io/v1", "CustomResourceDefinition", reflect.TypeFor[api.CustomResourceDefinition](), func() message { return &apiextensionsv1.CustomResourceDefinition{} }},
	{"apiextensions.k8s.io/v1", "CustomResourceDefinitionList", reflect.TypeFor[api.CustomResourceDefinitionList](), func() message { return &apiextensionsv1.CustomResourceDefinitionList{} }},
	{"admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicy", reflect.TypeFor[api.ValidatingAdmissionPolicy](), func() message { return &admissionregistrationv1.ValidatingAdmissionPolicy{} }},
	{"admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicyList", reflect.TypeFor[api.ValidatingAdmissionPolicyList](), func() message { return &admissionregistrationv1.ValidatingAdmissionPolicyList{} }},
	{"admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicyBinding", reflect.TypeFor[api.ValidatingAdmissionPolicyBinding](), func() message { return &admissionregistrationv1.ValidatingAdmissionPolicyBinding{} }},
	{"admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicyBindingList", reflect.TypeFor[api.ValidatingAdmissionPolicyBindingList](), func() message { return &admissionregistrationv1.ValidatingAdmissionPolicyBindingList{} }},
	{"admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration", reflect.TypeFor[api.ValidatingWebhookConfiguration](), func() message { return &admissionregistrationv1.ValidatingWebhookConfiguration{} }},
	{"admissionregistration.k8s.io/v1", "ValidatingWebhookConfigurationList", reflect.TypeFor[api.ValidatingWebhookConfigurationList](), func() message { return &admissionregistrationv1.ValidatingWebhookConfigurationList{} }},
	{"admissionregistration.k8s.io/v1", "MutatingWebhookConfiguration", reflect.TypeFor[api.MutatingWebhookConfiguration](), func() message { return &admissionregistrationv1.MutatingWebhookConfiguration{} }},
	{"admissionregistration.k8s.io/v1", "MutatingWebhookConfigurationList", reflect.TypeFor[api.MutatingWebhookConfigurationList](), func() message { return &admissionregistrationv1.MutatingWebhookConfigurationList{} }},
	{"autoscaling/v1", "Scale", reflect.TypeFor[api.Scale](), func() message { return &autoscalingv1.Scale{} }},
	{"v1", "Binding", reflect.TypeFor[api.Binding](), func() message { return &corev1.Binding{} }},
	{"v1", "Status", reflect.TypeFor[api.Status](), func() message { return &metav1.Status{} }},
	{"v1", "DeleteOptions", reflect.TypeFor[api.DeleteOptions](), func() message { return &metav1.DeleteOptions{} }},
	{"", "WatchEvent", reflect.TypeFor[api.WatchEvent](), func() message { return &metav1.WatchEvent{} }},
}

// kindOf returns the entry of kinds for the type of ours, a pointer to a top-level type.
func kindOf(t *testing.T, ours any) kind {
	typ := reflect.TypeOf(ours).Elem()
	for _, k := range kinds {
		if k.ours == typ {
			return k
		}
	}
	t.Fatalf("no kind for %s", typ)
	return kind{}
}

// theirsFor returns the k8s.io/api object with the same content as ours: ours's JSON,
// decoded by upstream's JSON decoding.
func theirsFor(t *testing.T, k kind, ours any) message {
	t.Helper()
	data, err := json.Marshal(ours)
	require.NoError(t, err)
	theirs := k.theirs()
	require.NoError(t, json.Unmarshal(data, theirs), "upstream cannot decode our JSON %s", data)
	return theirs
}

// checkRoundTrips runs the three checks of the package comment on ours, a pointer to a
// filled top-level value, and our own encode-decode round trip.
func checkRoundTrips(t *testing.T, ours any) {
	t.Helper()
	k := kindOf(t, ours)
	ourJSON, err := json.Marshal(ours)
	require.NoError(t, err)

	ourBytes, err := protobuf.Marshal(ours)
	require.NoError(t, err)

	// Ours decodes to itself.
	again := reflect.New(k.ours).Interface()
	require.NoError(t, protobuf.Unmarshal(ourBytes, again))
	assert.Equal(t, ours, again, "our own round trip")

	// (a) ours → our bytes → their Unmarshal: the same JSON.
	decoded := k.theirs()
	if assert.NoError(t, decoded.Unmarshal(ourBytes), "upstream cannot decode our bytes") {
		theirJSON, err := json.Marshal(decoded)
		require.NoError(t, err)
		assert.Equal(t, normalizedJSON(t, ourJSON), normalizedJSON(t, theirJSON), "(a) upstream decoded our bytes to other content")
	}

	// (b) theirs → their bytes → our Unmarshal: ours.
	theirs := theirsFor(t, k, ours)
	theirBytes, err := theirs.Marshal()
	require.NoError(t, err)
	fromTheirs := reflect.New(k.ours).Interface()
	if assert.NoError(t, protobuf.Unmarshal(theirBytes, fromTheirs), "we cannot decode upstream's bytes") {
		assert.Equal(t, ours, fromTheirs, "(b) we decoded upstream's bytes to other content")
	}

	// (c) our bytes are theirs, less the zero fields miniplane does not model.
	stripped, err := stripUnmodeled(theirBytes, k.ours)
	require.NoError(t, err)
	if !bytes.Equal(stripped, ourBytes) {
		assert.Fail(t, "(c) our bytes differ from upstream's (stripped of unmodeled zero fields)", "%d bytes ours, %d theirs; %s",
			len(ourBytes), len(stripped), firstDifference(ourBytes, stripped, k.ours))
	}
}

// normalizedJSON decodes data for a JSON comparison, dropping every "creationTimestamp":
// null. It is the one difference between our JSON and k8s.io/apimachinery v0.37's for the
// same content: upstream now tags ObjectMeta.CreationTimestamp omitzero and leaves a zero one
// out, while miniplane writes null, as Kubernetes did before (both decode to the zero time);
// and an empty status object is dropped.
func normalizedJSON(t *testing.T, data []byte) any {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal(data, &v))
	var drop func(any)
	drop = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if ts, ok := v["creationTimestamp"]; ok && ts == nil {
				delete(v, "creationTimestamp")
			}
			// An empty status says nothing: k8s.io/api v0.37 gave CSINode a
			// status (feature-gated, after v1.32) that encoding/json writes as
			// {} even when empty, and miniplane's CSINode has none.
			if st, ok := v["status"].(map[string]any); ok && len(st) == 0 {
				delete(v, "status")
			}
			for _, child := range v {
				drop(child)
			}
		case []any:
			for _, child := range v {
				drop(child)
			}
		}
	}
	drop(v)
	return v
}

// stripUnmodeled returns msg, a message of type typ as k8s.io/api encodes it, without the
// fields that typ has no protobuf tag for, at every depth. Such fields must be zero (gogo
// writes non-pointer fields even when zero): a non-zero one is an error, since the content
// came from one of our objects.
func stripUnmodeled(msg []byte, typ reflect.Type) ([]byte, error) {
	fields := taggedFields(typ)
	var out []byte
	for len(msg) > 0 {
		num, wtyp, n := protowire.ConsumeTag(msg)
		if n < 0 {
			return nil, fmt.Errorf("%s: bad tag: %w", typ, protowire.ParseError(n))
		}
		m := protowire.ConsumeFieldValue(num, wtyp, msg[n:])
		if m < 0 {
			return nil, fmt.Errorf("%s: field %d: %w", typ, num, protowire.ParseError(m))
		}
		field, value := msg[:n+m], msg[n:n+m]
		msg = msg[n+m:]
		ft, modeled := fields[num]
		switch {
		case !modeled:
			if !isZeroField(wtyp, value) {
				return nil, fmt.Errorf("%s: field %d is not modeled but not zero: %x", typ, num, value)
			}
		case wtyp == protowire.BytesType && nestedMessage(ft) != nil:
			inner, _ := protowire.ConsumeBytes(value)
			stripped, err := stripUnmodeled(inner, nestedMessage(ft))
			if err != nil {
				return nil, err
			}
			out = protowire.AppendTag(out, num, wtyp)
			out = protowire.AppendBytes(out, stripped)
		default:
			out = append(out, field...)
		}
	}
	return out, nil
}

// taggedFields maps the field numbers of struct type typ's protobuf tags to field types.
func taggedFields(typ reflect.Type) map[protowire.Number]reflect.Type {
	fields := map[protowire.Number]reflect.Type{}
	for i := range typ.NumField() {
		f := typ.Field(i)
		tag, ok := f.Tag.Lookup("protobuf")
		if !ok {
			continue
		}
		parts := strings.Split(tag, ",")
		n, err := strconv.Atoi(parts[1])
		if err != nil {
			panic(fmt.Sprintf("%s.%s: bad tag %q", typ, f.Name, tag))
		}
		fields[protowire.Number(n)] = f.Type
	}
	return fields
}

// nestedMessage returns the struct type a field of type ft holds as a nested message whose
// own fields are tagged, or nil for scalars, maps, raw bytes and the shapes encoded by Go
// type (Time and MicroTime have no tagged fields).
func nestedMessage(ft reflect.Type) reflect.Type {
	for ft.Kind() == reflect.Pointer || (ft.Kind() == reflect.Slice && ft.Elem().Kind() != reflect.Uint8) {
		ft = ft.Elem()
	}
	if ft.Kind() != reflect.Struct || ft == reflect.TypeFor[api.Time]() || ft == reflect.TypeFor[api.MicroTime]() {
		return nil
	}
	return ft
}

// isZeroField reports whether value, a field's value of wire type wtyp, is zero: a zero
// number, an empty string, or a message whose fields are all zero.
func isZeroField(wtyp protowire.Type, value []byte) bool {
	switch wtyp {
	case protowire.VarintType:
		v, _ := protowire.ConsumeVarint(value)
		return v == 0
	case protowire.Fixed32Type:
		v, _ := protowire.ConsumeFixed32(value)
		return v == 0
	case protowire.Fixed64Type:
		v, _ := protowire.ConsumeFixed64(value)
		return v == 0
	case protowire.BytesType:
		inner, _ := protowire.ConsumeBytes(value)
		for len(inner) > 0 {
			num, typ, n := protowire.ConsumeTag(inner)
			if n < 0 {
				return false
			}
			m := protowire.ConsumeFieldValue(num, typ, inner[n:])
			if m < 0 || !isZeroField(typ, inner[n:n+m]) {
				return false
			}
			inner = inner[n+m:]
		}
		return true
	}
	return false
}

// firstDifference describes where two encodings of a message of type typ part: the path of
// field numbers to the first field whose bytes differ.
func firstDifference(ours, theirs []byte, typ reflect.Type) string {
	var path []string
	for typ != nil {
		a, b, num, ok := differingField(ours, theirs)
		if !ok {
			break
		}
		name := fmt.Sprint(num)
		var next reflect.Type
		for i := range typ.NumField() {
			if tag := typ.Field(i).Tag.Get("protobuf"); strings.Split(tag+",", ",")[1] == name {
				name = typ.Field(i).Name + "(" + name + ")"
				next = nestedMessage(typ.Field(i).Type)
			}
		}
		path = append(path, name)
		if next == nil {
			path = append(path, fmt.Sprintf("ours %x, theirs %x", a, b))
			break
		}
		ours, _ = protowire.ConsumeBytes(skipTag(a))
		theirs, _ = protowire.ConsumeBytes(skipTag(b))
		typ = next
	}
	return "first difference at " + strings.Join(path, " > ")
}

// differingField returns the first field, tag included, at which two messages differ.
func differingField(ours, theirs []byte) (a, b []byte, num protowire.Number, ok bool) {
	for len(ours) > 0 || len(theirs) > 0 {
		a, numA := nextField(ours)
		b, numB := nextField(theirs)
		if !bytes.Equal(a, b) {
			if numA == 0 {
				numA = numB
			}
			return a, b, numA, true
		}
		ours, theirs = ours[len(a):], theirs[len(b):]
	}
	return nil, nil, 0, false
}

// nextField returns the first field of msg, tag included, and its number; nil and 0 when
// msg is empty or malformed.
func nextField(msg []byte) ([]byte, protowire.Number) {
	num, typ, n := protowire.ConsumeTag(msg)
	if n < 0 {
		return nil, 0
	}
	m := protowire.ConsumeFieldValue(num, typ, msg[n:])
	if m < 0 {
		return nil, 0
	}
	return msg[:n+m], num
}

func skipTag(field []byte) []byte {
	_, _, n := protowire.ConsumeTag(field)
	if n < 0 {
		return nil
	}
	return field[n:]
}

// TestStripUnmodeled checks the helper the byte comparison rests on: it drops exactly the
// zero fields our type has no tag for, at any depth, and refuses non-zero ones.
func TestStripUnmodeled(t *testing.T) {
	// ObjectMeta: name=1 (modeled), selfLink=4 (not modeled), ownerReferences=13 (modeled,
	// nested), in which field 99 is not modeled.
	owner := protowire.AppendTag(nil, 1, protowire.BytesType)
	owner = protowire.AppendString(owner, "ReplicationController")
	withUnknown := protowire.AppendTag(owner, 99, protowire.VarintType)
	withUnknown = protowire.AppendVarint(withUnknown, 0)

	build := func(selfLink string, ownerMsg []byte) []byte {
		b := protowire.AppendTag(nil, 1, protowire.BytesType)
		b = protowire.AppendString(b, "web")
		b = protowire.AppendTag(b, 4, protowire.BytesType)
		b = protowire.AppendString(b, selfLink)
		b = protowire.AppendTag(b, 13, protowire.BytesType)
		return protowire.AppendBytes(b, ownerMsg)
	}
	want := protowire.AppendTag(nil, 1, protowire.BytesType)
	want = protowire.AppendString(want, "web")
	want = protowire.AppendTag(want, 13, protowire.BytesType)
	want = protowire.AppendBytes(want, owner)

	tests := []struct {
		name    string
		msg     []byte
		want    []byte
		wantErr string
	}{
		{name: "zero unmodeled fields go", msg: build("", withUnknown), want: want},
		{name: "a non-zero unmodeled field is an error", msg: build("/api/v1/x", owner), wantErr: "field 4 is not modeled but not zero"},
		{name: "truncated", msg: build("", owner)[:4], wantErr: "field 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := stripUnmodeled(tt.msg, reflect.TypeFor[api.ObjectMeta]())
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}
