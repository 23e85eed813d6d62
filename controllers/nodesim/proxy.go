package nodesim

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/controllers/nodesim/container"
	"github.com/miniplane/miniplane/controllers/nodesim/podenv"
	"github.com/miniplane/miniplane/informer"
)

// PodHTTP answers req sent to port of pod, as the pod's containers' servers
// answer it (the server rule, container.Program.Serve): the first running
// container whose program listens there answers. The error is what an
// HTTP client dialling the pod would report: the connection refused when
// no running container listens on the port, a failed TLS handshake, or
// that the simulator does not know what the server answers.
func (c *Controller) PodHTTP(pod *api.Pod, port int32, req container.Request) (container.Response, error) {
	addr := net.JoinHostPort(pod.Status.PodIP, strconv.Itoa(int(port)))
	for i := range pod.Spec.Containers {
		if !containerRunning(pod, pod.Spec.Containers[i].Name) {
			continue
		}
		resp, err := c.program(pod, i).Serve(port, req)
		switch {
		case errors.Is(err, container.ErrRefused):
			continue
		case err != nil:
			var ns *container.NotSimulated
			if errors.As(err, &ns) {
				return resp, err
			}
			return resp, fmt.Errorf("dial tcp %s: %w", addr, err)
		}
		return resp, nil
	}
	return container.Response{}, fmt.Errorf("dial tcp %s: %w", addr, container.ErrRefused)
}

// program is what the i-th container of pod runs, as the kubelet starts
// it (podenv.Start): its command and environment, and its volumes once
// the kubelet has mounted them; with the kubelet's run of it, its own
// files as its command and exec'd commands have left them by now.
func (c *Controller) program(pod *api.Pod, i int) container.Program {
	ct := &pod.Spec.Containers[i]
	key := api.KeyOf(&pod.Metadata)
	c.mu.Lock()
	var (
		vols    map[string]container.FS
		m       containerLife
		pending []volumeWrite
	)
	if l := c.lives[key]; l != nil {
		vols = l.vols // replaced, never changed, by a sync
		if cl := l.find(pod, ct.Name); cl != nil {
			m = *cl
		}
	}
	if st := c.state[key]; st != nil {
		pending = st.execWrites
	}
	c.mu.Unlock()
	node, _ := c.nodes.Get(pod.Spec.NodeName)
	started, err := podenv.Start(pod, ct, withWrites(vols, pending), c.sources(pod, node))
	if err != nil { // the kubelet would not have started it
		return container.NewProgram(ct.Image, nil, nil, container.Input{})
	}
	if m.started.IsZero() {
		return container.NewProgram(ct.Image, started.Command, started.Args, started.Input)
	}
	at := make([]string, len(started.Mounts))
	for i, vm := range started.Mounts {
		at[i] = vm.MountPath
	}
	run := m.run.Overlay(ownFiles(m, pending, ct.Name))
	d := c.clock.Now().Sub(m.started) + time.Nanosecond // as an exec now sees them (PodExec)
	return run.ProgramWith(ct.Image, started.Command, started.Args, d, started.Input.FS, at)
}

// KubeletHTTP answers req sent to the kubelet of node, as far as a
// simulated kubelet can: /healthz ("ok") and /pods (the pods bound to the
// node, as the kubelet lists them). Its other endpoints (/logs/, /metrics,
// /stats, /configz, ...) are not simulated; other paths are not found.
func (c *Controller) KubeletHTTP(node *api.Node, req container.Request) (container.Response, error) {
	if _, err := c.nodes.Get(node.Metadata.Name); err != nil {
		return container.Response{}, &container.NotSimulated{Why: fmt.Sprintf("node %q is not one miniplane simulates", node.Metadata.Name)}
	}
	h := http.Header{"Content-Type": {"text/plain; charset=utf-8"}}
	switch req.Path {
	case "/healthz":
		h.Set("X-Content-Type-Options", "nosniff")
		return container.Response{Code: http.StatusOK, Header: h, Body: []byte("ok")}, nil
	case "/pods", "/pods/":
		list := api.PodList{TypeMeta: api.TypeMeta{Kind: "PodList", APIVersion: "v1"}, Items: []api.Pod{}}
		pods, _ := informer.ByIndexOf[*api.Pod](c.podInf.Indexer(), informer.NodeNameIndex, node.Metadata.Name)
		for _, p := range pods {
			item := *p                     // a shallow copy, only encoded
			item.TypeMeta = api.TypeMeta{} // the kubelet's items carry no kind
			list.Items = append(list.Items, item)
		}
		body, err := json.Marshal(list)
		if err != nil {
			return container.Response{}, err
		}
		return container.Response{Code: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}}, Body: body}, nil
	}
	return container.Response{}, &container.NotSimulated{Why: fmt.Sprintf("miniplane's simulated kubelet answers /healthz and /pods, not %q", req.Path)}
}
