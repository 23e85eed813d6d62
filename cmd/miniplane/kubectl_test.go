package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/controllers/manager"
	"github.com/miniplane/miniplane/controllers/nodesim"
	"github.com/miniplane/miniplane/plane"
	"github.com/miniplane/miniplane/plane/planetest"
)

// kubectlTimeout bounds every kubectl run, so a hang fails the test.
const kubectlTimeout = 60 * time.Second

// kubectl runs the real kubectl with a kubeconfig, as a learner would after
// `export KUBECONFIG=...`, with a throwaway HOME (so nothing of the
// machine's own configuration or discovery cache is read).
type kubectl struct {
	t   *testing.T
	bin string
	env []string
}

func newKubectl(t *testing.T, kubeconfigPath string) *kubectl {
	bin, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skip("kubectl is not installed")
	}
	return &kubectl{t: t, bin: bin, env: []string{"HOME=" + t.TempDir(), "KUBECONFIG=" + kubeconfigPath, "PATH=/usr/bin:/bin"}}
}

func (k *kubectl) command(ctx context.Context, stdin string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, k.bin, args...)
	cmd.Env = k.env
	cmd.Stdin = strings.NewReader(stdin)
	return cmd
}

func (k *kubectl) run(stdin string, args ...string) (string, string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), kubectlTimeout)
	defer cancel()
	cmd := k.command(ctx, stdin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return stdout.String(), stderr.String(), err
}

func (k *kubectl) ok(stdin string, args ...string) string {
	k.t.Helper()
	out, errOut, err := k.run(stdin, args...)
	require.NoError(k.t, err, "kubectl %v\nstdout: %s\nstderr: %s", args, out, errOut)
	return out
}

func (k *kubectl) fails(stdin string, args ...string) string {
	k.t.Helper()
	out, errOut, err := k.run(stdin, args...)
	require.Error(k.t, err, "kubectl %v should fail\nstdout: %s", args, out)
	return errOut
}

// kubectlOnOneNode starts a plane of one node, whose pods start and turn
// ready within 200ms, and a kubectl with its kubeconfig; it skips the test
// when kubectl is not installed.
func kubectlOnOneNode(t *testing.T) (*plane.Plane, *kubectl) {
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Skip("kubectl is not installed")
	}
	opts := manager.DefaultOptions()
	opts.Nodes = 1
	p := planetest.Start(t, plane.Config{
		Listen: "127.0.0.1:0", Options: &opts, Seed: 1,
		NodeSim: nodesim.Config{StartDelay: 200 * time.Millisecond, ReadyDelay: 200 * time.Millisecond},
	})
	kcPath, remove, err := writeKubeconfig(filepath.Join(t.TempDir(), "kubeconfig"), kubeconfig(p.URL(), nil, ""))
	require.NoError(t, err)
	t.Cleanup(remove)
	return p, newKubectl(t, kcPath)
}

var exportLine = regexp.MustCompile(`(?m)^  export KUBECONFIG=(\S+)\n  kubectl get pods,rc,svc -A$`)

// TestServeTokenOverHTTPS: with --token, serve speaks HTTPS with a
// certificate it made, writes a kubeconfig with the CA and the token, and
// the command it prints works with the real kubectl; a wrong token gets
// 401, and plain http gets nowhere.
func TestServeTokenOverHTTPS(t *testing.T) {
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Skip("kubectl is not installed")
	}
	kcPath := filepath.Join(t.TempDir(), "kubeconfig")
	url, stdout, stop := startServe(t, "--token=s3cret", "--kubeconfig="+kcPath)
	require.True(t, strings.HasPrefix(url, "https://127.0.0.1:"), url)
	m := exportLine.FindStringSubmatch(stdout.String())
	require.NotNil(t, m, "serve prints the export line and the kubectl line:\n%s", stdout.String())
	assert.Equal(t, kcPath, m[1])
	info, err := os.Stat(kcPath)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm(), "the kubeconfig holds the token: its owner's only")

	k := newKubectl(t, m[1])
	eventually(t, "the nodes are registered", func() bool {
		out, _, err := k.run("", "get", "nodes", "-o", "name")
		return err == nil && strings.Count(out, "node/") == 2
	})
	rows := columns(k.ok("", "get", "nodes"))
	require.Len(t, rows, 3)
	assert.Equal(t, []string{"NAME", "STATUS", "ROLES", "AGE", "VERSION"}, rows[0])
	assert.Equal(t, apiserver.GitVersion, rows[1][4], "the kubelets report the server's version")
	assert.Contains(t, k.ok("", "version"), "Server Version: "+apiserver.GitVersion)
	assert.Regexp(t, `Kubelet Version:\s+`+regexp.QuoteMeta(apiserver.GitVersion), k.ok("", "describe", "node", "node-0"))
	assert.Equal(t, [][]string{{"ATTRIBUTE", "VALUE"}, {"Username", "miniplane-admin"}, {"Groups", "[system:masters", "system:authenticated]"}},
		columns(k.ok("", "auth", "whoami")))

	content, err := os.ReadFile(kcPath)
	require.NoError(t, err)
	wrong := filepath.Join(t.TempDir(), "wrong")
	require.NoError(t, os.WriteFile(wrong, bytes.Replace(content, []byte(`token: "s3cret"`), []byte(`token: "guess"`), 1), 0o600))
	assert.Contains(t, newKubectl(t, wrong).fails("", "get", "pods"), "error: You must be logged in to the server (the server has asked for the client to provide credentials)")

	// The certificate is for 127.0.0.1 and signed by the CA in the
	// kubeconfig: a Go client that trusts that CA alone connects.
	ca := x509.NewCertPool()
	require.True(t, ca.AppendCertsFromPEM(pemOf(t, content)))
	cl := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: ca}}}
	resp, err := cl.Get(url + "/healthz")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	resp, err = http.Get("http://" + strings.TrimPrefix(url, "https://") + "/api/v1/pods")
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode, "plain http to the TLS port: %s", body)
	cl.CloseIdleConnections()

	require.NoError(t, stop())
	_, err = os.Stat(kcPath)
	assert.NoError(t, err, "a kubeconfig path the user chose stays after exit")
}

// pemOf decodes the certificate-authority-data of a kubeconfig.
func pemOf(t *testing.T, kubeconfig []byte) []byte {
	t.Helper()
	m := regexp.MustCompile(`certificate-authority-data: (\S+)`).FindSubmatch(kubeconfig)
	require.NotNil(t, m)
	out, err := base64.StdEncoding.DecodeString(string(m[1]))
	require.NoError(t, err)
	return out
}

// TestServeWithoutTokenWritesAPlainKubeconfig: without a token the API is
// plain http, the kubeconfig has no credentials, it sits in a temporary
// directory that goes when serve stops, and kubectl reaches the server
// through it as anonymous.
func TestServeWithoutTokenWritesAPlainKubeconfig(t *testing.T) {
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Skip("kubectl is not installed")
	}
	url, stdout, stop := startServe(t)
	require.True(t, strings.HasPrefix(url, "http://"), url)
	m := exportLine.FindStringSubmatch(stdout.String())
	require.NotNil(t, m, stdout.String())
	content, err := os.ReadFile(m[1])
	require.NoError(t, err)
	assert.Contains(t, string(content), `server: "`+url+`"`)
	assert.NotContains(t, string(content), "certificate-authority-data")
	assert.NotContains(t, string(content), "token")

	k := newKubectl(t, m[1])
	assert.Equal(t, [][]string{{"ATTRIBUTE", "VALUE"}, {"Username", "system:anonymous"}, {"Groups", "[system:unauthenticated]"}},
		columns(k.ok("", "auth", "whoami")))
	assert.Equal(t, "yes\n", k.ok("", "auth", "can-i", "delete", "nodes"))

	require.NoError(t, stop())
	_, err = os.Stat(filepath.Dir(m[1]))
	assert.True(t, os.IsNotExist(err), "the temporary directory is removed at exit")
}

// TestServeRefusesToOverwriteAForeignKubeconfig: --kubeconfig never
// replaces a file serve did not write, such as ~/.kube/config.
func TestServeRefusesToOverwriteAForeignKubeconfig(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config")
	require.NoError(t, os.WriteFile(path, []byte("apiVersion: v1\nkind: Config\n"), 0o600))
	var stdout, stderr bytes.Buffer
	err := run([]string{"serve", "--addr=127.0.0.1:0", "--kubeconfig=" + path}, &stdout, &stderr)
	require.Error(t, err)
	var ue usageError
	assert.ErrorAs(t, err, &ue)
	assert.Contains(t, err.Error(), "the file exists and serve did not write it")
	content, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "apiVersion: v1\nkind: Config\n", string(content), "untouched")
}

// columns splits kubectl's table output into rows of fields.
func columns(out string) [][]string {
	var rows [][]string
	for line := range strings.SplitSeq(strings.TrimSpace(out), "\n") {
		rows = append(rows, strings.Fields(line))
	}
	return rows
}

const logPod = `apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  containers:
  - name: nginx
    image: nginx:1.27
`

// TestKubectlLogs drives kubectl logs against a whole control plane: the
// simulated kubelet's log of a container, -f printing the lines a
// readiness failure and a crash add, and --previous after the restart.
func TestKubectlLogs(t *testing.T) {
	p, k := kubectlOnOneNode(t)
	pods := client.For[*api.Pod](p.Server())
	pod := func() *api.Pod {
		got, err := pods.Get(context.Background(), "default", "web")
		require.NoError(t, err)
		return got
	}

	eventually(t, "the node is registered", func() bool { return p.Nodes().HasSynced() && p.IsReady() })
	k.ok(logPod, "apply", "-f", "-")
	eventually(t, "the pod runs and is ready", func() bool { return api.IsPodReady(pod()) })
	started := "[miniplane simulated kubelet] container nginx started from image nginx:1.27 on node-0, pod IP 10.244.0.2; no process runs, this log is all it writes\n"
	ready := "[miniplane simulated kubelet] container nginx is ready: it has no readiness probe, so it is ready once running\n"
	assert.Equal(t, started+ready, k.ok("", "logs", "web"))
	assert.Equal(t, ready, k.ok("", "logs", "web", "--tail=1"))
	assert.Regexp(t, `^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z \[miniplane`, k.ok("", "logs", "web", "--timestamps", "--tail=1"))
	assert.Contains(t, k.fails("", "logs", "web", "--previous"),
		`Error from server (BadRequest): previous terminated container "nginx" in pod "web" not found`)

	follow, cancelFollow := context.WithTimeout(context.Background(), kubectlTimeout)
	defer cancelFollow()
	cmd := k.command(follow, "", "logs", "-f", "web")
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	lines := bufio.NewScanner(stdout)
	for _, want := range []string{started, ready} {
		require.True(t, lines.Scan())
		assert.Equal(t, strings.TrimSuffix(want, "\n"), lines.Text())
	}
	require.NoError(t, p.Nodes().SetPodReady(context.Background(), "default", "web", false))
	require.True(t, lines.Scan(), "kubectl logs -f prints the line the readiness failure adds")
	assert.Equal(t, "[miniplane simulated kubelet] container nginx is not ready: its readiness probe failed", lines.Text())
	require.NoError(t, p.Nodes().SetPodReady(context.Background(), "default", "web", true))
	require.True(t, lines.Scan())
	assert.Equal(t, "[miniplane simulated kubelet] container nginx is ready: its readiness probe passed", lines.Text())
	require.NoError(t, p.Nodes().CrashPod(context.Background(), "default", "web"))
	require.True(t, lines.Scan())
	assert.Equal(t, "[miniplane simulated kubelet] container nginx exited with code 1 (a crash was injected)", lines.Text())
	assert.False(t, lines.Scan(), "the run is over")
	assert.NoError(t, cmd.Wait(), "kubectl logs -f exits when the container does")

	eventually(t, "the container restarts", func() bool { return restarts(pod()) == 1 && api.IsPodReady(pod()) })
	prev := k.ok("", "logs", "web", "--previous")
	assert.True(t, strings.HasPrefix(prev, started), prev)
	assert.True(t, strings.HasSuffix(prev, "exited with code 1 (a crash was injected)\n"), prev)
	assert.Equal(t, 5, strings.Count(prev, "\n"))
	assert.True(t, strings.HasPrefix(k.ok("", "logs", "web"), "[miniplane simulated kubelet] container nginx restarted (restart 1) from image nginx:1.27"))
}

// TestKubectlContainerLives drives the lives learners are taught to read
// with the real kubectl: a pod that echoes and completes, one that exits 3,
// and a crash loop whose previous run kubectl logs --previous shows.
func TestKubectlContainerLives(t *testing.T) {
	p, k := kubectlOnOneNode(t)
	phase := func(name string) string {
		return k.ok("", "get", "pod", name, "-o", "jsonpath={.status.phase}")
	}
	eventually(t, "the node is registered", func() bool { return p.Nodes().HasSynced() && p.IsReady() })

	k.ok("", "run", "hello", "--image=busybox", "--restart=Never", "--", "echo", "hello")
	eventually(t, "hello completes", func() bool { return phase("hello") == "Succeeded" })
	assert.Contains(t, k.ok("", "get", "pod", "hello"), "Completed")
	assert.Equal(t, "hello\n", k.ok("", "logs", "hello"))
	describe := k.ok("", "describe", "pod", "hello")
	for _, want := range []string{"Scheduled", "default-scheduler", `Pulling image "busybox"`, "Pulled", "Created", "Started"} {
		assert.Contains(t, describe, want, "describe pod's events")
	}

	k.ok("", "run", "bad", "--image=busybox", "--restart=Never", "--", "sh", "-c", "exit 3")
	eventually(t, "bad fails", func() bool { return phase("bad") == "Failed" })
	assert.Contains(t, k.ok("", "get", "pod", "bad"), "Error")
	assert.Equal(t, "3", k.ok("", "get", "pod", "bad", "-o", "jsonpath={.status.containerStatuses[0].state.terminated.exitCode}"))

	k.ok("", "run", "loop", "--image=busybox", "--", "sh", "-c", "echo run; exit 1")
	eventually(t, "loop backs off", func() bool { return strings.Contains(k.ok("", "get", "pod", "loop"), "CrashLoopBackOff") })
	assert.Equal(t, "run\n", k.ok("", "logs", "loop", "--previous"))
}

// TestKubectlSchedulerFits: a pod asking for more cpu than any node has
// stays Pending, and kubectl describe shows the scheduler's reason.
func TestKubectlSchedulerFits(t *testing.T) {
	p, k := kubectlOnOneNode(t)
	eventually(t, "the node is registered", func() bool { return p.Nodes().HasSynced() && p.IsReady() })

	k.ok("", "run", "huge", "--image=nginx", "--overrides", `{"spec":{"containers":[{"name":"huge","image":"nginx","resources":{"requests":{"cpu":"1000"}}}]}}`)
	eventually(t, "huge is found unschedulable", func() bool {
		return strings.Contains(k.ok("", "describe", "pod", "huge"), "FailedScheduling")
	})
	describe := k.ok("", "describe", "pod", "huge")
	assert.Contains(t, describe, "Pending")
	assert.Contains(t, describe, "0/1 nodes are available: 1 Insufficient cpu.")
	assert.Contains(t, describe, "default-scheduler")
}

// TestServeRBAC: with --authorization-mode=RBAC, serve's token user may do
// everything through cluster-admin, the default service account of a
// namespace may do nothing it was not granted, and its token from
// `kubectl create token` is refused in kube-apiserver's words until a
// binding grants it.
func TestServeRBAC(t *testing.T) {
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Skip("kubectl is not installed")
	}
	kcPath := filepath.Join(t.TempDir(), "kubeconfig")
	_, stdout, _ := startServe(t, "--token=s3cret", "--authorization-mode=RBAC", "--kubeconfig="+kcPath)
	m := exportLine.FindStringSubmatch(stdout.String())
	require.NotNil(t, m, stdout.String())
	k := newKubectl(t, m[1])
	eventually(t, "the default service account is made", func() bool {
		_, _, err := k.run("", "get", "serviceaccount", "default")
		return err == nil
	})
	assert.Equal(t, "yes\n", k.ok("", "auth", "can-i", "create", "clusterrolebindings"))
	out, _, _ := k.run("", "auth", "can-i", "list", "pods", "--as=system:serviceaccount:default:default")
	assert.Equal(t, "no\n", out)
	token := strings.TrimSpace(k.ok("", "create", "token", "default"))
	as := func(args ...string) []string { return append([]string{"--token=" + token}, args...) }
	assert.Contains(t, k.fails("", as("get", "pods")...),
		`pods is forbidden: User "system:serviceaccount:default:default" cannot list resource "pods" in API group "" in the namespace "default"`)
	k.ok("", "create", "rolebinding", "sa-view", "--clusterrole=view", "--serviceaccount=default:default")
	eventually(t, "view is aggregated and granted", func() bool {
		_, _, err := k.run("", as("get", "pods")...)
		return err == nil
	})
}
