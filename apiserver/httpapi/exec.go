package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/apiserver/httpapi/spdy"
	"github.com/miniplane/miniplane/apiserver/httpapi/websocket"
	"github.com/miniplane/miniplane/client"
)

// Executor runs commands in pods' containers, as a kubelet's exec does
// through its container runtime. kube-apiserver answers pods/{name}/exec by
// connecting the client to the kubelet of the pod's node; miniplane's
// containers are simulated, so whatever simulates them (the simulated
// kubelets of controllers/nodesim, plugged in by the binary) answers what
// the command would: see (DESIGN.md, "The simulated nodes").
type Executor interface {
	// Exec runs argv in the named container of pod, one the pod has (the
	// handler checked), and returns what it wrote and its exit code. It
	// returns a *apierrors.StatusError when the container cannot run it:
	// it is not running.
	Exec(pod *api.Pod, container string, argv []string) (ExecResult, error)
}

// ExecResult is what a command run by exec answers.
type ExecResult struct {
	Stdout, Stderr []byte
	ExitCode       int32
}

// execOptions are the query parameters of pods/{name}/exec, Kubernetes'
// PodExecOptions.
type execOptions struct {
	container                  string
	command                    []string
	stdin, stdout, stderr, tty bool
}

// execOptionsOf reads the options, with the kubelet's check that one of the
// streams is asked for (remotecommand's NewOptions; a terminal merges
// stderr into stdout, so stderr is dropped with tty).
func execOptionsOf(q map[string][]string) (execOptions, error) {
	opts := execOptions{container: queryFirst(q["container"]), command: q["command"]}
	for _, b := range []struct {
		name string
		to   *bool
	}{{"stdin", &opts.stdin}, {"stdout", &opts.stdout}, {"stderr", &opts.stderr}, {"tty", &opts.tty}} {
		var err error
		if *b.to, err = boolParam(q, b.name); err != nil {
			return opts, err
		}
	}
	if len(opts.command) == 0 {
		return opts, apierrors.NewBadRequest("you must specify at least one command for the container")
	}
	if !opts.stdin && !opts.stdout && !opts.stderr {
		return opts, apierrors.NewBadRequest("you must specify at least 1 of stdin, stdout, stderr")
	}
	if opts.tty {
		opts.stderr = false
	}
	return opts, nil
}

func queryFirst(v []string) string {
	if len(v) == 0 {
		return ""
	}
	return v[0]
}

// streamContainer picks the container a stream (exec) is for, with
// kube-apiserver's rules and messages (streamLocation in
// pkg/registry/core/pod): a name must be one of the pod's containers, init
// containers or ephemeral containers; no name means the only container.
func streamContainer(pod *api.Pod, name string) (string, error) {
	if name != "" {
		if slices.Contains(allContainerNames(pod), name) {
			return name, nil
		}
		return "", apierrors.NewBadRequest(fmt.Sprintf("container %s is not valid for pod %s", name, pod.Metadata.Name))
	}
	switch len(pod.Spec.Containers) {
	case 1:
		return pod.Spec.Containers[0].Name, nil
	case 0:
		return "", apierrors.NewBadRequest(fmt.Sprintf("a container name must be specified for pod %s", pod.Metadata.Name))
	}
	msg := fmt.Sprintf("a container name must be specified for pod %s, choose one of: %v", pod.Metadata.Name, containerNames(pod.Spec.Containers))
	if len(pod.Spec.InitContainers) > 0 {
		msg += fmt.Sprintf(" or one of the init containers: %v", containerNames(pod.Spec.InitContainers))
	}
	return "", apierrors.NewBadRequest(msg)
}

func containerNames(cs []api.Container) []string {
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = c.Name
	}
	return names
}

// handshakeError is a websocket handshake's refusal as a Status.
func handshakeError(err error) error {
	var he *websocket.HandshakeError
	if errors.As(err, &he) && he.Code == http.StatusForbidden {
		return apierrors.NewForbidden(apierrors.GroupResource{Resource: client.Pods}, "", he.Message)
	}
	return apierrors.NewBadRequest(err.Error())
}

// serveExec answers pods/{name}/exec (kubectl exec): it finds the pod and
// container as kube-apiserver does, then, over a websocket in one of the
// channel protocols (kubectl 1.30 and later, and client-go's websocket
// executor, offer v5.channel.k8s.io and v4.channel.k8s.io first), runs the
// command through the Executor and sends what it wrote on stdout (stream
// 1) and stderr (2), and its end on the error stream (3) as the kubelet
// does: a Status, Success or NonZeroExitCode with the code as an ExitCode
// cause. SPDY/3.1, the older upgrade that kubectl falls back to and the
// only one Kubernetes' e2e framework speaks, carries the same streams
// (openSPDY).
//
// With stdin and a shell for command (kubectl exec -i POD -- sh), each
// line read is run as a command of that shell until the client closes
// stdin (v5) or the connection, or a line exits (over a websocket; SPDY's
// stdin is not read); other commands run once, stdin unread.
func (h *Handler) serveExec(w http.ResponseWriter, r *http.Request, req resourceRequest) error {
	pod, err := client.For[*api.Pod](h.srv).Get(r.Context(), req.namespace, req.name)
	if err != nil {
		return err
	}
	opts, err := execOptionsOf(queryOf(r))
	if err != nil {
		return err
	}
	if opts.container, err = streamContainer(pod, opts.container); err != nil {
		return err
	}
	if pod.Spec.NodeName == "" {
		return apierrors.NewBadRequest(fmt.Sprintf("pod %s does not have a host assigned", req.name))
	}
	if h.exec == nil {
		return errNoContainers(req.info.GroupResource(), req.name, "exec")
	}
	var s *execStream
	switch {
	case spdy.IsRequest(r):
		if s, err = openSPDY(w, r, opts); s == nil {
			return err
		}
	case websocket.IsRequest(r):
		protocol, err := websocket.Check(r, websocket.ChannelProtocols)
		if err != nil {
			return handshakeError(err)
		}
		conn, err := websocket.Upgrade(w, r, protocol)
		if err != nil {
			return nil // the connection is gone: nothing to answer on
		}
		s = &execStream{opts: opts, protocol: protocol, ws: conn, write: conn.WriteStream}
	default:
		return apierrors.NewBadRequest("Upgrade request required")
	}
	defer s.close()
	// The kubelet sends an empty message on the first stream it writes,
	// to tell the client the streams are up.
	switch {
	case opts.stdout:
		s.send(websocket.StreamStdout, nil)
	case opts.stderr:
		s.send(websocket.StreamStderr, nil)
	default:
		s.send(websocket.StreamError, nil)
	}
	run := func(argv []string) (ExecResult, bool) {
		res, err := h.exec.Exec(pod, opts.container, argv)
		if err != nil {
			s.status(err)
			return res, false
		}
		s.output(res)
		return res, true
	}
	var res ExecResult
	ok := true
	if opts.stdin && isShellName(opts.command) && s.ws != nil {
		res, ok = s.lines(run)
	} else {
		res, ok = run(opts.command)
	}
	if ok {
		s.status(exitStatus(opts.command, res.ExitCode))
	}
	return nil
}

// isShellName says whether command starts a shell reading its stdin:
// sh, bash and the like without -c.
func isShellName(command []string) bool {
	switch path.Base(command[0]) {
	case "sh", "bash", "ash", "dash":
		return !slices.Contains(command[1:], "-c")
	}
	return false
}

// exitStatus is the kubelet's Status for a command's exit: nil for 0, else
// NonZeroExitCode with the code as the ExitCode cause (kubelet's
// remotecommand, with containerd's message).
func exitStatus(command []string, code int32) error {
	if code == 0 {
		return nil
	}
	return &apierrors.StatusError{Status: api.Status{
		Status:  api.StatusFailure,
		Reason:  "NonZeroExitCode",
		Message: fmt.Sprintf("command terminated with non-zero exit code: error executing command %v, exit code %d", command, code),
		Details: &api.StatusDetails{Causes: []api.StatusCause{{Type: "ExitCode", Message: strconv.Itoa(int(code))}}},
	}}
}

// execStream is the server's end of an exec, over a websocket or SPDY.
type execStream struct {
	opts     execOptions
	protocol string
	// write sends data on a stream (websocket's numbers); a client gone is
	// seen by the next read.
	write func(stream byte, data []byte) error
	// ws is the websocket, or sp and spStreams the SPDY connection and
	// its streams' ids by websocket number.
	ws        *websocket.Conn
	sp        *spdy.Conn
	spStreams map[byte]uint32
}

func (s *execStream) send(stream byte, data []byte) { _ = s.write(stream, data) }

// close ends the exec: SPDY's streams each end with FIN, then the
// connection closes.
func (s *execStream) close() {
	if s.ws != nil {
		_ = s.ws.Close(websocket.CloseNormal, "")
		return
	}
	for _, n := range slices.Sorted(maps.Keys(s.spStreams)) {
		_ = s.sp.Write(s.spStreams[n], nil, true)
	}
	_ = s.sp.Close()
}

// output sends what a command wrote on the streams asked for; with a
// terminal, lines end in CRLF as a terminal's do.
func (s *execStream) output(res ExecResult) {
	out, errOut := res.Stdout, res.Stderr
	if s.opts.tty {
		out = bytes.ReplaceAll(append(out, errOut...), []byte("\n"), []byte("\r\n"))
		errOut = nil
	}
	if s.opts.stdout && len(out) > 0 {
		s.send(websocket.StreamStdout, out)
	}
	if s.opts.stderr && len(errOut) > 0 {
		s.send(websocket.StreamStderr, errOut)
	}
}

// status ends the exec on the error stream: v4 and v5 send a Status as
// JSON, Success for nil; the older protocols only a failure's message.
func (s *execStream) status(err error) {
	st := api.Status{Status: api.StatusSuccess}
	if err != nil {
		var se *apierrors.StatusError
		if !errors.As(err, &se) {
			se = apierrors.NewInternalError(err)
		}
		st = se.Status
		st.TypeMeta = api.TypeMeta{}
	}
	switch s.protocol {
	case websocket.ChannelV5, websocket.ChannelV4, websocket.ChannelV4Base64:
		b, _ := json.Marshal(st)
		s.send(websocket.StreamError, b)
	default:
		if err != nil {
			s.send(websocket.StreamError, []byte(st.Message))
		}
	}
}

// lines runs each line the client writes on stdin as a command of the
// shell, until stdin closes or a line exits the shell; it returns the last
// command's result. With a terminal (kubectl exec -it POD -- sh) it plays
// the terminal's part too: it echoes what is typed (the terminal is in raw
// mode), takes Enter's CR as the end of a line, erases on backspace, ends
// on Ctrl-D at the start of a line, and prompts as busybox's root shell.
func (s *execStream) lines(run func([]string) (ExecResult, bool)) (ExecResult, bool) {
	shell := s.opts.command[0]
	const prompt = "/ # "
	if s.opts.tty {
		s.send(websocket.StreamStdout, []byte(prompt))
	}
	var res ExecResult
	var line []byte
	for {
		m, err := s.ws.ReadStream()
		done := err != nil || m.Closed && m.Stream == websocket.StreamStdin
		var in []byte
		if !done && m.Stream == websocket.StreamStdin {
			in = m.Data
		}
		if done {
			in = []byte{'\n'} // the last line, unended
		}
		var echo []byte
		for _, b := range in {
			switch {
			case b == '\n' || b == '\r':
				echo = append(echo, '\r', '\n')
				s.echo(echo)
				echo = nil
				cmd := strings.TrimSpace(string(line))
				line = line[:0]
				if cmd == "" {
					if !done {
						s.echo([]byte(prompt))
					}
					continue
				}
				var ok bool
				if res, ok = run([]string{shell, "-c", cmd}); !ok {
					return res, false
				}
				if f := strings.Fields(cmd); f[0] == "exit" {
					return res, true
				}
				s.echo([]byte(prompt))
			case s.opts.tty && (b == 0x7f || b == '\b'):
				if len(line) > 0 {
					line = line[:len(line)-1]
					echo = append(echo, '\b', ' ', '\b')
				}
			case s.opts.tty && b == 0x04 && len(line) == 0: // Ctrl-D
				s.echo(append(echo, '\r', '\n'))
				return res, true
			default:
				line = append(line, b)
				echo = append(echo, b)
			}
		}
		s.echo(echo)
		if done {
			return res, true
		}
	}
}

// echo writes what a terminal shows the user: nothing without one.
func (s *execStream) echo(b []byte) {
	if s.opts.tty && len(b) > 0 {
		s.send(websocket.StreamStdout, b)
	}
}

// spdyProtocols are the stream protocols served over SPDY, as the kubelet
// serves them (v5 is websocket's).
var spdyProtocols = []string{websocket.ChannelV4, "v3.channel.k8s.io", "v2.channel.k8s.io", websocket.ChannelV1}

// openSPDY upgrades an exec to SPDY/3.1, as client-go's SPDY executor (and
// Kubernetes' e2e framework) asks, and waits for the streams the client
// opens, each named by its streamType header: error, and stdin, stdout,
// stderr and resize as the options ask (remotecommand's
// waitStreamReply). It returns nil and the error to answer when the
// request cannot be upgraded, or nil and nil when the connection failed.
func openSPDY(w http.ResponseWriter, r *http.Request, opts execOptions) (*execStream, error) {
	protocol, ok := spdy.Negotiate(r, spdyProtocols)
	if !ok {
		return nil, apierrors.NewForbidden(apierrors.GroupResource{Resource: client.Pods}, "",
			fmt.Sprintf("unable to upgrade: unable to negotiate protocol: client supports %v, server supports %v", r.Header.Values(spdy.HeaderProtocolVersion), spdyProtocols))
	}
	conn, err := spdy.Upgrade(w, r, protocol)
	if err != nil {
		return nil, nil
	}
	numbers := map[string]byte{"error": websocket.StreamError, "stdin": websocket.StreamStdin, "stdout": websocket.StreamStdout, "stderr": websocket.StreamStderr, "resize": websocket.StreamResize}
	want := 1 // the error stream
	for _, asked := range []bool{opts.stdin, opts.stdout, opts.stderr, opts.tty && protocol != websocket.ChannelV1 && protocol != "v2.channel.k8s.io"} {
		if asked {
			want++
		}
	}
	s := &execStream{opts: opts, protocol: protocol, sp: conn, spStreams: map[byte]uint32{}}
	s.write = func(stream byte, data []byte) error {
		id, ok := s.spStreams[stream]
		if !ok || len(data) == 0 {
			return nil // a stream the client did not open; SPDY needs no opening message
		}
		return conn.Write(id, data, false)
	}
	for len(s.spStreams) < want {
		st, err := conn.Accept()
		if err != nil {
			_ = conn.Close()
			return nil, nil
		}
		if n, ok := numbers[st.Headers.Get("streamType")]; ok {
			s.spStreams[n] = st.ID
		}
	}
	return s, nil
}
