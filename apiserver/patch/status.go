package patch

import (
	"net/http"

	"github.com/miniplane/miniplane/api"
)

// CauseTypeFieldManagerConflict is the cause type of each field in a server-side apply
// conflict. Kubernetes: metav1.CauseTypeFieldManagerConflict.
const CauseTypeFieldManagerConflict api.CauseType = "FieldManagerConflict"

// Status returns the Kubernetes Status the HTTP layer answers e with: the reason and code
// of e.Reason, e's message, and for an error at a field, one cause naming it.
func (e *Error) Status() api.Status {
	reason := api.StatusReasonBadRequest
	switch e.Reason {
	case ReasonInvalid:
		reason = api.StatusReasonInvalid
	case ReasonUnsupportedMediaType:
		reason = api.StatusReasonUnsupportedMediaType
	}
	st := failure(reason, e.Reason.Code(), e.Error())
	if e.Field != "" {
		st.Details = &api.StatusDetails{Causes: []api.StatusCause{{
			Type: api.CauseTypeFieldValueInvalid, Message: e.Message, Field: e.Field,
		}}}
	}
	return st
}

// Status returns the 409 Status kube-apiserver answers a conflicting apply with: reason
// Conflict, the message of [Conflict.Error], and one cause per field with type
// FieldManagerConflict, message `conflict with "owner"` and the field's path.
func (c *Conflict) Status() api.Status {
	st := failure(api.StatusReasonConflict, http.StatusConflict, c.Error())
	causes := make([]api.StatusCause, 0, len(c.Causes))
	for _, cause := range c.Causes {
		causes = append(causes, api.StatusCause{
			Type: CauseTypeFieldManagerConflict, Message: "conflict with " + cause.Owner(), Field: cause.Field,
		})
	}
	st.Details = &api.StatusDetails{Causes: causes}
	return st
}

func failure(reason api.StatusReason, code int, message string) api.Status {
	return api.Status{
		TypeMeta: api.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   api.StatusFailure,
		Message:  message,
		Reason:   reason,
		Code:     int32(code),
	}
}
