package apiserver_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver"
)

func TestErrorsCarryKubernetesStatus(t *testing.T) {
	pods := apiserver.GroupResource{Resource: "pods"}
	leases := apiserver.GroupResource{Group: "coordination.k8s.io", Resource: "leases"}
	tests := []struct {
		name       string
		err        *apiserver.StatusError
		is         func(error) bool
		wantReason api.StatusReason
		wantCode   int32
		wantMsg    string
	}{
		{"not found", apiserver.NewNotFound(pods, "p"), apiserver.IsNotFound, api.StatusReasonNotFound, 404, `pods "p" not found`},
		{"not found in a group", apiserver.NewNotFound(leases, "l"), apiserver.IsNotFound, api.StatusReasonNotFound, 404, `leases.coordination.k8s.io "l" not found`},
		{"already exists", apiserver.NewAlreadyExists(pods, "p"), apiserver.IsAlreadyExists, api.StatusReasonAlreadyExists, 409, `pods "p" already exists`},
		{"conflict", apiserver.NewConflict(pods, "p", apiserver.ConflictModified), apiserver.IsConflict, api.StatusReasonConflict, 409,
			`Operation cannot be fulfilled on pods "p": the object has been modified; please apply your changes to the latest version and try again`},
		{"too old", apiserver.NewTooOldResourceVersion(5, 10), apiserver.IsGone, api.StatusReasonExpired, 410, "too old resource version: 5 (10)"},
		{"gone", apiserver.NewGone("gone"), apiserver.IsGone, api.StatusReasonGone, 410, "gone"},
		{"bad request", apiserver.NewBadRequest("bad"), apiserver.IsBadRequest, api.StatusReasonBadRequest, 400, "bad"},
		{"method", apiserver.NewMethodNotSupported(pods, "patch"), apiserver.IsMethodNotSupported, api.StatusReasonMethodNotAllowed, 405, `patch is not supported on resources of kind "pods"`},
		{"forbidden", apiserver.NewForbidden(pods, "p", "no"), apiserver.IsForbidden, api.StatusReasonForbidden, 403, `pods "p" is forbidden: no`},
		{"too many requests", apiserver.NewTooManyRequests("slow down", 2), apiserver.IsTooManyRequests, api.StatusReasonTooManyRequests, 429, "slow down"},
		{"too large", apiserver.NewTooLargeResourceVersion(12, 10), apiserver.IsTimeout, api.StatusReasonTimeout, 504, "Timeout: Too large resource version: 12, current: 10"},
		{"invalid", apiserver.NewInvalid("", "Pod", "p", apiserver.FieldErrors{
			apiserver.Required(apiserver.NewPath("spec", "containers"), ""),
			apiserver.Invalid(apiserver.NewPath("spec", "containers").Index(0).Child("ports").Index(1).Child("containerPort"), int32(70000), "must be between 1 and 65535, inclusive"),
		}), apiserver.IsInvalid, api.StatusReasonInvalid, 422,
			`Pod "p" is invalid: [spec.containers: Required value, spec.containers[0].ports[1].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wrapped := fmt.Errorf("context: %w", tt.err)
			st := apiserver.StatusOf(wrapped)
			assert.Equal(t, tt.wantReason, st.Reason)
			assert.Equal(t, tt.wantCode, st.Code)
			assert.Equal(t, tt.wantMsg, st.Message)
			assert.Equal(t, api.StatusFailure, st.Status)
			assert.Equal(t, api.TypeMeta{Kind: "Status", APIVersion: "v1"}, st.TypeMeta)
			assert.True(t, tt.is(wrapped), "the Is helper sees through wrapping")
			assert.False(t, tt.is(errors.New("plain")), "and does not match other errors")
		})
	}
}

func TestInvalidCarriesOneCausePerField(t *testing.T) {
	err := apiserver.NewInvalid("", "ReplicationController", "web", apiserver.FieldErrors{
		apiserver.Invalid(apiserver.NewPath("spec", "replicas"), int32(-1), "must be greater than or equal to 0"),
		apiserver.NotSupported(apiserver.NewPath("spec", "template", "spec", "restartPolicy"), "Never", "Always"),
		apiserver.Invalid(apiserver.NewPath("metadata", "labels").Key("a b"), "x", "bad"),
	})
	assert.Equal(t, &api.StatusDetails{Name: "web", Kind: "ReplicationController", Causes: []api.StatusCause{
		{Type: api.CauseTypeFieldValueInvalid, Message: "Invalid value: -1: must be greater than or equal to 0", Field: "spec.replicas"},
		{Type: api.CauseTypeFieldValueNotSupported, Message: `Unsupported value: "Never": supported values: "Always"`, Field: "spec.template.spec.restartPolicy"},
		{Type: api.CauseTypeFieldValueInvalid, Message: `Invalid value: "x": bad`, Field: "metadata.labels[a b]"},
	}}, err.Status.Details)
}

func TestNonStatusErrorsAreInternal(t *testing.T) {
	st := apiserver.StatusOf(errors.New("disk on fire"))
	assert.Equal(t, api.StatusReasonInternalError, st.Reason)
	assert.Equal(t, int32(500), st.Code)
	assert.Equal(t, "Internal error occurred: disk on fire", st.Message)
}
