package patch

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestErrorStatus(t *testing.T) {
	tests := []struct {
		name string
		err  *Error
		want string
	}{
		{
			name: "bad request without a field",
			err:  &Error{Reason: ReasonBadRequest, Message: "the patch is not valid JSON"},
			want: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the patch is not valid JSON","reason":"BadRequest","code":400}`,
		},
		{
			name: "invalid at a field",
			err:  &Error{Reason: ReasonInvalid, Field: "/a", Message: "operation 0 (test): test failed"},
			want: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"/a: operation 0 (test): test failed","reason":"Invalid",
			 "details":{"causes":[{"reason":"FieldValueInvalid","message":"operation 0 (test): test failed","field":"/a"}]},"code":422}`,
		},
		{
			name: "unsupported media type",
			err:  &Error{Reason: ReasonUnsupportedMediaType, Message: "no"},
			want: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"no","reason":"UnsupportedMediaType","code":415}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := tt.err.Status()
			got, err := json.Marshal(&st)
			require.NoError(t, err)
			assert.JSONEq(t, tt.want, string(got))
		})
	}
}

func TestConflictStatus(t *testing.T) {
	c := &Conflict{Causes: []ConflictCause{
		{Manager: "kubectl", Operation: "Apply", APIVersion: "v1", Field: ".spec.replicas"},
		{Manager: "kubectl", Operation: "Update", Subresource: "scale", APIVersion: "v1", Time: "2026-11-21T21:01:00Z", Field: ".spec.replicas"},
	}}
	st := c.Status()
	got, err := json.Marshal(&st)
	require.NoError(t, err)
	assert.JSONEq(t, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","reason":"Conflict","code":409,
	 "message":"Apply failed with 2 conflicts: conflicts with \"kubectl\":\n- .spec.replicas\nconflicts with \"kubectl\" with subresource \"scale\" using v1 at 2026-11-21T21:01:00Z:\n- .spec.replicas",
	 "details":{"causes":[
	  {"reason":"FieldManagerConflict","message":"conflict with \"kubectl\"","field":".spec.replicas"},
	  {"reason":"FieldManagerConflict","message":"conflict with \"kubectl\" with subresource \"scale\" using v1 at 2026-11-21T21:01:00Z","field":".spec.replicas"}]}}`, string(got))

	one := &Conflict{Causes: c.Causes[:1]}
	assert.Equal(t, `Apply failed with 1 conflict: conflict with "kubectl": .spec.replicas`, one.Status().Message)
}
