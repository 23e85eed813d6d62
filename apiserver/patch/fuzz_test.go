package patch

import (
	"encoding/json"
	"errors"
	"testing"
)

// fuzzObjects are the stored objects the fuzzers patch, by kind.
var fuzzObjects = []struct{ kind, json string }{
	{"Pod", podWeb},
	{"ReplicationController", rcFrontend},
	{"Service", `{"apiVersion":"v1","kind":"Service","metadata":{"name":"s"},"spec":{"ports":[{"port":80}],"selector":{"app":"s"}}}`},
}

var fuzzPatchTypes = []string{JSONPatchType, MergePatchType, StrategicMergePatchType}

func FuzzApply(f *testing.F) {
	seeds := []struct {
		typ   uint8
		patch string
	}{
		{0, `[{"op":"add","path":"/metadata/labels/x","value":"y"}]`},
		{0, `[{"op":"move","from":"/spec","path":"/status/x"},{"op":"copy","from":"/metadata","path":"/m"}]`},
		{0, `[{"op":"test","path":"/metadata/name","value":"web"},{"op":"remove","path":"/spec/containers/0/ports/-"}]`},
		{1, `{"metadata":{"labels":{"app":null}},"spec":{"replicas":5}}`},
		{1, `null`},
		{2, `{"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"php"}],"containers":[{"name":"php","image":"x"},{"$patch":"delete","name":"sidecar"}]}}}}`},
		{2, `{"metadata":{"$deleteFromPrimitiveList/finalizers":["a.example/f"],"finalizers":[{"$patch":"replace"}]},"spec":{"$retainKeys":["x"]}}`},
		{2, `{"spec":{"containers":[{"name":"web","ports":[{"containerPort":"80","$patch":"delete"}],"$patch":"replace"}]}}`},
		{2, `{"spec":{"ports":[{"port":80,"$retainKeys":["port"]}],"$setElementOrder/ports":[{"port":1}]}}`},
	}
	for i, s := range seeds {
		f.Add(s.typ, uint8(i), []byte(s.patch))
	}
	f.Fuzz(func(t *testing.T, typ, obj uint8, body []byte) {
		patchType := fuzzPatchTypes[int(typ)%len(fuzzPatchTypes)]
		o := fuzzObjects[int(obj)%len(fuzzObjects)]
		original := []byte(o.json)
		got, err := Apply(patchType, o.kind, original, body)
		if string(original) != o.json {
			t.Fatalf("Apply changed its input")
		}
		if err != nil {
			var perr *Error
			if !errors.As(err, &perr) {
				t.Fatalf("error %v (%T) is not a *Error", err, err)
			}
			if perr.Message == "" {
				t.Fatalf("error without a message")
			}
			return
		}
		var out map[string]any
		if jerr := json.Unmarshal(got, &out); jerr != nil {
			t.Fatalf("result %q is not a JSON object: %v", got, jerr)
		}
		// Without lists and directives, a strategic merge patch is a JSON merge patch.
		if patchType == StrategicMergePatchType {
			if p, err := decode(body); err == nil && !hasListOrDirective(p) {
				merged, err := Apply(MergePatchType, o.kind, original, body)
				if err != nil || string(merged) != string(got) {
					t.Fatalf("strategic %s and merge %s (%v) differ", got, merged, err)
				}
			}
		}
	})
}

func hasListOrDirective(v any) bool {
	switch v := v.(type) {
	case []any:
		return true
	case map[string]any:
		for k, e := range v {
			if len(k) > 0 && k[0] == '$' || hasListOrDirective(e) {
				return true
			}
		}
	}
	return false
}

func FuzzServerSideApply(f *testing.F) {
	withManaged, err := ServerSideApply("ReplicationController", nil, []byte(rcApplied), "kubectl", false, t0)
	if err != nil {
		f.Fatal(err)
	}
	lives := [][]byte{nil, []byte(podWeb), []byte(rcFrontend), withManaged}
	kinds := []string{"Pod", "Pod", "ReplicationController", "ReplicationController"}
	seeds := []string{
		rcApplied,
		`{"metadata":{"labels":{"a":"b"},"finalizers":["x","x"]},"spec":{"replicas":5}}`,
		`{"spec":{"template":{"spec":{"containers":[{"name":"php","image":"x","ports":[{"containerPort":1},{"containerPort":"1"}]}]}}}}`,
		`{"spec":{"containers":[{"name":"web","image":"x"},{"name":"web","image":"y"}]}}`,
		`{"metadata":{"managedFields":[]},"status":{"phase":"x"},"spec":null}`,
		"kind: Pod",
		`[]`,
	}
	for i, s := range seeds {
		f.Add(uint8(i), []byte(s), "kubectl", i%2 == 0)
		f.Add(uint8(i+1), []byte(s), "other", i%2 == 1)
	}
	f.Fuzz(func(t *testing.T, which uint8, applied []byte, manager string, force bool) {
		i := int(which) % len(lives)
		live, kind := lives[i], kinds[i]
		got, err := ServerSideApply(kind, live, applied, manager, force, t1)
		if err != nil {
			var perr *Error
			var conflict *Conflict
			if !errors.As(err, &perr) && !errors.As(err, &conflict) {
				t.Fatalf("error %v (%T) is neither *Error nor *Conflict", err, err)
			}
			return
		}
		var out map[string]any
		if jerr := json.Unmarshal(got, &out); jerr != nil {
			t.Fatalf("result %q is not a JSON object: %v", got, jerr)
		}
		// Applying the same configuration again changes nothing and conflicts with no one.
		again, err := ServerSideApply(kind, got, applied, manager, false, t2)
		if err != nil {
			t.Fatalf("second apply of the same configuration: %v", err)
		}
		if string(again) != string(got) {
			t.Fatalf("second apply changed the object:\n%s\n%s", got, again)
		}
		if _, err := TrackUpdate(kind, live, got, "fuzz", t2); err != nil {
			t.Fatalf("TrackUpdate of an apply's result: %v", err)
		}
	})
}
