package api

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFixturesRoundTrip decodes JSON in the exact shape the kube-apiserver returns for each
// kind, encodes it back, and requires the same JSON: no field the types model is lost or
// changed. Fixtures hold only modeled fields, which decoding with DisallowUnknownFields
// checks.
func TestFixturesRoundTrip(t *testing.T) {
	tests := []struct {
		file string
		into any
	}{
		{"pod.json", &Pod{}},
		{"podlist.json", &PodList{}},
		{"replicationcontroller.json", &ReplicationController{}},
		{"service.json", &Service{}},
		{"service-headless.json", &Service{}},
		{"endpoints.json", &Endpoints{}},
		{"node.json", &Node{}},
		{"lease.json", &Lease{}},
		{"event.json", &Event{}},
		{"event-series.json", &Event{}},
		{"eventsv1-event.json", &EventsV1Event{}},
		{"eventsv1-event-series.json", &EventsV1Event{}},
		{"eviction.json", &Eviction{}},
		{"namespace.json", &Namespace{}},
		{"configmap.json", &ConfigMap{}},
		{"secret.json", &Secret{}},
		{"serviceaccount.json", &ServiceAccount{}},
		{"status-notfound.json", &Status{}},
		{"status-invalid.json", &Status{}},
		{"status-toomanyrequests.json", &Status{}},
		{"scale.json", &Scale{}},
		{"deleteoptions.json", &DeleteOptions{}},
		{"watchevent.json", &WatchEvent{}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			fixture, err := readTestdata(tt.file)
			require.NoError(t, err)

			dec := json.NewDecoder(bytes.NewReader(fixture))
			dec.DisallowUnknownFields()
			require.NoError(t, dec.Decode(tt.into), "fixture must hold only modeled fields")

			encoded, err := json.Marshal(tt.into)
			require.NoError(t, err)
			assert.Equal(t, genericJSON(t, fixture), genericJSON(t, encoded))
		})
	}
}

// TestFixtureValues spot-checks that fixtures decode into the values they spell, so that the
// round trip is not trivially satisfied by some field decoding into the wrong place.
func TestFixtureValues(t *testing.T) {
	var svc Service
	decodeFixture(t, "service.json", &svc)
	require.Len(t, svc.Spec.Ports, 2)
	assert.Equal(t, FromInt(8080), svc.Spec.Ports[0].TargetPort)
	assert.Equal(t, FromString("metrics"), svc.Spec.Ports[1].TargetPort)
	assert.Equal(t, ServiceTypeLoadBalancer, svc.Spec.Type)
	require.NotNil(t, svc.Spec.IPFamilyPolicy)
	assert.Equal(t, IPFamilyPolicySingleStack, *svc.Spec.IPFamilyPolicy)

	var secret Secret
	decodeFixture(t, "secret.json", &secret)
	assert.Equal(t, []byte("hunter2"), secret.Data["password"], "secret data is base64 in JSON")
	var cm ConfigMap
	decodeFixture(t, "configmap.json", &cm)
	assert.Equal(t, []byte{0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'}, cm.BinaryData["logo.png"])

	var pod Pod
	decodeFixture(t, "pod.json", &pod)
	assert.Equal(t, "default/web-7xk2p", KeyOf(&pod.Metadata))
	assert.Equal(t, NewTime(time.Date(2024, 5, 14, 9, 21, 7, 0, time.UTC)), pod.Metadata.CreationTimestamp)
	assert.True(t, pod.Status.Conditions[0].LastProbeTime.IsZero())
	assert.Equal(t, FromString("http"), pod.Spec.Containers[0].ReadinessProbe.HTTPGet.Port)
	assert.Equal(t, FromInt(80), pod.Spec.Containers[0].LivenessProbe.TCPSocket.Port)
	assert.Equal(t, "128Mi", pod.Spec.Containers[0].Resources.Limits[ResourceMemory])
	assert.Equal(t, int32(137), pod.Status.ContainerStatuses[0].LastTerminationState.Terminated.ExitCode)
	assert.True(t, IsPodReady(&pod))

	var lease Lease
	decodeFixture(t, "lease.json", &lease)
	assert.Equal(t, NewMicroTime(time.Date(2024, 5, 14, 9, 40, 12, 4519000, time.UTC)), *lease.Spec.RenewTime)

	var event Event
	decodeFixture(t, "event.json", &event)
	assert.Equal(t, "kubelet", event.ReportingController)
	assert.True(t, event.EventTime.IsZero())

	var status Status
	decodeFixture(t, "status-invalid.json", &status)
	assert.Equal(t, StatusReasonInvalid, status.Reason)
	assert.Equal(t, CauseTypeFieldValueRequired, status.Details.Causes[0].Type)

	var list PodList
	decodeFixture(t, "podlist.json", &list)
	assert.Equal(t, int64(12), *list.Metadata.RemainingItemCount)
	assert.Len(t, list.Items, 2)

	var opts DeleteOptions
	decodeFixture(t, "deleteoptions.json", &opts)
	assert.Equal(t, DeletePropagationForeground, *opts.PropagationPolicy)
	assert.Equal(t, UID("3f1c2a4e-8d6b-4c1e-9a53-0b7e6d2f9c10"), *opts.Preconditions.UID)
}

// TestEveryFieldRoundTrips fills every field of every type with a non-zero value, encodes
// and decodes it, and requires an equal value: every field has a working JSON tag and
// survives the trip, including fields no fixture mentions.
func TestEveryFieldRoundTrips(t *testing.T) {
	for _, typ := range allTopLevelTypes() {
		t.Run(typ.Name(), func(t *testing.T) {
			filled := newFilled(t, typ)
			encoded, err := json.Marshal(filled.Interface())
			require.NoError(t, err)
			decoded := reflect.New(typ)
			require.NoError(t, json.Unmarshal(encoded, decoded.Interface()))
			oneFormInJSON(filled)
			assert.Equal(t, filled.Interface(), decoded.Interface())
		})
	}
}

// oneFormInJSON drops, everywhere under v, the schema of a JSONSchemaPropsOrArray or
// JSONSchemaPropsOrStringArray that also holds the list form: JSON carries one form or
// the other (the list, when both are set), as upstream's does. The filler sets both.
func oneFormInJSON(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			oneFormInJSON(v.Elem())
		}
	case reflect.Slice:
		for i := range v.Len() {
			oneFormInJSON(v.Index(i))
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(v.MapIndex(k))
			oneFormInJSON(e)
			v.SetMapIndex(k, e)
		}
	case reflect.Struct:
		switch o := v.Addr().Interface().(type) {
		case *JSONSchemaPropsOrArray:
			if len(o.JSONSchemas) > 0 {
				o.Schema = nil
			}
		case *JSONSchemaPropsOrStringArray:
			if len(o.Property) > 0 {
				o.Schema = nil
			}
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				oneFormInJSON(v.Field(i))
			}
		}
	}
}

// TestZeroValuesEncodeLikeKubernetes checks the JSON of empty objects against what
// Kubernetes' own types produce (the expected strings were taken from k8s.io/api v0.31):
// structs are never omitted, so a zero creationTimestamp is null and empty status blocks
// are {}.
func TestZeroValuesEncodeLikeKubernetes(t *testing.T) {
	tests := []struct {
		name string
		obj  any
		want string
	}{
		{"Pod", &Pod{}, `{"metadata":{"creationTimestamp":null},"spec":{"containers":null},"status":{}}`},
		{"ReplicationController", &ReplicationController{}, `{"metadata":{"creationTimestamp":null},"spec":{},"status":{"replicas":0}}`},
		{"Service", &Service{}, `{"metadata":{"creationTimestamp":null},"spec":{},"status":{"loadBalancer":{}}}`},
		{"Endpoints", &Endpoints{}, `{"metadata":{"creationTimestamp":null}}`},
		{"Lease", &Lease{}, `{"metadata":{"creationTimestamp":null},"spec":{}}`},
		{"Event", &Event{}, `{"metadata":{"creationTimestamp":null},"involvedObject":{},"source":{},` +
			`"firstTimestamp":null,"lastTimestamp":null,"eventTime":null,"reportingComponent":"","reportingInstance":""}`},
		{"Namespace", &Namespace{}, `{"metadata":{"creationTimestamp":null},"spec":{},"status":{}}`},
		{"EventsV1Event", &EventsV1Event{}, `{"metadata":{"creationTimestamp":null},"eventTime":null,"regarding":{},"deprecatedSource":{},` +
			`"deprecatedFirstTimestamp":null,"deprecatedLastTimestamp":null}`},
		{"EventsV1EventSeries", &EventsV1EventSeries{}, `{"count":0,"lastObservedTime":null}`},
		{"Eviction", &Eviction{}, `{"metadata":{"creationTimestamp":null}}`},
		{"Status", &Status{}, `{"metadata":{}}`},
		{"PodList", &PodList{}, `{"metadata":{},"items":null}`},
		{"Node", &Node{}, `{"metadata":{"creationTimestamp":null},"spec":{},"status":{"daemonEndpoints":{"kubeletEndpoint":{"Port":0}},` +
			`"nodeInfo":{"machineID":"","systemUUID":"","bootID":"","kernelVersion":"","osImage":"","containerRuntimeVersion":"",` +
			`"kubeletVersion":"","kubeProxyVersion":"","operatingSystem":"","architecture":""}}}`},
		{"Scale", &Scale{}, `{"metadata":{"creationTimestamp":null},"spec":{},"status":{"replicas":0}}`},
		{"DeleteOptions", &DeleteOptions{}, `{}`},
		{"ServicePort", &ServicePort{Port: 80}, `{"port":80,"targetPort":0}`},
		{"ContainerStatus", &ContainerStatus{Name: "c"}, `{"name":"c","state":{},"lastState":{},"ready":false,"restartCount":0,"image":"","imageID":""}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := json.Marshal(tt.obj)
			require.NoError(t, err)
			assert.JSONEq(t, tt.want, string(got))
		})
	}
}

// TestUnknownFieldsAreIgnored decodes a pod carrying fields miniplane does not model
// (selfLink, a security context's seLinuxOptions, volumeDevices, ...) without error, keeping the modeled ones.
func TestUnknownFieldsAreIgnored(t *testing.T) {
	input := `{
		"apiVersion": "v1", "kind": "Pod",
		"metadata": {
			"name": "web", "namespace": "default", "selfLink": "/api/v1/namespaces/default/pods/web"
		},
		"spec": {
			"containers": [{"name": "c", "image": "nginx", "stdin": true,
				"volumeDevices": [{"name": "data", "devicePath": "/dev/xvda"}]}],
			"securityContext": {"seLinuxOptions": {"level": "s0:c1"}}, "hostIPC": true
		},
		"status": {"phase": "Pending", "nominatedNodeName": "node-9"}
	}`
	var pod Pod
	require.NoError(t, json.Unmarshal([]byte(input), &pod))
	assert.Equal(t, "web", pod.Metadata.Name)
	assert.Equal(t, []Container{{Name: "c", Image: "nginx"}}, pod.Spec.Containers)
	assert.Equal(t, PodPending, pod.Status.Phase)

	encoded, err := json.Marshal(&pod)
	require.NoError(t, err)
	assert.NotContains(t, string(encoded), "selfLink")
	assert.NotContains(t, string(encoded), "volumeDevices")
	assert.NotContains(t, string(encoded), "seLinuxOptions")
	assert.NotContains(t, string(encoded), "stdin")
}

// genericJSON decodes data into maps, slices and float64s for a field-by-field comparison
// that ignores key order and whitespace.
func genericJSON(t *testing.T, data []byte) any {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal(data, &v))
	return v
}

func decodeFixture(t *testing.T, file string, into any) {
	t.Helper()
	data, err := readTestdata(file)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, into))
}

func readTestdata(file string) ([]byte, error) {
	return os.ReadFile(filepath.Join("testdata", file))
}

// TestManagedFieldsRoundTrip keeps metadata.managedFields through decode and encode, with
// fieldsV1 byte for byte, so server-side apply's ownership survives being stored.
func TestManagedFieldsRoundTrip(t *testing.T) {
	input := `{"metadata":{"name":"web","creationTimestamp":null,"managedFields":[{"manager":"kubectl","operation":"Apply","apiVersion":"v1",` +
		`"time":"2026-11-21T21:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:replicas":{}}}},` +
		`{"manager":"kubectl","operation":"Update","apiVersion":"autoscaling/v1","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:replicas":{}}},"subresource":"scale"}]},` +
		`"spec":{},"status":{"replicas":0}}`
	var rc ReplicationController
	require.NoError(t, json.Unmarshal([]byte(input), &rc))
	require.Len(t, rc.Metadata.ManagedFields, 2)
	assert.Equal(t, `{"f:spec":{"f:replicas":{}}}`, string(rc.Metadata.ManagedFields[0].FieldsV1))
	assert.Equal(t, "scale", rc.Metadata.ManagedFields[1].Subresource)
	encoded, err := json.Marshal(&rc)
	require.NoError(t, err)
	assert.JSONEq(t, input, string(encoded))
}
