package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fastConformance are [Conformance] tests that passed against serve in
// run-conformance.sh's runs (interop/realk8s/CONFORMANCE.md) within seconds each: what
// TestConformanceFastSubset runs. They need no CRD and no webhook.
var fastConformance = []string{
	"[sig-api-machinery] server version should find the server version [Conformance]",
	"[sig-api-machinery] Servers with support for Table transformation should return a 406 for a backend which does not implement metadata [Conformance]",
	"[sig-api-machinery] FieldValidation should detect unknown and duplicate fields of a typed object [Conformance]",
	"[sig-api-machinery] FieldValidation should detect unknown metadata fields of a typed object [Conformance]",
	"[sig-api-machinery] Discovery should validate PreferredVersion for each APIGroup [Conformance]",
	"[sig-api-machinery] Watchers should be able to start watching from a specific resource version [Conformance]",
	"[sig-api-machinery] Watchers should be able to restart watching from the last resource version observed by the previous watch [Conformance]",
	"[sig-api-machinery] Watchers should receive events on concurrent watches in same order [Conformance]",
	"[sig-api-machinery] Namespaces [Serial] should patch a Namespace [Conformance]",
	"[sig-api-machinery] Namespaces [Serial] should apply an update to a Namespace [Conformance]",
	"[sig-api-machinery] Garbage collector should delete RS created by deployment when not orphaning [Conformance]",
	"[sig-api-machinery] Garbage collector should orphan RS created by deployment when deleteOptions.PropagationPolicy is Orphan [Conformance]",
}

// e2eBinary is the e2e.test run-conformance.sh builds: $E2E_BIN, or the one
// in its build directory.
func e2eBinary() string {
	if bin := os.Getenv("E2E_BIN"); bin != "" {
		return bin
	}
	cache := os.Getenv("XDG_CACHE_HOME")
	if cache == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		cache = filepath.Join(home, ".cache")
	}
	return filepath.Join(cache, "miniplane-e2e", "e2e.test")
}

// TestConformanceFastSubset runs fastConformance with Kubernetes' own
// e2e.test (v1.32.13, built by run-conformance.sh) against `miniplane
// serve`, and requires every one of them to pass. It is skipped when no
// e2e.test was built, and under -short: the tests poll in real time, and
// the run takes about a minute.
func TestConformanceFastSubset(t *testing.T) {
	if testing.Short() {
		t.Skip("runs Kubernetes' e2e.test in real time")
	}
	bin := e2eBinary()
	if _, err := os.Stat(bin); err != nil {
		t.Skipf("no e2e.test at %s: build it with interop/realk8s/run-conformance.sh --build", bin)
	}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()

	miniplane := filepath.Join(dir, "miniplane")
	build := exec.CommandContext(ctx, "go", "build", "-o", miniplane, "./cmd/miniplane")
	build.Dir = "../../.." // the main module
	out, err := build.CombinedOutput()
	require.NoError(t, err, "building miniplane: %s", out)

	url := startServe(ctx, t, miniplane, dir)
	kubeconfig := filepath.Join(dir, "kubeconfig")
	require.NoError(t, os.WriteFile(kubeconfig, []byte(fmt.Sprintf(`apiVersion: v1
kind: Config
clusters: [{name: miniplane, cluster: {server: %q}}]
users: [{name: e2e, user: {}}]
contexts: [{name: miniplane, context: {cluster: miniplane, user: e2e}}]
current-context: miniplane
`, url)), 0o644))

	focus := make([]string, len(fastConformance))
	for i, name := range fastConformance {
		focus[i] = regexp.QuoteMeta(name)
	}
	report := filepath.Join(dir, "report.json")
	e2e := exec.CommandContext(ctx, bin, "--provider=skeleton", "--kubeconfig="+kubeconfig,
		"--ginkgo.label-filter=Conformance", "--ginkgo.focus="+strings.Join(focus, "|"),
		"--ginkgo.timeout=8m", "--ginkgo.no-color", "--ginkgo.json-report="+report, "--report-dir="+dir)
	log, runErr := e2e.CombinedOutput()
	specs, err := readSpecs(report)
	require.NoError(t, err, "e2e.test left no report (%v); its output's end:\n%s", runErr, tail(log, 3000))

	states := map[string]string{}
	for _, s := range specs {
		if s.State != "skipped" {
			states[s.fullText()] = s.State + " " + firstLine(s.Failure.Message)
		}
	}
	for _, name := range fastConformance {
		assert.Equal(t, "passed ", states[name], name)
	}
	if t.Failed() {
		t.Logf("e2e.test's output's end:\n%s", tail(log, 3000))
	}
}

// startServe starts `miniplane serve` on a port the kernel picks, with its
// controllers and three simulated nodes, and returns its URL once it says
// it is ready; the test's end stops it.
func startServe(ctx context.Context, t *testing.T, miniplane, dir string) string {
	t.Helper()
	serve := exec.CommandContext(ctx, miniplane, "serve", "--addr=127.0.0.1:0", "--nodes=3",
		"--kubeconfig="+filepath.Join(dir, "serve-kubeconfig"))
	stdout, err := serve.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, serve.Start())
	t.Cleanup(func() {
		_ = serve.Process.Kill()
		_ = serve.Wait()
	})
	urlLine := regexp.MustCompile(`serving the Kubernetes API on (http://\S+)`)
	var url string
	lines := bufio.NewScanner(stdout)
	for lines.Scan() {
		if m := urlLine.FindStringSubmatch(lines.Text()); m != nil {
			url = m[1]
		}
		if strings.HasPrefix(lines.Text(), "ready: ") {
			break
		}
	}
	require.NotEmpty(t, url, "serve printed no URL before its ready line")
	go func() { // keep draining serve's output so that it never blocks on a full pipe
		for lines.Scan() {
		}
	}()
	return url
}

// tail is the last n bytes of b.
func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}
