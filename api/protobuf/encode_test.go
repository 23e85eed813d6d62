package protobuf

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
)

// h decodes hex written with spaces between bytes, e.g. "0a 02 76 31".
func h(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	require.NoError(t, err)
	return b
}

// timeFields holds the two timestamp types, by value and by pointer.
type timeFields struct {
	Time     api.Time       `protobuf:"bytes,1,opt,name=time"`
	TimePtr  *api.Time      `protobuf:"bytes,2,opt,name=timePtr"`
	Micro    api.MicroTime  `protobuf:"bytes,3,opt,name=micro"`
	MicroPtr *api.MicroTime `protobuf:"bytes,4,opt,name=microPtr"`
}

// labelled holds a plain string map, as ObjectMeta.labels.
type labelled struct {
	Labels map[string]string `protobuf:"bytes,11,rep,name=labels" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"bytes,2,opt,name=value"`
}

// The expected bytes below are worked out by hand from the gogo-generated Marshal code in
// k8s.io/api and k8s.io/apimachinery (generated.pb.go, time_proto.go, micro_time_proto.go,
// quantity_proto.go): a tag byte is field number << 3 | wire type (0 varint, 2 bytes),
// then for bytes a varint length. 1700000000 is the varint 80 e2 cf aa 06; 123456000 is
// 80 94 ef 3a.
func TestMarshalExactBytes(t *testing.T) {
	instant := time.Unix(1700000000, 123456789).UTC()
	tests := []struct {
		name string
		in   any
		want string
	}{
		{
			name: "zero times are empty messages, nil pointers are absent",
			in:   &timeFields{},
			want: "0a 00 1a 00",
		},
		{
			name: "Time writes seconds and nanos 0, MicroTime nanos truncated to the microsecond",
			in: &timeFields{
				Time:    api.Time{Time: instant}, // a sub-second part is not written
				TimePtr: &api.Time{},             // set but zero: present and empty
				Micro:   api.MicroTime{Time: instant},
			},
			want: "0a 08 08 80 e2 cf aa 06 10 00" + " 12 00" + " 1a 0b 08 80 e2 cf aa 06 10 80 94 ef 3a",
		},
		{
			name: "a time before 1970 has negative seconds, a ten-byte varint",
			in:   &timeFields{Time: api.Time{Time: time.Unix(-1, 0)}, MicroPtr: &api.MicroTime{Time: time.Unix(1700000000, 0)}},
			want: "0a 0d 08 ff ff ff ff ff ff ff ff ff 01 10 00" + " 1a 00" + " 22 08 08 80 e2 cf aa 06 10 00",
		},
		{
			name: "IntOrString int: type, intVal and empty strVal all written",
			in:   &testHTTPGet{Port: api.FromInt(8080)},
			want: "0a 00" + " 12 07 08 00 10 90 3f 1a 00" + " 1a 00 22 00",
		},
		{
			name: "IntOrString string",
			in:   &testHTTPGet{Path: "/", Port: api.FromString("http")},
			want: "0a 01 2f" + " 12 0a 08 01 10 00 1a 04 68 74 74 70" + " 1a 00 22 00",
		},
		{
			name: "IntOrString negative int is sign-extended",
			in:   &testHTTPGet{Port: api.FromInt(-1)},
			want: "0a 00" + " 12 0f 08 00 10 ff ff ff ff ff ff ff ff ff 01 1a 00" + " 1a 00 22 00",
		},
		{
			name: "zero scalars are written; nil bytes, empty slices and nil pointers are not",
			in:   &testScalars{},
			want: "08 00 10 00 18 00 20 00 2a 00 32 00",
		},
		{
			name: "every scalar shape",
			in: &testScalars{
				Bool: true, Int32: -2, Int64: 1 << 40, Uint32: 300, String: "é", Phase: api.PodRunning,
				Bytes: []byte{}, Int32s: []int32{1, -1}, Bools: []bool{true, false}, Nested: &testScalars{},
			},
			want: "08 01" +
				" 10 fe ff ff ff ff ff ff ff ff 01" +
				" 18 80 80 80 80 80 20" +
				" 20 ac 02" +
				" 2a 02 c3 a9" +
				" 32 07 52 75 6e 6e 69 6e 67" +
				" 3a 00" + // empty but non-nil bytes are written
				" 40 01 40 ff ff ff ff ff ff ff ff ff 01" + // repeated int32, unpacked
				" 48 01 48 00" +
				" 52 0c 08 00 10 00 18 00 20 00 2a 00 32 00",
		},
		{
			name: "RawExtension is always written, FieldsV1 only when set",
			in:   &testRaw{},
			want: "12 00",
		},
		{
			name: "raw JSON inside {bytes raw = 1}",
			in:   &testRaw{Object: json.RawMessage(`{"a":1}`), FieldsV1: json.RawMessage(`{}`)},
			want: "12 09 0a 07 7b 22 61 22 3a 31 7d" + " 3a 04 0a 02 7b 7d",
		},
		{
			name: "ResourceList: entries sorted by key, values are Quantity messages",
			in:   &testResources{Limits: api.ResourceList{"memory": "128Mi", "cpu": "500m"}},
			want: "0a 0d 0a 03 63 70 75 12 06 0a 04 35 30 30 6d" +
				" 0a 11 0a 06 6d 65 6d 6f 72 79 12 07 0a 05 31 32 38 4d 69",
		},
		{
			name: "string map: entries sorted by key, empty key and value written",
			in:   &labelled{Labels: map[string]string{"b": "2", "a": "1", "": ""}},
			want: "5a 04 0a 00 12 00" + " 5a 06 0a 01 61 12 01 31" + " 5a 06 0a 01 62 12 01 32",
		},
		{
			name: "fields in ascending number, not Go order",
			in:   &testOwnerReference{APIVersion: "v1", Kind: "RC", Name: "web", UID: "u", Controller: new(true)},
			want: "0a 02 52 43" + " 1a 03 77 65 62" + " 22 01 75" + " 2a 02 76 31" + " 30 01",
		},
		{
			name: "an embedded struct with a tag is a nested message",
			in:   &testProbe{ProbeHandler: ProbeHandler{Exec: &testExec{Command: []string{"true"}}}, PeriodSeconds: 10},
			want: "0a 08 0a 06 0a 04 74 72 75 65" + " 10 00" + " 20 0a",
		},
		{
			name: "the wire type follows the Go type, not upstream's wrong tag on PodSpec.priority",
			in:   &testPodSpec{Priority: new(int32(7))},
			want: "1a 00 32 00 42 00 52 00" + " 9a 01 00" + " c8 01 07",
		},
		{
			name: "a nested message of 128 bytes or more has a longer length",
			in:   &testScalars{Nested: &testScalars{String: strings.Repeat("x", 200)}},
			want: "08 00 10 00 18 00 20 00 2a 00 32 00" +
				" 52 d5 01 08 00 10 00 18 00 20 00 2a c8 01" + strings.Repeat(" 78", 200) + " 32 00",
		},
		{
			name: "a nil []byte map value is an entry without a value, an empty one has an empty value (gogo)",
			in:   &api.ConfigMap{BinaryData: map[string][]byte{"a": nil, "b": {}}},
			want: "0a 0e 0a 00 12 00 1a 00 2a 00 32 00 38 00 42 00" + " 1a 03 0a 01 61" + " 1a 05 0a 01 62 12 00", // empty metadata first
		},
		{
			name: "a struct value, not a pointer, encodes the same",
			in:   testEnvVar{Name: "A", Value: "b"},
			want: "0a 01 41 12 01 62",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := h(t, tt.want)
			got, err := Marshal(tt.in)
			require.NoError(t, err)
			assert.Equal(t, hex.EncodeToString(want), hex.EncodeToString(got))

			prefix := []byte("prefix")
			appended, err := Append(prefix, tt.in)
			require.NoError(t, err)
			assert.Equal(t, append([]byte("prefix"), want...), appended, "Append appends the same bytes")
		})
	}
}

// TestMarshalLongLengths checks the move that makes room for a length of three bytes.
func TestMarshalLongLengths(t *testing.T) {
	long := strings.Repeat("y", 20000)
	got, err := Marshal(&testScalars{Nested: &testScalars{String: long}})
	require.NoError(t, err)
	// nested: 12 bytes of zero scalars minus "2a 00", then 2a a0 9c 01 + 20000 bytes, then
	// 32 00: 8 + 4 + 20000 + 2 = 20014, the varint ae 9c 01.
	want := h(t, "08 00 10 00 18 00 20 00 2a 00 32 00 52 ae 9c 01 08 00 10 00 18 00 20 00 2a a0 9c 01")
	want = append(want, long...)
	want = append(want, 0x32, 0x00)
	assert.Equal(t, want, got)
}

// TestMarshalErrors covers values and types the codec refuses to encode.
func TestMarshalErrors(t *testing.T) {
	type floaty struct {
		F float32 `protobuf:"bytes,1,opt,name=f"`
	}
	type duplicate struct {
		A string `protobuf:"bytes,1,opt,name=a"`
		B string `protobuf:"bytes,1,opt,name=b"`
	}
	type intKeys struct {
		M map[int]string `protobuf:"bytes,1,rep,name=m"`
	}
	type unexported struct {
		a string `protobuf:"bytes,1,opt,name=a"`
	}
	type badWire struct {
		A string `protobuf:"fixed32,1,opt,name=a"`
	}
	type badNumber struct {
		A string `protobuf:"bytes,0,opt,name=a"`
	}
	type hugeNumber struct {
		A string `protobuf:"bytes,536870912,opt,name=a"`
	}
	type noNumber struct {
		A string `protobuf:"bytes"`
	}
	type badMapVal struct {
		M map[string]string `protobuf:"bytes,1,rep,name=m" protobuf_val:"bytes,3,opt,name=value"`
	}
	type sliceOfPointers struct {
		P []*testEnvVar `protobuf:"bytes,1,rep,name=p"`
	}
	type nestedBad struct {
		Inner floaty `protobuf:"bytes,1,opt,name=inner"`
	}
	var nilPod *testPod
	tests := []struct {
		name    string
		in      any
		wantErr string
	}{
		{name: "float32", in: &floaty{}, wantErr: "float32 has no protobuf encoding"},
		{name: "duplicate number", in: &duplicate{}, wantErr: "share number 1"},
		{name: "map with int keys", in: &intKeys{}, wantErr: "map key type int is not a string"},
		{name: "unexported tagged field", in: &unexported{a: "x"}, wantErr: "unexported field"},
		{name: "wire type Kubernetes never uses", in: &badWire{}, wantErr: `wire type "fixed32"`},
		{name: "field number 0", in: &badNumber{}, wantErr: "not a valid field number"},
		{name: "field number above 2^29-1", in: &hugeNumber{}, wantErr: "not a valid field number"},
		{name: "tag without number", in: &noNumber{}, wantErr: "want wire type and field number"},
		{name: "map value tag not field 2", in: &badMapVal{}, wantErr: "protobuf_val"},
		{name: "slice of pointers", in: &sliceOfPointers{}, wantErr: "has no protobuf encoding"},
		{name: "error names the outer type too", in: &nestedBad{}, wantErr: "nestedBad.Inner"},
		{name: "IntOrString of no known type", in: &testHTTPGet{Port: api.IntOrString{Type: 2}}, wantErr: "IntOrString type 2 is neither 0 (int) nor 1 (string)"},
		{name: "not a struct", in: "pod", wantErr: "not a struct"},
		{name: "nil pointer", in: nilPod, wantErr: "nil *protobuf.testPod"},
		{name: "nil", in: nil, wantErr: "not a struct"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Marshal(tt.in)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wantErr)
			assert.Nil(t, got)

			prefix := []byte("keep")
			appended, err := Append(prefix, tt.in)
			require.Error(t, err)
			assert.Equal(t, []byte("keep"), appended, "Append returns b unchanged on error")
		})
	}
}

// TestMarshalPointerCycle checks that a cycle through pointers is an error, not a stack
// overflow.
func TestMarshalPointerCycle(t *testing.T) {
	loop := &testTree{Name: "a"}
	loop.Next = loop
	_, err := Marshal(loop)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "nested deeper than 100")

	// 99 levels below the top are fine.
	deep := &testTree{}
	for range maxDepth - 1 {
		deep = &testTree{Next: deep}
	}
	_, err = Marshal(deep)
	require.NoError(t, err)
}

// TestMarshalDeterministic checks that maps do not make the output depend on iteration
// order: the same pod encodes to the same bytes every time.
func TestMarshalDeterministic(t *testing.T) {
	first, err := Marshal(realisticPod())
	require.NoError(t, err)
	for range 20 {
		again, err := Marshal(realisticPod())
		require.NoError(t, err)
		require.Equal(t, first, again)
	}
}

// TestMarshalConcurrent builds the plan of a type from many goroutines at once; run it
// with -race.
func TestMarshalConcurrent(t *testing.T) {
	type fresh struct {
		Pod  testPod   `protobuf:"bytes,1,opt,name=pod"`
		Tree *testTree `protobuf:"bytes,2,opt,name=tree"`
	}
	want, err := Marshal(&testPod{Metadata: testMeta{Name: "x"}})
	require.NoError(t, err)
	var wg sync.WaitGroup
	results := make([][]byte, 8)
	for i := range results {
		wg.Go(func() {
			b, err := Marshal(&fresh{Pod: testPod{Metadata: testMeta{Name: "x"}}})
			assert.NoError(t, err)
			results[i] = b
		})
	}
	wg.Wait()
	for _, got := range results {
		// fresh{pod = 1 {...}} is the pod's own message under tag 0a.
		assert.Equal(t, append([]byte{0x0a, byte(len(want))}, want...), got)
	}
}

// TestMarshalAllocations checks the promise of one allocation per Marshal (its result) and
// none for Append into a buffer with room. sync.Pool drops items at random under the race
// detector, so the counts only hold without it.
func TestMarshalAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool does not keep items under the race detector")
	}
	pod := realisticPod()
	_, err := Marshal(pod)
	require.NoError(t, err)
	assert.Equal(t, 1.0, testing.AllocsPerRun(100, func() {
		_, _ = Marshal(pod)
	}))
	buf := make([]byte, 0, 8192)
	assert.Equal(t, 0.0, testing.AllocsPerRun(100, func() {
		_, _ = Append(buf[:0], pod)
	}))
	assert.Equal(t, 1.0, testing.AllocsPerRun(100, func() {
		_, _ = MarshalObject("v1", "Pod", pod)
	}))
}

// TestMarshalLengthBoundary checks that a message just under and just over 127
// bytes gets a one- and a two-byte length.
func TestMarshalLengthBoundary(t *testing.T) {
	tests := []struct {
		name    string
		strLen  int
		wantLen []byte
	}{
		// The nested message is 8 bytes of zero scalars, "2a", the string's one-byte
		// length and its bytes, then "32 00".
		{name: "127 bytes", strLen: 127 - 8 - 2 - 2, wantLen: []byte{0x7f}},
		{name: "128 bytes", strLen: 128 - 8 - 2 - 2, wantLen: []byte{0x80, 0x01}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Marshal(&testScalars{Nested: &testScalars{String: strings.Repeat("z", tt.strLen)}})
			require.NoError(t, err)
			prefix := h(t, "08 00 10 00 18 00 20 00 2a 00 32 00 52")
			require.True(t, bytes.HasPrefix(got, prefix))
			assert.Equal(t, tt.wantLen, got[len(prefix):len(prefix)+len(tt.wantLen)])
		})
	}
}

// TestMarshalEmptyMessage checks that an empty message is an empty, non-nil slice whether
// or not the pool had a buffer to lend.
func TestMarshalEmptyMessage(t *testing.T) {
	type empty struct {
		Untagged string
	}
	for range 3 {
		got, err := Marshal(&empty{Untagged: "not on the wire"})
		require.NoError(t, err)
		assert.NotNil(t, got)
		assert.Empty(t, got)
		putEncoder(new(encoder)) // a pooled encoder with no buffer
	}
}

// testSchema has the two shapes a CustomResourceDefinition's schema adds: a double and a
// map with message values.
type testSchema struct {
	Max   *float64              `protobuf:"fixed64,1,opt,name=max"`
	Props map[string]testEnvVar `protobuf:"bytes,2,rep,name=props" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"bytes,2,opt,name=value"`
}

// TestDoublesAndMessageMaps checks a double as a little-endian fixed64 and a map of
// messages as gogo writes it (entries in key order, the value message always present),
// both ways.
func TestDoublesAndMessageMaps(t *testing.T) {
	in := &testSchema{Max: new(1.5), Props: map[string]testEnvVar{"b": {Name: "B"}, "a": {}}}
	want := "09 00 00 00 00 00 00 f8 3f" +
		" 12 09 0a 01 61 12 04 0a 00 12 00" +
		" 12 0a 0a 01 62 12 05 0a 01 42 12 00"
	got, err := Marshal(in)
	require.NoError(t, err)
	assert.Equal(t, hex.EncodeToString(h(t, want)), hex.EncodeToString(got))

	var back testSchema
	require.NoError(t, Unmarshal(got, &back))
	assert.Equal(t, in, &back)

	var wrong testSchema
	err = Unmarshal(h(t, "08 01"), &wrong) // a varint where the double is
	assert.ErrorIs(t, err, ErrMalformed)
}
