package protobuf

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
)

// apiFixtures are package api's JSON fixtures, in the shape kube-apiserver returns each
// kind, with the type each decodes into.
var apiFixtures = []struct {
	file string
	new  func() any
}{
	{"pod.json", func() any { return new(api.Pod) }},
	{"podlist.json", func() any { return new(api.PodList) }},
	{"replicationcontroller.json", func() any { return new(api.ReplicationController) }},
	{"service.json", func() any { return new(api.Service) }},
	{"service-headless.json", func() any { return new(api.Service) }},
	{"endpoints.json", func() any { return new(api.Endpoints) }},
	{"node.json", func() any { return new(api.Node) }},
	{"lease.json", func() any { return new(api.Lease) }},
	{"event.json", func() any { return new(api.Event) }},
	{"event-series.json", func() any { return new(api.Event) }},
	{"namespace.json", func() any { return new(api.Namespace) }},
	{"status-notfound.json", func() any { return new(api.Status) }},
	{"status-invalid.json", func() any { return new(api.Status) }},
	{"status-toomanyrequests.json", func() any { return new(api.Status) }},
	{"scale.json", func() any { return new(api.Scale) }},
	{"deleteoptions.json", func() any { return new(api.DeleteOptions) }},
	{"watchevent.json", func() any { return new(api.WatchEvent) }},
}

// decodeFixture decodes a JSON fixture of package api into v, refusing unknown fields.
func decodeFixture(t testing.TB, file string, v any) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", file))
	require.NoError(t, err)
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	require.NoError(t, dec.Decode(v))
}

// clearTypeMeta zeroes the TypeMeta embedded in the struct v points to, if any: protobuf
// messages do not carry it, the envelope does.
func clearTypeMeta(v any) {
	if f := reflect.ValueOf(v).Elem().FieldByName("TypeMeta"); f.IsValid() {
		f.SetZero()
	}
}

// TestAPIFixturesRoundTrip encodes every kind as protobuf and decodes it back: nothing the
// types model may be lost or changed, re-encoding gives the same bytes, and the decoded
// object serves the same JSON as the original, apart from apiVersion and kind.
func TestAPIFixturesRoundTrip(t *testing.T) {
	for _, fx := range apiFixtures {
		t.Run(fx.file, func(t *testing.T) {
			want := fx.new()
			decodeFixture(t, fx.file, want)
			clearTypeMeta(want)

			data, err := Marshal(want)
			require.NoError(t, err)
			got := fx.new()
			require.NoError(t, Unmarshal(data, got))
			assert.Equal(t, want, got)

			again, err := Marshal(got)
			require.NoError(t, err)
			assert.Equal(t, data, again)

			wantJSON, err := json.Marshal(want)
			require.NoError(t, err)
			gotJSON, err := json.Marshal(got)
			require.NoError(t, err)
			assert.JSONEq(t, string(wantJSON), string(gotJSON))
		})
	}
}

// TestAPIObjectEnvelope writes a pod as kube-apiserver does and reads the envelope back.
func TestAPIObjectEnvelope(t *testing.T) {
	var pod api.Pod
	decodeFixture(t, "pod.json", &pod)
	body, err := MarshalObject(pod.APIVersion, pod.Kind, &pod)
	require.NoError(t, err)

	u, err := UnmarshalEnvelope(body)
	require.NoError(t, err)
	assert.Equal(t, "v1", u.APIVersion)
	assert.Equal(t, "Pod", u.Kind)
	var got api.Pod
	require.NoError(t, Unmarshal(u.Raw, &got))
	pod.TypeMeta = api.TypeMeta{}
	assert.Equal(t, pod, got)

	event := AppendWatchEvent(nil, api.WatchModified, body)
	eventType, object, err := UnmarshalWatchEvent(event)
	require.NoError(t, err)
	assert.Equal(t, api.WatchModified, eventType)
	assert.Equal(t, body, object)
}

// TestAPISpecialShapes pins the raw JSON shapes on the real types: FieldsV1 in a
// ManagedFieldsEntry (written when set) and a WatchEvent's RawExtension (always written).
func TestAPISpecialShapes(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want string
	}{
		{
			name: "ManagedFieldsEntry without time or fieldsV1",
			in:   &api.ManagedFieldsEntry{Manager: "m"},
			want: "0a 01 6d 12 00 1a 00 32 00 42 00",
		},
		{
			name: "ManagedFieldsEntry with time and fieldsV1",
			in:   &api.ManagedFieldsEntry{Time: &api.Time{}, FieldsV1: json.RawMessage(`{}`)},
			want: "0a 00 12 00 1a 00 22 00 32 00 3a 04 0a 02 7b 7d 42 00",
		},
		{
			name: "WatchEvent object is a RawExtension, written even when nil",
			in:   &api.WatchEvent{Type: "ADDED"},
			want: "0a 05 41 44 44 45 44 12 00",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Marshal(tt.in)
			require.NoError(t, err)
			assert.Equal(t, h(t, tt.want), got)
		})
	}
}
