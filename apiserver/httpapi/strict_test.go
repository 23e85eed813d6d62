package httpapi

import (
	"encoding/json"
	"net/http/httptest"
	"net/url"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
)

// TestStrictErrors checks the strict decoding errors kube-apiserver gives
// (sigs.k8s.io/json's UnmarshalStrict): every unknown and duplicate field,
// by its path, in the body's order.
func TestStrictErrors(t *testing.T) {
	tests := []struct {
		name, body string
		want       []string
	}{
		{"none", `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","labels":{"a":"b"}},"spec":{"replicas":2}}`, nil},
		// The conformance test "should detect unknown and duplicate fields of a typed object".
		{"unknown and duplicate in spec", `{"metadata":{"name":"my-dep"},"spec":{"unknownField":"foo","replicas":2,"replicas":3,
			"template":{"spec":{"containers":[{"name":"nginx","image":"nginx:latest"}]}}}}`,
			[]string{`unknown field "spec.unknownField"`, `duplicate field "spec.replicas"`}},
		// ... and "should detect unknown metadata fields of a typed object".
		{"unknown in metadata", `{"metadata":{"name":"d","unknownMeta":"foo"}}`, []string{`unknown field "metadata.unknownMeta"`}},
		{"in a list item", `{"spec":{"template":{"spec":{"containers":[{"name":"a"},{"name":"b","bogus":1}]}}}}`,
			[]string{`unknown field "spec.template.spec.containers[1].bogus"`}},
		{"a duplicate map key", `{"metadata":{"labels":{"a":"1","a":"2"}}}`, []string{`duplicate field "metadata.labels.a"`}},
		{"at the root, inline type meta", `{"kind":"Deployment","kind":"Deployment","bogus":{"x":[1,{"y":2}]},"status":{}}`,
			[]string{`duplicate field "kind"`, `unknown field "bogus"`}},
		{"inside an unknown field, nothing", `{"bogus":{"bogus":1,"bogus":2}}`, []string{`unknown field "bogus"`}},
		{"a value that decodes itself", `{"spec":{"template":{"spec":{"containers":[{"name":"a","resources":{"limits":{"cpu":"1"}}}]}}},"metadata":{"creationTimestamp":"2026-01-01T00:00:00Z"}}`, nil},
		{"a value of the wrong type", `{"spec":[{"bogus":1}],"metadata":"x"}`, nil},
		{"not JSON", `{"spec":`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, strictErrors([]byte(tt.body), reflect.TypeFor[*api.Deployment]()))
		})
	}
}

// TestDecodeIntoStrict checks fieldValidation's answers with every strict
// error: Strict refuses the body with all of them, Warn warns of each, and
// a body with no fieldValidation gets its unknown fields' warnings.
func TestDecodeIntoStrict(t *testing.T) {
	h, _, _ := newFakeClockHandler(t)
	const body = `{"metadata":{"name":"d","bogus":1},"spec":{"replicas":2,"replicas":3}}`
	tests := []struct {
		validation   string
		wantErr      string
		wantWarnings []string
	}{
		{validation: "Strict", wantErr: `strict decoding error: unknown field "metadata.bogus", duplicate field "spec.replicas"`},
		{validation: "Warn", wantWarnings: []string{`299 - "unknown field \"metadata.bogus\""`, `299 - "duplicate field \"spec.replicas\""`}},
		{validation: "", wantWarnings: []string{`299 - "unknown field \"metadata.bogus\""`, `299 - "duplicate field \"spec.replicas\""`}},
		{validation: "Ignore"},
	}
	for _, tt := range tests {
		t.Run("fieldValidation="+tt.validation, func(t *testing.T) {
			q := url.Values{}
			if tt.validation != "" {
				q.Set("fieldValidation", tt.validation)
			}
			rec := httptest.NewRecorder()
			var d api.Deployment
			err := h.decodeInto(rec, q, []byte(body), &d, "Deployment", "apps/v1")
			if tt.wantErr != "" {
				require.EqualError(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, int32(3), *d.Spec.Replicas, "the last of a duplicate wins")
			assert.Equal(t, tt.wantWarnings, rec.Header().Values("Warning"))
		})
	}
}

// FuzzStrictErrors walks arbitrary bodies: no panic, and a body
// encoding/json decodes with unknown fields disallowed and no key given
// twice has no strict error.
func FuzzStrictErrors(f *testing.F) {
	for _, s := range []string{`{"metadata":{"name":"d"},"spec":{"replicas":1}}`, `{"spec":{"template":{"spec":{"containers":[{"name":"a","bogus":1}]}}}}`, `{"a":1,"a":2}`, `[`, `{"spec":[]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		errs := strictErrors(body, reflect.TypeFor[*api.Deployment]())
		var d api.Deployment
		if json.Unmarshal(body, &d) != nil || len(errs) == 0 {
			return
		}
		for _, e := range errs {
			assert.Regexp(t, `^(unknown|duplicate) field ".*"$`, e)
		}
	})
}
