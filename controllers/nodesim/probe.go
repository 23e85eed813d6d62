package nodesim

import (
	"fmt"
	"net/http"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/controllers/nodesim/container"
)

// The kubelet's probes, simulated on the life path. Each probe of a
// container is tried at its start plus initialDelaySeconds, then every
// periodSeconds; the startup probe first, and the liveness and readiness
// probes once it has passed (from then, or their own initial delay if
// later). A probe passes or fails by the probe rule:
//
//   - exec: its command runs by the command grammar (container.Run.Exec),
//     in the container's environment and volumes, and
//     against the files the container's own command has touched and
//     removed by then, so `cat /tmp/healthy` passes while a
//     `touch /tmp/healthy; sleep 30; rm -f /tmp/healthy` keeps the file;
//   - httpGet, when the container's program has an HTTP server the server
//     rule models (container.Program.Serve): its answer on the container's
//     files as they are then (an exec'd command's writes in), passing with
//     a status from 200 to 399, failing with "HTTP probe failed with
//     statuscode: N" otherwise, as the kubelet's prober words it; when the
//     rule cannot answer, as tcpSocket;
//   - httpGet, tcpSocket and grpc: pass when the container listens on the
//     port: one it declares (by number, or a name its ports give), the port
//     its image serves when it runs the image's own command (httpd's and
//     nginx's 80: a container need not declare a port to listen on it),
//     or one its agnhost server serves (liveness's 8080,
//     grpc-health-checking's --port and --http-port, and the ports of the
//     servers the server rule models, container.Program.Ports); they are
//     refused otherwise (a grpc probe times out connecting).
//
// failureThreshold failures in a row of the startup or liveness probe kill
// the container (exit code 137), which the restart policy and back-off
// then restart; successThreshold passes in a row of the readiness probe
// make it ready, failureThreshold failures unready. timeoutSeconds has
// nothing to time: a simulated probe answers at once.

// probeOutcome is what a container's probes have done from its start
// until a moment.
type probeOutcome struct {
	started bool // the startup probe has passed, or there is none
	ready   bool // by the readiness probe (true without one, once started)
	// killAt is when failing probes killed the container (zero if not),
	// and killedBy the probe ("liveness" or "startup").
	killAt   time.Time
	killedBy string
	events   []timedEvent // Unhealthy events, in time order
	next     time.Time    // the next probe after the moment; zero if none
}

// timedEvent is an event the kubelet records at a time.
type timedEvent struct {
	at time.Time
	kubeletEvent
}

// hasProbes reports whether a container has a probe the life path runs.
func hasProbes(ct *api.Container) bool {
	return ct.LivenessProbe != nil || ct.StartupProbe != nil || ct.ReadinessProbe != nil
}

// needsLife reports whether a container's probes need the life path: a
// liveness or startup probe, or a readiness probe that can fail (exec, a
// port the container does not declare, or an httpGet that its server
// answers from its files, which an exec may change). A readiness probe that always
// passes is only timed, on the fast path (ReadyDelay).
func needsLife(ct *api.Container) bool {
	if ct.LivenessProbe != nil || ct.StartupProbe != nil {
		return true
	}
	p := ct.ReadinessProbe
	if p == nil {
		return false
	}
	switch {
	case p.Exec != nil:
		return true
	case p.HTTPGet != nil:
		return !listens(ct, p.HTTPGet.Port) || servesFiles(ct)
	case p.TCPSocket != nil:
		return !listens(ct, p.TCPSocket.Port)
	case p.GRPC != nil:
		return !listens(ct, api.FromInt(int(p.GRPC.Port)))
	}
	return false
}

// imagePorts are the ports well-known server images listen on when they
// run their own command, by repository (the last path element, without
// tag or digest).
var imagePorts = map[string]int32{"httpd": 80, "nginx": 80}

// listens reports whether the container listens on port: one it declares,
// or its image's port when it runs the image's own command.
func listens(ct *api.Container, port api.IntOrString) bool {
	if declaresPort(ct, port) || port.Type != api.String && slices.Contains(agnhostPorts(ct), port.IntVal) {
		return true
	}
	if port.Type == api.String || len(ct.Command) > 0 {
		return false
	}
	repo := ct.Image[strings.LastIndex(ct.Image, "/")+1:]
	if i := strings.IndexAny(repo, ":@"); i >= 0 {
		repo = repo[:i]
	}
	want, ok := imagePorts[repo]
	return ok && want == port.IntVal
}

// agnhostPorts are the ports the agnhost server a container runs (its
// command, or its image's) listens on: liveness's 8080,
// grpc-health-checking's --port (5000) and --http-port (8080), and those
// of the servers whose answers the server rule models
// (container.Program.Ports: serve-hostname's 9376, netexec's 8080,
// porter's SERVE_PORT_N, test-webserver's 80), read from the spec: an
// environment variable counts by its literal value.
func agnhostPorts(ct *api.Container) []int32 {
	image, _ := container.ImageConfig(ct.Image)
	command, args := image.Argv(ct.Command, ct.Args)
	argv := append(slices.Clip(command), args...)
	if len(argv) < 2 || path.Base(argv[0]) != "agnhost" && path.Base(argv[0]) != "agnhost-2" {
		return nil
	}
	var env []container.EnvVar
	for _, e := range ct.Env {
		env = append(env, container.EnvVar{Name: e.Name, Value: e.Value})
	}
	if ports := container.NewProgram(ct.Image, ct.Command, ct.Args, container.Input{Env: env}).Ports(); len(ports) > 0 {
		return ports
	}
	switch argv[1] {
	case "liveness":
		return []int32{8080}
	case "grpc-health-checking":
		ports := []int32{5000, 8080}
		for i, a := range argv[2:] {
			for j, flag := range []string{"port", "http-port"} {
				v, ok := strings.CutPrefix(a, "--"+flag+"=")
				if !ok && (a == "--"+flag || a == "-"+flag) && i+3 < len(argv) {
					v, ok = argv[i+3], true
				}
				if n, err := strconv.ParseInt(v, 10, 32); ok && err == nil {
					ports[j] = int32(n)
				}
			}
		}
		return ports
	}
	return nil
}

// declaresPort reports whether port (a number or a name) is one of the
// container's ports.
func declaresPort(ct *api.Container, port api.IntOrString) bool {
	for _, cp := range ct.Ports {
		if port.Type == api.String && cp.Name != "" && cp.Name == port.StrVal ||
			port.Type != api.String && cp.ContainerPort == port.IntVal {
			return true
		}
	}
	return false
}

// probeCheck tries one probe d into the container's run: whether it
// passes, and the kubelet's words when it does not.
func probeCheck(p *api.Probe, ct *api.Container, run *container.Run, d time.Duration, podIP string) (bool, string) {
	switch {
	case p.Exec != nil:
		code, out := run.Exec(p.Exec.Command, d)
		return code == 0, out
	case p.HTTPGet != nil:
		if code, ok := httpAnswer(p.HTTPGet, ct, run, d); ok {
			if code >= http.StatusOK && code < http.StatusBadRequest {
				return true, ""
			}
			return false, fmt.Sprintf("HTTP probe failed with statuscode: %d", code)
		}
		if listens(ct, p.HTTPGet.Port) {
			return true, ""
		}
		addr := podIP + ":" + portText(p.HTTPGet.Port)
		scheme := "http"
		if p.HTTPGet.Scheme == "HTTPS" {
			scheme = "https"
		}
		return false, `Get "` + scheme + "://" + addr + p.HTTPGet.Path + `": dial tcp ` + addr + ": connect: connection refused"
	case p.TCPSocket != nil:
		if listens(ct, p.TCPSocket.Port) {
			return true, ""
		}
		return false, "dial tcp " + podIP + ":" + portText(p.TCPSocket.Port) + ": connect: connection refused"
	case p.GRPC != nil:
		if listens(ct, api.FromInt(int(p.GRPC.Port))) {
			return true, ""
		}
		// The kubelet dials blocking, so a refused connection is retried
		// until the probe's timeout.
		return false, fmt.Sprintf("timeout: failed to connect service %q within %ds: context deadline exceeded",
			podIP+":"+strconv.Itoa(int(p.GRPC.Port)), max(p.TimeoutSeconds, 1))
	}
	return true, ""
}

// httpAnswer is the status code the server of container ct, d into its
// run, answers the probe's request with, as the server rule gives it
// (container.Program.Serve); false when the rule does not answer (no
// server it models listens there, or it does not know the answer).
func httpAnswer(get *api.HTTPGetAction, ct *api.Container, run *container.Run, d time.Duration) (int, bool) {
	port, ok := portNumber(ct, get.Port)
	if !ok {
		return 0, false
	}
	p, query, _ := strings.Cut(get.Path, "?")
	req := container.Request{Method: http.MethodGet, Path: p, RawQuery: query, Header: http.Header{}, TLS: get.Scheme == "HTTPS"}
	resp, err := run.ProgramAt(ct.Image, ct.Command, ct.Args, d).Serve(port, req)
	if err != nil {
		return 0, false
	}
	return resp.Code, true
}

// servesFiles reports whether the server container ct runs answers from
// its files (container.Program.ServesFiles).
func servesFiles(ct *api.Container) bool {
	return container.NewProgram(ct.Image, ct.Command, ct.Args, container.Input{}).ServesFiles()
}

// portNumber is port as a number: itself, or the container port its name
// names.
func portNumber(ct *api.Container, port api.IntOrString) (int32, bool) {
	if port.Type != api.String {
		return port.IntVal, true
	}
	for _, cp := range ct.Ports {
		if cp.Name == port.StrVal {
			return cp.ContainerPort, true
		}
	}
	return 0, false
}

func portText(p api.IntOrString) string {
	if p.Type == api.String {
		return p.StrVal
	}
	return strconv.Itoa(int(p.IntVal))
}

// probeTimes are a probe's times: first, then every period.
type probeTimes struct {
	first  time.Time
	period time.Duration
}

func timesOf(p *api.Probe, from time.Time) probeTimes {
	period := time.Duration(max(p.PeriodSeconds, 1)) * time.Second
	return probeTimes{first: from.Add(time.Duration(max(p.InitialDelaySeconds, 0)) * time.Second), period: period}
}

// runProbes works out what the probes of ct, whose run is run and which
// started at started, have done by now. It is pure.
func runProbes(ct *api.Container, run *container.Run, started, now time.Time, podIP string) probeOutcome {
	var o probeOutcome
	check := func(p *api.Probe, t time.Time) (bool, string) {
		return probeCheck(p, ct, run, t.Sub(started), podIP)
	}
	due := func(t time.Time) {
		if o.next.IsZero() || t.Before(o.next) {
			o.next = t
		}
	}
	fail := func(t time.Time, which, msg string) {
		o.events = append(o.events, timedEvent{t, kubeletEvent{api.EventTypeWarning, "Unhealthy", which + " probe failed: " + msg}})
	}
	// The startup probe.
	startedAt := started
	if p := ct.StartupProbe; p != nil {
		ts, failures := timesOf(p, started), int32(0)
		for t := ts.first; ; t = t.Add(ts.period) {
			if t.After(now) {
				due(t)
				return o
			}
			ok, msg := check(p, t)
			if ok {
				startedAt = t
				break
			}
			fail(t, "Startup", msg)
			if failures++; failures >= max(p.FailureThreshold, 1) {
				o.killAt, o.killedBy = t, "startup"
				return o
			}
		}
	}
	o.started = true
	// The liveness probe: until it kills the container, or now.
	end := now
	if p := ct.LivenessProbe; p != nil {
		ts, failures := timesOf(p, started), int32(0)
		if ts.first.Before(startedAt) {
			ts.first = startedAt
		}
		for t := ts.first; ; t = t.Add(ts.period) {
			if t.After(now) {
				due(t)
				break
			}
			ok, msg := check(p, t)
			if ok {
				failures = 0
				continue
			}
			fail(t, "Liveness", msg)
			if failures++; failures >= max(p.FailureThreshold, 1) {
				o.killAt, o.killedBy, end = t, "liveness", t
				o.next = time.Time{}
				break
			}
		}
	}
	// The readiness probe, until the container is killed or now.
	o.ready = true
	if p := ct.ReadinessProbe; p != nil {
		o.ready = false
		ts := timesOf(p, started)
		if ts.first.Before(startedAt) {
			ts.first = startedAt
		}
		var passes, failures int32
		for t := ts.first; ; t = t.Add(ts.period) {
			if t.After(end) {
				if o.killAt.IsZero() {
					due(t)
				}
				break
			}
			ok, msg := check(p, t)
			if ok {
				passes, failures = passes+1, 0
				if passes >= max(p.SuccessThreshold, 1) {
					o.ready = true
				}
				continue
			}
			fail(t, "Readiness", msg)
			passes, failures = 0, failures+1
			if failures >= max(p.FailureThreshold, 1) {
				o.ready = false
			}
		}
	}
	sortEvents(o.events)
	return o
}

// sortEvents orders events by time, stably: the probes' events interleave.
func sortEvents(evs []timedEvent) {
	for i := 1; i < len(evs); i++ {
		for j := i; j > 0 && evs[j].at.Before(evs[j-1].at); j-- {
			evs[j], evs[j-1] = evs[j-1], evs[j]
		}
	}
}
