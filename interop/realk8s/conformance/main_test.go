package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ginkgoReport writes a Ginkgo JSON report of the given specs, as
// e2e.test's --ginkgo.json-report does, and returns its path.
func ginkgoReport(t *testing.T, name string, specs []map[string]any) string {
	t.Helper()
	data, err := json.Marshal([]map[string]any{{"SuiteDescription": "Kubernetes e2e suite", "SpecReports": specs}})
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, data, 0o644))
	return path
}

func it(containers []string, leaf, state string, runTime time.Duration, failure string) map[string]any {
	return map[string]any{
		"ContainerHierarchyTexts": containers,
		"LeafNodeType":            "It",
		"LeafNodeText":            leaf,
		"LeafNodeLocation":        map[string]any{"FileName": "/root/go/pkg/mod/k8s.io/kubernetes@v1.32.13/test/e2e/apps/job.go", "LineNumber": 42},
		"State":                   state,
		"RunTime":                 int64(runTime),
		"Failure":                 map[string]any{"Message": failure},
	}
}

const (
	jobDelete = "[sig-apps] Job should delete a job [Conformance]"
	jobStatus = "[sig-apps] Job should apply changes to a job status [Conformance]"
	webhook   = "[sig-api-machinery] AdmissionWebhook should mutate pod [Conformance]"
	version   = "[sig-api-machinery] server version should find the server version [Conformance]"
)

func TestRunRecordsAReportAndWritesTheTable(t *testing.T) {
	list := ginkgoReport(t, "list.json", []map[string]any{
		{"LeafNodeType": "SynchronizedBeforeSuite", "State": "passed"},
		it([]string{"[sig-apps] Job"}, "should delete a job [Conformance]", "passed", 0, ""),
		it([]string{"[sig-apps] Job"}, "should apply changes to a job status [Conformance]", "passed", 0, ""),
		it([]string{"[sig-api-machinery] AdmissionWebhook"}, "should mutate pod [Conformance]", "passed", 0, ""),
		it([]string{"[sig-api-machinery] server version"}, "should find the server version [Conformance]", "passed", 0, ""),
		it([]string{"[sig-apps] Job"}, "should not be listed", "passed", 0, ""),
	})
	report := ginkgoReport(t, "run.json", []map[string]any{
		it([]string{"[sig-apps] Job"}, "should delete a job [Conformance]", "passed", 12*time.Second, ""),
		it([]string{"[sig-apps] Job"}, "should apply changes to a job status [Conformance]", "failed", 61*time.Second, "\n\tjobs.batch \"x\" not found\nmore"),
		it([]string{"[sig-api-machinery] AdmissionWebhook"}, "should mutate pod [Conformance]", "timedout", 300*time.Second, "timed out"),
		it([]string{"[sig-api-machinery] server version"}, "should find the server version [Conformance]", "skipped", 0, ""),
	})
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, notesFile), []byte(
		"# hand-written\n"+webhook+"\tcannot\truns a webhook server in a pod (apimachinery/webhook.go:100)\n"), 0o644))

	var out strings.Builder
	now := time.Date(2026, 11, 29, 7, 0, 0, 0, time.UTC)
	require.NoError(t, run([]string{"-list", list, "-report", report, "-dir", dir, "-table", filepath.Join(dir, "table"), "-focus", "sig-apps", "-wall", "400"}, &out, now))

	assert.Equal(t, `FAIL  300s `+webhook+`
           runs a webhook server in a pod (apimachinery/webhook.go:100)
FAIL   61s `+jobStatus+`
           jobs.batch "x" not found
PASS   12s `+jobDelete+`
summary: 1 passed, 2 failed, 0 skipped
`, out.String(), "a line per test run, the spec the focus left out not among them")

	results, err := readResults(filepath.Join(dir, resultsFile))
	require.NoError(t, err)
	assert.Equal(t, result{Name: jobStatus, State: "failed", Seconds: 61, Date: "2026-11-29", Message: `jobs.batch "x" not found`}, results[jobStatus])
	assert.NotContains(t, results, version, "a spec the focus skipped is no result")

	md, err := os.ReadFile(filepath.Join(dir, "table"))
	require.NoError(t, err)
	for _, want := range []string{
		"1 of 4 [Conformance] tests pass; 1 cannot pass without a container runtime or a pod network; 1 fail; 1 not run.",
		"| sig-api-machinery | 2 | 0 | 0 | 1 | 1 |",
		"| sig-apps | 2 | 1 | 1 | 0 | 0 |",
		"| 2026-11-29T07:00:00Z | `sig-apps` |  | 1 | 2 | 0 | 400s |",
		"| Job should apply changes to a job status <sub>test/e2e/apps/job.go:42</sub> | failed | 61s | failed: jobs.batch \"x\" not found |",
		"| AdmissionWebhook should mutate pod <sub>test/e2e/apps/job.go:42</sub> | cannot pass | 300s | runs a webhook server in a pod (apimachinery/webhook.go:100) |",
		"| server version should find the server version <sub>test/e2e/apps/job.go:42</sub> | not run |  |  |",
	} {
		assert.Contains(t, string(md), want)
	}
	assert.NotContains(t, string(md), "should not be listed", "only [Conformance] tests are in the table")

	// A second run of one test replaces only its result and adds a run.
	again := ginkgoReport(t, "again.json", []map[string]any{
		it([]string{"[sig-apps] Job"}, "should apply changes to a job status [Conformance]", "passed", 3*time.Second, ""),
	})
	out.Reset()
	require.NoError(t, run([]string{"-list", list, "-report", again, "-dir", dir, "-table", filepath.Join(dir, "table"), "-wall", "20"}, &out, now))
	results, err = readResults(filepath.Join(dir, resultsFile))
	require.NoError(t, err)
	assert.Equal(t, "passed", results[jobStatus].State)
	assert.Equal(t, "passed", results[jobDelete].State, "the other results are kept")
	runs, err := readRuns(filepath.Join(dir, runsFile))
	require.NoError(t, err)
	assert.Len(t, runs, 2)
}

func TestRunWarnsAboutNotesThatDoNotHold(t *testing.T) {
	list := ginkgoReport(t, "list.json", []map[string]any{
		it([]string{"[sig-apps] Job"}, "should delete a job [Conformance]", "passed", 0, ""),
	})
	report := ginkgoReport(t, "run.json", []map[string]any{
		it([]string{"[sig-apps] Job"}, "should delete a job [Conformance]", "passed", time.Second, ""),
	})
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, notesFile), []byte(
		jobDelete+"\tcannot\tneeds exec\n[sig-apps] Gone [Conformance]\tcause\tx\n"), 0o644))
	var out strings.Builder
	require.NoError(t, run([]string{"-list", list, "-report", report, "-dir", dir, "-table", filepath.Join(dir, "table")}, &out, time.Unix(0, 0)))
	assert.Contains(t, out.String(), "warning: conformance-notes.tsv says this test cannot pass, but it passed: "+jobDelete)
	assert.Contains(t, out.String(), "warning: conformance-notes.tsv names a test the suite does not have: [sig-apps] Gone [Conformance]")
}

func TestReadNotesRefusesAnUnknownKind(t *testing.T) {
	for name, tc := range map[string]struct {
		text, err string
	}{
		"unknown kind":   {text: "a\tmaybe\twhy\n", err: `the second field must be cannot or cause, got "maybe"`},
		"missing fields": {text: "a\tcannot\n", err: "want 3 tab-separated fields, got 2"},
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), notesFile)
			require.NoError(t, os.WriteFile(path, []byte(tc.text), 0o644))
			_, err := readNotes(path)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.err)
		})
	}
}
