package nodesim

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/controllers/nodesim/container"
)

// addDebugger adds an ephemeral container running argv to the pod name,
// as kubectl debug does through the ephemeralcontainers subresource.
func (e *env) addDebugger(name, ecName string, argv ...string) {
	e.t.Helper()
	p := e.Pod(name).DeepCopy()
	p.Spec.EphemeralContainers = append(p.Spec.EphemeralContainers, api.EphemeralContainer{
		EphemeralContainerCommon: api.Container{Name: ecName, Image: "busybox", Command: argv}})
	_, err := e.srv.UpdateEphemeralContainers(e.ctx, p)
	require.NoError(e.t, err)
	e.settle()
}

func ephemeralStatus(p *api.Pod, name string) *api.ContainerStatus {
	for i := range p.Status.EphemeralContainerStatuses {
		if cs := &p.Status.EphemeralContainerStatuses[i]; cs.Name == name {
			return cs
		}
	}
	return nil
}

// TestEphemeralContainers: the kubelet starts an ephemeral container added
// to a running pod (pulled, created, started, as any container), keeps
// its log, lets exec reach it, never restarts it when it ends, and never
// counts it in the pod's phase or readiness.
func TestEphemeralContainers(t *testing.T) {
	e := lifeEnv(t)
	e.CreatePod("target", command(api.RestartPolicyAlways, "busybox", "/bin/sleep", "10000"))
	e.settle()
	e.advance(time.Second)
	require.True(t, api.IsPodReady(e.Pod("target")))

	e.addDebugger("target", "debugger", "/bin/sh", "-c", "while true; do echo polo; sleep 2; done")
	p := e.Pod("target")
	cs := ephemeralStatus(p, "debugger")
	require.NotNil(t, cs, "the kubelet reports it at once")
	require.NotNil(t, cs.State.Waiting)
	assert.Equal(t, container.ReasonContainerCreating, cs.State.Waiting.Reason)
	e.advance(time.Second) // pulled and started
	p = e.Pod("target")
	cs = ephemeralStatus(p, "debugger")
	require.NotNil(t, cs.State.Running, "%+v", cs.State)
	assert.False(t, cs.Ready, "an ephemeral container is never ready")
	assert.True(t, api.IsPodReady(p), "nor does it count in the pod's readiness")
	evs := e.events("target")
	for _, want := range []string{`kubelet/node-0 Pulling: Pulling image "busybox"`, "kubelet/node-0 Created: Created container debugger",
		"kubelet/node-0 Started: Started container debugger"} {
		assert.Contains(t, evs, want)
	}

	res, err := e.c.PodExec(p, "debugger", []string{"/bin/echo", "marco"})
	require.NoError(t, err)
	assert.Equal(t, container.ExecResult{Stdout: "marco\n"}, res)
	e.advance(3 * time.Second)
	l, err := e.c.ContainerLog(e.Pod("target"), "debugger", false, 0)
	require.NoError(t, err)
	require.NotEmpty(t, l.Lines)
	assert.Equal(t, "polo", l.Lines[0].Text)

	e.addDebugger("target", "once", "echo", "bye")
	e.advance(time.Second)
	e.advance(time.Minute)
	p = e.Pod("target")
	cs = ephemeralStatus(p, "once")
	require.NotNil(t, cs.State.Terminated, "%+v", cs.State)
	assert.Equal(t, "Completed", cs.State.Terminated.Reason)
	assert.Zero(t, cs.RestartCount, "an ephemeral container is never restarted")
	assert.Equal(t, api.PodRunning, p.Status.Phase)
	assert.NotNil(t, ephemeralStatus(p, "debugger").State.Running, "the first still runs")
	assert.Equal(t, []string{"debugger", "once"}, []string{p.Status.EphemeralContainerStatuses[0].Name, p.Status.EphemeralContainerStatuses[1].Name})
}

// TestEphemeralContainerInAPlainPod: a pod on the fast path (its image's
// own command) that gets an ephemeral container moves to the life path:
// its container carries on, not restarted, and the ephemeral one starts.
func TestEphemeralContainerInAPlainPod(t *testing.T) {
	e := lifeEnv(t)
	e.CreatePod("web")
	e.settle()
	e.advance(time.Second)
	before := status0(e.Pod("web"))
	require.NotNil(t, before.State.Running)

	e.addDebugger("web", "debugger", "sleep", "1000")
	e.advance(time.Second)
	p := e.Pod("web")
	require.NotNil(t, ephemeralStatus(p, "debugger").State.Running)
	assert.Equal(t, before, status0(p), "the container carries on")
	assert.True(t, api.IsPodReady(p))
	res, err := e.c.PodExec(p, "debugger", []string{"echo", "marco"})
	require.NoError(t, err)
	assert.Equal(t, "marco\n", res.Stdout)
}
