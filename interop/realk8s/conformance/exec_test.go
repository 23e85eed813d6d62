package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/remotecommand"
	utilexec "k8s.io/client-go/util/exec"
)

// execPod is a busybox pod whose container prints a line and sleeps, with
// a hostAlias.
const execPod = `apiVersion: v1
kind: Pod
metadata: {name: shell}
spec:
  hostAliases: [{ip: "123.45.67.89", hostnames: [foo.local]}]
  containers:
  - name: main
    image: busybox:1.36
    command: [sh, -c, "echo container is alive; sleep 100000"]
    env: [{name: GREETING, value: hello}]
`

// TestKubectlExecOnServe drives `miniplane serve` with the real kubectl
// (v1.32, which speaks exec over a websocket): what a simulated container
// answers to `kubectl exec` is what its model says — the kubelet-managed
// /etc files, its environment, a command's exit code as kubectl's own, a
// shell fed lines on stdin, and a plain error for a command the model does
// not know. README's "What the simulated containers answer" cites it.
func TestKubectlExecOnServe(t *testing.T) {
	if testing.Short() {
		t.Skip("builds miniplane and runs serve")
	}
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skip("kubectl is not installed")
	}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	miniplane := filepath.Join(dir, "miniplane")
	build := exec.CommandContext(ctx, "go", "build", "-o", miniplane, "./cmd/miniplane")
	build.Dir = "../../.." // the main module
	built, err := build.CombinedOutput()
	require.NoError(t, err, "building miniplane: %s", built)
	url := startServe(ctx, t, miniplane, dir)

	run := func(stdin string, args ...string) (string, string, int) {
		cmd := exec.CommandContext(ctx, kubectl, append([]string{"--server", url, "--cache-dir", filepath.Join(dir, "cache")}, args...)...)
		cmd.Env = []string{"HOME=" + dir, "KUBECONFIG=" + filepath.Join(dir, "none"), "PATH=/usr/bin:/bin"}
		cmd.Stdin = strings.NewReader(stdin)
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return stdout.String(), stderr.String(), exit.ExitCode()
		}
		require.NoError(t, err)
		return stdout.String(), stderr.String(), 0
	}
	ok := func(stdin string, args ...string) string {
		t.Helper()
		out, errOut, code := run(stdin, args...)
		require.Equal(t, 0, code, "kubectl %v: %s", args, errOut)
		return out
	}
	manifest := filepath.Join(dir, "pod.yaml")
	require.NoError(t, os.WriteFile(manifest, []byte(execPod), 0o644))
	ok("", "apply", "-f", manifest)
	ok("", "wait", "--for=condition=Ready", "pod/shell", "--timeout=2m")
	ip := strings.TrimSpace(ok("", "get", "pod", "shell", "-o", "jsonpath={.status.podIP}"))

	assert.Equal(t, "# Kubernetes-managed hosts file.\n127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n"+
		"fe00::0\tip6-localnet\nfe00::0\tip6-mcastprefix\nfe00::1\tip6-allnodes\nfe00::2\tip6-allrouters\n"+
		fmt.Sprintf("%s\tshell\n", ip)+"\n# Entries added by HostAliases.\n123.45.67.89\tfoo.local\n",
		ok("", "exec", "shell", "--", "cat", "/etc/hosts"), "the kubelet's managed hosts file")
	assert.Equal(t, "search default.svc.cluster.local svc.cluster.local cluster.local\nnameserver 10.96.0.10\noptions ndots:5\n",
		ok("", "exec", "shell", "--", "cat", "/etc/resolv.conf"), "ClusterFirst's resolv.conf")
	assert.Equal(t, "shell\n", ok("", "exec", "shell", "--", "cat", "/etc/hostname"))
	assert.Equal(t, "hello from shell\n", ok("", "exec", "shell", "--", "sh", "-c", "echo $GREETING from $HOSTNAME"), "the container's environment")

	out, errOut, code := run("", "exec", "shell", "--", "sh", "-c", "exit 3")
	assert.Equal(t, 3, code, "kubectl exits with the command's code")
	assert.Equal(t, "", out)
	assert.Equal(t, "command terminated with exit code 3\n", errOut)

	out, errOut, code = run("", "exec", "shell", "--", "nslookup", "kubernetes")
	assert.Equal(t, 127, code)
	assert.Equal(t, "", out)
	assert.Contains(t, errOut, "sh: nslookup: not found (miniplane's containers are simulated")

	assert.Equal(t, "one\nhello\n", ok("echo one\necho $GREETING\n", "exec", "-i", "shell", "--", "sh"), "-i: each line of stdin is a command")
	assert.Equal(t, "container is alive\n", ok("", "logs", "shell"))

	// Kubernetes' e2e framework execs with client-go's SPDY executor only
	// (framework/pod/exec_util.go): SPDY/3.1 is served too.
	var stdout, stderr strings.Builder
	err = spdyExec(ctx, url, []string{"sh", "-c", "cat /etc/hostname; exit 4"}, &stdout, &stderr)
	var exit utilexec.ExitError
	require.ErrorAs(t, err, &exit)
	assert.Equal(t, 4, exit.ExitStatus())
	assert.Equal(t, "shell\n", stdout.String())
	stdout.Reset()
	require.NoError(t, spdyExec(ctx, url, []string{"cat", "/etc/resolv.conf"}, &stdout, &stderr))
	assert.Contains(t, stdout.String(), "nameserver 10.96.0.10\n")
}

// spdyExec runs command in the pod shell's container through client-go's
// SPDY executor, as the e2e framework's ExecWithOptions does.
func spdyExec(ctx context.Context, url string, command []string, stdout, stderr io.Writer) error {
	cfg := &rest.Config{Host: url}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	req := cs.CoreV1().RESTClient().Post().Resource("pods").Namespace("default").Name("shell").SubResource("exec").
		VersionedParams(&corev1.PodExecOptions{Container: "main", Command: command, Stdout: true, Stderr: true}, scheme.ParameterCodec)
	ex, err := remotecommand.NewSPDYExecutor(cfg, http.MethodPost, req.URL())
	if err != nil {
		return err
	}
	return ex.StreamWithContext(ctx, remotecommand.StreamOptions{Stdout: stdout, Stderr: stderr})
}
