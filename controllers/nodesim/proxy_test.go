package nodesim

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/controllers/nodesim/container"
)

// TestPodHTTP: a running pod's containers answer on their ports by the
// server rule (the environment the kubelet hands them included), a port
// none listens on is refused with the pod's address, and a pod whose
// container has not started refuses everything.
func TestPodHTTP(t *testing.T) {
	const agnhost = "registry.k8s.io/e2e-test-images/agnhost:2.53"
	e := lifeEnv(t)
	e.CreatePod("two", func(p *api.Pod) {
		p.Spec.Containers = []api.Container{
			{Name: "sleeper", Image: "busybox", Command: []string{"sleep", "3600"}},
			{Name: "porter", Image: agnhost, Command: []string{"/agnhost", "porter"}, Env: []api.EnvVar{{Name: "SERVE_PORT_80", Value: "foo"}}},
			{Name: "hostname", Image: agnhost, Args: []string{"serve-hostname"}},
		}
	})
	e.settle()
	get := container.Request{Method: "GET", Path: "/"}
	_, err := e.c.PodHTTP(e.Pod("two"), 80, get)
	assert.EqualError(t, err, "dial tcp "+e.Pod("two").Status.PodIP+":80: connect: connection refused", "its sandbox has an address, its containers have not started")

	e.advance(time.Second)
	pod := e.Pod("two")
	require.Equal(t, api.PodRunning, pod.Status.Phase)
	l, err := e.c.ContainerLog(pod, "hostname", false, 0)
	require.NoError(t, err)
	require.NotEmpty(t, l.Lines)
	assert.Equal(t, simulatedTag+`"/agnhost serve-hostname" serves HTTP on port 9376, as the simulator's server rule answers for it (read it through pods/NAME:PORT/proxy/); it prints nothing here and runs until the container is stopped`,
		l.Lines[0].Text, "its log says it serves, not that the simulator cannot run it")
	for _, tc := range []struct {
		port    int32
		want    string
		wantErr string
	}{
		{port: 80, want: "foo"},
		{port: 9376, want: "two"},
		{port: 81, wantErr: "dial tcp " + pod.Status.PodIP + ":81: connect: connection refused"},
	} {
		resp, err := e.c.PodHTTP(pod, tc.port, get)
		if tc.wantErr != "" {
			assert.EqualError(t, err, tc.wantErr)
			continue
		}
		require.NoError(t, err)
		assert.Equal(t, tc.want, string(resp.Body), "port %d", tc.port)
	}
}

// TestKubeletHTTP: the simulated kubelet answers /healthz and /pods (the
// pods bound to its node) and says what it does not simulate.
func TestKubeletHTTP(t *testing.T) {
	e := lifeEnv(t)
	e.CreatePod("web")
	e.settle()
	node, err := e.c.nodes.Get(e.Pod("web").Spec.NodeName)
	require.NoError(t, err)

	resp, err := e.c.KubeletHTTP(node, container.Request{Method: "GET", Path: "/healthz"})
	require.NoError(t, err)
	assert.Equal(t, "ok", string(resp.Body))

	resp, err = e.c.KubeletHTTP(node, container.Request{Method: "GET", Path: "/pods"})
	require.NoError(t, err)
	var list api.PodList
	require.NoError(t, json.Unmarshal(resp.Body, &list))
	assert.Equal(t, "PodList", list.Kind)
	require.Len(t, list.Items, 1)
	assert.Equal(t, "web", list.Items[0].Metadata.Name)

	_, err = e.c.KubeletHTTP(node, container.Request{Method: "GET", Path: "/logs/"})
	assert.EqualError(t, err, `miniplane's simulated kubelet answers /healthz and /pods, not "/logs/"`)
}
