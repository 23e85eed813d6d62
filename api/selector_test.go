package api

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestParseSelectorCanonicalString parses selectors in every syntax and checks the
// canonical String(): requirements sorted by key then operator, values sorted and
// deduplicated, whitespace normalized, as Kubernetes prints them.
func TestParseSelectorCanonicalString(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{"", ""},
		{"   \t\n", ""},
		{"a=b", "a=b"},
		{"a==b", "a==b"},
		{"a!=b", "a!=b"},
		{"a in (x,y)", "a in (x,y)"},
		{"a notin (x)", "a notin (x)"},
		{"a", "a"},
		{"!a", "!a"},
		{"a>1", "a>1"},
		{"a<10", "a<10"},
		{"a=", "a="},
		{" a  in(y , x, y) ", "a in (x,y)"},
		{"a  ==  b", "a==b"},
		{"!d,b!=c,a in (y,x)", "a in (x,y),b!=c,!d"},
		{"b=c,a", "a,b=c"},
		{"a=b,a!=c", "a!=c,a=b"},
		{"app.kubernetes.io/name=web,tier notin (cache,db)", "app.kubernetes.io/name=web,tier notin (cache,db)"},
		{"in in (in),notin notin (notin)", "in in (in),notin notin (notin)"},
		{"notin", "notin"},
		{"!in", "!in"},
		// As in Kubernetes' parser, empty items in a value list are the empty value.
		{"a in ()", "a in ()"},
		{"a in (,)", "a in ()"},
		{"a in (b,)", "a in (,b)"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			sel, err := ParseSelector(tt.in)
			require.NoError(t, err)
			assert.Equal(t, tt.want, sel.String())
			assert.Equal(t, tt.want == "", sel.Empty())

			again, err := ParseSelector(sel.String())
			require.NoError(t, err, "String() must parse")
			assert.Equal(t, sel, again)
		})
	}
}

// TestParseSelectorErrors checks the exact message for each kind of mistake: every message
// names the offending token and its byte offset.
func TestParseSelectorErrors(t *testing.T) {
	const prefix = "unable to parse requirement: "
	tests := []struct {
		in   string
		want string
	}{
		{",a", "found ',' at position 0, expected: '!' or identifier"},
		{"a,", "found end of string at position 2, expected: '!' or identifier"},
		{"a,,b", "found ',' at position 2, expected: '!' or identifier"},
		{"a=b,", "found end of string at position 4, expected: '!' or identifier"},
		{"!=a", "found '!=' at position 0, expected: '!' or identifier"},
		{"!", "found end of string at position 1, expected: identifier"},
		{"!(a)", "found '(' at position 1, expected: identifier"},
		{"app, !)", "found ')' at position 6, expected: identifier"},
		{"a b", "found 'b' at position 2, expected: '=', '==', '!=', 'in', 'notin', '>', '<', ',' or end of string"},
		{"a (x)", "found '(' at position 2, expected: '=', '==', '!=', 'in', 'notin', '>', '<', ',' or end of string"},
		{"!a=b", "found '=' at position 2, expected: ',' or end of string"},
		{"a=b=c", "found '=' at position 3, expected: ',' or end of string"},
		{"a=b)", "found ')' at position 3, expected: ',' or end of string"},
		{"x,y in (a,b,c),!z)", "found ')' at position 17, expected: ',' or end of string"},
		{"a=(", "found '(' at position 2, expected: identifier, ',' or end of string"},
		{"a in x", "found 'x' at position 5, expected: '('"},
		{"a in", "found end of string at position 4, expected: '('"},
		{"a in (x,y", "found end of string at position 9, expected: ',' or ')'"},
		{"a in (x y)", "found 'y' at position 8, expected: ',' or ')'"},
		{"a in (x,=)", "found '=' at position 8, expected: identifier, ',' or ')'"},
		{"a notin (!x)", "found '!' at position 9, expected: identifier, ',' or ')'"},
		{"a>", "found end of string at position 2, expected: identifier"},
		{"a<)", "found ')' at position 2, expected: identifier"},
		{"a>x", `invalid value "x" at position 2: operator '>' needs an integer`},
		{"a<1.5", `invalid value "1.5" at position 2: operator '<' needs an integer`},
		{"a/b/c", `invalid label key "a/b/c" at position 0: a qualified name must contain at most one '/'`},
		{"x=y, /b", `invalid label key "/b" at position 5: prefix part must be non-empty`},
		{"a/", `invalid label key "a/" at position 0: name part must be non-empty`},
		{"-a", `invalid label key "-a" at position 0: name part must consist of letters, digits, '-', '_' or '.', ` +
			`and must start and end with a letter or digit`},
		{"Example.com/a", `invalid label key "Example.com/a" at position 0: prefix part must be a lowercase RFC 1123 subdomain: ` +
			`lowercase letters, digits, '-' and '.', each dot-separated part starting and ending with a letter or digit (e.g. 'example.com')`},
		{"a=-b", `invalid label value "-b" at position 2: must be empty or consist of letters, digits, '-', '_' or '.', ` +
			`and must start and end with a letter or digit`},
		{"a in (ok, x y)", "found 'y' at position 12, expected: ',' or ')'"},
		{"a in (ok,b*)", `invalid label value "b*" at position 9: must be empty or consist of letters, digits, '-', '_' or '.', ` +
			`and must start and end with a letter or digit`},
		{"a=" + strings.Repeat("v", 64),
			`invalid label value "` + strings.Repeat("v", 64) + `" at position 2: must be no more than 63 characters`},
		{"k=v," + strings.Repeat("k", 64),
			`invalid label key "` + strings.Repeat("k", 64) + `" at position 4: name part must be no more than 63 characters`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			sel, err := ParseSelector(tt.in)
			assert.EqualError(t, err, prefix+tt.want)
			assert.True(t, sel.Empty(), "a failed parse returns the empty selector")
		})
	}
}

// TestSelectorMatches checks Kubernetes' matching rules, notably that != and notin match
// objects without the key, and that comparison operators need an integer label value.
func TestSelectorMatches(t *testing.T) {
	labels := map[string]string{"app": "web", "tier": "frontend", "version": "3", "empty": ""}
	tests := []struct {
		selector string
		labels   map[string]string
		want     bool
	}{
		{"", labels, true},
		{"", nil, true},
		{"app=web", labels, true},
		{"app==web", labels, true},
		{"app=db", labels, false},
		{"app=web", nil, false},
		{"app!=db", labels, true},
		{"app!=web", labels, false},
		{"missing!=x", labels, true},
		{"app in (db,web)", labels, true},
		{"app in (db,cache)", labels, false},
		{"missing in (x)", labels, false},
		{"app notin (db,cache)", labels, true},
		{"app notin (web)", labels, false},
		{"missing notin (x)", labels, true},
		{"app", labels, true},
		{"missing", labels, false},
		{"!missing", labels, true},
		{"!app", labels, false},
		{"empty=", labels, true},
		{"empty", labels, true},
		{"missing=", labels, false},
		{"empty in ()", labels, true},
		{"version>2", labels, true},
		{"version>3", labels, false},
		{"version<4", labels, true},
		{"version<3", labels, false},
		{"app>1", labels, false},
		{"missing<10", labels, false},
		{"app=web,tier=frontend", labels, true},
		{"app=web,tier=backend", labels, false},
		{"app=web,!missing,tier in (frontend),version>1", labels, true},
	}
	for _, tt := range tests {
		t.Run(tt.selector, func(t *testing.T) {
			sel, err := ParseSelector(tt.selector)
			require.NoError(t, err)
			assert.Equal(t, tt.want, sel.Matches(tt.labels))
		})
	}
}

func TestSelectorRequirements(t *testing.T) {
	sel, err := ParseSelector("b notin (y,x,y), a, !c")
	require.NoError(t, err)
	reqs := sel.Requirements()
	require.Len(t, reqs, 3)

	assert.Equal(t, "a", reqs[0].Key())
	assert.Equal(t, OpExists, reqs[0].Operator())
	assert.Empty(t, reqs[0].Values())

	assert.Equal(t, "b", reqs[1].Key())
	assert.Equal(t, OpNotIn, reqs[1].Operator())
	assert.Equal(t, []string{"x", "y"}, reqs[1].Values())

	assert.Equal(t, "c", reqs[2].Key())
	assert.Equal(t, OpDoesNotExist, reqs[2].Operator())

	// The returned slices are copies: changing them leaves the selector alone.
	reqs[1].Values()[0] = "changed"
	reqs[0] = reqs[2]
	assert.Equal(t, "a,b notin (x,y),!c", sel.String())
}

func TestNewRequirement(t *testing.T) {
	tests := []struct {
		name    string
		key     string
		op      Operator
		values  []string
		want    string
		wantErr string
	}{
		{"in sorts and dedups", "env", OpIn, []string{"prod", "dev", "prod"}, "env in (dev,prod)", ""},
		{"equals", "env", OpEquals, []string{"prod"}, "env=prod", ""},
		{"exists", "env", OpExists, nil, "env", ""},
		{"does not exist", "env", OpDoesNotExist, nil, "!env", ""},
		{"greater than", "n", OpGreaterThan, []string{"5"}, "n>5", ""},
		{"in without values", "env", OpIn, nil, "", `operator "in" needs at least one value`},
		{"notin without values", "env", OpNotIn, []string{}, "", `operator "notin" needs at least one value`},
		{"equals with two values", "env", OpEquals, []string{"a", "b"}, "", `operator "=" needs exactly one value, got 2`},
		{"not equals without value", "env", OpNotEquals, nil, "", `operator "!=" needs exactly one value, got 0`},
		{"exists with a value", "env", OpExists, []string{"a"}, "", `operator "exists" takes no values, got 1`},
		{"lt with a word", "n", OpLessThan, []string{"five"}, "", `operator "lt" needs an integer value, got "five"`},
		{"unknown operator", "env", Operator("~"), []string{"a"}, "", `unknown operator "~"`},
		{"bad key", "a b", OpExists, nil, "", `invalid label key "a b": name part must consist of letters, digits, '-', '_' or '.', and must start and end with a letter or digit`},
		{"bad value", "env", OpIn, []string{"ok", "not ok"}, "", `invalid label value "not ok": must be empty or consist of letters, digits, '-', '_' or '.', and must start and end with a letter or digit`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := NewRequirement(tt.key, tt.op, tt.values)
			if tt.wantErr != "" {
				assert.EqualError(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, r.String())
		})
	}
}

func TestNewRequirementCopiesValues(t *testing.T) {
	values := []string{"b", "a"}
	r, err := NewRequirement("k", OpIn, values)
	require.NoError(t, err)
	values[0] = "changed"
	assert.Equal(t, []string{"a", "b"}, r.Values())
	assert.Equal(t, []string{"changed", "a"}, values, "the caller's slice is not sorted in place")
}

func TestSelectorAdd(t *testing.T) {
	base, err := ParseSelector("b=2")
	require.NoError(t, err)
	a, err := NewRequirement("a", OpIn, []string{"1"})
	require.NoError(t, err)
	c, err := NewRequirement("c", OpDoesNotExist, nil)
	require.NoError(t, err)

	got := base.Add(c, a)
	assert.Equal(t, "a in (1),b=2,!c", got.String())
	assert.Equal(t, "b=2", base.String(), "Add leaves the receiver unchanged")
	assert.True(t, got.Matches(map[string]string{"a": "1", "b": "2"}))

	var everything Selector
	assert.True(t, everything.Empty())
	assert.Equal(t, "a in (1)", everything.Add(a).String())
}
