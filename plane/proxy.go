package plane

import (
	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver/httpapi"
	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/controllers/nodesim"
	"github.com/miniplane/miniplane/controllers/nodesim/container"
)

// nodeProxy plugs the simulated kubelets' containers into the HTTP API's
// proxy subresources (kubectl get --raw .../pods/P:9376/proxy/): httpapi
// declares the ProxyBackend it needs and may not import
// controllers/nodesim, so the plane joins the two. The clock gives the
// time the servers see.
type nodeProxy struct {
	nodes *nodesim.Controller
	clock clock.Clock
}

// PodHTTP implements httpapi.ProxyBackend.
func (n nodeProxy) PodHTTP(pod *api.Pod, port int32, req httpapi.ProxyRequest) (httpapi.ProxyResponse, error) {
	resp, err := n.nodes.PodHTTP(pod, port, n.request(req))
	return httpapi.ProxyResponse(resp), err
}

// KubeletHTTP implements httpapi.ProxyBackend.
func (n nodeProxy) KubeletHTTP(node *api.Node, req httpapi.ProxyRequest) (httpapi.ProxyResponse, error) {
	resp, err := n.nodes.KubeletHTTP(node, n.request(req))
	return httpapi.ProxyResponse(resp), err
}

func (n nodeProxy) request(req httpapi.ProxyRequest) container.Request {
	return container.Request{Method: req.Method, Path: req.Path, RawQuery: req.RawQuery, Header: req.Header, TLS: req.TLS, Now: n.clock.Now()}
}
