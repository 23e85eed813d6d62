package api

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseFieldSelector(t *testing.T) {
	tests := []struct {
		in   string
		want string
		reqs []FieldRequirement
	}{
		{"", "", nil},
		{"metadata.name=web", "metadata.name=web", []FieldRequirement{{"metadata.name", OpEquals, "web"}}},
		{"metadata.name==web", "metadata.name=web", []FieldRequirement{{"metadata.name", OpEquals, "web"}}},
		{"status.phase!=Running", "status.phase!=Running", []FieldRequirement{{"status.phase", OpNotEquals, "Running"}}},
		{"spec.nodeName=", "spec.nodeName=", []FieldRequirement{{"spec.nodeName", OpEquals, ""}}},
		{"status.phase!=Failed,metadata.namespace=default,status.phase!=Succeeded",
			"metadata.namespace=default,status.phase!=Failed,status.phase!=Succeeded",
			[]FieldRequirement{
				{"metadata.namespace", OpEquals, "default"},
				{"status.phase", OpNotEquals, "Failed"},
				{"status.phase", OpNotEquals, "Succeeded"},
			}},
		{"a=b,,c=d", "a=b,c=d", []FieldRequirement{{"a", OpEquals, "b"}, {"c", OpEquals, "d"}}},
		{`metadata.name=a\,b\=c\\d`, `metadata.name=a\,b\=c\\d`, []FieldRequirement{{"metadata.name", OpEquals, `a,b=c\d`}}},
		{"a=!b", "a=!b", []FieldRequirement{{"a", OpEquals, "!b"}}},
		// As in Kubernetes, a backslash does not protect an operator: the term splits at the
		// first "=", so the field is `a\`.
		{`a\=b`, `a\=b`, []FieldRequirement{{`a\`, OpEquals, "b"}}},
		// As in Kubernetes, nothing is trimmed: the apiserver rejects the field " a ".
		{" a = b", " a = b", []FieldRequirement{{" a ", OpEquals, " b"}}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			sel, err := ParseFieldSelector(tt.in)
			require.NoError(t, err)
			assert.Equal(t, tt.want, sel.String())
			assert.Equal(t, tt.reqs, sel.Requirements())
			assert.Equal(t, len(tt.reqs) == 0, sel.Empty())

			again, err := ParseFieldSelector(sel.String())
			require.NoError(t, err)
			assert.Equal(t, sel, again)
		})
	}
}

func TestParseFieldSelectorErrors(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{"abc", `invalid field selector: term "abc" at position 0 has no operator, expected: '=', '==' or '!='`},
		{"a=b,status.phase", `invalid field selector: term "status.phase" at position 4 has no operator, expected: '=', '==' or '!='`},
		{"=x", `invalid field selector: term "=x" at position 0 has no field name before "="`},
		{"a=b,!=x", `invalid field selector: term "!=x" at position 4 has no field name before "!="`},
		{"a=b=c", `invalid field selector: term "a=b=c" at position 0: value "b=c" has an unescaped '='; write '\='`},
		{`a=b\`, `invalid field selector: term "a=b\\" at position 0: value "b\\" ends in a lone '\'`},
		{`a=b\x`, `invalid field selector: term "a=b\\x" at position 0: value "b\\x" has invalid escape sequence '\x'; only '\\', '\,' and '\=' are allowed`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			sel, err := ParseFieldSelector(tt.in)
			assert.EqualError(t, err, tt.want)
			assert.True(t, sel.Empty())
		})
	}
}

func TestFieldSelectorMatches(t *testing.T) {
	fields := map[string]string{"metadata.name": "web", "status.phase": "Running", "spec.nodeName": ""}
	tests := []struct {
		selector string
		want     bool
	}{
		{"", true},
		{"metadata.name=web", true},
		{"metadata.name=db", false},
		{"metadata.name!=db", true},
		{"metadata.name!=web", false},
		{"spec.nodeName=", true},
		{"spec.nodeName!=", false},
		{"missing=", true},
		{"missing!=x", true},
		{"missing=x", false},
		{"metadata.name=web,status.phase!=Failed,status.phase!=Succeeded", true},
		{"metadata.name=web,status.phase=Pending", false},
	}
	for _, tt := range tests {
		t.Run(tt.selector, func(t *testing.T) {
			sel, err := ParseFieldSelector(tt.selector)
			require.NoError(t, err)
			assert.Equal(t, tt.want, sel.Matches(fields))
		})
	}
}

func TestFieldSelectorRequirementsAreCopies(t *testing.T) {
	sel, err := ParseFieldSelector("a=b")
	require.NoError(t, err)
	sel.Requirements()[0].Value = "changed"
	assert.Equal(t, "a=b", sel.String())
}
