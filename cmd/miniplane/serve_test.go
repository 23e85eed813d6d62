package main

import (
	"bytes"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// syncBuffer is a bytes.Buffer that one goroutine writes while another
// reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// eventually polls cond every 10ms for up to 20s: the server runs on the
// real clock, so its progress cannot be stepped.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	require.Eventually(t, cond, 20*time.Second, 10*time.Millisecond, what)
}

var urlLine = regexp.MustCompile(`serving the Kubernetes API on (https?://127\.0\.0\.1:\d+)`)

// startServe runs `miniplane serve` in-process on a free loopback port and
// returns its URL and a function that stops it with SIGTERM and returns
// run's error.
func startServe(t *testing.T, args ...string) (url string, stdout *syncBuffer, stop func() error) {
	t.Helper()
	stdout = &syncBuffer{}
	var stderr syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(append([]string{"serve", "--addr=127.0.0.1:0", "--nodes=2"}, args...), stdout, &stderr)
	}()
	eventually(t, "serve prints its address", func() bool { return urlLine.MatchString(stdout.String()) })
	url = urlLine.FindStringSubmatch(stdout.String())[1]
	stopped := false
	stop = func() error {
		if stopped {
			return nil
		}
		stopped = true
		require.NoError(t, syscall.Kill(syscall.Getpid(), syscall.SIGTERM))
		select {
		case err := <-done:
			return err
		case <-time.After(20 * time.Second):
			t.Fatal("serve did not stop within 20s of SIGTERM")
			return nil
		}
	}
	t.Cleanup(func() { _ = stop() })
	return url, stdout, stop
}

// TestServeStartsAnswersAndStopsCleanly: serve prints a kubectl line,
// becomes ready, answers a kubectl-style request, and on SIGTERM closes
// its watches, releases its lease and leaves no goroutine behind.
func TestServeStartsAnswersAndStopsCleanly(t *testing.T) {
	// os/signal starts one goroutine of its own the first time it is used,
	// and keeps it: start it before counting.
	_, stopSignals := signalContext()
	stopSignals()
	before := runtime.NumGoroutine()
	url, stdout, stop := startServe(t)
	assert.Contains(t, stdout.String(), "serving the Kubernetes API on "+url)
	assert.Regexp(t, exportLine, stdout.String())

	get := func(path string, hdr ...string) (int, []byte) {
		req, err := http.NewRequest(http.MethodGet, url+path, nil)
		require.NoError(t, err)
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp.StatusCode, body
	}
	eventually(t, "/readyz answers 200", func() bool { code, _ := get("/readyz"); return code == http.StatusOK })
	eventually(t, "serve prints its ready line", func() bool { return strings.Contains(stdout.String(), "\nready: ") })
	assert.Contains(t, stdout.String(), "ready: 2 nodes, 3 controller-manager instances, leader cm-")
	code, body := get("/readyz?verbose")
	require.Equal(t, http.StatusOK, code, string(body))
	assert.Contains(t, string(body), "[+]controller-manager ok\n")

	code, body = get("/api/v1/nodes", "Accept", "application/json;as=Table;v=v1;g=meta.k8s.io,application/json")
	require.Equal(t, http.StatusOK, code, string(body))
	var table struct {
		Kind string `json:"kind"`
		Rows []struct {
			Cells []any `json:"cells"`
		} `json:"rows"`
	}
	require.NoError(t, json.Unmarshal(body, &table))
	assert.Equal(t, "Table", table.Kind)
	require.Len(t, table.Rows, 2, "the two simulated nodes, as kubectl get nodes lists them")
	assert.Equal(t, "node-0", table.Rows[0].Cells[0])

	code, body = get("/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-controller-manager")
	require.Equal(t, http.StatusOK, code, string(body))
	assert.Contains(t, string(body), `"holderIdentity":"cm-`)

	code, body = get("/metrics")
	require.Equal(t, http.StatusOK, code)
	for _, want := range []string{
		`leader_election_master_status{name="kube-controller-manager",instance="cm-`,
		`workqueue_adds_total{name="replicationmanager",instance="cm-`,
		`workqueue_depth{name="nodesim",instance="nodesim"}`,
		`workqueue_work_duration_seconds_bucket{name="nodesim",instance="nodesim",le="+Inf"}`,
		`workqueue_depth{name="scheduler",instance="scheduler"}`,
		`workqueue_depth{name="nodelifecycle",instance="nodelifecycle"}`,
	} {
		assert.Contains(t, string(body), want)
	}
	leaders := regexp.MustCompile(`(?m)^leader_election_master_status\{[^}]*\} 1$`).FindAllString(string(body), -1)
	assert.Len(t, leaders, 1, "exactly one instance leads")

	require.NoError(t, stop())
	assert.Contains(t, stdout.String(), "stopped: watches closed, lease released")
	http.DefaultClient.CloseIdleConnections()
	// Poll by hand: assert.Eventually runs its condition on goroutines of
	// its own, which would be counted.
	left := runtime.NumGoroutine()
	for deadline := time.Now().Add(20 * time.Second); left > before && time.Now().Before(deadline); left = runtime.NumGoroutine() {
		time.Sleep(10 * time.Millisecond)
	}
	if !assert.LessOrEqual(t, left, before, "every goroutine serve started has ended") {
		buf := make([]byte, 1<<20)
		t.Logf("goroutines left:\n%s", buf[:runtime.Stack(buf, true)])
	}
}

// httpGet sends a GET and returns the answer's code and body.
func httpGet(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(body)
}

// TestServeReadiness: /readyz lists the API server's checks and the
// plane's, with controller-manager only when a controller runs; serve
// becomes ready with every controller off and no nodes, runs no
// controller-manager instance then, and stops with no error on SIGTERM;
// --leader-elect-resource-name moves the instances' lease.
func TestServeReadiness(t *testing.T) {
	const apiServerChecks = "[+]ping ok\n[+]etcd ok\n[+]informer-sync ok\n[+]poststarthook/register-nodes ok\n"
	tests := []struct {
		name        string
		args        []string
		wantReady   string // the ready line
		wantVerbose string // /readyz?verbose, all of it
		wantLeases  map[string]bool
		wantStopped string // the last line after SIGTERM
		wantNodes   int
	}{
		{
			name:        "every controller off, no nodes",
			args:        []string{"--controllers=-replicationcontroller,-endpoint,-garbagecollector", "--nodes", "0"},
			wantReady:   "ready: 0 nodes, no controller-manager instance (every controller is off) (Ctrl-C stops)\n",
			wantVerbose: apiServerChecks + "[+]shutdown ok\nreadyz check passed\n",
			wantLeases:  map[string]bool{"kube-controller-manager": false},
			wantStopped: "stopped: watches closed\n",
		},
		{
			name:        "the lease renamed",
			args:        []string{"--leader-elect-resource-name=miniplane-controller-manager", "--instances=2"},
			wantReady:   "ready: 2 nodes, 2 controller-manager instances, leader cm-",
			wantVerbose: apiServerChecks + "[+]controller-manager ok\n[+]shutdown ok\nreadyz check passed\n",
			wantLeases:  map[string]bool{"kube-controller-manager": false, "miniplane-controller-manager": true},
			wantStopped: "stopped: watches closed, lease released\n",
			wantNodes:   2,
		},
		{
			name:        "one controller, unelected",
			args:        []string{"--controllers=endpoint", "--leader-elect=false", "--instances=1"},
			wantReady:   "ready: 2 nodes, 1 controller-manager instances, unelected (Ctrl-C stops)\n",
			wantVerbose: apiServerChecks + "[+]controller-manager ok\n[+]shutdown ok\nreadyz check passed\n",
			wantLeases:  map[string]bool{"kube-controller-manager": false},
			wantStopped: "stopped: watches closed\n",
			wantNodes:   2,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url, stdout, stop := startServe(t, tt.args...)
			eventually(t, "serve prints its ready line", func() bool { return strings.Contains(stdout.String(), "\nready: ") })
			assert.Contains(t, stdout.String(), tt.wantReady)

			code, body := httpGet(t, url+"/readyz?verbose")
			assert.Equal(t, http.StatusOK, code)
			assert.Equal(t, tt.wantVerbose, body)
			code, _ = httpGet(t, url+"/readyz/controller-manager")
			assert.Equal(t, strings.Contains(tt.wantVerbose, "controller-manager"), code == http.StatusOK, "/readyz/controller-manager: %d", code)

			for name, exists := range tt.wantLeases {
				code, body := httpGet(t, url+"/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/"+name)
				if exists {
					assert.Equal(t, http.StatusOK, code, "lease %s", name)
					assert.Contains(t, body, `"holderIdentity":"cm-`)
				} else {
					assert.Equal(t, http.StatusNotFound, code, "lease %s: %s", name, body)
				}
			}
			code, body = httpGet(t, url+"/api/v1/nodes")
			require.Equal(t, http.StatusOK, code)
			var nodes struct {
				Items []json.RawMessage `json:"items"`
			}
			require.NoError(t, json.Unmarshal([]byte(body), &nodes))
			assert.Len(t, nodes.Items, tt.wantNodes)

			require.NoError(t, stop(), "SIGTERM is a clean stop: exit status 0")
			assert.True(t, strings.HasSuffix(stdout.String(), tt.wantStopped), stdout.String())
		})
	}
}

// TestServeInjectsFaults: serve --faults puts the seeded injector in front
// of the API: at rate 1 every list is a 500, the fault is counted in
// /metrics and written to the trace, and health checks pass untouched.
func TestServeInjectsFaults(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "faults.jsonl")
	url, _, stop := startServe(t, "--faults=error", "--fault-rate=1", "--fault-trace="+trace,
		"--controllers=-replicationcontroller,-endpoint,-garbagecollector")
	eventually(t, "ready", func() bool { code, _ := httpGet(t, url+"/readyz"); return code == http.StatusOK })

	code, body := httpGet(t, url+"/api/v1/namespaces/default/pods")
	assert.Equal(t, http.StatusInternalServerError, code)
	assert.Contains(t, body, `"reason":"InternalError"`)
	_, metrics := httpGet(t, url+"/metrics")
	assert.Regexp(t, `miniplane_injected_faults_total\{fault="error"\} [1-9]`, metrics)

	require.NoError(t, stop())
	lines, err := os.ReadFile(trace)
	require.NoError(t, err)
	assert.Contains(t, string(lines), `"fault":"error"`)
}

// TestServeCPUProfile: --cpuprofile writes a pprof profile (gzip-compressed)
// when serve shuts down, and a path that cannot be created is refused
// before anything starts.
func TestServeCPUProfile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cpu.pprof")
	url, _, stop := startServe(t, "--cpuprofile="+path)
	eventually(t, "/readyz answers 200", func() bool { code, _ := httpGet(t, url+"/readyz"); return code == http.StatusOK })
	_, err := os.Stat(path)
	require.NoError(t, err, "the file is created at start")
	require.NoError(t, stop())
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Greater(t, len(b), 2)
	assert.Equal(t, []byte{0x1f, 0x8b}, b[:2], "a pprof profile is gzip-compressed")

	var stdout, stderr bytes.Buffer
	err = run([]string{"serve", "--addr=127.0.0.1:0", "--cpuprofile=" + filepath.Join(t.TempDir(), "no", "such", "dir", "cpu.pprof")}, &stdout, &stderr)
	require.ErrorContains(t, err, "--cpuprofile: ")
	assert.NotContains(t, stdout.String(), "serving the Kubernetes API")
}

// TestServeRefusesAnOpenDoor: without a token, serve listens only where
// other machines cannot reach it, unless told that it is meant.
func TestServeRefusesAnOpenDoor(t *testing.T) {
	tests := []struct {
		addr, token string
		allow       bool
		wantErr     bool
	}{
		{addr: "127.0.0.1:8080"},
		{addr: "[::1]:8080"},
		{addr: "localhost:8080"},
		{addr: "0.0.0.0:8080", wantErr: true},
		{addr: ":8080", wantErr: true},
		{addr: "10.1.2.3:8080", wantErr: true},
		{addr: "[::]:8080", wantErr: true},
		{addr: "example.com:8080", wantErr: true},
		{addr: "0.0.0.0:8080", token: "s3cret"},
		{addr: "0.0.0.0:8080", allow: true},
	}
	for _, tt := range tests {
		err := checkExposure(tt.addr, tt.token, tt.allow)
		if !tt.wantErr {
			assert.NoError(t, err, tt.addr)
			continue
		}
		require.Error(t, err, tt.addr)
		assert.Contains(t, err.Error(), "--insecure-allow-unauthenticated-remote")
		assert.Contains(t, err.Error(), "insecure port")
	}
	var stdout, stderr bytes.Buffer
	err := run([]string{"serve", "--addr", "0.0.0.0:0"}, &stdout, &stderr)
	require.Error(t, err, "serve must refuse before it listens")
	assert.Contains(t, err.Error(), "can be reached from other machines")
}

// TestServeInstallsCRDs: serve --crds serves the definitions of a
// directory from the start, and refuses to start on a bad one, naming it.
func TestServeInstallsCRDs(t *testing.T) {
	const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.demo.example.com
spec:
  group: demo.example.com
  names: {"kind": "Widget", "plural": "widgets"}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
`
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "widgets.yaml"), []byte(crd), 0o600))
	url, _, stop := startServe(t, "--crds", dir)
	resp, err := http.Get(url + "/apis/demo.example.com/v1/namespaces/default/widgets")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode, "the definition is served")
	require.NoError(t, stop())

	bad := filepath.Join(t.TempDir(), "bad.yaml")
	require.NoError(t, os.WriteFile(bad, []byte(strings.ReplaceAll(crd, "storage: true", "storage: false")), 0o600))
	var stdout, stderr bytes.Buffer
	err = run([]string{"serve", "--addr=127.0.0.1:0", "--crds", bad}, &stdout, &stderr)
	require.Error(t, err)
	assert.Contains(t, err.Error(), bad+`: CustomResourceDefinition.apiextensions.k8s.io "widgets.demo.example.com" is invalid: spec.versions: Invalid value:`)
}

// TestEtcdTLSFlags: serve's --etcd-cafile, --etcd-certfile and
// --etcd-keyfile, read into the etcd client's TLS configuration, or
// refused as kube-apiserver's flags would not make sense.
func TestEtcdTLSFlags(t *testing.T) {
	st, err := newServingTLS("127.0.0.1:0", time.Now())
	require.NoError(t, err)
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, data, 0o600))
		return path
	}
	ca := write("ca.crt", st.caPEM)
	leaf := st.config.Certificates[0]
	keyDER, err := x509.MarshalPKCS8PrivateKey(leaf.PrivateKey)
	require.NoError(t, err)
	cert := write("client.crt", pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: leaf.Certificate[0]}))
	key := write("client.key", pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}))
	notPEM := write("junk", []byte("not a certificate"))

	tests := []struct {
		name        string
		files       etcdTLSFiles
		withServers bool
		wantErr     string
		wantCerts   int
		wantCA      bool
	}{
		{name: "none", withServers: true},
		{name: "all three", files: etcdTLSFiles{ca: ca, cert: cert, key: key}, withServers: true, wantCerts: 1, wantCA: true},
		{name: "a CA alone", files: etcdTLSFiles{ca: ca}, withServers: true, wantCA: true},
		{name: "without --etcd-servers", files: etcdTLSFiles{ca: ca}, wantErr: "need --etcd-servers"},
		{name: "a certificate without its key", files: etcdTLSFiles{cert: cert}, withServers: true, wantErr: "go together"},
		{name: "a missing CA file", files: etcdTLSFiles{ca: filepath.Join(dir, "nope")}, withServers: true, wantErr: "--etcd-cafile: open"},
		{name: "a CA file without PEM", files: etcdTLSFiles{ca: notPEM}, withServers: true, wantErr: "no PEM certificate"},
		{name: "a key that is not one", files: etcdTLSFiles{cert: cert, key: notPEM}, withServers: true, wantErr: "--etcd-certfile, --etcd-keyfile:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tc, err := tt.files.config(tt.withServers)
			if tt.wantErr != "" {
				assert.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			if tt.files == (etcdTLSFiles{}) {
				assert.Nil(t, tc)
				return
			}
			assert.Len(t, tc.Certificates, tt.wantCerts)
			assert.Equal(t, tt.wantCA, tc.RootCAs != nil)
		})
	}
}

// TestServeCompactsAsKubeAPIServerDoes: serve's store is compacted every
// 5 minutes by default, kube-apiserver's --etcd-compaction-interval (the
// plane's CompactEvery; plane's TestCompactEveryExpiresOldRevisions shows
// what it does).
func TestServeCompactsAsKubeAPIServerDoes(t *testing.T) {
	var stdout, stderr strings.Builder
	_ = runServe([]string{"--help"}, &stdout, &stderr)
	assert.Regexp(t, `-etcd-compaction-interval duration\n[^\n]*\(default 5m0s\)\n`, stderr.String())
}
