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
	})
}
