package httpapi

import (
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
)

// TestDecodeIntoOnePass checks that decoding a typed object in one pass (the
// kind checked after the decode) answers every body as the two-pass decode
// does: the same object, and for a bad body the same error, chosen in the
// same order (a mismatched kind before an unknown field or a bad value).
func TestDecodeIntoOnePass(t *testing.T) {
	h, _, _ := newFakeClockHandler(t)

	tests := []struct {
		name, body, validation string
		wantErr                string // "" for success
	}{
		{"a pod", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"}}`, "", ""},
		{"no kind", ` {"metadata":{"name":"p"}} `, "", ""},
		{"another kind", `{"apiVersion":"v1","kind":"Service","metadata":{"name":"p"}}`, "", `do not match the path`},
		{"another kind and an unknown field", `{"apiVersion":"v1","kind":"Service","bogus":1}`, "Strict", `do not match the path`},
		{"another kind and a bad value", `{"apiVersion":"v1","kind":"Service","spec":5}`, "", `do not match the path`},
		{"an unregistered kind", `{"apiVersion":"v9","kind":"Pod"}`, "", `no kind "Pod" is registered for version "v9"`},
		{"trailing data", `{"metadata":{"name":"p"}} {}`, "", `not valid JSON`},
		{"trailing garbage", `{"metadata":{"name":"p"}}}`, "", `not valid JSON`},
		{"a bad kind value", `{"kind":5}`, "", `not valid JSON`},
		{"an unknown field, strict", `{"metadata":{"name":"p"},"bogus":1}`, "Strict", `strict decoding error: unknown field "bogus"`},
		{"an unknown field, warn", `{"metadata":{"name":"p"},"bogus":1}`, "", ""},
		{"a bad fieldValidation", `{"metadata":{"name":"p"}}`, "Loud", `fieldValidation "Loud" is not one of`},
		{"a bad value", `{"metadata":{"name":5}}`, "", `does not decode as Pod`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := url.Values{}
			if tt.validation != "" {
				q.Set("fieldValidation", tt.validation)
			}
			var pod api.Pod
			err := h.decodeInto(httptest.NewRecorder(), q, []byte(tt.body), &pod, "Pod", "v1")
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.True(t, apierrors.IsBadRequest(err), "%v", err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, "p", pod.Metadata.Name)
		})
	}
}
