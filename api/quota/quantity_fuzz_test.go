package quota

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// FuzzParseFormat: any quantity Parse accepts formats to text that parses
// back to the same value, or to one rounded up to the next nano.
func FuzzParseFormat(f *testing.F) {
	for _, s := range []string{"0", "500m", "1.5Gi", "2e3", "1Ki", "123456789n", "-3", "1E", "+.5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, ok := Parse(s)
		if !ok {
			return
		}
		out := Format(r, s)
		back, ok := Parse(out)
		require.True(t, ok, "Format(%q) = %q does not parse", s, out)
		assert.GreaterOrEqual(t, back.Cmp(r), 0, "Format(%q) = %q is below the value", s, out)
	})
}
