package api

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Operator is the relation a selector requirement tests. Label selectors use all of them;
// field selectors only OpEquals and OpNotEquals. Kubernetes: selection.Operator.
type Operator string

// Selector operators, with the syntax that spells each one.
const (
	// OpEquals ("key=value"): the label is present with that value.
	OpEquals Operator = "="
	// OpDoubleEquals ("key==value") means the same as OpEquals, and is kept so that
	// String() gives back what was written.
	OpDoubleEquals Operator = "=="
	// OpNotEquals ("key!=value"): the label is absent, or present with another value.
	OpNotEquals Operator = "!="
	// OpIn ("key in (v1,v2)"): the label is present with one of the values.
	OpIn Operator = "in"
	// OpNotIn ("key notin (v1,v2)"): the label is absent, or present with none of the
	// values.
	OpNotIn Operator = "notin"
	// OpExists ("key"): the label is present, with any value.
	OpExists Operator = "exists"
	// OpDoesNotExist ("!key"): the label is absent.
	OpDoesNotExist Operator = "!"
	// OpGreaterThan ("key>5"): the label is present and its value, read as an integer, is
	// greater than the requirement's value.
	OpGreaterThan Operator = "gt"
	// OpLessThan ("key<5"): the label is present and its value, read as an integer, is
	// less than the requirement's value.
	OpLessThan Operator = "lt"
)

// Requirement is one clause of a label selector: a key, an operator and (for most
// operators) values. Build one with [NewRequirement] or by parsing; the zero Requirement is
// not valid. Requirements are immutable. Kubernetes: labels.Requirement.
type Requirement struct {
	key string
	op  Operator
	// values are sorted and without duplicates. Len 0 for OpExists and OpDoesNotExist, 1
	// for the equality and comparison operators, 1 or more for OpIn and OpNotIn.
	values []string
}

// NewRequirement returns the requirement "key op values" after checking it: the key must be
// a valid label key, each value a valid label value; OpIn and OpNotIn need at least one
// value, OpEquals, OpDoubleEquals and OpNotEquals exactly one, OpGreaterThan and OpLessThan
// exactly one integer, and OpExists and OpDoesNotExist none. Duplicate values are dropped.
// Kubernetes: labels.NewRequirement.
func NewRequirement(key string, op Operator, values []string) (Requirement, error) {
	if err := ValidateLabelKey(key); err != nil {
		return Requirement{}, err
	}
	switch op {
	case OpIn, OpNotIn:
		if len(values) == 0 {
			return Requirement{}, fmt.Errorf("operator %q needs at least one value", op)
		}
	case OpEquals, OpDoubleEquals, OpNotEquals:
		if len(values) != 1 {
			return Requirement{}, fmt.Errorf("operator %q needs exactly one value, got %d", op, len(values))
		}
	case OpGreaterThan, OpLessThan:
		if len(values) != 1 {
			return Requirement{}, fmt.Errorf("operator %q needs exactly one value, got %d", op, len(values))
		}
		if _, err := strconv.ParseInt(values[0], 10, 64); err != nil {
			return Requirement{}, fmt.Errorf("operator %q needs an integer value, got %q", op, values[0])
		}
	case OpExists, OpDoesNotExist:
		if len(values) != 0 {
			return Requirement{}, fmt.Errorf("operator %q takes no values, got %d", op, len(values))
		}
	default:
		return Requirement{}, fmt.Errorf("unknown operator %q", op)
	}
	for _, v := range values {
		if err := ValidateLabelValue(v); err != nil {
			return Requirement{}, err
		}
	}
	return makeRequirement(key, op, values), nil
}

// makeRequirement builds a requirement from parts already checked, normalizing the values.
func makeRequirement(key string, op Operator, values []string) Requirement {
	var vs []string
	if len(values) > 0 {
		vs = slices.Compact(slices.Sorted(slices.Values(values)))
	}
	return Requirement{key: key, op: op, values: vs}
}

// Key returns the label key the requirement tests.
func (r Requirement) Key() string { return r.key }

// Operator returns the requirement's operator.
func (r Requirement) Operator() Operator { return r.op }

// Values returns a copy of the requirement's values, sorted.
func (r Requirement) Values() []string { return slices.Clone(r.values) }

// Matches reports whether labels satisfy the requirement. A nil map has no labels.
func (r Requirement) Matches(labels map[string]string) bool {
	value, has := labels[r.key]
	switch r.op {
	case OpIn, OpEquals, OpDoubleEquals:
		return has && slices.Contains(r.values, value)
	case OpNotIn, OpNotEquals:
		return !has || !slices.Contains(r.values, value)
	case OpExists:
		return has
	case OpDoesNotExist:
		return !has
	case OpGreaterThan, OpLessThan:
		if !has || len(r.values) != 1 {
			return false
		}
		got, err := strconv.ParseInt(value, 10, 64)
		if err != nil {
			return false
		}
		want, err := strconv.ParseInt(r.values[0], 10, 64)
		if err != nil {
			return false
		}
		if r.op == OpGreaterThan {
			return got > want
		}
		return got < want
	default:
		return false
	}
}

// String returns the requirement in selector syntax: "key=v", "key==v", "key!=v",
// "key in (v1,v2)", "key notin (v1,v2)", "key", "!key", "key>v" or "key<v".
func (r Requirement) String() string {
	switch r.op {
	case OpExists:
		return r.key
	case OpDoesNotExist:
		return "!" + r.key
	case OpIn, OpNotIn:
		return r.key + " " + string(r.op) + " (" + strings.Join(r.values, ",") + ")"
	case OpGreaterThan:
		return r.key + ">" + strings.Join(r.values, ",")
	case OpLessThan:
		return r.key + "<" + strings.Join(r.values, ",")
	default: // OpEquals, OpDoubleEquals, OpNotEquals
		return r.key + string(r.op) + strings.Join(r.values, ",")
	}
}

// compareRequirements orders requirements by key, then operator, then values: the
// canonical order of a selector's requirements.
func compareRequirements(a, b Requirement) int {
	return cmp.Or(
		strings.Compare(a.key, b.key),
		strings.Compare(string(a.op), string(b.op)),
		slices.Compare(a.values, b.values),
	)
}

// Selector is a label selector: a conjunction of requirements, all of which an object's
// labels must satisfy. The zero Selector has no requirements and matches everything.
// Selectors are immutable and safe for concurrent use. Build one with [ParseSelector],
// [SelectorFromSet] or [Selector.Add]. Kubernetes: labels.Selector.
type Selector struct {
	// reqs are in canonical order (compareRequirements).
	reqs []Requirement
}

// Matches reports whether labels satisfy every requirement. A nil map has no labels.
func (s Selector) Matches(labels map[string]string) bool {
	for _, r := range s.reqs {
		if !r.Matches(labels) {
			return false
		}
	}
	return true
}

// Empty reports whether the selector has no requirements, and so matches everything.
func (s Selector) Empty() bool { return len(s.reqs) == 0 }

// Requirements returns a copy of the selector's requirements, in canonical order.
func (s Selector) Requirements() []Requirement { return slices.Clone(s.reqs) }

// Add returns a selector with the requirements of s and reqs; s is not changed.
func (s Selector) Add(reqs ...Requirement) Selector {
	all := make([]Requirement, 0, len(s.reqs)+len(reqs))
	all = append(all, s.reqs...)
	all = append(all, reqs...)
	slices.SortFunc(all, compareRequirements)
	return Selector{reqs: all}
}

// String returns the selector in canonical form: its requirements sorted by key, then
// operator, joined by commas, each with its values sorted, e.g. "a in (x,y),b!=c,!d". The
// empty selector gives "". Parsing the result gives back an equal selector.
func (s Selector) String() string {
	parts := make([]string, len(s.reqs))
	for i, r := range s.reqs {
		parts[i] = r.String()
	}
	return strings.Join(parts, ",")
}
