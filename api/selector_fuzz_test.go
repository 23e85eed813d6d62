package api

import (
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// errorPosition finds the byte offset an error message points at.
var errorPosition = regexp.MustCompile(`at position (\d+)`)

// requirePositionInRange checks that a parse error names a byte offset within the input.
func requirePositionInRange(t *testing.T, err error, input string) {
	t.Helper()
	m := errorPosition.FindStringSubmatch(err.Error())
	require.NotNil(t, m, "error %q names no position", err)
	pos, convErr := strconv.Atoi(m[1])
	require.NoError(t, convErr)
	require.LessOrEqual(t, pos, len(input), "error %q points past the input", err)
}

// FuzzParseSelector checks that the parser never panics, that every error points inside the
// input, and that a parsed selector's String() parses back to a selector with the same
// String() that matches the same label sets.
func FuzzParseSelector(f *testing.F) {
	for _, seed := range []string{
		"", " ", "a", "!a", "a=b", "a==b", "a!=b", "a in (x,y)", "a notin (x)", "a>1", "a<1",
		"a=b,c!=d,e in (f,g),!h,i", "app.kubernetes.io/name=web", "in in (in)", "notin notin (notin)",
		"a in ()", "a in (,)", "a in (b,)", "a=", "a==", "a!=", ",", "a,", "!", "!=", "a=b=c",
		"a in (x", "a/b/c=d", "A/b=c", "a b", " a  in  ( x , y ) ", "x>-1", "x>01", "k=v\x00",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, input string) {
		sel, err := ParseSelector(input)
		if err != nil {
			require.True(t, sel.Empty())
			requirePositionInRange(t, err, input)
			return
		}
		canonical := sel.String()
		again, err := ParseSelector(canonical)
		require.NoError(t, err, "String() %q of %q does not parse", canonical, input)
		require.Equal(t, canonical, again.String(), "String() is not canonical for %q", input)
		for _, labels := range labelSetsFor(sel) {
			require.Equal(t, sel.Matches(labels), again.Matches(labels), "%q and %q disagree on %v", input, canonical, labels)
		}
		for _, r := range sel.Requirements() {
			rebuilt, err := NewRequirement(r.Key(), r.Operator(), r.Values())
			require.NoError(t, err, "parsed requirement %q is not valid", r)
			require.Equal(t, r, rebuilt)
		}
	})
}

// labelSetsFor derives label sets that exercise a selector: none, each key alone with each
// of its values and a few others, and all keys at once.
func labelSetsFor(sel Selector) []map[string]string {
	sets := []map[string]string{nil, {}}
	all := map[string]string{}
	for _, r := range sel.Requirements() {
		for _, v := range append(r.Values(), "", "0", "7", "other") {
			sets = append(sets, map[string]string{r.Key(): v})
		}
		all[r.Key()] = ""
		if vs := r.Values(); len(vs) > 0 {
			all[r.Key()] = vs[0]
		}
	}
	return append(sets, all)
}

// FuzzParseFieldSelector checks that the field selector parser never panics, that errors
// point inside the input, and that String() parses back to an equal selector that matches
// the same field sets.
func FuzzParseFieldSelector(f *testing.F) {
	for _, seed := range []string{
		"", "a=b", "a==b", "a!=b", "a=b,c!=d", "spec.nodeName=", `a=b\,c`, `a=b\=c`, `a=b\\`, `a\,b=c`,
		"a=b=c", "abc", "=x", `a=b\`, `a=b\x`, ",,", "a!==b", " a = b ", `a\!=b`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, input string) {
		sel, err := ParseFieldSelector(input)
		if err != nil {
			require.True(t, sel.Empty())
			requirePositionInRange(t, err, input)
			return
		}
		canonical := sel.String()
		again, err := ParseFieldSelector(canonical)
		require.NoError(t, err, "String() %q of %q does not parse", canonical, input)
		require.Equal(t, sel, again, "%q and its String() %q differ", input, canonical)

		fieldSets := []map[string]string{nil}
		all := map[string]string{}
		for _, r := range sel.Requirements() {
			fieldSets = append(fieldSets, map[string]string{r.Field: r.Value}, map[string]string{r.Field: r.Value + "x"})
			all[r.Field] = r.Value
		}
		for _, fields := range append(fieldSets, all) {
			require.Equal(t, sel.Matches(fields), again.Matches(fields))
		}
	})
}
