package httpapi_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver/httpapi"
	"github.com/miniplane/miniplane/client"
)

// fakeTargets is a ProxyBackend whose pods answer each request with what
// it was ("GET 80 /some/path?q=1"), refuse port 81, answer port 82 with an
// HTML page of links and port 83 with a redirect; its kubelets answer
// "kubelet PATH". It records the requests it got.
type fakeTargets struct{ got []httpapi.ProxyRequest }

func (f *fakeTargets) PodHTTP(pod *api.Pod, port int32, req httpapi.ProxyRequest) (httpapi.ProxyResponse, error) {
	f.got = append(f.got, req)
	h := http.Header{"Content-Type": {"text/plain; charset=utf-8"}, "Access-Control-Allow-Origin": {"*"}}
	switch port {
	case 81:
		return httpapi.ProxyResponse{}, fmt.Errorf("dial tcp %s:81: connect: connection refused", pod.Status.PodIP)
	case 82:
		h.Set("Content-Type", "text/html; charset=utf-8")
		page := `<html><a href="/rewriteme">x</a> <a href='rel'>r</a> <img src="http://elsewhere/i.png"><!-- <a href="/c"> --></html>`
		return httpapi.ProxyResponse{Code: 200, Header: h, Body: []byte(page)}, nil
	case 83:
		h.Set("Location", "/moved/")
		return httpapi.ProxyResponse{Code: 302, Header: h}, nil
	}
	body := fmt.Sprintf("%s %s %d %s", pod.Metadata.Name, req.Method, port, req.Path)
	if req.RawQuery != "" {
		body += "?" + req.RawQuery
	}
	if req.TLS {
		body += " tls"
	}
	return httpapi.ProxyResponse{Code: 200, Header: h, Body: []byte(body)}, nil
}

func (f *fakeTargets) KubeletHTTP(node *api.Node, req httpapi.ProxyRequest) (httpapi.ProxyResponse, error) {
	return httpapi.ProxyResponse{Code: 200, Header: http.Header{}, Body: []byte("kubelet " + req.Path)}, nil
}

// proxyFixture has pod "web" (port 80 declared) running at 10.244.0.5,
// pod "bare" (no port) at 10.244.0.6, pod "pending" with no IP; service
// "web" (port 80 named http to 8080, 443 named tls) with an endpoint at
// web, service "empty" with no endpoints, and node-0.
func proxyFixture(t *testing.T) (*fixture, *fakeTargets) {
	targets := &fakeTargets{}
	f := newFixture(t, func(c *httpapi.Config) { c.Proxy = targets })
	withIP := func(name, ip string, ports ...int32) {
		p := podOf("default", name, map[string]string{"app": name})
		p.Spec.Containers[0].Ports = nil
		for _, port := range ports {
			p.Spec.Containers[0].Ports = append(p.Spec.Containers[0].Ports, api.ContainerPort{ContainerPort: port})
		}
		p.Spec.NodeName = "node-0"
		obj, err := f.srv.Create(ctx, p)
		require.NoError(t, err)
		if ip == "" {
			return
		}
		p = obj.(*api.Pod).DeepCopy()
		p.Status.Phase, p.Status.PodIP, p.Status.PodIPs = api.PodRunning, ip, []api.PodIP{{IP: ip}}
		_, err = f.srv.UpdateStatus(ctx, p)
		require.NoError(t, err)
	}
	_, err := f.srv.Delete(ctx, client.Pods, "default", "web", api.DeleteOptions{GracePeriodSeconds: ptr(int64(0))})
	require.NoError(t, err)
	withIP("web", "10.244.0.5", 80, 9376)
	withIP("bare", "10.244.0.6")
	withIP("pending", "")
	for _, svc := range []*api.Service{
		{Metadata: api.ObjectMeta{Namespace: "default", Name: "web"}, Spec: api.ServiceSpec{Selector: map[string]string{"app": "web"},
			Ports: []api.ServicePort{{Name: "http", Port: 80, TargetPort: api.FromInt(8080)}, {Name: "tls", Port: 443, TargetPort: api.FromInt(8443)}}}},
		{Metadata: api.ObjectMeta{Namespace: "default", Name: "empty"}, Spec: api.ServiceSpec{Selector: map[string]string{"app": "none"},
			Ports: []api.ServicePort{{Port: 80}}}},
	} {
		_, err := f.srv.Create(ctx, svc)
		require.NoError(t, err)
	}
	for _, ep := range []*api.Endpoints{
		{Metadata: api.ObjectMeta{Namespace: "default", Name: "web"}, Subsets: []api.EndpointSubset{{
			Addresses: []api.EndpointAddress{
				{IP: "10.244.0.9", TargetRef: &api.ObjectReference{Kind: "Pod", Namespace: "default", Name: "gone"}},
				{IP: "10.244.0.5", TargetRef: &api.ObjectReference{Kind: "Pod", Namespace: "default", Name: "web"}},
			},
			Ports: []api.EndpointPort{{Name: "http", Port: 8080}, {Name: "tls", Port: 8443}},
		}}},
		{Metadata: api.ObjectMeta{Namespace: "default", Name: "empty"}},
	} {
		_, err := f.srv.Create(ctx, ep)
		require.NoError(t, err)
	}
	node := &api.Node{Metadata: api.ObjectMeta{Name: "node-0"}}
	obj, err := f.srv.Create(ctx, node)
	require.NoError(t, err)
	node = obj.(*api.Node).DeepCopy()
	node.Status.DaemonEndpoints.KubeletEndpoint.Port = 10250
	node.Status.Addresses = []api.NodeAddress{{Type: api.NodeInternalIP, Address: "10.0.0.1"}}
	_, err = f.srv.UpdateStatus(ctx, node)
	require.NoError(t, err)
	return f, targets
}

// TestProxy checks the proxy subresources' routing as kube-apiserver's
// ResourceLocation and UpgradeAwareHandler do it: the name:port forms, the
// default port, the redirect of an empty path, every method, links
// rewritten (each URL attribute written double-quoted, as the HTML
// tokenizer's Token.String writes it), and each refusal with kube-apiserver's code and message.
func TestProxy(t *testing.T) {
	f, _ := proxyFixture(t)
	const pods, svcs = "/api/v1/namespaces/default/pods/", "/api/v1/namespaces/default/services/"
	tests := []struct {
		name     string
		req      request
		wantCode int
		want     string // the body, or the Status message
		header   map[string]string
	}{
		{name: "pod, first declared port", req: request{path: pods + "web/proxy/"}, wantCode: 200, want: "web GET 80 /"},
		{name: "pod:port and a path", req: request{path: pods + "web:9376/proxy/some/path?q=1"}, wantCode: 200, want: "web GET 9376 /some/path?q=1"},
		{name: "trailing slash kept", req: request{path: pods + "web/proxy/dir/"}, wantCode: 200, want: "web GET 80 /dir/"},
		{name: "https:pod:port", req: request{path: pods + "https:web:443/proxy/"}, wantCode: 200, want: "web GET 443 / tls"},
		{name: "http:pod:port", req: request{path: pods + "http:web:80/proxy/"}, wantCode: 200, want: "web GET 80 /"},
		{name: "no port declared: the scheme's", req: request{path: pods + "bare/proxy/"}, wantCode: 200, want: "bare GET 80 /"},
		{name: "no port declared, https", req: request{path: pods + "https:bare:/proxy/"}, wantCode: 200, want: "bare GET 443 / tls"},
		{name: "POST with no path is sent on", req: request{method: "POST", path: pods + "web/proxy?method=POST"}, wantCode: 200, want: "web POST 80 /?method=POST"},
		{name: "OPTIONS", req: request{method: "OPTIONS", path: pods + "web/proxy/x"}, wantCode: 200, want: "web OPTIONS 80 /x"},
		{name: "DELETE", req: request{method: "DELETE", path: pods + "web/proxy/x"}, wantCode: 200, want: "web DELETE 80 /x"},
		{name: "PUT", req: request{method: "PUT", path: pods + "web/proxy/x", body: "{}"}, wantCode: 200, want: "web PUT 80 /x"},
		{name: "PATCH", req: request{method: "PATCH", path: pods + "web/proxy/x", body: "{}"}, wantCode: 200, want: "web PATCH 80 /x"},
		{name: "GET with no path: redirected", req: request{path: pods + "web/proxy?method=GET"}, wantCode: 301,
			header: map[string]string{"Location": pods + "web/proxy/?method=GET"}},
		{name: "HEAD with no path: redirected", req: request{method: "HEAD", path: pods + "web/proxy"}, wantCode: 301,
			header: map[string]string{"Location": pods + "web/proxy/"}},
		{name: "HTML links rewritten", req: request{path: pods + "web:82/proxy/"}, wantCode: 200,
			want: `<html><a href="/api/v1/namespaces/default/pods/web:82/proxy/rewriteme">x</a> <a href="rel">r</a> <img src="http://elsewhere/i.png"><!-- <a href="/c"> --></html>`},
		{name: "redirect rewritten", req: request{path: pods + "web:83/proxy/old"}, wantCode: 302,
			header: map[string]string{"Location": pods + "web:83/proxy/moved/"}},
		{name: "CORS headers removed", req: request{path: pods + "web/proxy/"}, wantCode: 200, want: "web GET 80 /",
			header: map[string]string{"Access-Control-Allow-Origin": ""}},
		{name: "refused", req: request{path: pods + "web:81/proxy/"}, wantCode: 503,
			want: "error trying to reach service: dial tcp 10.244.0.5:81: connect: connection refused"},
		{name: "port not a number", req: request{path: pods + "web:http/proxy/"}, wantCode: 503,
			want: "error trying to reach service: dial tcp: lookup tcp/http: unknown port"},
		{name: "pod without an IP", req: request{path: pods + "pending/proxy/"}, wantCode: 400, want: "address not allowed"},
		{name: "missing pod", req: request{path: pods + "nope/proxy/"}, wantCode: 404, want: `pods "nope" not found`},
		{name: "missing pod, no path", req: request{path: pods + "nope/proxy"}, wantCode: 404, want: `pods "nope" not found`},
		{name: "bad scheme", req: request{path: pods + "ftp:web:80/proxy/"}, wantCode: 400, want: `invalid pod request "ftp:web:80"`},
		{name: "too many parts", req: request{path: pods + "a:b:c:d/proxy/"}, wantCode: 400, want: `invalid pod request "a:b:c:d"`},
		{name: "method the proxy does not take", req: request{method: "TRACE", path: pods + "web/proxy/"}, wantCode: 405,
			want: `trace is not supported on resources of kind "pods"`},

		{name: "service by port name, to its ready pod's target port", req: request{path: svcs + "web:http/proxy/x"}, wantCode: 200, want: "web GET 8080 /x"},
		{name: "service by port number", req: request{path: svcs + "web:443/proxy/"}, wantCode: 200, want: "web GET 8443 /"},
		{name: "https:service:port", req: request{path: svcs + "https:web:tls/proxy/"}, wantCode: 200, want: "web GET 8443 / tls"},
		{name: "service port number not found", req: request{path: svcs + "web:81/proxy/"}, wantCode: 503, want: `no service port 81 found for service "web"`},
		{name: "service port name not found", req: request{path: svcs + "web:nope/proxy/"}, wantCode: 503, want: `no endpoints available for service "web:nope"`},
		{name: "service without a port: the unnamed port", req: request{path: svcs + "web/proxy/"}, wantCode: 503, want: `no endpoints available for service "web"`},
		{name: "no endpoints", req: request{path: svcs + "empty/proxy/"}, wantCode: 503, want: `no endpoints available for service "empty"`},
		{name: "missing service", req: request{path: svcs + "nope/proxy/"}, wantCode: 404, want: `endpoints "nope" not found`},
		{name: "invalid service request", req: request{path: svcs + "a:b:c:d/proxy/"}, wantCode: 400, want: `invalid service request "a:b:c:d"`},

		{name: "node: its kubelet", req: request{path: "/api/v1/nodes/node-0/proxy/healthz"}, wantCode: 200, want: "kubelet /healthz"},
		{name: "node:kubelet port", req: request{path: "/api/v1/nodes/node-0:10250/proxy/pods"}, wantCode: 200, want: "kubelet /pods"},
		{name: "node, another port", req: request{path: "/api/v1/nodes/node-0:9100/proxy/metrics"}, wantCode: 503,
			want: "error trying to reach service: dial tcp 10.0.0.1:9100: connect: connection refused"},
		{name: "missing node", req: request{path: "/api/v1/nodes/nope/proxy/"}, wantCode: 404, want: `nodes "nope" not found`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := f.srv.Store().Rev()
			rec := f.do(t, tt.req)
			require.Equal(t, tt.wantCode, rec.Code, rec.Body.String())
			switch {
			case tt.wantCode < 300:
				assert.Equal(t, tt.want, rec.Body.String())
			case tt.wantCode >= 400:
				assert.Equal(t, tt.want, statusOf(t, rec).Message)
			}
			for k, v := range tt.header {
				assert.Equal(t, v, rec.Header().Get(k), k)
			}
			assert.Equal(t, before, f.srv.Store().Rev(), "a proxied request writes nothing")
		})
	}
}

// TestProxySendsOn: a HEAD is sent on and its answer's body dropped; the
// client's headers go with it but its credentials.
func TestProxySendsOn(t *testing.T) {
	f, targets := proxyFixture(t)
	rec := f.do(t, request{method: "HEAD", path: "/api/v1/namespaces/default/pods/web/proxy/x",
		header: map[string]string{"Authorization": "Bearer secret", "X-Test": "kept"}})
	require.Equal(t, http.StatusOK, rec.Code)
	assert.Empty(t, rec.Body.String())
	require.NotEmpty(t, targets.got)
	got := targets.got[len(targets.got)-1]
	assert.Equal(t, "HEAD", got.Method)
	assert.Equal(t, "kept", got.Header.Get("X-Test"))
	assert.Empty(t, got.Header.Get("Authorization"))
}

// TestProxyWithoutBackend: a server without simulated nodes answers the
// proxy paths with the 405 that says it runs no containers.
func TestProxyWithoutBackend(t *testing.T) {
	f := newFixture(t, nil)
	rec := f.do(t, request{path: "/api/v1/namespaces/default/pods/web/proxy/"})
	require.Equal(t, http.StatusMethodNotAllowed, rec.Code)
	assert.True(t, strings.HasPrefix(statusOf(t, rec).Message, "miniplane runs no containers"))
}
