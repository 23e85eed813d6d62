// Package apierrors is the error side of the API: StatusError, which carries
// the Kubernetes Status a client receives (in process as a Go error, over
// HTTP as the response body), the constructors the server answers with
// (NewNotFound, NewConflict, NewInvalid with its FieldErrors, ...), and the
// helpers clients test errors with (IsNotFound, IsConflict, IsGone, ...,
// StatusOf, ReasonOf). One table maps each reason to its HTTP code.
// Kubernetes: k8s.io/apimachinery/pkg/api/errors, with the field error list
// of pkg/util/validation/field.
//
// It imports api only, so that clients (informers, controllers, the
// election) test errors without importing the server. Its values are
// immutable once built and safe for concurrent use.
package apierrors
