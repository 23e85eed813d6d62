package etcdtest

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// buildMiniplane builds the miniplane command into the test's temporary
// directory and returns its path.
func buildMiniplane(t *testing.T) string {
	t.Helper()
	binary := filepath.Join(t.TempDir(), "miniplane")
	build := exec.Command("go", "build", "-o", binary, "./cmd/miniplane")
	build.Dir = ".." // the main module
	out, err := build.CombinedOutput()
	require.NoError(t, err, "building miniplane: %s", out)
	return binary
}

// TestDemoOnEtcdRestartsAndLosesNothing runs `miniplane demo --etcd` at
// full speed over an embedded etcd: the story restarts the control plane's
// process before its rollout chapter, the new API server serves every
// object the old one did at the same resourceVersions, the narration goes
// on from the revision the old process handed out, and the rollout then
// runs on the new process. A second demo over the same etcd is refused.
func TestDemoOnEtcdRestartsAndLosesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("builds miniplane and runs its demo")
	}
	binary := buildMiniplane(t)
	etcd := startEtcd(t, "")
	var stdout, stderr bytes.Buffer
	demo := exec.Command(binary, "demo", "--pace=0", "--seed=7", "--color=never", "--etcd", etcd.URL)
	demo.Stdout, demo.Stderr = &stdout, &stderr
	require.NoError(t, demo.Run(), "stderr: %s\nstdout: %s", stderr.String(), stdout.String())
	out := stdout.String()
	for _, want := range []string{
		"The objects are kept in etcd (" + etcd.URL + ")",
		"6. Delete the ReplicationController",
		"7. Restart the control plane's process: etcd kept every object",
		"you (restart)",
		"8. Roll out a new version",
		"deployment shop is at revision 3",
		"restart: the new process read back all ",
	} {
		assert.Contains(t, out, want)
	}
	assert.Empty(t, stderr.String(), "no log lines unless -v")

	before := regexp.MustCompile(`Before: the API server serves (\d+) objects at revision (\d+)\.`).FindStringSubmatch(out)
	require.NotNil(t, before, out)
	after := regexp.MustCompile(`at revision (\d+) it serves (\d+) objects,\s+(\d+) lost, (\d+) at another resourceVersion; it starts at revision (\d+)\.`).FindStringSubmatch(out)
	require.NotNil(t, after, out)
	assert.Equal(t, before[2], after[1], "read back at the revision counted before")
	assert.Equal(t, before[1], after[2], "as many objects")
	assert.Equal(t, []string{"0", "0"}, after[3:5], "none lost or changed")
	stopped := regexp.MustCompile(`stopped the process at revision (\d+)`).FindStringSubmatch(out)
	require.NotNil(t, stopped)
	assert.Equal(t, stopped[1], after[5], "the new process starts where the old one stopped")
	assert.Contains(t, out, "serve-2_cm-", "the new process's controller managers lead")
	assert.Equal(t, 1, strings.Count(out, "7. Restart"))

	again := exec.Command(binary, "demo", "--pace=0", "--color=never", "--etcd", etcd.URL)
	msg, err := again.CombinedOutput()
	require.Error(t, err)
	assert.Contains(t, string(msg), "already holds")
}
