package httpapi_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/apiserver/httpapi"
	"github.com/miniplane/miniplane/apiserver/httpapi/websocket"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
)

// fakeExec is an Executor with a few commands: echo, `fail N` (exits N
// after writing to stderr), and anything in a container named "stopped"
// fails as a kubelet does for a container not running.
type fakeExec struct{ ran [][]string }

func (f *fakeExec) Exec(pod *api.Pod, container string, argv []string) (httpapi.ExecResult, error) {
	f.ran = append(f.ran, argv)
	if container == "stopped" {
		return httpapi.ExecResult{}, apierrors.NewInternalError(fmt.Errorf("container %q is not running", container))
	}
	if len(argv) >= 3 && argv[1] == "-c" {
		argv = strings.Fields(argv[2])
	}
	switch argv[0] {
	case "echo":
		return httpapi.ExecResult{Stdout: []byte(strings.Join(argv[1:], " ") + "\n")}, nil
	case "fail", "exit":
		var n int32
		fmt.Sscan(argv[1], &n)
		return httpapi.ExecResult{Stderr: []byte("failing\n"), ExitCode: n}, nil
	}
	return httpapi.ExecResult{Stderr: []byte("sh: " + argv[0] + ": not found\n"), ExitCode: 127}, nil
}

// wsClient is a websocket client over a real connection: it sends masked
// frames and reads the server's.
type wsClient struct {
	nc   net.Conn
	br   *bufio.Reader
	resp *http.Response
}

func dialWS(t *testing.T, url, path string, protocols ...string) *wsClient {
	t.Helper()
	nc, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	require.NoError(t, err)
	t.Cleanup(func() { nc.Close() })
	req := "GET " + path + " HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
	if len(protocols) > 0 {
		req += "Sec-WebSocket-Protocol: " + strings.Join(protocols, ", ") + "\r\n"
	}
	_, err = io.WriteString(nc, req+"\r\n")
	require.NoError(t, err)
	br := bufio.NewReader(nc)
	resp, err := http.ReadResponse(br, nil)
	require.NoError(t, err)
	return &wsClient{nc: nc, br: br, resp: resp}
}

func (c *wsClient) send(t *testing.T, msg []byte) {
	_, err := c.nc.Write(websocket.AppendMaskedFrame(nil, websocket.Frame{Fin: true, Op: websocket.OpBinary, Payload: msg}, [4]byte{1, 2, 3, 4}))
	require.NoError(t, err)
}

// messages reads the server's data messages until its close frame.
func (c *wsClient) messages(t *testing.T) []string {
	var out []string
	for {
		f, err := websocket.ReadServerFrame(c.br, websocket.MaxMessage)
		require.NoError(t, err)
		if f.Op == websocket.OpClose {
			return out
		}
		out = append(out, string(f.Payload))
	}
}

func execFixture(t *testing.T) (*testServer, *fakeExec) {
	ex := &fakeExec{}
	srv := newTestServer(t, clock.NewFake(epoch), func(c *httpapi.Config) { c.Exec = ex })
	for _, p := range []struct {
		name       string
		containers []string
		bound      bool
	}{{"web", []string{"app"}, true}, {"two", []string{"app", "stopped"}, true}, {"pending", []string{"app"}, false}} {
		pod := podOf("default", p.name, nil)
		pod.Spec.Containers = nil
		for _, c := range p.containers {
			pod.Spec.Containers = append(pod.Spec.Containers, api.Container{Name: c, Image: "busybox"})
		}
		if p.bound {
			pod.Spec.NodeName = "node-0"
		}
		_, err := srv.srv.Create(ctx, pod)
		require.NoError(t, err)
	}
	return srv, ex
}

// TestPodExec runs commands over each channel protocol and checks every
// message the server sends: the empty message that opens the streams, the
// output on stdout (1) and stderr (2), and the end on the error stream (3)
// as the kubelet writes it.
func TestPodExec(t *testing.T) {
	srv, _ := execFixture(t)
	const web = "/api/v1/namespaces/default/pods/web/exec?stdout=1&stderr=1&"
	success := "\x03" + `{"metadata":{},"status":"Success"}`
	exit3 := "\x03" + `{"metadata":{},"status":"Failure","message":"command terminated with non-zero exit code: error executing command [fail 3], exit code 3","reason":"NonZeroExitCode","details":{"causes":[{"reason":"ExitCode","message":"3"}]}}`
	tests := []struct {
		name      string
		path      string
		protocols []string
		wantProto string
		want      []string
	}{
		{"v5", web + "command=echo&command=hello", []string{websocket.ChannelV5, websocket.ChannelV4}, websocket.ChannelV5, []string{"\x01", "\x01hello\n", success}},
		{"v4", web + "command=echo&command=hello", []string{websocket.ChannelV4}, websocket.ChannelV4, []string{"\x01", "\x01hello\n", success}},
		{"exit code", web + "command=fail&command=3", []string{websocket.ChannelV5}, websocket.ChannelV5, []string{"\x01", "\x02failing\n", exit3}},
		{"stdout only: stderr not sent", "/api/v1/namespaces/default/pods/web/exec?stdout=true&command=fail&command=3", []string{websocket.ChannelV4}, websocket.ChannelV4, []string{"\x01", exit3}},
		// The conformance test's protocol: v1 writes only a failure.
		{"channel.k8s.io", web + "command=echo&command=remote+execution+test", []string{websocket.ChannelV1}, websocket.ChannelV1, []string{"\x01", "\x01remote execution test\n"}},
		{"channel.k8s.io failure", web + "command=fail&command=2", []string{websocket.ChannelV1}, websocket.ChannelV1, []string{"\x01", "\x02failing\n", "\x03command terminated with non-zero exit code: error executing command [fail 2], exit code 2"}},
		{"base64", web + "command=echo&command=hi", []string{websocket.ChannelV4Base64}, websocket.ChannelV4Base64, []string{"1", "1aGkK", "3eyJtZXRhZGF0YSI6e30sInN0YXR1cyI6IlN1Y2Nlc3MifQ=="}},
		{"tty: CRLF, stderr merged", web + "tty=true&command=fail&command=3", []string{websocket.ChannelV5}, websocket.ChannelV5, []string{"\x01", "\x01failing\r\n", exit3}},
		{"container not running", "/api/v1/namespaces/default/pods/two/exec?container=stopped&stdout=1&command=ls", []string{websocket.ChannelV5}, websocket.ChannelV5,
			[]string{"\x01", "\x03" + `{"metadata":{},"status":"Failure","message":"Internal error occurred: container \"stopped\" is not running","reason":"InternalError","details":{"causes":[{"message":"container \"stopped\" is not running"}]},"code":500}`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := dialWS(t, srv.url, tt.path, tt.protocols...)
			require.Equal(t, http.StatusSwitchingProtocols, c.resp.StatusCode)
			assert.Equal(t, tt.wantProto, c.resp.Header.Get("Sec-WebSocket-Protocol"))
			assert.Equal(t, tt.want, c.messages(t))
		})
	}
}

// TestPodExecStdin: with stdin and a shell, each line is run as a command
// until the client closes stdin (v5's close signal), and the last one's
// exit ends the exec.
func TestPodExecStdin(t *testing.T) {
	srv, ex := execFixture(t)
	c := dialWS(t, srv.url, "/api/v1/namespaces/default/pods/web/exec?stdin=1&stdout=1&stderr=1&command=sh", websocket.ChannelV5)
	require.Equal(t, http.StatusSwitchingProtocols, c.resp.StatusCode)
	c.send(t, []byte("\x00echo one\necho t"))
	c.send(t, []byte("\x00wo\nfail 4"))
	c.send(t, []byte{websocket.StreamClose, websocket.StreamStdin})
	got := c.messages(t)
	require.Len(t, got, 5)
	assert.Equal(t, []string{"\x01", "\x01one\n", "\x01two\n", "\x02failing\n"}, got[:4])
	assert.Contains(t, got[4], `"reason":"NonZeroExitCode"`)
	assert.Equal(t, [][]string{{"sh", "-c", "echo one"}, {"sh", "-c", "echo two"}, {"sh", "-c", "fail 4"}}, ex.ran)
}

// TestPodExecTerminal: with a terminal (kubectl exec -it POD -- sh) the
// server plays the terminal's part: a prompt, the typed characters echoed
// (backspace erasing), Enter's CR running the line, output in CRLF, and
// Ctrl-D ending the shell with the last command's code.
func TestPodExecTerminal(t *testing.T) {
	srv, ex := execFixture(t)
	c := dialWS(t, srv.url, "/api/v1/namespaces/default/pods/web/exec?stdin=1&stdout=1&tty=1&command=sh", websocket.ChannelV5)
	require.Equal(t, http.StatusSwitchingProtocols, c.resp.StatusCode)
	c.send(t, []byte("\x00echo hi\r"))
	c.send(t, []byte("\x00ab\x7fc\r"))
	c.send(t, []byte("\x00\x04"))
	got := c.messages(t)
	require.Len(t, got, 10)
	assert.Equal(t, []string{"\x01", "\x01/ # ", "\x01echo hi\r\n", "\x01hi\r\n", "\x01/ # ",
		"\x01ab\b \bc\r\n", "\x01sh: ac: not found\r\n", "\x01/ # ", "\x01\r\n"}, got[:9])
	assert.Contains(t, got[9], `"message":"127"`)
	assert.Equal(t, [][]string{{"sh", "-c", "echo hi"}, {"sh", "-c", "ac"}}, ex.ran)
}

// TestPodExecRefused checks the answers before any upgrade, with
// kube-apiserver's codes and messages.
func TestPodExecRefused(t *testing.T) {
	srv, _ := execFixture(t)
	const ns = "/api/v1/namespaces/default/pods/"
	tests := []struct {
		name     string
		path     string
		header   http.Header
		wantCode int
		wantMsg  string
	}{
		{"missing pod", ns + "nope/exec?command=ls&stdout=1", nil, 404, `pods "nope" not found`},
		{"no command", ns + "web/exec?stdout=1", nil, 400, "you must specify at least one command for the container"},
		{"no stream", ns + "web/exec?command=ls", nil, 400, "you must specify at least 1 of stdin, stdout, stderr"},
		{"unknown container", ns + "web/exec?command=ls&stdout=1&container=nope", nil, 400, "container nope is not valid for pod web"},
		{"several containers, none named", ns + "two/exec?command=ls&stdout=1", nil, 400, "a container name must be specified for pod two, choose one of: [app stopped]"},
		{"not bound", ns + "pending/exec?command=ls&stdout=1", nil, 400, "pod pending does not have a host assigned"},
		{"SPDY without a stream protocol", ns + "web/exec?command=ls&stdout=1", http.Header{"Upgrade": {"SPDY/3.1"}, "Connection": {"Upgrade"}, "X-Stream-Protocol-Version": {"v9.channel.k8s.io"}}, 403,
			"pods is forbidden: unable to upgrade: unable to negotiate protocol: client supports [v9.channel.k8s.io], server supports [v4.channel.k8s.io v3.channel.k8s.io v2.channel.k8s.io channel.k8s.io]"},
		{"no upgrade", ns + "web/exec?command=ls&stdout=1", nil, 400, "Upgrade request required"},
		{"a protocol not spoken", ns + "web/exec?command=ls&stdout=1", http.Header{"Upgrade": {"websocket"}, "Connection": {"Upgrade"},
			"Sec-Websocket-Version": {"13"}, "Sec-Websocket-Key": {"dGhlIHNhbXBsZSBub25jZQ=="}, "Sec-Websocket-Protocol": {"v9.channel.k8s.io"}}, 403,
			`pods is forbidden: requested protocol(s) are not supported: [v9.channel.k8s.io]; supports [v5.channel.k8s.io v4.channel.k8s.io v4.base64.channel.k8s.io channel.k8s.io base64.channel.k8s.io ]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodGet, srv.url+tt.path, nil)
			require.NoError(t, err)
			if tt.name == "SPDY without a stream protocol" {
				req.Method = http.MethodPost
			}
			for k, v := range tt.header {
				req.Header[k] = v
			}
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			defer resp.Body.Close()
			require.Equal(t, tt.wantCode, resp.StatusCode)
			var st api.Status
			require.NoError(t, json.NewDecoder(resp.Body).Decode(&st))
			assert.Equal(t, tt.wantMsg, st.Message)
		})
	}
}

// TestPodLogWebsocket reads a log over a websocket as the conformance test
// does (binary.k8s.io): an empty message first, then the log; base64 on
// base64.binary.k8s.io.
func TestPodLogWebsocket(t *testing.T) {
	f, logs := logFixture(t)
	srv := newTestServer(t, f.clk, func(c *httpapi.Config) { c.Logs = logs })
	p := podOf("default", "web", nil)
	p.Spec.NodeName = "node-0"
	_, err := srv.srv.Create(ctx, p)
	require.NoError(t, err)
	for _, tt := range []struct {
		protocol string
		want     []string
	}{
		{websocket.ReaderBinary, []string{"", "one\ntwo\nthree\n"}},
		{websocket.ReaderBase64, []string{"", "b25lCnR3bwp0aHJlZQo="}},
		{"", []string{"", "one\ntwo\nthree\n"}},
	} {
		t.Run(tt.protocol, func(t *testing.T) {
			var protos []string
			if tt.protocol != "" {
				protos = []string{tt.protocol}
			}
			c := dialWS(t, srv.url, "/api/v1/namespaces/default/pods/web/log?container=app", protos...)
			require.Equal(t, http.StatusSwitchingProtocols, c.resp.StatusCode)
			assert.Equal(t, tt.protocol, c.resp.Header.Get("Sec-WebSocket-Protocol"))
			assert.Equal(t, tt.want, c.messages(t))
		})
	}
	t.Run("follow: a line written later arrives", func(t *testing.T) {
		c := dialWS(t, srv.url, "/api/v1/namespaces/default/pods/web/log?follow=true&tailLines=1", websocket.ReaderBinary)
		require.Equal(t, http.StatusSwitchingProtocols, c.resp.StatusCode)
		first := func() string {
			f, err := websocket.ReadServerFrame(c.br, websocket.MaxMessage)
			require.NoError(t, err)
			return string(f.Payload)
		}
		assert.Equal(t, "", first())
		assert.Equal(t, "three\n", first())
		logs.add("web/app", f.clk.Now().Add(time.Second), "four", true)
		assert.Equal(t, []string{"four\n"}, c.messages(t))
	})
}

// TestKubectlExec drives the real kubectl: it negotiates a websocket,
// prints the command's stdout and stderr, exits with the command's code,
// and with -i runs each line of its stdin through the shell.
func TestKubectlExec(t *testing.T) {
	srv, _ := execFixture(t)
	k := newKubectl(t, srv.url)
	pod, err := client.For[*api.Pod](srv.srv).Get(ctx, "default", "web")
	require.NoError(t, err)
	running := pod.DeepCopy()
	running.Status.Phase = api.PodRunning // kubectl checks the phase first
	_, err = srv.srv.UpdateStatus(ctx, running)
	require.NoError(t, err)

	assert.Equal(t, "hello world\n", k.ok("", "exec", "web", "--", "echo", "hello", "world"))
	out, errOut, err := k.run("", "exec", "web", "--", "fail", "3")
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit)
	assert.Equal(t, 3, exit.ExitCode(), "kubectl exits with the command's code")
	assert.Equal(t, "", out)
	assert.Equal(t, "failing\ncommand terminated with exit code 3\n", errOut)
	assert.Equal(t, "one\ntwo\n", k.ok("echo one\necho two\n", "exec", "-i", "web", "--", "sh"))
	assert.Contains(t, k.fails("", "exec", "web", "-c", "nope", "--", "ls"),
		"Error from server (BadRequest): container nope is not valid for pod web")
}
