package api

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
)

// Limits on label keys and values, as in Kubernetes.
const (
	// MaxLabelNameLength bounds a label value and the name part of a label key.
	MaxLabelNameLength = 63
	// MaxLabelPrefixLength bounds the DNS-subdomain prefix of a label key.
	MaxLabelPrefixLength = 253
)

// ValidateLabelKey reports whether key is a valid label key: a qualified name, that is an
// optional prefix and '/', then a name. The name is 1 to 63 characters of [A-Za-z0-9._-]
// that start and end with a letter or digit; the prefix is a lowercase DNS subdomain of at
// most 253 characters ("app.kubernetes.io/name"). Kubernetes:
// validation.IsQualifiedName.
func ValidateLabelKey(key string) error {
	if problem := labelKeyProblem(key); problem != "" {
		return fmt.Errorf("invalid label key %q: %s", key, problem)
	}
	return nil
}

// ValidateLabelValue reports whether value is a valid label value: empty, or up to 63
// characters of [A-Za-z0-9._-] that start and end with a letter or digit. Kubernetes:
// validation.IsValidLabelValue.
func ValidateLabelValue(value string) error {
	if problem := labelValueProblem(value); problem != "" {
		return fmt.Errorf("invalid label value %q: %s", value, problem)
	}
	return nil
}

// SelectorFromSet returns the selector that matches exactly the labels in set: every key
// present with the given value, as an equality-based selector such as a
// ReplicationController's or a Service's spec.selector is read. A nil or empty set gives
// the empty selector, which matches everything; that is why the apiserver rejects an empty
// ReplicationController selector before it is ever used here.
//
// The set is trusted, not validated, as in Kubernetes: it normally comes from an object the
// apiserver already validated. A key or value that is not valid can never match a validated
// object, but the selector's String() may then not parse back; use
// [ValidatedSelectorFromSet] for input from users. Kubernetes: labels.SelectorFromSet.
func SelectorFromSet(set map[string]string) Selector {
	if len(set) == 0 {
		return Selector{}
	}
	reqs := make([]Requirement, 0, len(set))
	for key, value := range set {
		reqs = append(reqs, Requirement{key: key, op: OpEquals, values: []string{value}})
	}
	slices.SortFunc(reqs, compareRequirements)
	return Selector{reqs: reqs}
}

// ValidatedSelectorFromSet is [SelectorFromSet] for untrusted input: it fails if a key or a
// value is not valid. Kubernetes: labels.ValidatedSelectorFromSet.
func ValidatedSelectorFromSet(set map[string]string) (Selector, error) {
	keys := make([]string, 0, len(set))
	for key := range set {
		keys = append(keys, key)
	}
	slices.Sort(keys) // report the first bad key in a stable order
	for _, key := range keys {
		if err := ValidateLabelKey(key); err != nil {
			return Selector{}, err
		}
		if err := ValidateLabelValue(set[key]); err != nil {
			return Selector{}, fmt.Errorf("label %q: %w", key, err)
		}
	}
	return SelectorFromSet(set), nil
}

// labelKeyProblem returns why key is not a valid label key, or "" if it is.
func labelKeyProblem(key string) string {
	prefix, name, hasPrefix := strings.Cut(key, "/")
	if !hasPrefix {
		name = key
	}
	if hasPrefix {
		switch {
		case strings.Contains(name, "/"):
			return "a qualified name must contain at most one '/'"
		case prefix == "":
			return "prefix part must be non-empty"
		case len(prefix) > MaxLabelPrefixLength:
			return fmt.Sprintf("prefix part must be no more than %d characters", MaxLabelPrefixLength)
		case !isDNSSubdomain(prefix):
			return "prefix part must be a lowercase RFC 1123 subdomain: lowercase letters, digits, '-' and '.', " +
				"each dot-separated part starting and ending with a letter or digit (e.g. 'example.com')"
		}
	}
	switch {
	case name == "":
		return "name part must be non-empty"
	case len(name) > MaxLabelNameLength:
		return fmt.Sprintf("name part must be no more than %d characters", MaxLabelNameLength)
	case !isLabelName(name):
		return "name part must consist of letters, digits, '-', '_' or '.', " +
			"and must start and end with a letter or digit"
	}
	return ""
}

// labelValueProblem returns why value is not a valid label value, or "" if it is.
func labelValueProblem(value string) string {
	switch {
	case value == "":
		return ""
	case len(value) > MaxLabelNameLength:
		return fmt.Sprintf("must be no more than %d characters", MaxLabelNameLength)
	case !isLabelName(value):
		return "must be empty or consist of letters, digits, '-', '_' or '.', " +
			"and must start and end with a letter or digit"
	}
	return ""
}

// isLabelName reports whether s is non-empty, made of [A-Za-z0-9._-], and starts and ends
// with a letter or digit. It does not check the length.
func isLabelName(s string) bool {
	if s == "" || !isAlphanumeric(s[0]) || !isAlphanumeric(s[len(s)-1]) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isAlphanumeric(c) && c != '-' && c != '_' && c != '.' {
			return false
		}
	}
	return true
}

// isDNSSubdomain reports whether s is dot-separated parts of [a-z0-9-], each non-empty and
// starting and ending with [a-z0-9]. It does not check the length.
func isDNSSubdomain(s string) bool {
	for part := range strings.SplitSeq(s, ".") {
		if part == "" || !isLowerAlphanumeric(part[0]) || !isLowerAlphanumeric(part[len(part)-1]) {
			return false
		}
		for i := 0; i < len(part); i++ {
			if c := part[i]; !isLowerAlphanumeric(c) && c != '-' {
				return false
			}
		}
	}
	return true
}

func isAlphanumeric(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

func isLowerAlphanumeric(c byte) bool {
	return 'a' <= c && c <= 'z' || '0' <= c && c <= '9'
}

// LabelPair is one key and value of a label set.
type LabelPair struct {
	// Key is the label's key.
	Key string
	// Value is the label's value.
	Value string
}

// AppendLabelPairs appends to dst the pairs of set but the one under skip
// ("" skips none: a label key is never empty), in no order, and returns it:
// a selector from a set, read once, for a caller that matches many label
// sets against it (MatchesLabelPairs) without making a Selector.
func AppendLabelPairs(dst []LabelPair, set map[string]string, skip string) []LabelPair {
	for k, v := range set {
		if skip == "" || k != skip {
			dst = append(dst, LabelPair{k, v})
		}
	}
	return dst
}

// MatchesLabelPairs reports whether labels hold every pair of pairs:
// SelectorFromSet(set).Matches(labels) for the set the pairs were read from.
func MatchesLabelPairs(pairs []LabelPair, labels map[string]string) bool {
	for _, p := range pairs {
		if got, ok := labels[p.Key]; !ok || got != p.Value {
			return false
		}
	}
	return true
}

// SameLabels is maps.Equal(a, b) for the labels of two versions of one
// object, which a pod update handler asks of every pod event: versions
// mostly share one map (a pod its template's, which every later version
// keeps), and a map from the cache is immutable, so the same map is equal
// without reading it.
func SameLabels(a, b map[string]string) bool {
	if a != nil && b != nil && reflect.ValueOf(a).Pointer() == reflect.ValueOf(b).Pointer() {
		return true
	}
	return maps.Equal(a, b)
}
