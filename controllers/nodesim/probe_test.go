package nodesim

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/controllers/nodesim/container"
)

func execProbe(initial, period, failure int32, argv ...string) *api.Probe {
	return &api.Probe{ProbeHandler: api.ProbeHandler{Exec: &api.ExecAction{Command: argv}},
		InitialDelaySeconds: initial, PeriodSeconds: period, SuccessThreshold: 1, FailureThreshold: failure, TimeoutSeconds: 1}
}

// TestRunProbes is the probe arithmetic: when each probe runs, and what
// its thresholds make of the results.
func TestRunProbes(t *testing.T) {
	tutorial := container.Plan([]string{"/bin/sh", "-c", "touch /tmp/healthy; sleep 30; rm -f /tmp/healthy; sleep 600"}, nil)
	never := container.Plan([]string{"sleep", "infinity"}, nil)
	sec := func(n int) time.Time { return epoch.Add(time.Duration(n) * time.Second) }
	tests := []struct {
		name     string
		ct       api.Container
		run      container.Run
		now      time.Time
		started  bool
		ready    bool
		killAt   time.Time
		killedBy string
		failures int
		next     time.Time
	}{
		{"liveness passes while the file is there", api.Container{LivenessProbe: execProbe(5, 5, 3, "cat", "/tmp/healthy")},
			tutorial, sec(29), true, true, time.Time{}, "", 0, sec(30)},
		{"liveness fails three times, then kills", api.Container{LivenessProbe: execProbe(5, 5, 3, "cat", "/tmp/healthy")},
			tutorial, sec(60), true, true, sec(40), "liveness", 3, time.Time{}},
		{"two failures are not enough", api.Container{LivenessProbe: execProbe(5, 5, 3, "cat", "/tmp/healthy")},
			tutorial, sec(35), true, true, time.Time{}, "", 2, sec(40)},
		{"readiness waits for its initial delay", api.Container{ReadinessProbe: execProbe(10, 10, 3, "true")},
			never, sec(9), true, false, time.Time{}, "", 0, sec(10)},
		{"readiness passes", api.Container{ReadinessProbe: execProbe(10, 10, 3, "true")},
			never, sec(10), true, true, time.Time{}, "", 0, sec(20)},
		{"readiness fails to an undeclared port", api.Container{ReadinessProbe: &api.Probe{
			ProbeHandler: api.ProbeHandler{TCPSocket: &api.TCPSocketAction{Port: api.FromInt(8080)}}, PeriodSeconds: 10, FailureThreshold: 3, SuccessThreshold: 1}},
			never, sec(25), true, false, time.Time{}, "", 3, sec(30)},
		{"a named port that is declared passes", api.Container{Ports: []api.ContainerPort{{Name: "http", ContainerPort: 80}},
			ReadinessProbe: &api.Probe{ProbeHandler: api.ProbeHandler{HTTPGet: &api.HTTPGetAction{Path: "/", Port: api.FromString("http")}}, PeriodSeconds: 10}},
			never, sec(0), true, true, time.Time{}, "", 0, sec(10)},
		{"agnhost liveness serves 8080", api.Container{Image: "registry.k8s.io/e2e-test-images/agnhost:2.53", Args: []string{"liveness"},
			LivenessProbe: &api.Probe{ProbeHandler: api.ProbeHandler{TCPSocket: &api.TCPSocketAction{Port: api.FromInt(8080)}}, InitialDelaySeconds: 15, PeriodSeconds: 10, FailureThreshold: 1}},
			never, sec(60), true, true, time.Time{}, "", 0, sec(65)},
		{"grpc on the health server's port", api.Container{Image: "registry.k8s.io/e2e-test-images/agnhost:2.53", Command: []string{"/agnhost", "grpc-health-checking"},
			LivenessProbe: &api.Probe{ProbeHandler: api.ProbeHandler{GRPC: &api.GRPCAction{Port: 5000}}, PeriodSeconds: 10, FailureThreshold: 1}},
			never, sec(60), true, true, time.Time{}, "", 0, sec(70)},
		{"grpc on another port kills", api.Container{Image: "registry.k8s.io/e2e-test-images/agnhost:2.53", Command: []string{"/agnhost", "grpc-health-checking", "--port=6000"},
			LivenessProbe: &api.Probe{ProbeHandler: api.ProbeHandler{GRPC: &api.GRPCAction{Port: 5000}}, InitialDelaySeconds: 40, PeriodSeconds: 10, FailureThreshold: 1}},
			never, sec(60), true, true, sec(40), "liveness", 1, time.Time{}},
		{"startup gates the others", api.Container{StartupProbe: execProbe(0, 10, 30, "false"), ReadinessProbe: execProbe(0, 1, 1, "true")},
			never, sec(25), false, false, time.Time{}, "", 3, sec(30)},
		{"startup failing kills", api.Container{StartupProbe: execProbe(0, 10, 3, "false")},
			never, sec(25), false, false, sec(20), "startup", 3, time.Time{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := runProbes(&tt.ct, &tt.run, epoch, tt.now, "10.244.0.5")
			assert.Equal(t, tt.started, o.started, "started")
			assert.Equal(t, tt.ready, o.ready && o.started, "ready")
			assert.Equal(t, tt.killAt, o.killAt, "killAt")
			assert.Equal(t, tt.killedBy, o.killedBy)
			assert.Len(t, o.events, tt.failures, "Unhealthy events")
			assert.Equal(t, tt.next, o.next, "next")
		})
	}
}

// TestLivenessProbeTutorial is the "Configure Liveness, Readiness and
// Startup Probes" task's exec example: the file the command touches is
// removed after 30s, three failed probes later the kubelet kills the
// container, which restarts.
func TestLivenessProbeTutorial(t *testing.T) {
	e := lifeEnv(t)
	e.CreatePod("liveness-exec", func(p *api.Pod) {
		ct := &p.Spec.Containers[0]
		ct.Name, ct.Image = "liveness", "registry.k8s.io/busybox"
		ct.Args = []string{"/bin/sh", "-c", "touch /tmp/healthy; sleep 30; rm -f /tmp/healthy; sleep 600"}
		ct.LivenessProbe = &api.Probe{ProbeHandler: api.ProbeHandler{Exec: &api.ExecAction{Command: []string{"cat", "/tmp/healthy"}}},
			InitialDelaySeconds: 5, PeriodSeconds: 5}
	})
	e.settle()
	e.advance(time.Second) // pulled, started
	p := e.Pod("liveness-exec")
	require.NotNil(t, status0(p).State.Running)
	assert.True(t, api.IsPodReady(p))
	started := status0(p).State.Running.StartedAt.Time
	// The file goes at 30s; the probes at 30s, 35s and 40s fail.
	e.advance(started.Add(39 * time.Second).Sub(e.clk.Now()))
	assert.Equal(t, int32(0), status0(e.Pod("liveness-exec")).RestartCount, "two failures by 39s: not yet")
	e.advance(2 * time.Second)
	p = e.Pod("liveness-exec")
	cs := status0(p)
	assert.Equal(t, int32(1), cs.RestartCount, "killed at 40s and restarted")
	require.NotNil(t, cs.LastTerminationState.Terminated)
	assert.Equal(t, int32(137), cs.LastTerminationState.Terminated.ExitCode)
	var unhealthy, killing int
	for _, ev := range e.events("liveness-exec") {
		if strings.Contains(ev, "Unhealthy: Liveness probe failed: cat: can't open '/tmp/healthy': No such file or directory") {
			unhealthy++
		}
		if strings.HasSuffix(ev, "Killing: Container liveness failed liveness probe, will be restarted") {
			killing++
		}
	}
	assert.Equal(t, 1, killing, "Killing told once")
	assert.GreaterOrEqual(t, unhealthy, 1, "Unhealthy told (the recorder aggregates repeats)")
}

// TestReadinessProbeFailingKeepsPodUnready: a readiness probe to a port
// the container does not declare is refused: the pod runs, never ready.
func TestReadinessProbeFailingKeepsPodUnready(t *testing.T) {
	e := lifeEnv(t)
	e.CreatePod("web", func(p *api.Pod) {
		p.Spec.Containers[0].ReadinessProbe = &api.Probe{ProbeHandler: api.ProbeHandler{TCPSocket: &api.TCPSocketAction{Port: api.FromInt(8080)}},
			PeriodSeconds: 10, SuccessThreshold: 1, FailureThreshold: 3}
	})
	e.settle()
	for range 4 {
		e.advance(10 * time.Second)
	}
	p := e.Pod("web")
	assert.Equal(t, api.PodRunning, p.Status.Phase)
	assert.False(t, api.IsPodReady(p))
	found := false
	for _, ev := range e.events("web") {
		found = found || strings.Contains(ev, "Unhealthy: Readiness probe failed: dial tcp "+p.Status.PodIP+":8080: connect: connection refused")
	}
	assert.True(t, found, "Unhealthy event: %v", e.events("web"))
}

// TestListens: a probe's port is listened on when the container declares
// it, or when it is the port its image serves and the image runs its own
// command (the conformance suite's StatefulSets probe httpd's port 80
// without declaring it), or one its agnhost server listens on by the
// server rule.
func TestListens(t *testing.T) {
	const agnhostImage = "registry.k8s.io/e2e-test-images/agnhost:2.53"
	port := func(n int32) api.IntOrString { return api.IntOrString{IntVal: n} }
	tests := []struct {
		name string
		ct   api.Container
		port api.IntOrString
		want bool
	}{
		{name: "declared", ct: api.Container{Image: "busybox", Ports: []api.ContainerPort{{ContainerPort: 8080}}}, port: port(8080), want: true},
		{name: "declared by name", ct: api.Container{Image: "busybox", Ports: []api.ContainerPort{{Name: "http", ContainerPort: 8080}}},
			port: api.IntOrString{Type: api.String, StrVal: "http"}, want: true},
		{name: "httpd's 80", ct: api.Container{Image: "registry.k8s.io/e2e-test-images/httpd:2.4.38-4"}, port: port(80), want: true},
		{name: "nginx's 80", ct: api.Container{Image: "nginx"}, port: port(80), want: true},
		{name: "not nginx's 81", ct: api.Container{Image: "nginx:1.27"}, port: port(81)},
		{name: "nginx told to run something else", ct: api.Container{Image: "nginx", Command: []string{"sleep", "100"}}, port: port(80)},
		{name: "busybox serves nothing", ct: api.Container{Image: "busybox"}, port: port(80)},
		{name: "serve-hostname's 9376", ct: api.Container{Image: agnhostImage, Args: []string{"serve-hostname"}}, port: port(9376), want: true},
		{name: "porter's SERVE_PORT_162", ct: api.Container{Image: agnhostImage, Command: []string{"/agnhost", "porter"},
			Env: []api.EnvVar{{Name: "SERVE_PORT_162", Value: "bar"}}}, port: port(162), want: true},
		{name: "porter, no such variable", ct: api.Container{Image: agnhostImage, Command: []string{"/agnhost", "porter"}}, port: port(80)},
		{name: "nautilus's test-webserver 80", ct: api.Container{Image: "registry.k8s.io/e2e-test-images/nautilus:1.7"}, port: port(80), want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, listens(&tt.ct, tt.port))
		})
	}
}

// TestHTTPProbeAsked: an httpGet probe is answered by the container's
// server where the server rule models it (httpd's document root,
// netexec's /echo), a status from 200 to 399 passing; where it does not
// (agnhost liveness, a directory's listing), the open port decides.
func TestHTTPProbeAsked(t *testing.T) {
	const agnhostImage = "registry.k8s.io/e2e-test-images/agnhost:2.53"
	const httpd = "registry.k8s.io/e2e-test-images/httpd:2.4.38-4"
	get := func(path string, port int) *api.Probe {
		return &api.Probe{ProbeHandler: api.ProbeHandler{HTTPGet: &api.HTTPGetAction{Path: path, Port: api.FromInt(port)}}}
	}
	for _, tc := range []struct {
		name    string
		ct      api.Container
		probe   *api.Probe
		wantOK  bool
		wantMsg string
	}{
		{"httpd's index.html", api.Container{Image: httpd}, get("/index.html", 80), true, ""},
		{"httpd, a page it lacks", api.Container{Image: httpd}, get("/nope.html", 80), false, "HTTP probe failed with statuscode: 404"},
		{"netexec /echo with a code", api.Container{Image: agnhostImage, Args: []string{"netexec"}}, get("/echo?msg=x&code=503", 8080),
			false, "HTTP probe failed with statuscode: 503"},
		{"netexec /echo redirecting passes", api.Container{Image: agnhostImage, Args: []string{"netexec"}}, get("/echo?code=302", 8080), true, ""},
		{"agnhost liveness: the open port", api.Container{Image: agnhostImage, Args: []string{"liveness"}}, get("/healthz", 8080), true, ""},
		{"test-webserver's /: the open port", api.Container{Image: agnhostImage, Args: []string{"test-webserver"}}, get("/", 80), true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := container.Input{FS: container.FS{}}
			for p, f := range container.ImageFiles(tc.ct.Image) {
				in.FS.Put(p, f)
			}
			run := container.PlanIn(tc.ct.Command, tc.ct.Args, in)
			ok, msg := probeCheck(tc.probe, &tc.ct, &run, time.Second, "10.244.0.5")
			assert.Equal(t, tc.wantOK, ok)
			assert.Equal(t, tc.wantMsg, msg)
		})
	}
}
