package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/controllers/manager"
	"github.com/miniplane/miniplane/plane"
	"github.com/miniplane/miniplane/plane/planetest"
)

// TestKubectlDebug: the real kubectl debug adds an ephemeral container to a
// running pod (a strategic-merge PATCH of pods/ephemeralcontainers), the
// simulated kubelet starts it, and kubectl exec and logs reach it by name.
func TestKubectlDebug(t *testing.T) {
	opts := manager.DefaultOptions()
	opts.Nodes = 1
	p := planetest.Start(t, plane.Config{Listen: "127.0.0.1:0", Options: &opts, Seed: 1})
	kcPath, remove, err := writeKubeconfig(filepath.Join(t.TempDir(), "kubeconfig"), kubeconfig(p.URL(), nil, ""))
	require.NoError(t, err)
	t.Cleanup(remove)
	k := newKubectl(t, kcPath)

	k.ok("", "run", "target", "--image=busybox", "--restart=Never", "--", "sleep", "1000")
	k.ok("", "wait", "--for=condition=Ready", "pod/target", "--timeout=20s")
	running := func(i string) func() bool {
		return func() bool {
			out, _, err := k.run("", "get", "pod", "target", "-o", "jsonpath={.status.ephemeralContainerStatuses["+i+"].state.running.startedAt}")
			return err == nil && out != ""
		}
	}

	k.ok("", "debug", "target", "--image=busybox", "-c", "dbg", "--target=target", "--", "sleep", "1000")
	eventually(t, "dbg running", running("0"))
	assert.Equal(t, "marco\n", k.ok("", "exec", "target", "-c", "dbg", "--", "echo", "marco"))
	assert.Equal(t, "target", k.ok("", "get", "pod", "target", "-o", "jsonpath={.spec.ephemeralContainers[0].targetContainerName}"))

	k.ok("", "debug", "target", "--image=busybox", "-c", "talker", "--", "sh", "-c", "while true; do echo polo; sleep 2; done")
	eventually(t, "talker running", running("1"))
	eventually(t, "talker's log", func() bool {
		out, _, err := k.run("", "logs", "target", "-c", "talker")
		return err == nil && strings.HasPrefix(out, "polo\n")
	})

	// A pod running its image's own command (the kubelet's fast path).
	k.ok("", "run", "web", "--image=nginx")
	k.ok("", "wait", "--for=condition=Ready", "pod/web", "--timeout=20s")
	k.ok("", "debug", "web", "--image=busybox", "-c", "dbg", "--", "sleep", "1000")
	eventually(t, "dbg in web running", func() bool {
		out, _, err := k.run("", "get", "pod", "web", "-o", "jsonpath={.status.ephemeralContainerStatuses[0].state.running.startedAt}")
		return err == nil && out != ""
	})
	assert.Equal(t, "marco\n", k.ok("", "exec", "web", "-c", "dbg", "--", "echo", "marco"))
	assert.Equal(t, "0", k.ok("", "get", "pod", "web", "-o", "jsonpath={.status.containerStatuses[0].restartCount}"))

	assert.Contains(t, k.fails("", "patch", "pod", "target", "--subresource=ephemeralcontainers", "--type=merge", "-p", `{"spec":{"ephemeralContainers":null}}`),
		`Forbidden: existing ephemeral containers "dbg" may not be removed`)
	assert.Contains(t, k.fails("", "patch", "pod", "target", "--type=merge", "-p", `{"spec":{"ephemeralContainers":null}}`),
		"pod updates may not change fields other than")
}
