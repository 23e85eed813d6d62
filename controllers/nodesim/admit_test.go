package nodesim

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/client/record"
)

// TestHostPortConflictRejectedAtAdmission: a pod bound by its creator to a
// node where an admitted pod holds its host port is rejected by the
// kubelet (Failed, NodePorts), as the kubelet's predicate admit handler
// does; on another node, or once the holder is gone, the same port is
// free. The StatefulSet conformance test "Should recreate evicted
// statefulset" relies on it.
func TestHostPortConflictRejectedAtAdmission(t *testing.T) {
	e := newEnvWith(t, Config{Nodes: 2}, false)
	port := func(node string) func(*api.Pod) {
		return func(p *api.Pod) {
			p.Spec.NodeName = node
			p.Spec.Containers[0].Ports = []api.ContainerPort{{ContainerPort: 80, HostPort: 21017}}
		}
	}
	e.CreatePod("holder", port("node-0"))
	e.settle()
	e.advance(time.Second)
	require.Equal(t, api.PodRunning, e.Pod("holder").Status.Phase)

	e.CreatePod("late", port("node-0"))
	e.CreatePod("elsewhere", port("node-1"))
	e.settle()
	late := e.Pod("late")
	assert.Equal(t, api.PodFailed, late.Status.Phase)
	assert.Equal(t, "NodePorts", late.Status.Reason)
	assert.Equal(t, "Predicate NodePorts failed: node(s) didn't have free ports for the requested pod ports", late.Status.Message)
	e.advance(time.Second)
	assert.Equal(t, api.PodRunning, e.Pod("elsewhere").Status.Phase)

	e.deletePod("holder")
	e.advance(time.Second)
	require.True(t, e.PodGone("holder"))
	e.CreatePod("again", port("node-0"))
	e.settle()
	e.advance(time.Second)
	assert.Equal(t, api.PodRunning, e.Pod("again").Status.Phase, "the port is free once its holder is gone")
}

// TestSysctlsAtAdmission: the kubelet admits a pod whose sysctls are safe
// (its container reads them), rejects one setting an unsafe sysctl its node
// does not allow (Failed, SysctlForbidden, as the conformance test "should
// not launch unsafe, but not explicitly enabled sysctls" waits for), and
// admits it where the node allows it (--allowed-unsafe-sysctls).
func TestSysctlsAtAdmission(t *testing.T) {
	sysctl := func(name, value string, argv ...string) func(*api.Pod) {
		return func(p *api.Pod) {
			command(api.RestartPolicyNever, "busybox", argv...)(p)
			p.Spec.SecurityContext = &api.PodSecurityContext{Sysctls: []api.Sysctl{{Name: name, Value: value}}}
		}
	}
	e := newEnv(t, Config{Recorders: func(string, string) *record.EventRecorder { return nil }, AllowedUnsafeSysctls: []string{"kernel.sem", "fs.mqueue.*"}})
	e.CreatePod("safe", sysctl("kernel/shm_rmid_forced", "1", "/bin/sysctl", "kernel/shm_rmid_forced"))
	e.CreatePod("unsafe", sysctl("kernel.msgmax", "10000000000", "sleep", "1"))
	e.CreatePod("allowed", sysctl("fs.mqueue.msg_max", "20", "sysctl", "-n", "fs.mqueue.msg_max"))
	e.settle()
	e.advance(time.Second)

	safe := e.Pod("safe")
	require.Equal(t, api.PodSucceeded, safe.Status.Phase)
	assert.Equal(t, []string{"kernel.shm_rmid_forced = 1"}, e.logText("safe", false))

	unsafe := e.Pod("unsafe")
	assert.Equal(t, api.PodFailed, unsafe.Status.Phase)
	assert.Equal(t, "SysctlForbidden", unsafe.Status.Reason)
	assert.Equal(t, `Pod was rejected: forbidden sysctl: "kernel.msgmax" not allowlisted`, unsafe.Status.Message)
	assert.Contains(t, e.events("unsafe"), "kubelet/"+unsafe.Spec.NodeName+` SysctlForbidden: Pod was rejected: forbidden sysctl: "kernel.msgmax" not allowlisted`)

	require.Equal(t, api.PodSucceeded, e.Pod("allowed").Status.Phase)
	assert.Equal(t, []string{"20"}, e.logText("allowed", false))
}
