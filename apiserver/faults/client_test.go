package faults_test

import (
	"fmt"
	"net/http"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/apiserver/faults"
)

// TestClientOf names clients as their streams and the trace do: client-go's
// default User-Agent loses the binary's name and the platform; any other
// is kept.
func TestClientOf(t *testing.T) {
	for _, tc := range []struct {
		name, agent, want string
	}{
		{"go test's binary", "ctrlruntime.test/v0.0.0 (linux/amd64) kubernetes/$Format", "client-go/v0.0.0 kubernetes/$Format"},
		{"renamed binary", "ctrl.test/v0.0.0 (linux/amd64) kubernetes/$Format", "client-go/v0.0.0 kubernetes/$Format"},
		{"another platform", "ctrlruntime.test/v0.0.0 (darwin/arm64) kubernetes/$Format", "client-go/v0.0.0 kubernetes/$Format"},
		{"a component's suffix", "kube-controller-manager/v1.32.0 (linux/amd64) kubernetes/70d3cc9/replicaset-controller",
			"client-go/v1.32.0 kubernetes/70d3cc9/replicaset-controller"},
		{"kubectl", "kubectl/v1.32.0 (linux/amd64) kubernetes/70d3cc9", "client-go/v1.32.0 kubernetes/70d3cc9"},
		{"set by the test", "my-controller", "my-controller"},
		{"set by the test, spaced", "  key-counter  ", "key-counter"},
		{"almost client-go's", "x/v1 (linux) kubernetes/abc", "x/v1 (linux) kubernetes/abc"},
		{"Go's default", "Go-http-client/1.1", "Go-http-client/1.1"},
		{"empty", "", "unknown"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, faults.ClientOf(tc.agent))
		})
	}
}

// TestDrawsDoNotDependOnTheBinary sends one sequence of requests twice with
// client-go's default User-Agent, as two builds of one test would send it:
// named ctrl.test on linux/amd64, then controller.test on darwin/arm64. The
// same faults strike the same requests, and the traces are equal byte for
// byte.
func TestDrawsDoNotDependOnTheBinary(t *testing.T) {
	run := func(agent string) string {
		var trace string
		synctest.Test(t, func(t *testing.T) {
			p := newPlane(t, faults.SetOf(faults.Throttle, faults.Error, faults.Conflict, faults.Stale), 0.3, 11)
			p.createPods(t, 3)
			for i := range 30 {
				p.call(t, req{path: pods + "?resourceVersion=0&labelSelector=app%3Dweb", agent: agent})
				p.call(t, req{method: http.MethodPut, path: pods + "/p1", body: podJSON("p1", ""), agent: agent})
				p.call(t, req{method: http.MethodPost, path: pods, body: podJSON(fmt.Sprintf("q%d", i), ""), agent: agent})
			}
			trace = p.trace.String()
		})
		return trace
	}
	linux := run("ctrl.test/v0.0.0 (linux/amd64) kubernetes/$Format")
	darwin := run("controller.test/v0.0.0 (darwin/arm64) kubernetes/$Format")
	require.Contains(t, linux, `"fault":`, "rate 0.3 over 90 requests strikes")
	require.Contains(t, linux, `"selector":"app=web"`, "the trace shows the selector")
	assert.True(t, linux == darwin, "one seed, one trace, whatever the binary's name and platform")
}
