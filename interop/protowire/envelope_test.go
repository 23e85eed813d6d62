package protowire

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8sprotobuf "k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/protobuf"
)

// clientScheme is client-go's scheme with apiextensions.k8s.io/v1 added, as the
// apiextensions clientset's scheme has it.
func clientScheme(t *testing.T) *runtime.Scheme {
	s := runtime.NewScheme()
	require.NoError(t, scheme.AddToScheme(s))
	require.NoError(t, apiextensionsv1.AddToScheme(s))
	return s
}

// TestEnvelopeDecodesWithApimachinery decodes our MarshalObject output of every full case
// with apimachinery's own protobuf serializer and client-go's scheme (with apiextensions
// added), as a client does: it
// must find the right kind and the same object. It then compares our bytes with the
// serializer's encoding of the upstream object, less the unmodeled zero fields.
func TestEnvelopeDecodesWithApimachinery(t *testing.T) {
	s := clientScheme(t)
	serializer := k8sprotobuf.NewSerializer(s, s)
	for name, obj := range fullCases() {
		k := kindOf(t, obj)
		if k.apiVersion == "" {
			continue // a WatchEvent travels in a watch frame: TestWatchEventFrames
		}
		t.Run(name, func(t *testing.T) {
			gvk := schema.FromAPIVersionAndKind(k.apiVersion, k.kind)
			ours, err := protobuf.MarshalObject(k.apiVersion, k.kind, obj)
			require.NoError(t, err)

			decoded, decodedGVK, err := serializer.Decode(ours, nil, nil)
			require.NoError(t, err)
			assert.Equal(t, gvk, *decodedGVK)
			assert.IsType(t, k.theirs(), decoded)
			ourJSON, err := json.Marshal(obj)
			require.NoError(t, err)
			theirJSON, err := json.Marshal(decoded)
			require.NoError(t, err)
			assert.Equal(t, withKind(normalizedJSON(t, ourJSON), gvk), normalizedJSON(t, theirJSON))

			// Our envelope reads back: kind, and the bare message.
			envelope, err := protobuf.UnmarshalEnvelope(ours)
			require.NoError(t, err)
			bare, err := protobuf.Marshal(obj)
			require.NoError(t, err)
			assert.Equal(t, protobuf.Unknown{APIVersion: k.apiVersion, Kind: k.kind, Raw: bare}, envelope)

			// The serializer's bytes for the upstream object, with the unmodeled zero fields
			// taken out of the message, are ours.
			theirs := theirsFor(t, k, obj).(runtime.Object)
			theirs.GetObjectKind().SetGroupVersionKind(gvk)
			var encoded bytes.Buffer
			require.NoError(t, serializer.Encode(theirs, &encoded))
			prefix, body := encoded.Bytes()[:4], encoded.Bytes()[4:]
			var unknown runtime.Unknown
			require.NoError(t, unknown.Unmarshal(body))
			unknown.Raw, err = stripUnmodeled(unknown.Raw, k.ours)
			require.NoError(t, err)
			want, err := unknown.Marshal()
			require.NoError(t, err)
			assert.Equal(t, append(bytes.Clone(prefix), want...), ours)
		})
	}
}

// TestWatchEventFrames exchanges a watch event carrying an enveloped pod both ways: ours
// decoded by metav1.WatchEvent and apimachinery's serializer, and upstream's decoded by
// ours. The 4-byte length frame around it is the HTTP layer's.
func TestWatchEventFrames(t *testing.T) {
	serializer := k8sprotobuf.NewSerializer(scheme.Scheme, scheme.Scheme)
	pod := fullPod("watched")
	object, err := protobuf.MarshalObject("v1", "Pod", &pod)
	require.NoError(t, err)
	podJSON, err := json.Marshal(&pod)
	require.NoError(t, err)

	tests := []struct {
		name      string
		eventType string
		object    []byte
	}{
		{"modified pod", api.WatchModified, object},
		{"no object", api.WatchBookmark, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ours := protobuf.AppendWatchEvent(nil, tt.eventType, tt.object)

			var theirs metav1.WatchEvent
			require.NoError(t, theirs.Unmarshal(ours))
			assert.Equal(t, tt.eventType, theirs.Type)
			assert.Equal(t, tt.object, theirs.Object.Raw)
			theirBytes, err := theirs.Marshal()
			require.NoError(t, err)
			assert.Equal(t, theirBytes, ours, "our watch event bytes are upstream's")

			eventType, raw, err := protobuf.UnmarshalWatchEvent(theirBytes)
			require.NoError(t, err)
			assert.Equal(t, tt.eventType, eventType)
			assert.Equal(t, tt.object, nilIfEmpty(raw))

			if tt.object == nil {
				return
			}
			decoded, _, err := serializer.Decode(theirs.Object.Raw, nil, nil)
			require.NoError(t, err)
			require.IsType(t, &corev1.Pod{}, decoded)
			decodedJSON, err := json.Marshal(decoded)
			require.NoError(t, err)
			assert.Equal(t, withKind(normalizedJSON(t, podJSON), corev1.SchemeGroupVersion.WithKind("Pod")), normalizedJSON(t, decodedJSON))

			envelope, err := protobuf.UnmarshalEnvelope(raw)
			require.NoError(t, err)
			var back api.Pod
			require.NoError(t, protobuf.Unmarshal(envelope.Raw, &back))
			assert.Equal(t, pod, back)
		})
	}
}

// withKind adds apiVersion and kind to the JSON object v, as the serializer sets them on
// what it decodes (the message itself carries no TypeMeta).
func withKind(v any, gvk schema.GroupVersionKind) any {
	object := v.(map[string]any)
	object["apiVersion"], object["kind"] = gvk.GroupVersion().String(), gvk.Kind
	return object
}

func nilIfEmpty(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return b
}

// TestTagsMatchUpstream walks our types beside k8s.io/api's, pairing fields by JSON name
// (by Go name where there is none, as inside IntOrString), and requires each of our
// protobuf tags to name the same field number and name as upstream's. The wire type and
// label must match too, except on the fields where upstream's Go tag contradicts its own
// generated.proto and ours follows the .proto (the api package's test checks those against
// the Go types). Its patchStrategy and patchMergeKey tags must be upstream's exactly.
func TestTagsMatchUpstream(t *testing.T) {
	// Upstream Go tags that disagree with generated.proto, by "UpstreamType.field".
	quirks := map[string]bool{
		"ListMeta.remainingItemCount": true, "DeleteOptions.propagationPolicy": true,
		"EventSeries.count": true, "EventSeries.lastObservedTime": true,
		"NodeSpec.podCIDRs": true, "NodeSpec.taints": true, "PodSpec.tolerations": true,
		"PodSpec.priority": true, "PodSpec.overhead": true, "PodStatus.qosClass": true,
		"SecretVolumeSource.defaultMode": true, "ServiceAccountTokenProjection.audience": true,
		"ServiceSpec.clusterIPs": true, "ServiceSpec.ipFamilies": true,
		"PersistentVolumeSpec.mountOptions": true, "StorageClass.mountOptions": true,
		"CSIDriverSpec.podInfoOnMount": true, "CSIDriverSpec.volumeLifecycleModes": true, "CSIDriverSpec.storageCapacity": true,
		"EndpointSlice.addressType": true, "Endpoint.deprecatedTopology": true, "EndpointHints.forZones": true, "ForZone.name": true,
		"EndpointConditions.ready": true, "EndpointConditions.serving": true, "EndpointConditions.terminating": true,
		"EndpointPort.name": true, "EndpointPort.protocol": true, "EndpointPort.port": true, "EndpointPort.appProtocol": true,
		"PriorityClass.value": true, "PriorityClass.globalDefault": true,
		"CertificateSigningRequestSpec.usages": true, "Overhead.podFixed": true, "Scheduling.nodeSelector": true, "PolicyRulesWithSubjects.resourceRules": true, "PolicyRulesWithSubjects.nonResourceRules": true,
		"NetworkPolicyPort.endPort": true, "NetworkPolicyPeer.ipBlock": true, "IPBlock.cidr": true, "ServiceBackendPort.number": true,
		"ServiceSpec.healthCheckNodePort":     true,
		"CSIStorageCapacity.storageClassName": true, "RollingUpdateStatefulSetStrategy.maxUnavailable": true,
		"GRPCAction.port": true,
		// apiextensions-apiserver tags every JSONSchemaProps field "bytes"; its
		// generated.proto has bools, int64s and doubles, and maps for these two.
		"JSONSchemaProps.maximum": true, "JSONSchemaProps.exclusiveMaximum": true,
		"JSONSchemaProps.minimum": true, "JSONSchemaProps.exclusiveMinimum": true,
		"JSONSchemaProps.maxLength": true, "JSONSchemaProps.minLength": true,
		"JSONSchemaProps.maxItems": true, "JSONSchemaProps.minItems": true,
		"JSONSchemaProps.uniqueItems": true, "JSONSchemaProps.multipleOf": true,
		"JSONSchemaProps.maxProperties": true, "JSONSchemaProps.minProperties": true,
		"JSONSchemaProps.nullable": true, "JSONSchemaProps.x-kubernetes-preserve-unknown-fields": true,
		"JSONSchemaProps.x-kubernetes-embedded-resource": true, "JSONSchemaProps.x-kubernetes-int-or-string": true,
		"JSONSchemaProps.dependencies": true, "JSONSchemaProps.definitions": true,
		"CustomResourceDefinitionStatus.conditions": true, "CustomResourceDefinitionNames.shortNames": true,
		"ValidationRule.optionalOldSelf": true, "CustomResourceColumnDefinition.priority": true,
		"CustomResourceSubresourceScale.specReplicasPath": true, "CustomResourceConversion.strategy": true,
		// batch/v1's Go tags say "opt" for lists generated.proto repeats, and
		// "req" for fields proto2 marks required; the wire is generated.proto's.
		"PodFailurePolicy.rules": true, "SuccessPolicy.rules": true, "PodFailurePolicyRule.onPodConditions": true,
		"PodFailurePolicyRule.action": true, "PodFailurePolicyOnExitCodesRequirement.operator": true,
		"PodFailurePolicyOnPodConditionsPattern.type": true, "PodFailurePolicyOnPodConditionsPattern.status": true,
		// admissionregistration/v1's Go tags say "rep" for single fields and
		// "opt" for the webhooks' repeated matchConditions; generated.proto
		// has them optional and repeated.
		"ParamKind.apiVersion": true, "ParamKind.kind": true, "Rule.scope": true,
		"ParamRef.name": true, "ParamRef.namespace": true, "ParamRef.selector": true, "ParamRef.parameterNotFoundAction": true,
		"ValidatingAdmissionPolicySpec.paramKind": true, "ValidatingAdmissionPolicySpec.matchConstraints": true,
		"ValidatingAdmissionPolicyBindingSpec.policyName": true, "ValidatingAdmissionPolicyBindingSpec.paramRef": true,
		"ValidatingAdmissionPolicyBindingSpec.matchResources": true,
		"ValidatingWebhook.matchConditions":                   true, "MutatingWebhook.matchConditions": true,
	}
	special := map[reflect.Type]bool{
		reflect.TypeFor[api.Time]():         true,
		reflect.TypeFor[api.MicroTime]():    true,
		reflect.TypeFor[api.ResourceList](): true,
		reflect.TypeFor[json.RawMessage]():  true,
	}
	seen := map[reflect.Type]bool{}
	compared := 0
	var walk func(ours, theirs reflect.Type)
	walk = func(ours, theirs reflect.Type) {
		for ours.Kind() == reflect.Pointer || ours.Kind() == reflect.Slice {
			if special[ours] {
				return
			}
			ours = ours.Elem()
			if theirs.Kind() == reflect.Pointer || theirs.Kind() == reflect.Slice {
				theirs = theirs.Elem()
			}
		}
		if ours.Kind() != reflect.Struct || special[ours] || seen[ours] {
			return
		}
		seen[ours] = true
		for i := range ours.NumField() {
			field := ours.Field(i)
			tag, ok := field.Tag.Lookup("protobuf")
			if !ok {
				continue
			}
			up, found := upstreamField(theirs, field)
			if !assert.True(t, found, "%s.%s has no upstream field in %s", ours.Name(), field.Name, theirs) {
				continue
			}
			compared++
			want := stripCast(up.Tag.Get("protobuf"))
			key := theirs.Name() + "." + jsonName(up)
			if up.Anonymous && !bytes.Contains([]byte(want), []byte("name=")) {
				// An embedded message upstream tags without a name (EphemeralContainer's
				// "bytes,1,req"); generated.proto names it, as ours does.
				assert.Equal(t, fieldNumber(want), fieldNumber(tag), "%s.%s", ours.Name(), field.Name)
			} else if quirks[key] {
				assert.Equal(t, numberAndName(want), numberAndName(tag), "%s.%s", ours.Name(), field.Name)
			} else {
				assert.Equal(t, want, tag, "%s.%s", ours.Name(), field.Name)
			}
			// apiserver/patch derives strategic merge and server-side apply from these.
			for _, name := range []string{"patchStrategy", "patchMergeKey"} {
				assert.Equal(t, up.Tag.Get(name), field.Tag.Get(name), "%s.%s's %s tag", ours.Name(), field.Name, name)
			}
			walk(field.Type, up.Type)
		}
	}
	for _, k := range kinds {
		walk(k.ours, reflect.TypeOf(k.theirs()).Elem())
	}
	assert.Greater(t, compared, 300, "the walk should reach every tagged field")
}

func upstreamField(theirs reflect.Type, ours reflect.StructField) (reflect.StructField, bool) {
	name := jsonName(ours)
	for i := range theirs.NumField() {
		f := theirs.Field(i)
		if name != "" && jsonName(f) == name || name == "" && f.Name == ours.Name {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// jsonName is a field's JSON name, or "" when it has none or is inlined.
func jsonName(f reflect.StructField) string {
	name, _, _ := bytes.Cut([]byte(f.Tag.Get("json")), []byte(","))
	return string(name)
}

// stripCast drops the casttype=, castkey= and castvalue= parts, which name upstream Go
// types and which our tags leave out.
func stripCast(tag string) string {
	var out []byte
	for part := range bytes.SplitSeq([]byte(tag), []byte(",")) {
		if bytes.HasPrefix(part, []byte("cast")) {
			continue
		}
		if len(out) > 0 {
			out = append(out, ',')
		}
		out = append(out, part...)
	}
	return string(out)
}

// numberAndName returns the field number and name= parts of a tag.
func numberAndName(tag string) string {
	parts := bytes.Split([]byte(tag), []byte(","))
	var name []byte
	for _, p := range parts {
		if bytes.HasPrefix(p, []byte("name=")) {
			name = p
		}
	}
	return string(parts[1]) + "," + string(name)
}

// fieldNumber is a protobuf tag's field number.
func fieldNumber(tag string) string {
	return string(bytes.Split([]byte(tag), []byte(","))[1])
}
