package apiserver

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/miniplane/miniplane/api"
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

// FieldError is one problem with one field of an object. Kubernetes:
// validation/field.Error.
type FieldError struct {
	Type     api.CauseType
	Field    string
	BadValue any // the offending value, for Invalid, Duplicate and NotSupported
	Detail   string
}

// FieldErrors is every problem found in one object; nil when it is valid.
type FieldErrors []FieldError

// causeWords is how Kubernetes names each type of field error.
var causeWords = map[api.CauseType]string{
	api.CauseTypeFieldValueNotFound:     "Not found",
	api.CauseTypeFieldValueRequired:     "Required value",
	api.CauseTypeFieldValueDuplicate:    "Duplicate value",
	api.CauseTypeFieldValueInvalid:      "Invalid value",
	api.CauseTypeFieldValueNotSupported: "Unsupported value",
	api.CauseTypeFieldValueForbidden:    "Forbidden",
	api.CauseTypeFieldValueTooLong:      "Too long",
	api.CauseTypeFieldValueTooMany:      "Too many",
}

// Body is the error without its field: "Invalid value: -1: must be greater
// than or equal to 0". It is the message of the error's StatusCause.
func (e FieldError) Body() string {
	s := causeWords[e.Type]
	switch e.Type {
	case api.CauseTypeFieldValueInvalid, api.CauseTypeFieldValueDuplicate, api.CauseTypeFieldValueNotSupported, api.CauseTypeFieldValueNotFound:
		s += ": " + formatValue(e.BadValue)
	}
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

func (e FieldError) Error() string { return e.Field + ": " + e.Body() }

// formatValue prints a bad value the way Kubernetes does: strings quoted,
// numbers and booleans bare, pointers followed, anything else in Go syntax.
func formatValue(v any) string {
	if v == nil {
		return "null"
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return "null"
		}
		v = rv.Elem().Interface()
	}
	switch t := v.(type) {
	case string:
		return strconv.Quote(t)
	case int, int32, int64, uint, uint32, uint64, float32, float64, bool:
		return fmt.Sprint(t)
	case fmt.Stringer:
		return t.String()
	}
	return fmt.Sprintf("%#v", v)
}

// Error joins the errors as Kubernetes' aggregate does: one alone, several in
// brackets.
func (errs FieldErrors) Error() string {
	if len(errs) == 1 {
		return errs[0].Error()
	}
	parts := make([]string, len(errs))
	for i, e := range errs {
		parts[i] = e.Error()
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// Required: a value that must be set is missing.
func Required(p Path, detail string) FieldError {
	return FieldError{Type: api.CauseTypeFieldValueRequired, Field: string(p), Detail: detail}
}

// Invalid: the value is malformed or out of range.
func Invalid(p Path, value any, detail string) FieldError {
	return FieldError{Type: api.CauseTypeFieldValueInvalid, Field: string(p), BadValue: value, Detail: detail}
}

// Duplicate: a value that must be unique is repeated.
func Duplicate(p Path, value any) FieldError {
	return FieldError{Type: api.CauseTypeFieldValueDuplicate, Field: string(p), BadValue: value}
}

// NotSupported: the value is not one of the supported ones, listed in order.
func NotSupported(p Path, value any, supported ...string) FieldError {
	quoted := make([]string, len(supported))
	for i, s := range supported {
		quoted[i] = strconv.Quote(s)
	}
	return FieldError{Type: api.CauseTypeFieldValueNotSupported, Field: string(p), BadValue: value,
		Detail: "supported values: " + strings.Join(quoted, ", ")}
}

// Forbidden: the field may not be set or changed.
func Forbidden(p Path, detail string) FieldError {
	return FieldError{Type: api.CauseTypeFieldValueForbidden, Field: string(p), Detail: detail}
}

// TooLong: the value is longer than max bytes.
func TooLong(p Path, max int) FieldError {
	return FieldError{Type: api.CauseTypeFieldValueTooLong, Field: string(p),
		Detail: fmt.Sprintf("may not be more than %d bytes", max)}
}
