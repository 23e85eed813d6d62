package podenv

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestExpand ports the cases of Kubernetes' expansion tests (third_party/
// forked/golang/expansion, TestMapReference and TestMapping).
func TestExpand(t *testing.T) {
	vars := newOrdered()
	for k, v := range map[string]string{"VAR_A": "A", "VAR_B": "B", "VAR_C": "C", "VAR_REF": "$(VAR_A)", "VAR_EMPTY": ""} {
		vars.set(k, v)
	}
	mapping := mappingOf(vars)
	for _, tc := range []struct{ in, want string }{
		{"$(VAR_A)", "A"},
		{"___$(VAR_B)___", "___B___"},
		{"$(VAR_C)$(VAR_A)", "CA"},
		{"$(VAR_A)-$(VAR_A)", "A-A"},
		{"$(VAR_A)-1", "A-1"},
		{"$(VAR_A)_$(VAR_B)_$(VAR_C)", "A_B_C"},
		{"$$(VAR_B)_$(VAR_A)", "$(VAR_B)_A"},
		{"$$(VAR_A)$$(VAR_B)", "$(VAR_A)$(VAR_B)"},
		{"f000-$$VAR_A", "f000-$VAR_A"},
		{"foo\\$(VAR_C)bar", "foo\\Cbar"},
		{"foo\\\\$(VAR_C)bar", "foo\\\\Cbar"},
		{"$(VAR_A)$(VAR_A)$(VAR_A)", "AAA"},
		{"$(VAR_REF)", "$(VAR_A)"},
		{"$(VAR_EMPTY)", ""},
		{"$(VAR_DNE)", "$(VAR_DNE)"},
		{"$(VAR_A", "$(VAR_A"},
		{"$(VAR_A$(VAR_B)", "$(VAR_A$(VAR_B)"},
		{"$(VAR_A$(VAR_B))", "$(VAR_A$(VAR_B))"},
		{"$$", "$"},
		{"$$$", "$$"},
		{"$$$$", "$$"},
		{"$", "$"},
		{"$VAR_A", "$VAR_A"},
		{"$()", "$()"},
		{"$($(VAR_A))", "$($(VAR_A))"},
		{"$(VAR_A)$", "A$"},
		{"no reference", "no reference"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			assert.Equal(t, tc.want, Expand(tc.in, mapping))
		})
	}
}

func FuzzExpand(f *testing.F) {
	for _, s := range []string{"$(VAR_A)", "$$(x)", "$(", "a$", "$($(VAR_A))"} {
		f.Add(s)
	}
	vars := newOrdered()
	vars.set("VAR_A", "A")
	f.Fuzz(func(t *testing.T, s string) {
		out := Expand(s, mappingOf(vars))
		if len(out) > len(s) {
			t.Fatalf("%q expanded to %q: only VAR_A (one byte) can replace a reference", s, out)
		}
		none := Expand(s, func(string) (string, bool) { return "", false })
		if len(none) > len(s) {
			t.Fatalf("%q grew to %q with nothing to expand", s, none)
		}
	})
}
