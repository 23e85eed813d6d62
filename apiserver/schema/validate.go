package schema

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
)

// Validate checks obj, the top-level fields of a custom resource but apiVersion, kind and
// metadata, against schema s (the whole object's), and returns one error per problem with
// kube-apiserver's messages and field paths:
//
//	spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0
//
// Kubernetes: apiservervalidation.ValidateCustomResource (kube-openapi's validator, its
// errors converted as ConvertToFieldErrors does) and the list-type checks of
// structurallisttype.ValidateListSetsAndMaps.
func Validate(obj map[string]any, s *Schema) apierrors.FieldErrors {
	v := validator{}
	v.object(obj, s, "", true)
	return v.errs
}

type validator struct {
	errs apierrors.FieldErrors
}

func (v *validator) add(t api.CauseType, p string, bad any, detail string) {
	v.errs = append(v.errs, apierrors.FieldError{Type: t, Field: p, BadValue: bad, Detail: detail})
}

func (v *validator) invalid(p string, bad any, detail string) {
	v.add(api.CauseTypeFieldValueInvalid, p, bad, detail)
}

// value validates x of schema s at path p.
func (v *validator) value(x any, s *Schema, p string) {
	if x == nil {
		if !s.Nullable && s.Type != "" {
			v.invalid(p, "null", fmt.Sprintf("%s in body must be of type %s: \"null\"", p, s.Type))
		}
		return
	}
	if !v.typeOK(x, s, p) {
		return
	}
	v.format(x, s, p)
	v.enum(x, s, p)
	switch x := x.(type) {
	case map[string]any:
		v.object(x, s, p, false)
	case []any:
		v.array(x, s, p)
	case string:
		v.str(x, s, p)
	case int64:
		v.number(float64(x), x, s, p)
	case float64:
		v.number(x, x, s, p)
	}
	for _, a := range s.allOf {
		v.value(x, a, p)
	}
}

// jsonType names the JSON type of a decoded value, as kube-openapi does in its messages.
func jsonType(x any) string {
	switch x := x.(type) {
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case string:
		return "string"
	case int64:
		return "integer"
	case float64:
		if x == math.Trunc(x) {
			return "integer"
		}
		return "number"
	case bool:
		return "boolean"
	}
	return "null"
}

func (v *validator) typeOK(x any, s *Schema, p string) bool {
	got := jsonType(x)
	if s.XIntOrString && (got == "integer" || got == "string") {
		return true
	}
	want := s.Type
	switch {
	case want == "":
		return true
	case want == got, want == "number" && got == "integer":
		return true
	}
	v.invalid(p, got, fmt.Sprintf("%s in body must be of type %s: %q", p, want, got))
	return false
}

// dateTime is the RFC 3339 layout of format date-time, as strfmt accepts it.
var dateTimeLayouts = []string{time.RFC3339Nano, time.RFC3339, "2006-01-02T15:04:05Z0700", "2006-01-02T15:04:05.999999999Z0700"}

func (v *validator) format(x any, s *Schema, p string) {
	switch s.Format {
	case "int32":
		if n, ok := x.(int64); ok && (n < math.MinInt32 || n > math.MaxInt32) {
			v.invalid(p, n, fmt.Sprintf("%s in body must be of type int32: %q", p, strconv.FormatInt(n, 10)))
		}
	case "date-time":
		str, ok := x.(string)
		if !ok {
			return
		}
		for _, l := range dateTimeLayouts {
			if _, err := time.Parse(l, str); err == nil {
				return
			}
		}
		v.invalid(p, str, fmt.Sprintf("%s in body must be of type date-time: %q", p, str))
	case "date":
		if str, ok := x.(string); ok {
			if _, err := time.Parse("2006-01-02", str); err != nil {
				v.invalid(p, str, fmt.Sprintf("%s in body must be of type date: %q", p, str))
			}
		}
	}
}

func (v *validator) enum(x any, s *Schema, p string) {
	if len(s.Enum) == 0 {
		return
	}
	supported := make([]string, 0, len(s.Enum))
	for _, raw := range s.Enum {
		e, err := api.DecodeJSONValue(raw)
		if err != nil {
			continue
		}
		if equalJSON(e, x) {
			return
		}
		if str, ok := e.(string); ok {
			supported = append(supported, strconv.Quote(str))
		} else {
			supported = append(supported, string(raw))
		}
	}
	v.add(api.CauseTypeFieldValueNotSupported, p, x, "supported values: "+strings.Join(supported, ", "))
}

// equalJSON compares decoded JSON values, numbers by value.
func equalJSON(a, b any) bool {
	af, aok := toFloat(a)
	bf, bok := toFloat(b)
	if aok && bok {
		return af == bf
	}
	return reflect.DeepEqual(a, b)
}

func toFloat(x any) (float64, bool) {
	switch x := x.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

func (v *validator) object(m map[string]any, s *Schema, p string, root bool) {
	for _, r := range s.Required {
		if _, ok := m[r]; !ok {
			v.add(api.CauseTypeFieldValueRequired, join(p, r), nil, "")
		}
	}
	if s.MaxProperties != nil && int64(len(m)) > *s.MaxProperties {
		v.add(api.CauseTypeFieldValueTooMany, p, nil, fmt.Sprintf("must have at most %d items", *s.MaxProperties))
	}
	if s.MinProperties != nil && int64(len(m)) < *s.MinProperties {
		v.invalid(p, len(m), fmt.Sprintf("%s in body should have at least %d properties", p, *s.MinProperties))
	}
	// Only named fields are validated without additional properties: in
	// the schema's order, which is the keys' sorted order.
	keys := s.names
	if s.additional != nil {
		keys = make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
	}
	static := s.static && p == s.path
	for _, k := range keys {
		x, ok := m[k]
		if !ok || (root || s.XEmbeddedResource) && (k == "apiVersion" || k == "kind" || k == "metadata") {
			continue
		}
		if ps, ok := s.props[k]; ok {
			cp := ps.path
			if !static {
				cp = join(p, k)
			}
			v.value(x, ps, cp)
		} else if s.additional != nil {
			v.value(x, s.additional, join(p, k))
		}
	}
}

func (v *validator) array(a []any, s *Schema, p string) {
	if s.MaxItems != nil && int64(len(a)) > *s.MaxItems {
		// apiextensions reports a too-long list without its length (kube-openapi gives it the list, not a count).
		v.add(api.CauseTypeFieldValueTooMany, p, nil, fmt.Sprintf("must have at most %d items", *s.MaxItems))
	}
	if s.MinItems != nil && int64(len(a)) < *s.MinItems {
		v.invalid(p, len(a), fmt.Sprintf("%s in body should have at least %d items", p, *s.MinItems))
	}
	if items := s.items; items != nil {
		for i, e := range a {
			v.value(e, items, index(p, i))
		}
	}
	switch listType(s) {
	case "set":
		for i := range a {
			for j := range i {
				if equalJSON(a[i], a[j]) {
					v.add(api.CauseTypeFieldValueDuplicate, index(p, i), a[i], "")
					break
				}
			}
		}
	case "map":
		seen := map[string]bool{}
		for i, e := range a {
			m, ok := e.(map[string]any)
			if !ok {
				continue
			}
			key := map[string]any{}
			for _, k := range s.XListMapKeys {
				if kv, ok := m[k]; ok {
					key[k] = kv
				}
			}
			b, _ := json.Marshal(key)
			if seen[string(b)] {
				v.add(api.CauseTypeFieldValueDuplicate, index(p, i), key, "")
				continue
			}
			seen[string(b)] = true
		}
	}
}

func listType(s *Schema) string {
	if s.XListType == nil {
		return ""
	}
	return *s.XListType
}

func (v *validator) str(x string, s *Schema, p string) {
	n := int64(utf8.RuneCountInString(x))
	if s.MaxLength != nil && n > *s.MaxLength {
		v.add(api.CauseTypeFieldValueTooLong, p, x, fmt.Sprintf("may not be more than %d bytes", *s.MaxLength))
	}
	if s.MinLength != nil && n < *s.MinLength {
		v.invalid(p, x, fmt.Sprintf("%s in body should be at least %d chars long", p, *s.MinLength))
	}
	if s.pattern != nil {
		if !s.pattern.MatchString(x) {
			v.invalid(p, x, fmt.Sprintf("%s in body should match '%s'", p, s.Pattern))
		}
	}
}

func (v *validator) number(f float64, bad any, s *Schema, p string) {
	if s.Maximum != nil {
		if s.ExclusiveMaximum && f >= *s.Maximum {
			v.invalid(p, bad, fmt.Sprintf("%s in body should be less than %s", p, num(*s.Maximum)))
		} else if f > *s.Maximum {
			v.invalid(p, bad, fmt.Sprintf("%s in body should be less than or equal to %s", p, num(*s.Maximum)))
		}
	}
	if s.Minimum != nil {
		if s.ExclusiveMinimum && f <= *s.Minimum {
			v.invalid(p, bad, fmt.Sprintf("%s in body should be greater than %s", p, num(*s.Minimum)))
		} else if f < *s.Minimum {
			v.invalid(p, bad, fmt.Sprintf("%s in body should be greater than or equal to %s", p, num(*s.Minimum)))
		}
	}
	if s.MultipleOf != nil && *s.MultipleOf != 0 {
		if q := f / *s.MultipleOf; q != math.Trunc(q) {
			v.invalid(p, bad, fmt.Sprintf("%s in body should be a multiple of %s", p, num(*s.MultipleOf)))
		}
	}
}

// num prints a bound as kube-openapi does: integers without a fraction.
func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

func join(p, k string) string {
	if p == "" {
		return k
	}
	return p + "." + k
}

func index(p string, i int) string { return p + "[" + strconv.Itoa(i) + "]" }
