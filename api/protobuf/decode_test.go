package protobuf

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/miniplane/miniplane/api"
)

// newOf returns a new zero value of v's type: v is a pointer to a struct.
func newOf[T any](*T) *T { return new(T) }

func TestRoundTrip(t *testing.T) {
	pod := realisticPod()
	pod.TypeMeta = api.TypeMeta{} // not on the wire
	lease := &testLeaseSpec{
		HolderIdentity:       new("node-1"),
		LeaseDurationSeconds: new(int32(15)),
		AcquireTime:          &api.MicroTime{Time: time.Date(2024, 5, 14, 9, 21, 7, 123456000, time.UTC)},
		RenewTime:            &api.MicroTime{},
		LeaseTransitions:     new(int32(0)),
	}
	tree := &testTree{
		Name:     "root",
		Children: []testTree{{Name: "a"}, {Name: "b", Next: &testTree{Name: "b2"}}},
		ByName:   map[string]testTree{"x": {Name: "x", Children: []testTree{{}}}, "": {}},
		Times:    map[string]api.Time{"start": api.NewTime(time.Unix(1700000000, 0)), "zero": {}},
	}
	tests := []struct {
		name string
		in   any
		out  func() any
	}{
		{name: "realistic pod", in: pod, out: func() any { return newOf(pod) }},
		{name: "zero pod", in: &testPod{}, out: func() any { return new(testPod) }},
		{name: "scalars", in: &testScalars{
			Bool: true, Int32: -7, Int64: -1 << 50, Uint32: 1 << 31, String: "\xff not UTF-8", Phase: api.PodFailed,
			Bytes: []byte{0, 1, 2}, Int32s: []int32{0, -1, 1 << 30}, Bools: []bool{false}, Nested: &testScalars{Bytes: []byte{}},
		}, out: func() any { return new(testScalars) }},
		{name: "times", in: &timeFields{
			Time: api.NewTime(time.Unix(-62135596799, 0)), TimePtr: &api.Time{},
			Micro: api.NewMicroTime(time.Unix(253402300799, 999999999)), MicroPtr: &api.MicroTime{Time: time.Unix(0, 0).UTC()},
		}, out: func() any { return new(timeFields) }},
		{name: "lease with micro times", in: lease, out: func() any { return new(testLeaseSpec) }},
		{name: "recursive type with maps of messages", in: tree, out: func() any { return new(testTree) }},
		{name: "raw JSON", in: &testRaw{Object: json.RawMessage(`{"kind":"Pod"}`), FieldsV1: json.RawMessage(`{"f:spec":{}}`)},
			out: func() any { return new(testRaw) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := Marshal(tt.in)
			require.NoError(t, err)
			out := tt.out()
			require.NoError(t, Unmarshal(data, out))
			assert.Equal(t, tt.in, out)

			again, err := Marshal(out)
			require.NoError(t, err)
			assert.Equal(t, data, again, "re-encoding gives the same bytes")
		})
	}
}

func TestUnmarshalAccepts(t *testing.T) {
	tests := []struct {
		name string
		data string
		into any
		want any
	}{
		{
			name: "empty input is the zero value",
			data: "",
			into: &testScalars{String: "overwritten", Nested: &testScalars{}},
			want: &testScalars{},
		},
		{
			name: "packed repeated varints, mixed with unpacked",
			data: "40 05 42 02 06 07 4a 02 01 00",
			into: &testScalars{},
			want: &testScalars{Int32s: []int32{5, 6, 7}, Bools: []bool{true, false}},
		},
		{
			name: "unknown fields of every wire type are skipped",
			data: "a0 01 05" + // field 20 varint
				" a9 01 01 02 03 04 05 06 07 08" + // field 21 fixed64
				" b2 01 02 ff ff" + // field 22 bytes
				" bb 01 08 01 bc 01" + // field 23 group holding a varint
				" c5 01 01 02 03 04" + // field 24 fixed32
				" 2a 02 6f 6b",
			into: &testScalars{},
			want: &testScalars{String: "ok"},
		},
		{
			name: "fields in any order; a scalar seen twice keeps the last",
			data: "2a 01 61 08 01 2a 01 62",
			into: &testScalars{},
			want: &testScalars{String: "b", Bool: true},
		},
		{
			name: "a message seen twice merges",
			data: "52 02 08 01 52 02 10 05",
			into: &testScalars{},
			want: &testScalars{Nested: &testScalars{Bool: true, Int32: 5}},
		},
		{
			name: "varints are truncated to the field's size; any non-zero bool is true",
			data: "08 02 10 ff ff ff ff 0f 20 ff ff ff ff ff ff ff ff ff 01",
			into: &testScalars{},
			want: &testScalars{Bool: true, Int32: -1, Uint32: 1<<32 - 1},
		},
		{
			name: "invalid UTF-8 is kept, as Kubernetes does",
			data: "2a 02 ff fe",
			into: &testScalars{},
			want: &testScalars{String: "\xff\xfe"},
		},
		{
			name: "a Time drops nanos; an empty Timestamp is the zero time; MicroTime truncates",
			data: "0a 05 08 01 10 e8 07" + " 12 00" + " 1a 05 08 01 10 cf 0f" + " 22 04 08 02 10 7f",
			into: &timeFields{},
			want: &timeFields{
				Time: api.Time{Time: time.Unix(1, 0).UTC()}, TimePtr: &api.Time{},
				Micro: api.MicroTime{Time: time.Unix(1, 1000).UTC()}, MicroPtr: &api.MicroTime{Time: time.Unix(2, 0).UTC()},
			},
		},
		{
			name: "the first second of year 0, which RFC 3339 can write",
			data: "0a 0d 08 80 88 ae b4 98 fe ff ff ff 01 10 00",
			into: &timeFields{},
			want: &timeFields{Time: api.Time{Time: time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC)}},
		},
		{
			name: "a Timestamp with an unknown field",
			data: "0a 06 08 01 18 05 10 00",
			into: &timeFields{},
			want: &timeFields{Time: api.Time{Time: time.Unix(1, 0).UTC()}},
		},
		{
			name: "map entries with a missing key, a missing value, an unknown field",
			data: "5a 03 0a 01 61" + " 5a 03 12 01 62" + " 5a 08 0a 01 63 18 07 12 01 64",
			into: &labelled{},
			want: &labelled{Labels: map[string]string{"a": "", "": "b", "c": "d"}},
		},
		{
			name: "a map key seen twice keeps the last value",
			data: "5a 06 0a 01 61 12 01 31" + " 5a 06 0a 01 61 12 01 32",
			into: &labelled{},
			want: &labelled{Labels: map[string]string{"a": "2"}},
		},
		{
			name: "a quantity with an unknown field, and an empty one",
			data: "0a 0c 0a 03 63 70 75 12 05 0a 01 31 10 01" + " 12 05 0a 03 63 70 75",
			into: &testResources{},
			want: &testResources{Limits: api.ResourceList{"cpu": "1"}, Requests: api.ResourceList{"cpu": ""}},
		},
		{
			name: "IntOrString with fields missing is the number 0",
			data: "12 00",
			into: &testHTTPGet{},
			want: &testHTTPGet{Port: api.FromInt(0)},
		},
		{
			name: "empty raw is nil",
			data: "12 02 0a 00 3a 00",
			into: &testRaw{},
			want: &testRaw{},
		},
		{
			name: "an unknown field in a map of messages' entry",
			data: "22 07 0a 01 6b 18 01 12 00",
			into: &testTree{},
			want: &testTree{ByName: map[string]testTree{"k": {}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.NoError(t, Unmarshal(h(t, tt.data), tt.into))
			assert.Equal(t, tt.want, tt.into)
		})
	}
}

func TestUnmarshalRejects(t *testing.T) {
	tooDeep := []byte{}
	for range maxDepth { // with the top message, one more than maxDepth
		tooDeep = appendNested(tooDeep)
	}
	tests := []struct {
		name    string
		data    []byte
		into    any
		wantErr []string
	}{
		{name: "truncated tag", data: h(t, "80"), into: &testScalars{}, wantErr: []string{"testScalars", "unexpected EOF"}},
		{name: "field number 0", data: h(t, "00"), into: &testScalars{}, wantErr: []string{"invalid field number"}},
		{name: "truncated varint", data: h(t, "08 80"), into: &testScalars{}, wantErr: []string{"testScalars field 1 (bool)", "unexpected EOF"}},
		{name: "overlong varint", data: h(t, "08 ff ff ff ff ff ff ff ff ff ff 01"), into: &testScalars{}, wantErr: []string{"field 1 (bool)", "variable length integer overflow"}},
		{name: "length past the end", data: h(t, "2a 05 61"), into: &testScalars{}, wantErr: []string{"field 5 (string)", "unexpected EOF"}},
		{name: "string sent as varint", data: h(t, "28 01"), into: &testScalars{}, wantErr: []string{"field 5 (string)", "wire type varint, want bytes"}},
		{name: "int sent as bytes", data: h(t, "12 01 00"), into: &testScalars{}, wantErr: []string{"field 2 (int32)", "wire type bytes, want varint"}},
		{name: "int sent as fixed32", data: h(t, "15 00 00 00 00"), into: &testScalars{}, wantErr: []string{"wire type fixed32, want varint"}},
		{name: "pointer to message sent as varint", data: h(t, "50 01"), into: &testScalars{}, wantErr: []string{"field 10 (nested)", "want bytes"}},
		{name: "repeated message sent as varint", data: h(t, "10 01"), into: &testTree{}, wantErr: []string{"field 2 (children)", "want bytes"}},
		{name: "map sent as varint", data: h(t, "58 01"), into: &labelled{}, wantErr: []string{"field 11 (labels)", "want bytes"}},
		{name: "map entry truncated", data: h(t, "5a 03 0a 05 61"), into: &labelled{}, wantErr: []string{"map entry field 1", "unexpected EOF"}},
		{name: "map key sent as varint", data: h(t, "5a 02 08 01"), into: &labelled{}, wantErr: []string{"map entry field 1", "want bytes"}},
		{name: "map of messages: key sent as varint", data: h(t, "22 02 08 01"), into: &testTree{}, wantErr: []string{"map key", "want bytes"}},
		{name: "map of messages: bad value", data: h(t, "22 04 12 02 08 01"), into: &testTree{}, wantErr: []string{"map value", "field 1 (name)"}},
		{name: "quantity string sent as varint", data: h(t, "0a 09 0a 03 63 70 75 12 02 08 01"), into: &testResources{}, wantErr: []string{"Quantity field 1", "want bytes"}},
		{name: "packed varints truncated", data: h(t, "42 02 80 80"), into: &testScalars{}, wantErr: []string{"field 8 (int32s)", "packed"}},
		{name: "unknown field truncated", data: h(t, "b2 01 05 00"), into: &testScalars{}, wantErr: []string{"unknown field 22", "unexpected EOF"}},
		{name: "end group without a start", data: h(t, "bc 01"), into: &testScalars{}, wantErr: []string{"unknown field 23", "end group"}},
		{name: "reserved wire type", data: h(t, "f6 01"), into: &testScalars{}, wantErr: []string{"unknown field 30"}},
		{name: "error deep inside names the path", data: h(t, "12 04 12 02 0a 05"), into: &testPod{},
			wantErr: []string{"testPod field 2 (spec): protobuf.testPodSpec field 2 (containers): protobuf.testContainer field 1 (name): unexpected EOF"}},
		{name: "nested deeper than 100 messages", data: tooDeep, into: &testTree{}, wantErr: []string{"nested deeper than 100"}},
		{name: "IntOrString type 2", data: h(t, "12 02 08 02"), into: &testHTTPGet{}, wantErr: []string{"field 2 (port)", "IntOrString type 2 is neither 0 (int) nor 1 (string)"}},
		{name: "IntOrString value sent as bytes", data: h(t, "12 03 12 01 00"), into: &testHTTPGet{}, wantErr: []string{"IntOrString field 2", "want varint"}},
		{name: "Timestamp in year 10000", data: h(t, "0a 07 08 80 83 d1 ff af 07"), into: &timeFields{}, wantErr: []string{"field 1 (time)", "outside years 0 to 9999"}},
		{name: "Timestamp at the top of int64", data: h(t, "0a 0a 08 ff ff ff ff ff ff ff ff 7f"), into: &timeFields{}, wantErr: []string{"outside years 0 to 9999"}},
		{name: "Timestamp before year 0", data: h(t, "0a 0b 08 ff 87 ae b4 98 fe ff ff ff 01"), into: &timeFields{}, wantErr: []string{"outside years 0 to 9999"}},
		{name: "MicroTime nanos carry past year 9999", data: h(t, "1a 0d 08 ff 82 d1 ff af 07 10 80 a8 d6 b9 07"), into: &timeFields{}, wantErr: []string{"field 3 (micro)", "outside years 0 to 9999"}},
		{name: "Timestamp seconds sent as bytes", data: h(t, "0a 02 0a 00"), into: &timeFields{}, wantErr: []string{"Timestamp field 1", "want varint"}},
		{name: "raw that is not JSON", data: h(t, "12 03 0a 01 7b"), into: &testRaw{}, wantErr: []string{"field 2 (object)", "not valid JSON"}},
		{name: "raw sent as varint", data: h(t, "12 02 08 01"), into: &testRaw{}, wantErr: []string{"raw field 1", "want bytes"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Unmarshal(tt.data, tt.into)
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrMalformed)
			for _, want := range tt.wantErr {
				assert.Contains(t, err.Error(), want)
			}
		})
	}
}

// appendNested returns msg, a testTree message, as field next (3) of another.
func appendNested(msg []byte) []byte {
	out := protowire.AppendTag(nil, 3, protowire.BytesType)
	return protowire.AppendBytes(out, msg)
}

func TestUnmarshalDepthLimit(t *testing.T) {
	msg := []byte{}
	for range maxDepth - 1 { // with the top message, exactly maxDepth deep
		msg = appendNested(msg)
	}
	var tree testTree
	require.NoError(t, Unmarshal(msg, &tree))
	depth := 1
	for n := &tree; n.Next != nil; n = n.Next {
		depth++
	}
	assert.Equal(t, maxDepth, depth)

	err := Unmarshal(appendNested(msg), &tree)
	assert.ErrorIs(t, err, ErrMalformed)
}

func TestUnmarshalBadTarget(t *testing.T) {
	var nilPod *testPod
	tests := []struct {
		name string
		into any
		want string
	}{
		{name: "not a pointer", into: testPod{}, want: "non-nil pointer to a struct"},
		{name: "nil pointer", into: nilPod, want: "non-nil pointer to a struct"},
		{name: "pointer to a non-struct", into: new(string), want: "non-nil pointer to a struct"},
		{name: "nil", into: nil, want: "non-nil pointer to a struct"},
		{name: "unsupported type", into: &struct {
			F float32 `protobuf:"bytes,1,opt,name=f"`
		}{}, want: "float32 has no protobuf encoding"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Unmarshal(nil, tt.into)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			assert.False(t, errors.Is(err, ErrMalformed), "the program's fault, not the input's")
		})
	}
}

// TestUnmarshalCopies checks that decoded strings and bytes do not alias the input.
func TestUnmarshalCopies(t *testing.T) {
	data, err := Marshal(&testScalars{String: "abc", Bytes: []byte("xyz")})
	require.NoError(t, err)
	var got testScalars
	require.NoError(t, Unmarshal(data, &got))
	for i := range data {
		data[i] = 0
	}
	assert.Equal(t, "abc", got.String)
	assert.Equal(t, []byte("xyz"), got.Bytes)
}
