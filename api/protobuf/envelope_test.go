package protobuf

import (
	"encoding/hex"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testNamespace mirrors corev1.Namespace, for a small whole object.
type testNamespace struct {
	Metadata testMeta            `protobuf:"bytes,1,opt,name=metadata"`
	Spec     testNamespaceSpec   `protobuf:"bytes,2,opt,name=spec"`
	Status   testNamespaceStatus `protobuf:"bytes,3,opt,name=status"`
}

// testNamespaceSpec mirrors corev1.NamespaceSpec.
type testNamespaceSpec struct {
	Finalizers []string `protobuf:"bytes,1,rep,name=finalizers,casttype=FinalizerName"`
}

// testNamespaceStatus mirrors corev1.NamespaceStatus.
type testNamespaceStatus struct {
	Phase string `protobuf:"bytes,1,opt,name=phase,casttype=NamespacePhase"`
}

// namespaceBody is the object body of testNamespace{name "ns", phase "Active"}, worked out
// from runtime.Unknown.NestedMarshalTo and the generated Marshal code:
//
//	6b 38 73 00                      magic "k8s\x00"
//	0a 0f                            typeMeta, 15 bytes
//	  0a 02 76 31                      apiVersion "v1"
//	  12 09 4e 61 6d 65 73 70 61 63 65 kind "Namespace"
//	12 1e                            raw, 30 bytes
//	  0a 10                            metadata, 16 bytes
//	    0a 02 6e 73                      name "ns"
//	    12 00 1a 00 2a 00 32 00          generateName, namespace, uid, resourceVersion
//	    38 00 42 00                      generation 0, creationTimestamp zero
//	  12 00                            spec, empty
//	  1a 08 0a 06 41 63 74 69 76 65    status {phase "Active"}
//	1a 00 22 00                      contentEncoding and contentType, empty
const namespaceBody = "6b 38 73 00" +
	" 0a 0f 0a 02 76 31 12 09 4e 61 6d 65 73 70 61 63 65" +
	" 12 1e 0a 10 0a 02 6e 73 12 00 1a 00 2a 00 32 00 38 00 42 00 12 00 1a 08 0a 06 41 63 74 69 76 65" +
	" 1a 00 22 00"

func smallNamespace() *testNamespace {
	return &testNamespace{Metadata: testMeta{Name: "ns"}, Status: testNamespaceStatus{Phase: "Active"}}
}

func TestMarshalObjectExactBytes(t *testing.T) {
	want := h(t, namespaceBody)
	got, err := MarshalObject("v1", "Namespace", smallNamespace())
	require.NoError(t, err)
	assert.Equal(t, hex.EncodeToString(want), hex.EncodeToString(got))

	appended, err := AppendObject([]byte("pre"), "v1", "Namespace", smallNamespace())
	require.NoError(t, err)
	assert.Equal(t, append([]byte("pre"), want...), appended)
}

func TestMarshalObjectLargeRaw(t *testing.T) {
	pod := realisticPod()
	body, err := MarshalObject("v1", "Pod", pod)
	require.NoError(t, err)
	bare, err := Marshal(pod)
	require.NoError(t, err)
	require.Greater(t, len(bare), 1000, "the raw needs a two-byte length")

	u, err := UnmarshalEnvelope(body)
	require.NoError(t, err)
	assert.Equal(t, Unknown{APIVersion: "v1", Kind: "Pod", Raw: bare}, u)
}

func TestMarshalObjectErrors(t *testing.T) {
	_, err := MarshalObject("v1", "Bad", "not a struct")
	require.Error(t, err)
	got, err := AppendObject([]byte("keep"), "v1", "Bad", 42)
	require.Error(t, err)
	assert.Equal(t, []byte("keep"), got)
}

func TestUnmarshalEnvelope(t *testing.T) {
	body := h(t, namespaceBody)
	u, err := UnmarshalEnvelope(body)
	require.NoError(t, err)
	assert.Equal(t, "v1", u.APIVersion)
	assert.Equal(t, "Namespace", u.Kind)
	assert.Empty(t, u.ContentEncoding)
	assert.Empty(t, u.ContentType)
	require.NotEmpty(t, u.Raw)
	assert.Same(t, &body[len(body)-4-len(u.Raw)], &u.Raw[0], "Raw aliases data")

	var ns testNamespace
	require.NoError(t, Unmarshal(u.Raw, &ns))
	assert.Equal(t, smallNamespace(), &ns)
}

func TestUnmarshalEnvelopeAccepts(t *testing.T) {
	tests := []struct {
		name string
		data string
		want Unknown
	}{
		{
			name: "content type and encoding set, fields out of order, unknown fields",
			data: "6b 38 73 00" + " 22 04 6a 73 6f 6e" + " 1a 04 67 7a 69 70" + " 28 01" +
				" 0a 09 12 03 50 6f 64 18 01 0a 00" + " 12 02 7b 7d",
			want: Unknown{Kind: "Pod", ContentType: "json", ContentEncoding: "gzip", Raw: []byte("{}")},
		},
		{
			name: "only an unknown field",
			data: "6b 38 73 00 28 01",
			want: Unknown{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := UnmarshalEnvelope(h(t, tt.data))
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestUnmarshalEnvelopeRejects(t *testing.T) {
	tests := []struct {
		name    string
		data    []byte
		wantErr string
	}{
		{name: "empty", data: nil, wantErr: "empty body"},
		{name: "JSON", data: []byte(`{"kind":"Pod"}`), wantErr: `does not start with the protobuf prefix "k8s\x00"`},
		{name: "short prefix", data: []byte("k8s"), wantErr: "does not start with the protobuf prefix"},
		{name: "prefix only", data: []byte("k8s\x00"), wantErr: "nothing after the protobuf prefix"},
		{name: "truncated raw", data: h(t, "6b 38 73 00 12 05 00"), wantErr: "Unknown field 2: unexpected EOF"},
		{name: "raw sent as varint", data: h(t, "6b 38 73 00 10 01"), wantErr: "Unknown field 2: wire type varint, want bytes"},
		{name: "kind sent as varint", data: h(t, "6b 38 73 00 0a 02 10 01"), wantErr: "TypeMeta field 2: wire type varint, want bytes"},
		{name: "typeMeta truncated", data: h(t, "6b 38 73 00 0a 04 0a 05"), wantErr: "Unknown field 1"},
		{name: "content type sent as varint", data: h(t, "6b 38 73 00 20 00"), wantErr: "Unknown field 4"},
		{name: "bad tag", data: h(t, "6b 38 73 00 00"), wantErr: "invalid field number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := UnmarshalEnvelope(tt.data)
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrMalformed)
			assert.Contains(t, err.Error(), tt.wantErr)
		})
	}
}

func TestWatchEvent(t *testing.T) {
	object := h(t, namespaceBody) // 57 bytes: 0x39
	tests := []struct {
		name      string
		eventType string
		object    []byte
		want      string
	}{
		{
			name:      "an enveloped object inside a RawExtension",
			eventType: "ADDED",
			object:    object,
			want:      "0a 05 41 44 44 45 44" + " 12 3b 0a 39 " + namespaceBody,
		},
		{
			name:      "a nil object is an empty RawExtension",
			eventType: "BOOKMARK",
			object:    nil,
			want:      "0a 08 42 4f 4f 4b 4d 41 52 4b" + " 12 00",
		},
		{
			name:      "an empty but non-nil object is written",
			eventType: "",
			object:    []byte{},
			want:      "0a 00" + " 12 02 0a 00",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := h(t, tt.want)
			got := AppendWatchEvent([]byte("frame"), tt.eventType, tt.object)
			assert.Equal(t, hex.EncodeToString(append([]byte("frame"), want...)), hex.EncodeToString(got))

			eventType, object, err := UnmarshalWatchEvent(want)
			require.NoError(t, err)
			assert.Equal(t, tt.eventType, eventType)
			assert.Equal(t, len(tt.object), len(object))
			assert.Equal(t, string(tt.object), string(object))
		})
	}
}

func TestUnmarshalWatchEventAliases(t *testing.T) {
	data := AppendWatchEvent(nil, "MODIFIED", []byte("k8s\x00xyz"))
	_, object, err := UnmarshalWatchEvent(data)
	require.NoError(t, err)
	assert.Same(t, &data[len(data)-len(object)], &object[0])
}

func TestUnmarshalWatchEventAccepts(t *testing.T) {
	// Unknown fields in the event and in the RawExtension, fields out of order.
	eventType, object, err := UnmarshalWatchEvent(h(t, "18 01 12 05 10 07 0a 01 78 0a 01 41"))
	require.NoError(t, err)
	assert.Equal(t, "A", eventType)
	assert.Equal(t, []byte("x"), object)

	eventType, object, err = UnmarshalWatchEvent(nil)
	require.NoError(t, err)
	assert.Empty(t, eventType)
	assert.Nil(t, object)
}

func TestUnmarshalWatchEventRejects(t *testing.T) {
	tests := []struct {
		name    string
		data    string
		wantErr string
	}{
		{name: "type truncated", data: "0a 05 41", wantErr: "WatchEvent field 1: unexpected EOF"},
		{name: "type sent as varint", data: "08 01", wantErr: "WatchEvent field 1: wire type varint, want bytes"},
		{name: "object sent as varint", data: "10 01", wantErr: "WatchEvent field 2: wire type varint"},
		{name: "raw sent as varint", data: "12 02 08 01", wantErr: "RawExtension field 1: wire type varint"},
		{name: "raw truncated", data: "12 02 0a 05", wantErr: "RawExtension field 1: unexpected EOF"},
		{name: "bad tag", data: "00", wantErr: "invalid field number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := UnmarshalWatchEvent(h(t, tt.data))
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrMalformed)
			assert.Contains(t, err.Error(), tt.wantErr)
		})
	}
}
