package api_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/miniplane/miniplane/api"
)

// FuzzDecode feeds arbitrary JSON, as a client could send it, to the object
// types: decoding must never panic, and whatever decodes must encode and
// decode again to the same value (no field changes on a round trip).
func FuzzDecode(f *testing.F) {
	for _, name := range []string{"pod.json", "replicationcontroller.json", "service.json", "lease.json", "event.json", "node.json", "endpoints.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"spec":{"ports":[{"targetPort":"http"},{"targetPort":8080}]}}`))
	f.Add([]byte(`{"metadata":{"creationTimestamp":null,"deletionTimestamp":"2026-01-01T00:00:00Z"}}`))
	f.Add([]byte(`{"spec":{"containers":[{"resources":{"limits":{"cpu":1,"memory":"1Gi"}}}]}}`))
	newObjects := []func() any{
		func() any { return &api.Pod{} },
		func() any { return &api.ReplicationController{} },
		func() any { return &api.Service{} },
		func() any { return &api.Lease{} },
		func() any { return &api.Event{} },
		func() any { return &api.Node{} },
		func() any { return &api.Endpoints{} },
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, mk := range newObjects {
			first := mk()
			if json.Unmarshal(data, first) != nil {
				continue
			}
			enc, err := json.Marshal(first)
			if err != nil {
				t.Fatalf("%T decoded but does not encode: %v", first, err)
			}
			second := mk()
			if err := json.Unmarshal(enc, second); err != nil {
				t.Fatalf("%T: our own encoding %s does not decode: %v", first, enc, err)
			}
			enc2, err := json.Marshal(second)
			if err != nil {
				t.Fatal(err)
			}
			if string(enc) != string(enc2) {
				t.Fatalf("%T changed on a round trip:\n%s\n%s", first, enc, enc2)
			}
		}
	})
}
