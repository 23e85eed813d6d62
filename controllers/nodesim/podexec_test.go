package nodesim

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/controllers/nodesim/container"
)

// TestPodExec runs commands in running containers, as `kubectl exec` does:
// on the life path over the files the container's own command has made by
// now, on the fast path over what the kubelet handed it; a container not
// running gets the runtime's error.
func TestPodExec(t *testing.T) {
	e := lifeEnv(t)
	e.CreatePod("maker", command(api.RestartPolicyNever, "busybox", "sh", "-c", "sleep 10; touch /tmp/made; sleep infinity"))
	e.CreatePod("plain")
	e.CreatePod("done", command(api.RestartPolicyNever, "busybox", "echo", "bye"))
	e.settle()
	e.advance(time.Second)
	require.NotNil(t, status0(e.Pod("maker")).State.Running)

	res, err := e.c.PodExec(e.Pod("maker"), "app", []string{"test", "-e", "/tmp/made"})
	require.NoError(t, err)
	assert.Equal(t, int32(1), res.ExitCode, "not made yet")
	e.advance(10 * time.Second)
	res, err = e.c.PodExec(e.Pod("maker"), "app", []string{"sh", "-c", "test -e /tmp/made && echo made"})
	require.NoError(t, err)
	assert.Equal(t, container.ExecResult{Stdout: "made\n"}, res, "made by the container's command by now")

	plain := e.Pod("plain")
	require.NotNil(t, status0(plain).State.Running)
	res, err = e.c.PodExec(plain, "app", []string{"cat", "/etc/hostname"})
	require.NoError(t, err)
	assert.Equal(t, container.ExecResult{Stdout: "plain\n"}, res)

	_, err = e.c.PodExec(e.Pod("done"), "app", []string{"ls"})
	assert.EqualError(t, err, `Internal error occurred: error executing command in container: container "app" in pod "done" is not running`)
}
