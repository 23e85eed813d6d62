package nodesim

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/controllers/nodesim/container"
)

// TestExecTogglesHttpdReadiness is the StatefulSet conformance tests'
// cycle (test/e2e/apps/statefulset.go's breakPodHTTPProbe and
// restorePodHTTPProbe): httpd with its own command and a readinessProbe
// of GET /index.html every second, failureThreshold 1. An exec'd mv of
// index.html to /tmp makes the probe's answer a 404 and the pod unready at
// its next period; moving it back makes it ready again; a restart of the
// container brings back the image's file.
func TestExecTogglesHttpdReadiness(t *testing.T) {
	const httpd = "registry.k8s.io/e2e-test-images/httpd:2.4.38-4"
	e := lifeEnv(t)
	e.CreatePod("ss-0", func(p *api.Pod) {
		p.Spec.Containers[0].Image = httpd
		p.Spec.Containers[0].ReadinessProbe = &api.Probe{ProbeHandler: api.ProbeHandler{HTTPGet: &api.HTTPGetAction{Path: "/index.html", Port: api.FromInt(80)}},
			PeriodSeconds: 1, SuccessThreshold: 1, FailureThreshold: 1}
	})
	e.settle()
	e.advance(time.Second)
	require.True(t, api.IsPodReady(e.Pod("ss-0")), "index.html answers 200")
	exec := func(script string) string {
		res, err := e.c.PodExec(e.Pod("ss-0"), "app", []string{"/bin/sh", "-x", "-c", script})
		require.NoError(t, err)
		require.Equal(t, int32(0), res.ExitCode, res.Stderr)
		return res.Stdout
	}

	out := exec("mv -v /usr/local/apache2/htdocs/index.html /tmp/ || true")
	assert.Equal(t, "'/usr/local/apache2/htdocs/index.html' -> '/tmp/index.html'\n", out)
	resp, err := e.c.PodHTTP(e.Pod("ss-0"), 80, container.Request{Method: "GET", Path: "/index.html"})
	require.NoError(t, err)
	assert.Equal(t, 404, resp.Code, "its server, through the proxy, answers from its files now")
	e.settle()
	assert.True(t, api.IsPodReady(e.Pod("ss-0")), "not before the probe's next period")
	e.advance(time.Second)
	assert.False(t, api.IsPodReady(e.Pod("ss-0")), "the probe's 404 makes it unready")
	assert.Contains(t, e.events("ss-0"), "kubelet/node-0 Unhealthy: Readiness probe failed: HTTP probe failed with statuscode: 404")
	assert.Contains(t, exec("mv -v /usr/local/apache2/htdocs/index.html /tmp/ || true"), "No such file or directory", "moved away already: a later exec sees it")
	e.advance(5 * time.Second)
	assert.False(t, api.IsPodReady(e.Pod("ss-0")), "it stays unready")

	out = exec("mv -v /tmp/index.html /usr/local/apache2/htdocs/ || true")
	assert.Equal(t, "'/tmp/index.html' -> '/usr/local/apache2/htdocs/index.html'\n", out)
	resp, err = e.c.PodHTTP(e.Pod("ss-0"), 80, container.Request{Method: "GET", Path: "/"})
	require.NoError(t, err)
	assert.Equal(t, "<html><body><h1>It works!</h1></body></html>\n", string(resp.Body))
	e.advance(time.Second)
	assert.True(t, api.IsPodReady(e.Pod("ss-0")), "back in place: ready again")

	exec("mv /usr/local/apache2/htdocs/index.html /tmp/")
	e.advance(time.Second)
	require.False(t, api.IsPodReady(e.Pod("ss-0")))
	require.NoError(t, e.c.CrashPod(e.ctx, "default", "ss-0"))
	for range 3 {
		e.advance(10 * time.Second) // past the restart back-off
	}
	p := e.Pod("ss-0")
	require.Equal(t, int32(1), status0(p).RestartCount)
	assert.True(t, api.IsPodReady(p), "a new run starts from the image's files")
}
