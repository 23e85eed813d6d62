package api

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// FieldRequirement is one clause of a field selector: Field compared with Value by
// Operator, which is OpEquals or OpNotEquals. Kubernetes: fields.Requirement.
type FieldRequirement struct {
	// Field is the field's path, e.g. "metadata.name" or "spec.nodeName".
	Field string
	// Operator is OpEquals ("=" and "==" both parse to it) or OpNotEquals.
	Operator Operator
	// Value is compared with the field's value, unescaped.
	Value string
}

// FieldSelector is a field selector: a conjunction of requirements on an object's fields,
// as in `kubectl get pods --field-selector spec.nodeName=node-1`. Which fields exist is up
// to each resource; the apiserver rejects requirements on fields it does not support (see
// Requirements). The zero FieldSelector matches everything. FieldSelectors are immutable
// and safe for concurrent use. Kubernetes: fields.Selector.
type FieldSelector struct {
	// reqs are sorted by field, operator, value.
	reqs []FieldRequirement
}

// ParseFieldSelector parses a field selector: terms joined by commas, each "field=value",
// "field==value" or "field!=value". The empty string matches everything. As in Kubernetes,
// nothing is trimmed and a term splits at its first operator. A backslash escapes ',', '='
// and '\' in a value (an unescaped '=' in a value, or any other escape, is an error) and
// keeps an escaped ',' from ending a term, but does not protect an operator in the field
// name. Unlike Kubernetes, a term with an empty field name ("=x") is an error here rather
// than a requirement on the field "". Kubernetes: fields.ParseSelector.
func ParseFieldSelector(s string) (FieldSelector, error) {
	var reqs []FieldRequirement
	for _, term := range splitFieldTerms(s) {
		if term.text == "" {
			continue // as in Kubernetes, empty terms ("a=b,,c=d") are skipped
		}
		field, op, rawValue, ok := splitFieldTerm(term.text)
		if !ok {
			return FieldSelector{}, fmt.Errorf("invalid field selector: term %q at position %d has no operator, expected: '=', '==' or '!='", term.text, term.pos)
		}
		if field == "" {
			return FieldSelector{}, fmt.Errorf("invalid field selector: term %q at position %d has no field name before %q", term.text, term.pos, op)
		}
		value, err := unescapeFieldValue(rawValue)
		if err != nil {
			return FieldSelector{}, fmt.Errorf("invalid field selector: term %q at position %d: %w", term.text, term.pos, err)
		}
		if op == OpDoubleEquals {
			op = OpEquals
		}
		reqs = append(reqs, FieldRequirement{Field: field, Operator: op, Value: value})
	}
	slices.SortFunc(reqs, compareFieldRequirements)
	return FieldSelector{reqs: reqs}, nil
}

// Matches reports whether the fields satisfy every requirement. fields maps a field path to
// its value; as in Kubernetes, a field missing from the map has the value "", so
// "spec.nodeName=" matches an unscheduled pod and "f!=v" matches an object without f.
func (s FieldSelector) Matches(fields map[string]string) bool {
	for _, r := range s.reqs {
		if (fields[r.Field] == r.Value) != (r.Operator == OpEquals) {
			return false
		}
	}
	return true
}

// Empty reports whether the selector has no requirements, and so matches everything.
func (s FieldSelector) Empty() bool { return len(s.reqs) == 0 }

// Requirements returns a copy of the selector's requirements, sorted by field, operator and
// value. The apiserver checks each Field against the fields the resource supports.
func (s FieldSelector) Requirements() []FieldRequirement { return slices.Clone(s.reqs) }

// String returns the selector in canonical form: terms sorted by field, operator and value,
// "==" written as "=", values escaped; e.g. "metadata.name=web,spec.nodeName!=". Parsing the
// result gives back an equal selector.
func (s FieldSelector) String() string {
	parts := make([]string, len(s.reqs))
	for i, r := range s.reqs {
		parts[i] = r.Field + string(r.Operator) + escapeFieldValue(r.Value)
	}
	return strings.Join(parts, ",")
}

func compareFieldRequirements(a, b FieldRequirement) int {
	return cmp.Or(
		strings.Compare(a.Field, b.Field),
		strings.Compare(string(a.Operator), string(b.Operator)),
		strings.Compare(a.Value, b.Value),
	)
}

// fieldTerm is one comma-separated term of a field selector and its byte offset.
type fieldTerm struct {
	text string
	pos  int
}

// splitFieldTerms splits s at commas that are not escaped by a backslash.
func splitFieldTerms(s string) []fieldTerm {
	if s == "" {
		return nil
	}
	var terms []fieldTerm
	start := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++ // skip the escaped byte
		case ',':
			terms = append(terms, fieldTerm{text: s[start:i], pos: start})
			start = i + 1
		}
	}
	return append(terms, fieldTerm{text: s[start:], pos: start})
}

// splitFieldTerm splits a term at its first operator, trying "!=" and "==" before "=" at
// each position. As in Kubernetes, escapes are not honoured here (only in splitting terms
// and in values), so the field is everything before the first operator, backslashes
// included: `a\=b` is the field `a\` and the value "b".
func splitFieldTerm(term string) (field string, op Operator, value string, ok bool) {
	for i := 0; i < len(term); i++ {
		for _, candidate := range []Operator{OpNotEquals, OpDoubleEquals, OpEquals} {
			if strings.HasPrefix(term[i:], string(candidate)) {
				return term[:i], candidate, term[i+len(candidate):], true
			}
		}
	}
	return "", "", "", false
}

// escapeFieldValue escapes '\', ',' and '=' in a field selector value with a backslash.
func escapeFieldValue(v string) string {
	if !strings.ContainsAny(v, `\,=`) {
		return v
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if c := v[i]; c == '\\' || c == ',' || c == '=' {
			b.WriteByte('\\')
		}
		b.WriteByte(v[i])
	}
	return b.String()
}

// unescapeFieldValue undoes escapeFieldValue, rejecting unknown escapes and unescaped ','
// or '='.
func unescapeFieldValue(v string) (string, error) {
	if !strings.ContainsAny(v, `\,=`) {
		return v, nil
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		switch c := v[i]; c {
		case '\\':
			if i+1 == len(v) {
				return "", fmt.Errorf(`value %q ends in a lone '\'`, v)
			}
			i++
			if next := v[i]; next != '\\' && next != ',' && next != '=' {
				return "", fmt.Errorf(`value %q has invalid escape sequence '\%c'; only '\\', '\,' and '\=' are allowed`, v, next)
			}
			b.WriteByte(v[i])
		case ',', '=':
			return "", fmt.Errorf(`value %q has an unescaped '%c'; write '\%c'`, v, c, c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}
