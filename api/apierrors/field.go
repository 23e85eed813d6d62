package apierrors

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/miniplane/miniplane/api"
)

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
	api.CauseTypeInternal:               "Internal error",
}

// Body is the error without its field: "Invalid value: -1: must be greater
// than or equal to 0". It is the message of the error's StatusCause.
func (e FieldError) Body() string {
	s := causeWords[e.Type]
	switch e.Type {
	case api.CauseTypeFieldValueInvalid, api.CauseTypeFieldValueDuplicate, api.CauseTypeFieldValueNotSupported, api.CauseTypeFieldValueNotFound:
		s += ": " + formatValue(e.BadValue)
	case api.CauseTypeFieldValueTooMany:
		// Kubernetes' field.TooMany prints the actual count when it knows it.
		if e.BadValue != nil {
			s += ": " + formatValue(e.BadValue)
		}
	}
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

func (e FieldError) Error() string { return e.Field + ": " + e.Body() }

// formatValue prints a bad value the way Kubernetes does: strings quoted,
// numbers and booleans bare, pointers followed, anything else in Go syntax;
// nil is the string "null", quoted.
func formatValue(v any) string {
	if v == nil {
		return `"null"`
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return `"null"`
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
