package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/controllers/manager"
	"github.com/miniplane/miniplane/controllers/nodesim"
	"github.com/miniplane/miniplane/controllers/scheduler"
	"github.com/miniplane/miniplane/plane"
	"github.com/miniplane/miniplane/plane/planetest"
)

// TestNodeLeasesAndSchedulerNone runs a plane with --scheduler=none: the
// real kubectl describes each node's Lease, a pod stays Pending and
// unbound until something binds it through the API, and the simulated
// kubelet then runs it to Running and Ready.
func TestNodeLeasesAndSchedulerNone(t *testing.T) {
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Skip("kubectl is not installed")
	}
	opts := manager.DefaultOptions()
	opts.Nodes = 2
	opts.Scheduler = scheduler.None
	p := planetest.Start(t, plane.Config{
		Listen: "127.0.0.1:0", Options: &opts, Seed: 1,
		NodeSim: nodesim.Config{StartDelay: 100 * time.Millisecond, ReadyDelay: 100 * time.Millisecond},
	})
	kcPath, remove, err := writeKubeconfig(filepath.Join(t.TempDir(), "kubeconfig"), kubeconfig(p.URL(), nil, ""))
	require.NoError(t, err)
	t.Cleanup(remove)
	k := newKubectl(t, kcPath)

	eventually(t, "the plane is ready", p.IsReady)
	nss := columns(k.ok("", "get", "namespaces", "-o", "custom-columns=NAME:.metadata.name", "--no-headers"))
	assert.Equal(t, [][]string{{"default"}, {"kube-node-lease"}, {"kube-public"}, {"kube-system"}}, nss)

	leases := client.For[*api.Lease](p.Server())
	eventually(t, "both nodes have a Lease", func() bool {
		got, _, err := leases.List(context.Background(), api.NamespaceNodeLease, client.ListOptions{})
		return err == nil && len(got) == 2
	})
	desc := k.ok("", "describe", "node", "node-1")
	assert.NotContains(t, desc, "Failed to get lease")
	assert.Regexp(t, `(?m)^Lease:\n  HolderIdentity:\s+node-1\n  AcquireTime:\s+<unset>\n  RenewTime:\s+\w{3}, \d\d \w{3} \d{4}`, desc)
	assert.Regexp(t, regexp.MustCompile(`node-0\s+node-0\s+\d+s`), k.ok("", "get", "leases", "-n", "kube-node-lease"))

	k.ok(logPod, "apply", "-f", "-")
	pods := client.For[*api.Pod](p.Server())
	pod := func() *api.Pod {
		got, err := pods.Get(context.Background(), "default", "web")
		require.NoError(t, err)
		return got
	}
	// nodesim has seen the pod once its cache has it and its queue is empty.
	eventually(t, "nodesim has seen the pod", func() bool {
		_, ok := p.NodeInformers().ForResource(client.Pods).Indexer().Get("default/web")
		return ok && p.Nodes().Queue().Len() == 0
	})
	assert.Empty(t, pod().Spec.NodeName, "no scheduler binds it")
	assert.Equal(t, api.PodPending, pod().Status.Phase)

	_, err = p.Server().Bind(context.Background(), "default", "web", "node-1")
	require.NoError(t, err)
	eventually(t, "the kubelet runs the bound pod", func() bool {
		got := pod()
		return got.Status.Phase == api.PodRunning && api.IsPodReady(got) && got.Status.HostIP != ""
	})
	assert.Equal(t, "node-1", pod().Spec.NodeName)
}

// TestServeRefusesAnUnknownScheduler: --scheduler takes builtin or none.
func TestServeRefusesAnUnknownScheduler(t *testing.T) {
	var stdout, stderr syncBuffer
	err := run([]string{"serve", "--addr=127.0.0.1:0", "--scheduler=default-scheduler"}, &stdout, &stderr)
	var ue usageError
	require.ErrorAs(t, err, &ue)
	assert.EqualError(t, err, `--scheduler must be "builtin" or "none", got "default-scheduler"`)
	assert.Empty(t, stdout.String(), "nothing served")
}
