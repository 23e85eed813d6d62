package httpapi

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/apiserver/httpapi/websocket"
	"github.com/miniplane/miniplane/client"
)

// LogSource gives the logs of pods' containers, as a kubelet serves them.
// kube-apiserver answers GET pods/{name}/log by proxying to the kubelet of
// the pod's node; miniplane has no kubelet process to proxy to, so whatever
// keeps the containers' logs (the simulated kubelets of controllers/nodesim,
// plugged in by the binary) implements this. The handler has already found
// the pod, checked the container's name and read the options; the source
// decides from the pod's status which run of the container to show, as the
// kubelet does.
type LogSource interface {
	// ContainerLog returns the lines that the named container of pod wrote
	// in its current run (or, with previous, in the run before), only those
	// whose Seq is above after. It returns a *apierrors.StatusError (400
	// BadRequest, as a kubelet's answer reaches kubectl) when there is no
	// such run: the container is waiting to start, or has no previous run.
	ContainerLog(pod *api.Pod, container string, previous bool, after int64) (ContainerLog, error)
}

// ContainerLog is one container run's log from a given point on.
type ContainerLog struct {
	// Lines are the lines after the point asked for, oldest first.
	Lines []LogLine
	// Ended says the run is over: no line will follow Lines.
	Ended bool
	// Changed is closed when the run gets a line after Lines, or ends; it
	// is what `kubectl logs -f` waits on. Nil when Ended.
	Changed <-chan struct{}
}

// LogLine is one line of a container's log. Seq numbers a run's lines
// from 1 without gaps, so a follower resumes after the last it sent even
// when the source has dropped older lines to stay bounded.
type LogLine struct {
	Seq  int64
	Time time.Time
	Text string
}

// logOptions are the query parameters of GET pods/{name}/log, Kubernetes'
// PodLogOptions.
type logOptions struct {
	container                    string
	follow, previous, timestamps bool
	tailLines, limitBytes        *int64
	sinceSeconds                 *int64
	sinceTime                    *time.Time
}

// logOptionsOf reads and validates the options: a value that is not a
// number or a boolean gets 400, a number out of range 422 Invalid with
// Kubernetes' messages (ValidatePodLogOptions).
func logOptionsOf(q url.Values, podName string) (logOptions, error) {
	opts := logOptions{container: q.Get("container")}
	var err error
	for _, b := range []struct {
		name string
		to   *bool
	}{{"follow", &opts.follow}, {"previous", &opts.previous}, {"timestamps", &opts.timestamps}} {
		if *b.to, err = boolParam(q, b.name); err != nil {
			return opts, err
		}
	}
	for _, n := range []struct {
		name string
		to   **int64
	}{{"tailLines", &opts.tailLines}, {"limitBytes", &opts.limitBytes}, {"sinceSeconds", &opts.sinceSeconds}} {
		v := q.Get(n.name)
		if v == "" {
			continue
		}
		i, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return opts, apierrors.NewBadRequest(fmt.Sprintf("%s %q is not an integer", n.name, v))
		}
		*n.to = &i
	}
	if v := q.Get("sinceTime"); v != "" {
		t, err := time.Parse(time.RFC3339, v)
		if err != nil {
			return opts, apierrors.NewBadRequest(fmt.Sprintf("sinceTime %q is not an RFC 3339 time", v))
		}
		opts.sinceTime = &t
	}

	var errs apierrors.FieldErrors
	if opts.tailLines != nil && *opts.tailLines < 0 {
		errs = append(errs, apierrors.FieldError{Type: api.CauseTypeFieldValueInvalid, Field: "tailLines", BadValue: *opts.tailLines, Detail: "must be greater than or equal to 0"})
	}
	if opts.limitBytes != nil && *opts.limitBytes < 1 {
		errs = append(errs, apierrors.FieldError{Type: api.CauseTypeFieldValueInvalid, Field: "limitBytes", BadValue: *opts.limitBytes, Detail: "must be greater than 0"})
	}
	switch {
	case opts.sinceSeconds != nil && opts.sinceTime != nil:
		errs = append(errs, apierrors.FieldError{Type: api.CauseTypeFieldValueForbidden, Detail: "at most one of `sinceTime` or `sinceSeconds` may be specified"})
	case opts.sinceSeconds != nil && *opts.sinceSeconds < 1:
		errs = append(errs, apierrors.FieldError{Type: api.CauseTypeFieldValueInvalid, Field: "sinceSeconds", BadValue: *opts.sinceSeconds, Detail: "must be greater than 0"})
	}
	if len(errs) > 0 {
		return opts, apierrors.NewInvalid("", "PodLogOptions", podName, errs)
	}
	return opts, nil
}

// logContainer picks the container whose log is asked for, with
// kube-apiserver's rules and messages (validateContainer in
// pkg/registry/core/pod): a name must be one of the pod's containers; no
// name means the only container, and a pod with several needs one.
func logContainer(pod *api.Pod, name string) (string, error) {
	if name == "" {
		switch len(pod.Spec.Containers) {
		case 1:
			return pod.Spec.Containers[0].Name, nil
		case 0:
			return "", apierrors.NewBadRequest(fmt.Sprintf("a container name must be specified for pod %s", pod.Metadata.Name))
		}
		return "", apierrors.NewBadRequest(fmt.Sprintf("a container name must be specified for pod %s, choose one of: %v", pod.Metadata.Name, allContainerNames(pod)))
	}
	if slices.Contains(allContainerNames(pod), name) {
		return name, nil
	}
	return "", apierrors.NewBadRequest(fmt.Sprintf("container %s is not valid for pod %s", name, pod.Metadata.Name))
}

// allContainerNames are the names of pod's init containers, containers and
// ephemeral containers, in that order. Kubernetes: podutil.VisitContainers.
func allContainerNames(pod *api.Pod) []string {
	names := containerNames(slices.Concat(pod.Spec.InitContainers, pod.Spec.Containers))
	for _, ec := range pod.Spec.EphemeralContainers {
		names = append(names, ec.Name)
	}
	return names
}

// serveLog answers GET pods/{name}/log: the pod's container log as plain
// text, filtered by sinceSeconds or sinceTime, then cut to its last
// tailLines lines and to limitBytes; with follow, the answer stays open and
// carries each new line until the container's run ends, the client goes
// away or the handler shuts down. A pod not yet bound to a node has no log
// yet: an empty answer, as kube-apiserver gives.
func (h *Handler) serveLog(w http.ResponseWriter, r *http.Request, req resourceRequest) error {
	opts, err := logOptionsOf(queryOf(r), req.name)
	if err != nil {
		return err
	}
	pod, err := client.For[*api.Pod](h.srv).Get(r.Context(), req.namespace, req.name)
	if err != nil {
		return err
	}
	container, err := logContainer(pod, opts.container)
	if err != nil {
		return err
	}
	ws := websocket.IsRequest(r)
	protocol := ""
	if ws {
		if protocol, err = websocket.Check(r, websocket.ReaderProtocols); err != nil {
			return handshakeError(err)
		}
	}
	log := ContainerLog{Ended: true}
	if pod.Spec.NodeName != "" {
		if h.logs == nil {
			return apierrors.NewBadRequest(fmt.Sprintf("no kubelet serves the logs of pod %s: this server runs without simulated nodes", req.name))
		}
		if log, err = h.logs.ContainerLog(pod, container, opts.previous, 0); err != nil {
			return err
		}
	}
	// A pod not bound to a node has no log yet: an empty answer.
	lw := &logWriter{w: w, flush: http.NewResponseController(w).Flush, opts: opts, now: h.clock.Now()}
	ctx := r.Context()
	if ws {
		conn, err := websocket.Upgrade(w, r, protocol)
		if err != nil {
			return nil // the connection is gone: nothing to answer on
		}
		defer conn.Close(websocket.CloseNormal, "")
		// As wsstream.Reader with ping: an empty message first, then a
		// message per write; the client's close ends the stream.
		if conn.WriteData(nil) != nil {
			return nil
		}
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		go func() { conn.Discard(); cancel() }()
		lw.w, lw.flush = wsLogWriter{conn}, func() error { return nil }
	} else {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusOK)
	}
	lines := log.Lines
	if opts.tailLines != nil {
		lines = lines[max(0, len(lines)-int(*opts.tailLines)):]
	}
	lw.write(lines)
	if !opts.follow || r.Method == http.MethodHead {
		return nil
	}
	h.followLog(ctx, lw, pod, container, opts.previous, log)
	return nil
}

// wsLogWriter writes a log to a websocket, a message a write.
type wsLogWriter struct{ conn *websocket.Conn }

func (w wsLogWriter) Write(p []byte) (int, error) {
	if err := w.conn.WriteData(p); err != nil {
		return 0, err
	}
	return len(p), nil
}

// followLog writes a run's new lines as they come, until it ends.
func (h *Handler) followLog(ctx context.Context, lw *logWriter, pod *api.Pod, container string, previous bool, log ContainerLog) {
	last := int64(0)
	if n := len(log.Lines); n > 0 {
		last = log.Lines[n-1].Seq
	}
	for !log.Ended && !lw.full() {
		_ = lw.flush()
		select {
		case <-ctx.Done():
			return
		case <-h.done:
			return
		case <-log.Changed:
		}
		var err error
		if log, err = h.logs.ContainerLog(pod, container, previous, last); err != nil {
			return // the run is gone (its pod was deleted): the stream ends
		}
		lw.write(log.Lines)
		if n := len(log.Lines); n > 0 {
			last = log.Lines[n-1].Seq
		}
	}
	_ = lw.flush()
}

// logWriter writes log lines as options ask: only those since the start
// point, with timestamps if asked, and no more than limitBytes in all.
type logWriter struct {
	w       io.Writer
	flush   func() error
	opts    logOptions
	now     time.Time
	written int64
}

func (lw *logWriter) full() bool {
	return lw.opts.limitBytes != nil && lw.written >= *lw.opts.limitBytes
}

func (lw *logWriter) write(lines []LogLine) {
	var since time.Time
	switch {
	case lw.opts.sinceSeconds != nil && *lw.opts.sinceSeconds <= math.MaxInt64/int64(time.Second):
		since = lw.now.Add(-time.Duration(*lw.opts.sinceSeconds) * time.Second)
	case lw.opts.sinceTime != nil:
		since = *lw.opts.sinceTime
	}
	var buf []byte
	for _, l := range lines {
		if l.Time.Before(since) {
			continue
		}
		if lw.opts.timestamps {
			buf = l.Time.UTC().AppendFormat(buf, time.RFC3339Nano)
			buf = append(buf, ' ')
		}
		buf = append(buf, l.Text...)
		buf = append(buf, '\n')
	}
	if lw.opts.limitBytes != nil {
		buf = buf[:min(int64(len(buf)), max(0, *lw.opts.limitBytes-lw.written))]
	}
	if len(buf) == 0 {
		return
	}
	n, _ := lw.w.Write(buf)
	lw.written += int64(n)
}
