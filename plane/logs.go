package plane

import (
	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver/httpapi"
	"github.com/miniplane/miniplane/controllers/nodesim"
)

// nodeLogs plugs the simulated kubelets' container logs into the HTTP API
// (`kubectl logs`): httpapi declares the LogSource it needs and may not
// import controllers/nodesim, so the plane joins the two.
type nodeLogs struct{ nodes *nodesim.Controller }

// ContainerLog implements httpapi.LogSource.
func (n nodeLogs) ContainerLog(pod *api.Pod, container string, previous bool, after int64) (httpapi.ContainerLog, error) {
	l, err := n.nodes.ContainerLog(pod, container, previous, after)
	if err != nil {
		return httpapi.ContainerLog{}, err
	}
	out := httpapi.ContainerLog{Ended: l.Ended, Changed: l.Changed, Lines: make([]httpapi.LogLine, len(l.Lines))}
	for i, line := range l.Lines {
		out.Lines[i] = httpapi.LogLine{Seq: line.Seq, Time: line.Time, Text: line.Text}
	}
	return out, nil
}
