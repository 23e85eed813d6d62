package main

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// kubectlAt runs the real kubectl against url with a throwaway home and
// cache, and returns its combined output.
func kubectlAt(t *testing.T, url string, args ...string) (string, error) {
	t.Helper()
	bin, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skip("kubectl is not installed")
	}
	home := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append([]string{"--server", url, "--cache-dir", home + "/cache"}, args...)...)
	cmd.Env = []string{"HOME=" + home, "KUBECONFIG=" + home + "/none", "PATH=/usr/bin:/bin"}
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestExamplesWithKubectl applies every manifest in examples/ with the real
// kubectl against `miniplane serve`, as the README's tour does, and checks
// that the controllers make of them what Kubernetes would.
func TestExamplesWithKubectl(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a live control plane and kubectl")
	}
	url, _, stop := startServe(t, "--nodes=3")
	k := func(args ...string) string {
		out, err := kubectlAt(t, url, args...)
		require.NoError(t, err, out)
		return out
	}
	eventually(t, "ready", func() bool {
		out, err := kubectlAt(t, url, "get", "--raw", "/readyz")
		return err == nil && out == "ok"
	})

	out := k("apply", "-f", "../../examples/")
	for _, want := range []string{"replicationcontroller/web created", "service/web created", "service/web-headless created", "service/web-peers created", "pod/exporter created", "service/exporter created"} {
		assert.Contains(t, out, want)
	}
	endpoints := func(name string) string {
		out, _ := kubectlAt(t, url, "get", "endpoints", name, "-o", "jsonpath={range .subsets[*]}{range .addresses[*]}{.ip} {end}|{range .ports[*]}{.port}{end}{end}")
		return out
	}
	eventually(t, "web's three pods behind its endpoints", func() bool { return strings.Count(endpoints("web"), "10.244.") == 3 })
	assert.True(t, strings.HasSuffix(endpoints("web"), "|80"), endpoints("web"))
	eventually(t, "the headless service lists them too", func() bool { return strings.Count(endpoints("web-headless"), "10.244.") == 3 })
	eventually(t, "web-peers publishes them", func() bool { return strings.Count(endpoints("web-peers"), "10.244.") == 3 })
	eventually(t, "the named port resolves per pod", func() bool { return strings.HasSuffix(endpoints("exporter"), "|9102") })

	out = k("get", "svc", "web-headless")
	assert.Contains(t, out, "None", "headless: no cluster IP")

	out = k("apply", "-f", "../../examples/web.yaml")
	assert.Contains(t, out, "replicationcontroller/web unchanged")
	assert.Contains(t, out, "service/web unchanged")

	k("scale", "rc", "web", "--replicas=1")
	eventually(t, "scaled to one endpoint", func() bool { return strings.Count(endpoints("web"), "10.244.") == 1 })

	out = k("delete", "rc", "web", "--cascade=background")
	assert.Contains(t, out, `replicationcontroller "web" deleted`)
	eventually(t, "the garbage collector removes the pods", func() bool {
		out, err := kubectlAt(t, url, "get", "pods", "-l", "app=web", "-o", "name")
		return err == nil && strings.TrimSpace(out) == ""
	})
	require.NoError(t, stop())
}
