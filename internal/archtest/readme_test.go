package archtest

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestReadmeConformanceFigure: the figure the README gives for Kubernetes'
// conformance suite is the one interop/realk8s/CONFORMANCE.md, written by
// run-conformance.sh from its last runs, says.
func TestReadmeConformanceFigure(t *testing.T) {
	root := filepath.Join("..", "..")
	table, err := os.ReadFile(filepath.Join(root, filepath.FromSlash("interop/realk8s/CONFORMANCE.md")))
	require.NoError(t, err)
	m := regexp.MustCompile(`(?m)^(\d+) of (\d+) \[Conformance\] tests pass; (\d+) cannot pass`).FindSubmatch(table)
	require.NotNil(t, m, "the summary line of interop/realk8s/CONFORMANCE.md")
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	require.NoError(t, err)
	want := string(m[1]) + " of " + string(m[2]) + " `[Conformance]` tests pass; " + string(m[3]) + " cannot"
	require.Contains(t, string(readme), want, "README's conformance figure, as interop/realk8s/CONFORMANCE.md has it")
}
