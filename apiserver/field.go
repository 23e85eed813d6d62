package apiserver

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
)

// Path is the path of a field in an object, as Kubernetes writes it in
// errors: "spec.containers[0].ports[1].containerPort", "metadata.labels[app]".
// The zero Path is the object's root. Kubernetes: validation/field.Path.
type Path string

// NewPath starts a path at a top-level field.
func NewPath(name string, more ...string) Path {
	p := Path(name)
	for _, m := range more {
		p = p.Child(m)
	}
	return p
}

// Child returns the path of the named field under p.
func (p Path) Child(name string) Path {
	if p == "" {
		return Path(name)
	}
	return p + "." + Path(name)
}

// Index returns the path of item i of the list at p.
func (p Path) Index(i int) Path { return p + "[" + Path(strconv.Itoa(i)) + "]" }

// Key returns the path of the map entry k at p.
func (p Path) Key(k string) Path { return p + "[" + Path(k) + "]" }

// Required: a value that must be set is missing.
func Required(p Path, detail string) apierrors.FieldError {
	return apierrors.FieldError{Type: api.CauseTypeFieldValueRequired, Field: string(p), Detail: detail}
}

// Invalid: the value is malformed or out of range.
func Invalid(p Path, value any, detail string) apierrors.FieldError {
	return apierrors.FieldError{Type: api.CauseTypeFieldValueInvalid, Field: string(p), BadValue: value, Detail: detail}
}

// Duplicate: a value that must be unique is repeated.
func Duplicate(p Path, value any) apierrors.FieldError {
	return apierrors.FieldError{Type: api.CauseTypeFieldValueDuplicate, Field: string(p), BadValue: value}
}

// NotSupported: the value is not one of the supported ones, listed in order.
func NotSupported(p Path, value any, supported ...string) apierrors.FieldError {
	quoted := make([]string, len(supported))
	for i, s := range supported {
		quoted[i] = strconv.Quote(s)
	}
	return apierrors.FieldError{Type: api.CauseTypeFieldValueNotSupported, Field: string(p), BadValue: value,
		Detail: "supported values: " + strings.Join(quoted, ", ")}
}

// Forbidden: the field may not be set or changed.
func Forbidden(p Path, detail string) apierrors.FieldError {
	return apierrors.FieldError{Type: api.CauseTypeFieldValueForbidden, Field: string(p), Detail: detail}
}

// TooLong: the value is longer than max bytes.
func TooLong(p Path, max int) apierrors.FieldError {
	return apierrors.FieldError{Type: api.CauseTypeFieldValueTooLong, Field: string(p),
		Detail: fmt.Sprintf("may not be more than %d bytes", max)}
}

// NotFound: the value names something that does not exist.
func NotFound(p Path, value any) apierrors.FieldError {
	return apierrors.FieldError{Type: api.CauseTypeFieldValueNotFound, Field: string(p), BadValue: value}
}
