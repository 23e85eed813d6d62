package apierrors_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
)

func TestErrorsCarryKubernetesStatus(t *testing.T) {
	pods := apierrors.GroupResource{Resource: "pods"}
	leases := apierrors.GroupResource{Group: "coordination.k8s.io", Resource: "leases"}
	tests := []struct {
		name       string
		err        *apierrors.StatusError
		is         func(error) bool
		wantReason api.StatusReason
		wantCode   int32
		wantMsg    string
	}{
		{"not found", apierrors.NewNotFound(pods, "p"), apierrors.IsNotFound, api.StatusReasonNotFound, 404, `pods "p" not found`},
		{"not found in a group", apierrors.NewNotFound(leases, "l"), apierrors.IsNotFound, api.StatusReasonNotFound, 404, `leases.coordination.k8s.io "l" not found`},
		{"already exists", apierrors.NewAlreadyExists(pods, "p"), apierrors.IsAlreadyExists, api.StatusReasonAlreadyExists, 409, `pods "p" already exists`},
		{"conflict", apierrors.NewConflict(pods, "p", apierrors.ConflictModified), apierrors.IsConflict, api.StatusReasonConflict, 409,
			`Operation cannot be fulfilled on pods "p": the object has been modified; please apply your changes to the latest version and try again`},
		{"too old", apierrors.NewTooOldResourceVersion(5, 10), apierrors.IsGone, api.StatusReasonExpired, 410, "too old resource version: 5 (10)"},
		{"gone", apierrors.NewGone("gone"), apierrors.IsGone, api.StatusReasonGone, 410, "gone"},
		{"bad request", apierrors.NewBadRequest("bad"), apierrors.IsBadRequest, api.StatusReasonBadRequest, 400, "bad"},
		{"method", apierrors.NewMethodNotSupported(pods, "patch"), apierrors.IsMethodNotSupported, api.StatusReasonMethodNotAllowed, 405, `patch is not supported on resources of kind "pods"`},
		{"forbidden", apierrors.NewForbidden(pods, "p", "no"), apierrors.IsForbidden, api.StatusReasonForbidden, 403, `pods "p" is forbidden: no`},
		{"too many requests", apierrors.NewTooManyRequests("slow down", 2), apierrors.IsTooManyRequests, api.StatusReasonTooManyRequests, 429, "slow down"},
		{"too large", apierrors.NewTooLargeResourceVersion(12, 10), apierrors.IsTimeout, api.StatusReasonTimeout, 504, "Timeout: Too large resource version: 12, current: 10"},
		{"invalid", apierrors.NewInvalid("", "Pod", "p", apierrors.FieldErrors{
			{Type: api.CauseTypeFieldValueRequired, Field: "spec.containers"},
			{Type: api.CauseTypeFieldValueInvalid, Field: "spec.containers[0].ports[1].containerPort", BadValue: int32(70000), Detail: "must be between 1 and 65535, inclusive"},
		}), apierrors.IsInvalid, api.StatusReasonInvalid, 422,
			`Pod "p" is invalid: [spec.containers: Required value, spec.containers[0].ports[1].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wrapped := fmt.Errorf("context: %w", tt.err)
			st := apierrors.StatusOf(wrapped)
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
	err := apierrors.NewInvalid("", "ReplicationController", "web", apierrors.FieldErrors{
		{Type: api.CauseTypeFieldValueInvalid, Field: "spec.replicas", BadValue: int32(-1), Detail: "must be greater than or equal to 0"},
		{Type: api.CauseTypeFieldValueNotSupported, Field: "spec.template.spec.restartPolicy", BadValue: "Never", Detail: `supported values: "Always"`},
		{Type: api.CauseTypeFieldValueInvalid, Field: "metadata.labels[a b]", BadValue: "x", Detail: "bad"},
		{Type: api.CauseTypeFieldValueTooMany, Field: "endpoints", BadValue: 1001, Detail: "must have at most 1000 items"},
		{Type: api.CauseTypeFieldValueTooMany, Field: "spec.tags", Detail: "must have at most 2 items"},
	})
	assert.Equal(t, &api.StatusDetails{Name: "web", Kind: "ReplicationController", Causes: []api.StatusCause{
		{Type: api.CauseTypeFieldValueInvalid, Message: "Invalid value: -1: must be greater than or equal to 0", Field: "spec.replicas"},
		{Type: api.CauseTypeFieldValueNotSupported, Message: `Unsupported value: "Never": supported values: "Always"`, Field: "spec.template.spec.restartPolicy"},
		{Type: api.CauseTypeFieldValueInvalid, Message: `Invalid value: "x": bad`, Field: "metadata.labels[a b]"},
		{Type: api.CauseTypeFieldValueTooMany, Message: "Too many: 1001: must have at most 1000 items", Field: "endpoints"},
		{Type: api.CauseTypeFieldValueTooMany, Message: "Too many: must have at most 2 items", Field: "spec.tags"},
	}}, err.Status.Details)
}

func TestNonStatusErrorsAreInternal(t *testing.T) {
	st := apierrors.StatusOf(errors.New("disk on fire"))
	assert.Equal(t, api.StatusReasonInternalError, st.Reason)
	assert.Equal(t, int32(500), st.Code)
	assert.Equal(t, "Internal error occurred: disk on fire", st.Message)
}
