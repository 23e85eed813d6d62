package protobuf

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
)

var update = flag.Bool("update", false, "rewrite the seed corpus in testdata/fuzz")

// fuzzTargets make the types FuzzUnmarshal decodes every input into.
var fuzzTargets = []func() any{
	func() any { return new(testPod) },
	func() any { return new(testScalars) },
	func() any { return new(timeFields) },
	func() any { return new(testLeaseSpec) },
	func() any { return new(testTree) },
	func() any { return new(testRaw) },
	func() any { return new(labelled) },
	func() any { return new(testHTTPGet) },
	func() any { return new(testResources) },
	func() any { return new(api.Pod) },
	func() any { return new(api.Node) },
	func() any { return new(api.Event) },
	func() any { return new(api.Service) },
	func() any { return new(api.Status) },
	func() any { return new(api.WatchEvent) },
}

// fuzzSeeds are valid messages of the fuzz targets, by corpus file name: the test types'
// and package api's fixtures. The corpus in
// testdata/fuzz/FuzzUnmarshal holds their bytes; TestFuzzCorpus keeps the two in step.
func fuzzSeeds(t testing.TB) map[string][]byte {
	t.Helper()
	seeds := map[string]any{
		"pod":     realisticPod(),
		"scalars": &testScalars{Bool: true, Int32: -1, Int64: 1 << 40, String: "s", Bytes: []byte{}, Int32s: []int32{1, -1}, Bools: []bool{true}, Nested: &testScalars{}},
		"times": &timeFields{Time: api.NewTime(time.Unix(1700000000, 0)), TimePtr: &api.Time{},
			Micro: api.NewMicroTime(time.Unix(1700000000, 123456000)), MicroPtr: &api.MicroTime{}},
		"lease": &testLeaseSpec{HolderIdentity: new("a"), AcquireTime: &api.MicroTime{Time: time.Unix(1, 1000).UTC()}},
		"tree": &testTree{Name: "r", Children: []testTree{{Name: "c"}}, Next: &testTree{},
			ByName: map[string]testTree{"k": {Name: "v"}}, Times: map[string]api.Time{"t": api.NewTime(time.Unix(5, 0))}},
		"raw":       &testRaw{Object: json.RawMessage(`{"a":[1,2]}`), FieldsV1: json.RawMessage(`{}`)},
		"labels":    &labelled{Labels: map[string]string{"a": "1", "": ""}},
		"intorstr":  &testHTTPGet{Port: api.FromString("http")},
		"resources": &testResources{Limits: api.ResourceList{"cpu": "1"}, Requests: api.ResourceList{"memory": "1Gi"}},
	}
	out := make(map[string][]byte, len(seeds)+2)
	for name, v := range seeds {
		b, err := Marshal(v)
		require.NoError(t, err)
		out[name] = b
	}
	for _, fx := range apiFixtures {
		v := fx.new()
		decodeFixture(t, fx.file, v)
		b, err := Marshal(v)
		require.NoError(t, err)
		out["api-"+strings.TrimSuffix(fx.file, ".json")] = b
	}
	out["packed"] = h(t, "42 03 01 02 03 4a 02 01 00")
	out["unknown-fields"] = h(t, "a0 01 05 a9 01 01 02 03 04 05 06 07 08 b2 01 02 ff ff bb 01 08 01 bc 01 c5 01 01 02 03 04")
	return out
}

// FuzzUnmarshal decodes arbitrary bytes into each test type. Decoding must not panic and
// must fail only with ErrMalformed; whatever decodes must encode, decode again to the same
// value, encode again to the same bytes, and encode as JSON (what miniplane serves).
func FuzzUnmarshal(f *testing.F) {
	for _, seed := range fuzzSeeds(f) {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, newValue := range fuzzTargets {
			first := newValue()
			if err := Unmarshal(data, first); err != nil {
				require.ErrorIs(t, err, ErrMalformed)
				continue
			}
			enc, err := Marshal(first)
			require.NoError(t, err, "%T decoded but does not encode", first)
			second := newValue()
			require.NoError(t, Unmarshal(enc, second), "%T: our own encoding does not decode", first)
			require.Equal(t, first, second, "%T changed on a round trip", first)
			enc2, err := Marshal(second)
			require.NoError(t, err)
			require.Equal(t, enc, enc2)
			_, err = json.Marshal(first)
			require.NoError(t, err, "%T decoded from protobuf but cannot be served as JSON", first)
		}
		if _, err := UnmarshalEnvelope(data); err != nil {
			require.ErrorIs(t, err, ErrMalformed)
		}
		if _, _, err := UnmarshalWatchEvent(data); err != nil {
			require.ErrorIs(t, err, ErrMalformed)
		}
	})
}

// TestFuzzCorpus checks that testdata/fuzz/FuzzUnmarshal holds the seeds' current bytes,
// and rewrites it with -update.
func TestFuzzCorpus(t *testing.T) {
	dir := filepath.Join("testdata", "fuzz", "FuzzUnmarshal")
	for name, seed := range fuzzSeeds(t) {
		t.Run(name, func(t *testing.T) {
			want := "go test fuzz v1\n[]byte(" + strconv.Quote(string(seed)) + ")\n"
			path := filepath.Join(dir, name)
			if *update {
				require.NoError(t, os.MkdirAll(dir, 0o755))
				require.NoError(t, os.WriteFile(path, []byte(want), 0o644))
			}
			got, err := os.ReadFile(path)
			require.NoError(t, err, "run go test -run TestFuzzCorpus -update")
			assert.Equal(t, want, string(got), "run go test -run TestFuzzCorpus -update")
		})
	}
}
