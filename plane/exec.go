package plane

import (
	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver/httpapi"
	"github.com/miniplane/miniplane/controllers/nodesim"
)

// nodeExec plugs the simulated kubelets' exec into the HTTP API (`kubectl
// exec`), as nodeLogs does their logs.
type nodeExec struct{ nodes *nodesim.Controller }

// Exec implements httpapi.Executor.
func (n nodeExec) Exec(pod *api.Pod, container string, argv []string) (httpapi.ExecResult, error) {
	res, err := n.nodes.PodExec(pod, container, argv)
	if err != nil {
		return httpapi.ExecResult{}, err
	}
	return httpapi.ExecResult{Stdout: []byte(res.Stdout), Stderr: []byte(res.Stderr), ExitCode: res.ExitCode}, nil
}
