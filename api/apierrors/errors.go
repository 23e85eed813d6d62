package apierrors

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/miniplane/miniplane/api"
)

// StatusError is an API error: it carries the Kubernetes Status a client
// receives, in process as a Go error and over HTTP as the response body.
// Kubernetes: k8s.io/apimachinery/pkg/api/errors.StatusError.
type StatusError struct {
	Status api.Status
}

func (e *StatusError) Error() string { return e.Status.Message }

// statusCodes is the one table from reason to HTTP code.
var statusCodes = map[api.StatusReason]int32{
	api.StatusReasonBadRequest:            http.StatusBadRequest,
	api.StatusReasonUnauthorized:          http.StatusUnauthorized,
	api.StatusReasonForbidden:             http.StatusForbidden,
	api.StatusReasonNotFound:              http.StatusNotFound,
	api.StatusReasonMethodNotAllowed:      http.StatusMethodNotAllowed,
	api.StatusReasonNotAcceptable:         http.StatusNotAcceptable,
	api.StatusReasonRequestEntityTooLarge: http.StatusRequestEntityTooLarge,
	api.StatusReasonUnsupportedMediaType:  http.StatusUnsupportedMediaType,
	api.StatusReasonAlreadyExists:         http.StatusConflict,
	api.StatusReasonConflict:              http.StatusConflict,
	api.StatusReasonGone:                  http.StatusGone,
	api.StatusReasonExpired:               http.StatusGone,
	api.StatusReasonInvalid:               http.StatusUnprocessableEntity,
	api.StatusReasonTooManyRequests:       http.StatusTooManyRequests,
	api.StatusReasonInternalError:         http.StatusInternalServerError,
	api.StatusReasonServiceUnavailable:    http.StatusServiceUnavailable,
	api.StatusReasonTimeout:               http.StatusGatewayTimeout,
	api.StatusReasonServerTimeout:         http.StatusInternalServerError,
}

// NewWithReason builds a failure Status of reason, with the code that goes
// with it: for errors the named constructors do not cover.
func NewWithReason(reason api.StatusReason, message string, details *api.StatusDetails) *StatusError {
	return newStatusError(reason, message, details)
}

// newStatusError builds a failure Status with the code that goes with reason.
func newStatusError(reason api.StatusReason, message string, details *api.StatusDetails) *StatusError {
	code, ok := statusCodes[reason]
	if !ok {
		code = http.StatusInternalServerError
	}
	return &StatusError{Status: api.Status{
		TypeMeta: api.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   api.StatusFailure,
		Message:  message,
		Reason:   reason,
		Details:  details,
		Code:     code,
	}}
}

// StatusOf returns the Status a client should receive for err: err's own if
// it is (or wraps) a *StatusError, an InternalError otherwise.
func StatusOf(err error) api.Status {
	if se := asStatusError(err); se != nil {
		return se.Status
	}
	return NewInternalError(err).Status
}

// ReasonOf returns err's Status reason; StatusReasonUnknown for other errors.
func ReasonOf(err error) api.StatusReason {
	if se := asStatusError(err); se != nil {
		return se.Status.Reason
	}
	return api.StatusReasonUnknown
}

// asStatusError returns the StatusError in err's chain, or nil. Controllers
// ask IsNotFound of every write, most of them nil or a StatusError itself:
// those are answered without errors.As, whose target escapes (an
// allocation per question).
func asStatusError(err error) *StatusError {
	switch e := err.(type) {
	case nil:
		return nil
	case *StatusError:
		return e
	}
	var se *StatusError
	if errors.As(err, &se) {
		return se
	}
	return nil
}

// IsNotFound reports whether err is a NotFound error.
func IsNotFound(err error) bool { return ReasonOf(err) == api.StatusReasonNotFound }

// IsAlreadyExists reports whether err is an AlreadyExists error.
func IsAlreadyExists(err error) bool { return ReasonOf(err) == api.StatusReasonAlreadyExists }

// IsConflict reports whether err is a Conflict error: re-read and retry.
func IsConflict(err error) bool { return ReasonOf(err) == api.StatusReasonConflict }

// IsInvalid reports whether err is an Invalid error.
func IsInvalid(err error) bool { return ReasonOf(err) == api.StatusReasonInvalid }

// IsGone reports whether err says a resource version is too old (410 Gone or
// Expired): the caller must relist.
func IsGone(err error) bool {
	r := ReasonOf(err)
	return r == api.StatusReasonGone || r == api.StatusReasonExpired
}

// IsBadRequest reports whether err is a BadRequest error.
func IsBadRequest(err error) bool { return ReasonOf(err) == api.StatusReasonBadRequest }

// IsForbidden reports whether err is a Forbidden error.
func IsForbidden(err error) bool { return ReasonOf(err) == api.StatusReasonForbidden }

// IsMethodNotSupported reports whether err is a MethodNotAllowed error.
func IsMethodNotSupported(err error) bool {
	return ReasonOf(err) == api.StatusReasonMethodNotAllowed
}

// IsTimeout reports whether err is a Timeout error.
func IsTimeout(err error) bool { return ReasonOf(err) == api.StatusReasonTimeout }

// GroupResource names a resource for messages: "pods", or
// "leases.coordination.k8s.io" outside the core group.
type GroupResource struct {
	Group    string
	Resource string
}

func (gr GroupResource) String() string {
	if gr.Group == "" {
		return gr.Resource
	}
	return gr.Resource + "." + gr.Group
}

// NewNotFound: the named object does not exist (404).
func NewNotFound(gr GroupResource, name string) *StatusError {
	return newStatusError(api.StatusReasonNotFound,
		fmt.Sprintf("%s %q not found", gr, name),
		&api.StatusDetails{Name: name, Group: gr.Group, Kind: gr.Resource})
}

// NewAlreadyExists: create found an object with that name (409).
func NewAlreadyExists(gr GroupResource, name string) *StatusError {
	return newStatusError(api.StatusReasonAlreadyExists,
		fmt.Sprintf("%s %q already exists", gr, name),
		&api.StatusDetails{Name: name, Group: gr.Group, Kind: gr.Resource})
}

// ConflictModified is Kubernetes' message for an update at a stale
// resourceVersion.
const ConflictModified = "the object has been modified; please apply your changes to the latest version and try again"

// NewConflict: the write lost a race or a precondition failed (409).
func NewConflict(gr GroupResource, name, why string) *StatusError {
	return newStatusError(api.StatusReasonConflict,
		fmt.Sprintf("Operation cannot be fulfilled on %s %q: %s", gr, name, why),
		&api.StatusDetails{Name: name, Group: gr.Group, Kind: gr.Resource})
}

// NewInvalid: the object failed validation (422), one cause per field error.
// kind is the object's Kind ("ReplicationController"); group its API group.
func NewInvalid(group, kind, name string, errs FieldErrors) *StatusError {
	qualified := kind
	if group != "" {
		qualified = kind + "." + group
	}
	causes := make([]api.StatusCause, 0, len(errs))
	for _, e := range errs {
		causes = append(causes, api.StatusCause{Type: e.Type, Message: e.Body(), Field: e.Field})
	}
	return newStatusError(api.StatusReasonInvalid,
		fmt.Sprintf("%s %q is invalid: %s", qualified, name, errs.Error()),
		&api.StatusDetails{Name: name, Group: group, Kind: kind, Causes: causes})
}

// NewResourceExpired: a list or watch asked for a compacted resource version
// (410, reason Expired): relist.
func NewResourceExpired(message string) *StatusError {
	return newStatusError(api.StatusReasonExpired, message, nil)
}

// NewTooOldResourceVersion is the Expired error of a read or watch at a
// compacted revision, with Kubernetes' wording.
func NewTooOldResourceVersion(requested, oldest int64) *StatusError {
	return NewResourceExpired(fmt.Sprintf("too old resource version: %d (%d)", requested, oldest))
}

// NewGone: the resource is no longer available (410, reason Gone).
func NewGone(message string) *StatusError {
	return newStatusError(api.StatusReasonGone, message, nil)
}

// NewBadRequest: the request is malformed (400).
func NewBadRequest(message string) *StatusError {
	return newStatusError(api.StatusReasonBadRequest, message, nil)
}

// NewUnauthorized: the request carries no valid credentials (401).
func NewUnauthorized(message string) *StatusError {
	return newStatusError(api.StatusReasonUnauthorized, message, nil)
}

// NewNotAcceptable: no media type the client accepts can be served (406).
func NewNotAcceptable(message string) *StatusError {
	return newStatusError(api.StatusReasonNotAcceptable, message, nil)
}

// NewRequestEntityTooLarge: the request body is over the server's limit (413).
func NewRequestEntityTooLarge(message string) *StatusError {
	return newStatusError(api.StatusReasonRequestEntityTooLarge, message, nil)
}

// NewUnsupportedMediaType: the body's content type is not supported for the
// operation (415).
func NewUnsupportedMediaType(message string) *StatusError {
	return newStatusError(api.StatusReasonUnsupportedMediaType, message, nil)
}

// NewServiceUnavailable: the server cannot serve the request now (503).
func NewServiceUnavailable(message string) *StatusError {
	return newStatusError(api.StatusReasonServiceUnavailable, message, nil)
}

// NewMethodNotSupported: the verb does not apply to the resource (405).
func NewMethodNotSupported(gr GroupResource, action string) *StatusError {
	return newStatusError(api.StatusReasonMethodNotAllowed,
		fmt.Sprintf("%s is not supported on resources of kind %q", action, gr),
		&api.StatusDetails{Group: gr.Group, Kind: gr.Resource})
}

// NewForbidden: the operation is not allowed on this object now (403).
func NewForbidden(gr GroupResource, name, why string) *StatusError {
	msg := fmt.Sprintf("%s %q is forbidden: %s", gr, name, why)
	switch {
	case gr == GroupResource{}:
		msg = "forbidden: " + why
	case name == "":
		msg = fmt.Sprintf("%s is forbidden: %s", gr, why)
	}
	return newStatusError(api.StatusReasonForbidden, msg,
		&api.StatusDetails{Name: name, Group: gr.Group, Kind: gr.Resource})
}

// NewTooLargeResourceVersion: a read asked for a resource version the store
// has not reached (504 Timeout, cause ResourceVersionTooLarge).
func NewTooLargeResourceVersion(requested, current int64) *StatusError {
	msg := fmt.Sprintf("Too large resource version: %d, current: %d", requested, current)
	return newStatusError(api.StatusReasonTimeout, "Timeout: "+msg, &api.StatusDetails{
		Causes:            []api.StatusCause{{Type: api.CauseTypeResourceVersionTooLarge, Message: msg}},
		RetryAfterSeconds: 1,
	})
}

// NewTimeoutError: the operation did not finish in time and may be retried
// after retryAfterSeconds (504 Timeout). Kubernetes: errors.NewTimeoutError.
func NewTimeoutError(message string, retryAfterSeconds int32) *StatusError {
	return newStatusError(api.StatusReasonTimeout, "Timeout: "+message, &api.StatusDetails{RetryAfterSeconds: retryAfterSeconds})
}

// NewInternalError: the server failed (500).
func NewInternalError(err error) *StatusError {
	return newStatusError(api.StatusReasonInternalError,
		fmt.Sprintf("Internal error occurred: %v", err),
		&api.StatusDetails{Causes: []api.StatusCause{{Message: err.Error()}}})
}

// NewTooManyRequests: the server will not serve the request now; retry
// after retryAfterSeconds (429). Kubernetes: apimachinery's
// errors.NewTooManyRequests, which kube-apiserver's watch cache answers
// while it initializes; the HTTP front adds the Retry-After header that
// client-go waits on before it retries.
func NewTooManyRequests(message string, retryAfterSeconds int32) *StatusError {
	return newStatusError(api.StatusReasonTooManyRequests, message, &api.StatusDetails{RetryAfterSeconds: retryAfterSeconds})
}

// IsTooManyRequests reports whether err is a TooManyRequests error.
func IsTooManyRequests(err error) bool { return ReasonOf(err) == api.StatusReasonTooManyRequests }

// HasStatusCause reports whether err is a StatusError with a cause of type
// t. Kubernetes: apierrors.HasStatusCause.
func HasStatusCause(err error, t api.CauseType) bool {
	se := asStatusError(err)
	if se == nil || se.Status.Details == nil {
		return false
	}
	for _, c := range se.Status.Details.Causes {
		if c.Type == t {
			return true
		}
	}
	return false
}

// WithReason returns e with its reason and code replaced by reason's (500
// for a reason without a code), as kube-apiserver's policy admission turns
// its Forbidden refusal into the reason a validation names.
func (e *StatusError) WithReason(reason api.StatusReason) *StatusError {
	code, ok := statusCodes[reason]
	if !ok {
		code = http.StatusInternalServerError
	}
	e.Status.Reason, e.Status.Code = reason, code
	return e
}
