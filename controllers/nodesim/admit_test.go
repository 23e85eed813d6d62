package nodesim

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
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
