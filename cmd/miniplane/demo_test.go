package main

import (
	"bytes"
	"io"
	"net/http"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDemoTellsEveryChapter runs the whole demo at full speed and checks
// that each chapter of the story happened, with the control plane's own
// reactions narrated, and that nothing was logged without -v.
func TestDemoTellsEveryChapter(t *testing.T) {
	if testing.Short() {
		t.Skip("the demo runs a live control plane for several seconds")
	}
	var stdout, stderr bytes.Buffer
	require.NoError(t, run([]string{"demo", "--pace=0", "--seed=7"}, &stdout, &stderr))
	out := stdout.String()
	for _, want := range []string{
		"1. Who runs the controllers?",
		"holds lease kube-controller-manager",
		"2. Declare what you want",
		"created replicationcontroller web",
		"replication-controller Created pod: web-",
		"expectations:",
		"scheduler              Successfully assigned default/web-",
		"is ready at 10.244.",
		"endpoints web: 3 ready",
		"3. Scale up to 5, then down to 2",
		"replication.PodsToDelete predicts:",
		"replication-controller Deleted pod: web-",
		"endpoints web: 2 ready",
		"4. Things break",
		"crashed the container of pod web-",
		"is not ready (restarts: 1)",
		"pulled the plug on node-",
		"failed: NodeLost",
		"5. The leading controller manager dies",
		"killed controller manager cm-",
		"From the crash to the new leader's first write:",
		"6. Delete the ReplicationController",
		"deleted replicationcontroller web (cascade: background)",
		"Summary (",
		"store revision",
	} {
		assert.Contains(t, out, want)
	}
	assert.NotContains(t, out, "\x1b[", "no colour when stdout is not a terminal")
	assert.Empty(t, stderr.String(), "no log lines unless -v")
	assert.Equal(t, 2, strings.Count(out, "holds lease kube-controller-manager"), "one leader, then one after the failover")
}

// TestDemoKeepRunningServesUntilSignalled: with --keep-running the demo
// prints a kubectl line after its story, answers on that address, and
// stops cleanly on SIGTERM.
func TestDemoKeepRunningServesUntilSignalled(t *testing.T) {
	if testing.Short() {
		t.Skip("the demo runs a live control plane for several seconds")
	}
	var stdout syncBuffer
	done := make(chan error, 1)
	go func() { done <- run([]string{"demo", "--pace=0", "--keep-running"}, &stdout, io.Discard) }()
	serving := regexp.MustCompile(`kubectl --server (http://127\.0\.0\.1:\d+) get pods`)
	eventually(t, "the demo says it is still serving", func() bool { return serving.MatchString(stdout.String()) })
	url := serving.FindStringSubmatch(stdout.String())[1]
	resp, err := http.Get(url + "/api/v1/namespaces/default/services")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)

	require.NoError(t, syscall.Kill(syscall.Getpid(), syscall.SIGTERM))
	select {
	case err := <-done:
		assert.NoError(t, err)
	case <-time.After(20 * time.Second):
		t.Fatal("the demo did not stop within 20s of SIGTERM")
	}
}
