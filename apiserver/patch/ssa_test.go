package patch

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	t0 = time.Date(2026, 11, 21, 21, 0, 0, 0, time.UTC)
	t1 = t0.Add(time.Minute)
	t2 = t0.Add(2 * time.Minute)
)

// rcApplied is what kubectl apply --server-side sends for an RC.
const rcApplied = `{"apiVersion":"v1","kind":"ReplicationController",
 "metadata":{"name":"frontend","namespace":"default","labels":{"app":"frontend"}},
 "spec":{"replicas":3,"selector":{"app":"frontend"},
  "template":{"metadata":{"labels":{"app":"frontend"}},
   "spec":{"containers":[{"name":"php","image":"php:8.3-apache","ports":[{"containerPort":80}]}]}}}}`

// managed returns the managedFields of obj, as decoded JSON.
func managed(t *testing.T, obj []byte) []map[string]any {
	t.Helper()
	var o struct {
		Metadata struct {
			ManagedFields []map[string]any `json:"managedFields"`
		} `json:"metadata"`
	}
	require.NoError(t, json.Unmarshal(obj, &o))
	return o.Metadata.ManagedFields
}

// valueAt decodes obj and returns the value at the dotted path of object members.
func valueAt(t *testing.T, obj []byte, path ...string) any {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal(obj, &v))
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[p]
	}
	return v
}

func conflictOf(t *testing.T, err error) *Conflict {
	t.Helper()
	var c *Conflict
	require.True(t, errors.As(err, &c), "error %v is not a *Conflict", err)
	return c
}

func TestServerSideApplyCreatesWhenMissing(t *testing.T) {
	got, err := ServerSideApply("ReplicationController", nil, []byte(rcApplied), "kubectl", false, t0)
	require.NoError(t, err)
	assert.Equal(t, "frontend", valueAt(t, got, "metadata", "name"))
	assert.EqualValues(t, 3, valueAt(t, got, "spec", "replicas"))
	mf := managed(t, got)
	require.Len(t, mf, 1)
	assert.Equal(t, "kubectl", mf[0]["manager"])
	assert.Equal(t, "Apply", mf[0]["operation"])
	assert.Equal(t, "v1", mf[0]["apiVersion"])
	assert.Equal(t, "FieldsV1", mf[0]["fieldsType"])
	assert.Equal(t, "2026-11-21T21:00:00Z", mf[0]["time"])
	fields, err := json.Marshal(mf[0]["fieldsV1"])
	require.NoError(t, err)
	assert.JSONEq(t, `{
	 "f:metadata":{"f:labels":{"f:app":{}}},
	 "f:spec":{"f:replicas":{},"f:selector":{"f:app":{}},
	  "f:template":{"f:metadata":{"f:labels":{"f:app":{}}},
	   "f:spec":{"f:containers":{"k:{\"name\":\"php\"}":{".":{},"f:image":{},"f:name":{},
	     "f:ports":{"k:{\"containerPort\":80}":{".":{},"f:containerPort":{}}}}}}}}}`, string(fields))
}

func TestServerSideApplyTwiceChangesNothing(t *testing.T) {
	first, err := ServerSideApply("ReplicationController", nil, []byte(rcApplied), "kubectl", false, t0)
	require.NoError(t, err)
	second, err := ServerSideApply("ReplicationController", first, []byte(rcApplied), "kubectl", false, t1)
	require.NoError(t, err)
	assert.Equal(t, string(first), string(second), "a repeated apply must not even move the entry's time")
}

func TestServerSideApplyConflictsAndForce(t *testing.T) {
	live, err := ServerSideApply("ReplicationController", nil, []byte(rcApplied), "kubectl", false, t0)
	require.NoError(t, err)
	other := `{"apiVersion":"v1","kind":"ReplicationController","metadata":{"name":"frontend"},
	 "spec":{"replicas":5,"template":{"spec":{"containers":[{"name":"php","image":"php:8.4"}]}}}}`

	_, err = ServerSideApply("ReplicationController", live, []byte(other), "ci", false, t1)
	c := conflictOf(t, err)
	require.Len(t, c.Causes, 2)
	assert.Equal(t, `conflict with "kubectl": .spec.replicas`, c.Causes[0].Message())
	assert.Equal(t, `conflict with "kubectl": .spec.template.spec.containers[name="php"].image`, c.Causes[1].Message())
	assert.Equal(t, "Apply failed with 2 conflicts: conflicts with \"kubectl\":\n- .spec.replicas\n"+
		`- .spec.template.spec.containers[name="php"].image`, c.Error())

	forced, err := ServerSideApply("ReplicationController", live, []byte(other), "ci", true, t1)
	require.NoError(t, err)
	assert.EqualValues(t, 5, valueAt(t, forced, "spec", "replicas"))
	mf := managed(t, forced)
	require.Len(t, mf, 2)
	kubectlFields, _ := json.Marshal(mf[0]["fieldsV1"])
	ciFields, _ := json.Marshal(mf[1]["fieldsV1"])
	assert.NotContains(t, string(kubectlFields), "f:replicas", "force moves ownership away from kubectl")
	assert.NotContains(t, string(kubectlFields), "f:image")
	assert.Contains(t, string(kubectlFields), "f:ports", "kubectl keeps what ci did not take")
	assert.Contains(t, string(ciFields), "f:replicas")
	assert.Contains(t, string(ciFields), "f:image")

	// Now kubectl applying its old replicas conflicts with ci.
	_, err = ServerSideApply("ReplicationController", forced, []byte(rcApplied), "kubectl", false, t2)
	c = conflictOf(t, err)
	assert.Equal(t, `conflict with "ci": .spec.replicas`, c.Causes[0].Message())
}

func TestServerSideApplySameValueIsShared(t *testing.T) {
	live, err := ServerSideApply("ReplicationController", nil, []byte(rcApplied), "kubectl", false, t0)
	require.NoError(t, err)
	same := `{"apiVersion":"v1","kind":"ReplicationController","metadata":{"name":"frontend"},"spec":{"replicas":3}}`
	got, err := ServerSideApply("ReplicationController", live, []byte(same), "ci", false, t1)
	require.NoError(t, err)
	mf := managed(t, got)
	require.Len(t, mf, 2)
	for _, e := range mf {
		fields, _ := json.Marshal(e["fieldsV1"])
		assert.Contains(t, string(fields), "f:replicas", "%s owns replicas too", e["manager"])
	}

	// kubectl stops applying replicas: ci still owns it, so it stays.
	noReplicas := `{"apiVersion":"v1","kind":"ReplicationController","metadata":{"name":"frontend"},"spec":{"selector":{"app":"frontend"}}}`
	got, err = ServerSideApply("ReplicationController", got, []byte(noReplicas), "kubectl", false, t2)
	require.NoError(t, err)
	assert.EqualValues(t, 3, valueAt(t, got, "spec", "replicas"))
}

func TestServerSideApplyRemovesDroppedFields(t *testing.T) {
	first := `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","labels":{"app":"web","tier":"x"},"finalizers":["a","b"]},
	 "spec":{"containers":[{"name":"web","image":"nginx","ports":[{"containerPort":80},{"containerPort":443}],"args":["-v"]},{"name":"sidecar","image":"busybox"}]}}`
	second := `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","labels":{"app":"web"},"finalizers":["a"]},
	 "spec":{"containers":[{"name":"web","image":"nginx","ports":[{"containerPort":80}]}]}}`
	live, err := ServerSideApply("Pod", nil, []byte(first), "kubectl", false, t0)
	require.NoError(t, err)
	// The server and others add fields the applier never set; those must survive.
	live, err = TrackUpdate("Pod", live, mustMerge(t, live, `{"metadata":{"uid":"u1","labels":{"owner":"ops"}},"spec":{"nodeName":"n1"}}`), "ops", t1)
	require.NoError(t, err)

	got, err := ServerSideApply("Pod", live, []byte(second), "kubectl", false, t2)
	require.NoError(t, err)
	assert.JSONEq(t, `{"app":"web","owner":"ops"}`, jsonOf(t, valueAt(t, got, "metadata", "labels")))
	assert.JSONEq(t, `["a"]`, jsonOf(t, valueAt(t, got, "metadata", "finalizers")))
	assert.Equal(t, "u1", valueAt(t, got, "metadata", "uid"))
	assert.Equal(t, "n1", valueAt(t, got, "spec", "nodeName"))
	assert.JSONEq(t, `[{"name":"web","image":"nginx","ports":[{"containerPort":80}]}]`, jsonOf(t, valueAt(t, got, "spec", "containers")))
}

func TestServerSideApplyKeepsWhatOthersOwn(t *testing.T) {
	first := `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","labels":{"app":"web","tier":"x"}}}`
	live, err := ServerSideApply("Pod", nil, []byte(first), "a", false, t0)
	require.NoError(t, err)
	live, err = ServerSideApply("Pod", live, []byte(`{"metadata":{"labels":{"tier":"x"}}}`), "b", false, t1)
	require.NoError(t, err)
	got, err := ServerSideApply("Pod", live, []byte(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","labels":{"app":"web"}}}`), "a", false, t2)
	require.NoError(t, err)
	assert.JSONEq(t, `{"app":"web","tier":"x"}`, jsonOf(t, valueAt(t, got, "metadata", "labels")))
}

func TestServerSideApplyLeavesStatusAndServerFields(t *testing.T) {
	live := `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","uid":"u1","resourceVersion":"9"},"spec":{"containers":[{"name":"web","image":"a"}]},"status":{"phase":"Running"}}`
	applied := `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","uid":"other","resourceVersion":"1"},"spec":{"containers":[{"name":"web","image":"b"}]},"status":{"phase":"Failed"}}`
	got, err := ServerSideApply("Pod", []byte(live), []byte(applied), "kubectl", false, t0)
	require.NoError(t, err)
	assert.Equal(t, "Running", valueAt(t, got, "status", "phase"))
	assert.Equal(t, "u1", valueAt(t, got, "metadata", "uid"))
	assert.Equal(t, "9", valueAt(t, got, "metadata", "resourceVersion"))
	fields, _ := json.Marshal(managed(t, got)[0]["fieldsV1"])
	assert.NotContains(t, string(fields), "f:status")
	assert.NotContains(t, string(fields), "f:uid")
	assert.NotContains(t, string(fields), "f:name\":{},\"f:namespace", "identity is not owned")
}

func TestTrackUpdateThenApplyConflictsOnReplicas(t *testing.T) {
	// kubectl apply --server-side, then kubectl scale --replicas=5, then apply again.
	live, err := ServerSideApply("ReplicationController", nil, []byte(rcApplied), "kubectl", false, t0)
	require.NoError(t, err)
	scaled, err := TrackUpdate("ReplicationController", live, mustMerge(t, live, `{"spec":{"replicas":5}}`), "kubectl-scale", t1)
	require.NoError(t, err)
	mf := managed(t, scaled)
	require.Len(t, mf, 2)
	assert.Equal(t, "kubectl-scale", mf[1]["manager"])
	assert.Equal(t, "Update", mf[1]["operation"])
	assert.Equal(t, "2026-11-21T21:01:00Z", mf[1]["time"])
	scaleFields, _ := json.Marshal(mf[1]["fieldsV1"])
	assert.JSONEq(t, `{"f:spec":{"f:replicas":{}}}`, string(scaleFields))
	applyFields, _ := json.Marshal(mf[0]["fieldsV1"])
	assert.NotContains(t, string(applyFields), "f:replicas", "an update takes the field from the applier")

	_, err = ServerSideApply("ReplicationController", scaled, []byte(rcApplied), "kubectl", false, t2)
	c := conflictOf(t, err)
	require.Len(t, c.Causes, 1)
	assert.Equal(t, ConflictCause{Manager: "kubectl-scale", Operation: "Update", APIVersion: "v1", Time: "2026-11-21T21:01:00Z", Field: ".spec.replicas"}, c.Causes[0])
	assert.Equal(t, `conflict with "kubectl-scale" using v1 at 2026-11-21T21:01:00Z: .spec.replicas`, c.Causes[0].Message())

	// Dropping replicas from the configuration resolves it, and keeps the scaled value.
	without := `{"apiVersion":"v1","kind":"ReplicationController","metadata":{"name":"frontend","namespace":"default","labels":{"app":"frontend"}},
	 "spec":{"selector":{"app":"frontend"},"template":{"metadata":{"labels":{"app":"frontend"}},
	 "spec":{"containers":[{"name":"php","image":"php:8.3-apache","ports":[{"containerPort":80}]}]}}}}`
	got, err := ServerSideApply("ReplicationController", scaled, []byte(without), "kubectl", false, t2)
	require.NoError(t, err)
	assert.EqualValues(t, 5, valueAt(t, got, "spec", "replicas"))
}

func TestTrackUpdate(t *testing.T) {
	tests := []struct {
		name    string
		old     string // "" for a create
		new     string
		manager string
		want    string // the managedFields the result carries, or "" for none
	}{
		{
			name:    "a create owns every field",
			new:     `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"a":"1"}},"spec":{"containers":[{"name":"c","image":"i"}]}}`,
			manager: "kubectl-create",
			want: `[{"manager":"kubectl-create","operation":"Update","apiVersion":"v1","time":"2026-11-21T21:00:00Z","fieldsType":"FieldsV1",
			  "fieldsV1":{"f:metadata":{"f:labels":{"f:a":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"c\"}":{".":{},"f:image":{},"f:name":{}}}}}}]`,
		},
		{
			name:    "an update that changes nothing adds no entry",
			old:     `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"nodeName":"n"}}`,
			new:     `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"nodeName":"n"}}`,
			manager: "x",
			want:    ``,
		},
		{
			name: "a removed field loses its owner",
			old: `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"a":"1","b":"2"},"managedFields":[
			  {"manager":"m","operation":"Apply","apiVersion":"v1","time":"2026-01-01T00:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{"f:a":{},"f:b":{}}}}}]}}`,
			new:     `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"a":"1"}}}`,
			manager: "kubectl-label",
			want: `[{"manager":"m","operation":"Apply","apiVersion":"v1","time":"2026-01-01T00:00:00Z","fieldsType":"FieldsV1",
			  "fieldsV1":{"f:metadata":{"f:labels":{"f:a":{}}}}}]`,
		},
		{
			name:    "a status write owns status fields, a new condition by type",
			old:     `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"status":{"conditions":[{"type":"Ready","status":"False"}]}}`,
			new:     `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}]}}`,
			manager: "nodesim",
			want: `[{"manager":"nodesim","operation":"Update","apiVersion":"v1","time":"2026-11-21T21:00:00Z","fieldsType":"FieldsV1",
			  "fieldsV1":{"f:status":{"f:phase":{},"f:conditions":{"k:{\"type\":\"Ready\"}":{"f:status":{}}}}}}]`,
		},
		{
			name:    "managedFields sent in the new object are replaced by the tracked ones",
			old:     `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"}}`,
			new:     `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","managedFields":[{"manager":"forged","operation":"Apply","fieldsType":"FieldsV1","fieldsV1":{}}]}}`,
			manager: "x",
			want:    ``,
		},
		{
			name:    "without a manager nothing is tracked",
			new:     `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"a":"1"}}}`,
			manager: "",
			want:    ``,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var old []byte
			if tt.old != "" {
				old = []byte(tt.old)
			}
			got, err := TrackUpdate("Pod", old, []byte(tt.new), tt.manager, t0)
			require.NoError(t, err)
			mf := valueAt(t, got, "metadata", "managedFields")
			if tt.want == "" {
				assert.Nil(t, mf)
				return
			}
			assert.JSONEq(t, tt.want, jsonOf(t, mf))
		})
	}
}

func TestServerSideApplyErrors(t *testing.T) {
	tests := []struct {
		name    string
		kind    string
		applied string
		manager string
		reason  Reason
		field   string
		message string
	}{
		{"no manager", "Pod", `{}`, "", ReasonBadRequest, "", "needs a fieldManager"},
		{"manager too long", "Pod", `{}`, strings.Repeat("m", 129), ReasonBadRequest, "fieldManager", "at most 128 characters, not 129"},
		{"manager not printable", "Pod", `{}`, "kube\nctl", ReasonBadRequest, "fieldManager", `printable characters, not '\n'`},
		{"manager not UTF-8", "Pod", `{}`, "\xff", ReasonBadRequest, "fieldManager", "valid UTF-8"},
		{"unknown kind", "Widget", `{}`, "m", ReasonBadRequest, "", `not supported for kind "Widget"`},
		{"YAML that is not JSON", "Pod", "apiVersion: v1\nkind: Pod\n", "m", ReasonUnsupportedMediaType, "", "only the JSON form of YAML is accepted"},
		{"broken JSON", "Pod", `{"a":`, "m", ReasonBadRequest, "", "not valid JSON"},
		{"not an object", "Pod", `[1]`, "m", ReasonBadRequest, "", "must be a JSON object, got an array"},
		{"directives", "Pod", `{"spec":{"containers":[{"name":"a","$patch":"delete"}]}}`, "m", ReasonBadRequest, ".spec.containers[0].$patch", "not patch directives"},
		{"managedFields in the body", "Pod", `{"metadata":{"managedFields":[{"manager":"x"}]}}`, "m", ReasonBadRequest, ".metadata.managedFields", "must be empty"},
		{"keyed element without its key", "Pod", `{"spec":{"containers":[{"image":"a"}]}}`, "m", ReasonBadRequest, ".spec.containers[0]", `no merge key "name"`},
		{"keyed element not an object", "Pod", `{"spec":{"containers":["a"]}}`, "m", ReasonBadRequest, ".spec.containers[0]", "must be objects, not a string"},
		{"duplicate keys", "Pod", `{"spec":{"containers":[{"name":"a"},{"name":"b","ports":[{"containerPort":80},{"containerPort":80.0}]}]}}`, "m", ReasonBadRequest, ".spec.containers[1].ports[1]", "duplicate entries for [containerPort=80]"},
		{"duplicate set values", "Pod", `{"metadata":{"finalizers":["x","y","x"]}}`, "m", ReasonBadRequest, ".metadata.finalizers[2]", `duplicate entries for [="x"]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, live := range [][]byte{nil, []byte(podWeb)} {
				got, err := ServerSideApply(tt.kind, live, []byte(tt.applied), tt.manager, false, t0)
				require.Error(t, err)
				assert.Nil(t, got)
				var perr *Error
				require.True(t, errors.As(err, &perr), "error %v is not a *Error", err)
				assert.Equal(t, tt.reason, perr.Reason)
				assert.Equal(t, tt.field, perr.Field)
				assert.Contains(t, perr.Message, tt.message)
			}
		})
	}
}

func TestServerSideApplyEmptyManagedFieldsAndNulls(t *testing.T) {
	got, err := ServerSideApply("Pod", []byte(podWeb), []byte(`{"metadata":{"managedFields":[],"labels":{"x":null}},"spec":{"nodeName":null}}`), "m", false, t0)
	require.NoError(t, err)
	assert.Equal(t, "n1", valueAt(t, got, "spec", "nodeName"), "a null in an apply means not set, not delete")
}

func mustMerge(t *testing.T, obj []byte, patch string) []byte {
	t.Helper()
	out, err := Apply(MergePatchType, "", obj, []byte(patch))
	require.NoError(t, err)
	return out
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}
