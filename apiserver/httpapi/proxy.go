package httpapi

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client"
)

// ProxyBackend answers what the proxy subresources (pods/{name}/proxy,
// services/{name}/proxy, nodes/{name}/proxy) send on: the servers of pods'
// containers and the nodes' kubelets, as a pod network would reach them.
// miniplane's simulated kubelets answer through their containers' models
// (DESIGN.md, "The simulated nodes"); the handler resolves names, ports and
// endpoints as kube-apiserver does, and rewrites the answer as its proxy
// does.
type ProxyBackend interface {
	// PodHTTP sends req to port of pod, which has an IP. The error is what
	// an HTTP client dialling it reports ("dial tcp 10.0.0.5:81: connect:
	// connection refused"), which the client gets in a 503.
	PodHTTP(pod *api.Pod, port int32, req ProxyRequest) (ProxyResponse, error)
	// KubeletHTTP sends req to the kubelet of node.
	KubeletHTTP(node *api.Node, req ProxyRequest) (ProxyResponse, error)
}

// ProxyRequest is a request the proxy sends on.
type ProxyRequest struct {
	Method string
	// Path is the path on the target, "/" at least.
	Path     string
	RawQuery string
	Header   http.Header
	// TLS says the request goes over TLS (the https: scheme).
	TLS bool
}

// ProxyResponse is a target's answer.
type ProxyResponse struct {
	Code   int
	Header http.Header
	Body   []byte
}

// serveProxy answers {pods,services,nodes}/{id}/proxy[/{path}]: it finds
// the target as kube-apiserver's ResourceLocation does, redirects a GET or
// HEAD with no path to one ending in "/", sends the request on, and
// writes the answer back with its links rewritten to go through the proxy
// (apimachinery's UpgradeAwareHandler and proxy.Transport).
func (h *Handler) serveProxy(w http.ResponseWriter, r *http.Request, req resourceRequest) error {
	prefix, rest := proxyPath(r.URL.Path, req.name)
	if rest == "" && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
		// The target is found first: a missing pod is a 404, not a redirect.
		if _, err := h.proxyTarget(r, req, ProxyRequest{}); err != nil {
			return err
		}
		loc := r.URL.Path + "/"
		if r.URL.RawQuery != "" {
			loc += "?" + r.URL.RawQuery
		}
		w.Header().Set("Location", loc)
		w.WriteHeader(http.StatusMovedPermanently)
		return nil
	}
	out := ProxyRequest{Method: r.Method, Path: rest, RawQuery: r.URL.RawQuery, Header: r.Header.Clone()}
	out.Header.Del("Authorization") // kube-apiserver's authentication filter takes it off the request
	if out.Path == "" {
		out.Path = "/"
	}
	send, err := h.proxyTarget(r, req, out)
	if err != nil {
		return err
	}
	resp, err := send()
	if err != nil {
		return apierrors.NewServiceUnavailable(fmt.Sprintf("error trying to reach service: %v", err))
	}
	for _, k := range []string{"Access-Control-Allow-Credentials", "Access-Control-Allow-Headers", "Access-Control-Allow-Methods", "Access-Control-Allow-Origin"} {
		resp.Header.Del(k)
	}
	rewrite := func(s string) string { return rewriteURL(s, prefix, r.Host) }
	if loc := resp.Header.Get("Location"); loc != "" {
		resp.Header.Set("Location", rewrite(loc))
	} else if ct, _, _ := strings.Cut(resp.Header.Get("Content-Type"), ";"); strings.TrimSpace(ct) == "text/html" && resp.Header.Get("Content-Encoding") == "" {
		resp.Body = []byte(rewriteHTML(string(resp.Body), rewrite))
	}
	for k, vs := range resp.Header {
		w.Header()[k] = vs
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(resp.Body)))
	w.WriteHeader(resp.Code)
	if r.Method != http.MethodHead {
		_, _ = w.Write(resp.Body) // the answer is under way: a client gone is not an error to write
	}
	return nil
}

// proxyPath splits a proxy URL's path into the part up to and including
// {id}/proxy, which links are rewritten under, and the rest: "" or a path
// starting with "/".
func proxyPath(p, id string) (prefix, rest string) {
	marker := "/" + id + "/proxy"
	i := strings.Index(p, marker+"/")
	if i < 0 {
		return p, ""
	}
	return p[:i+len(marker)], p[i+len(marker):]
}

// proxyTarget finds what the request goes to and returns the call that
// sends out there. Kubernetes: the pod, service and node ResourceLocation.
func (h *Handler) proxyTarget(r *http.Request, req resourceRequest, out ProxyRequest) (func() (ProxyResponse, error), error) {
	scheme, name, port, ok := splitSchemeNamePort(req.name)
	kind := map[string]string{client.Pods: "pod", client.Services: "service", client.Nodes: "node"}[req.info.Resource]
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("invalid %s request %q", kind, req.name))
	}
	out.TLS = scheme == "https"
	switch req.info.Resource {
	case client.Pods:
		pod, err := h.getPod(r, req.namespace, name)
		if err != nil {
			return nil, err
		}
		return h.podTarget(pod, scheme, port, out)
	case client.Services:
		return h.serviceTarget(r, req.namespace, req.name, name, scheme, port, out)
	}
	obj, err := h.srv.Get(r.Context(), client.Nodes, "", name, client.GetOptions{})
	if err != nil {
		return nil, err
	}
	node := obj.(*api.Node)
	kubelet := strconv.Itoa(int(node.Status.DaemonEndpoints.KubeletEndpoint.Port))
	if port == "" || port == kubelet {
		out.TLS = true // the kubelet serves https
		return func() (ProxyResponse, error) { return h.proxy.KubeletHTTP(node, out) }, nil
	}
	addr := net.JoinHostPort(nodeAddress(node, api.NodeInternalIP), port)
	return func() (ProxyResponse, error) {
		return ProxyResponse{}, fmt.Errorf("dial tcp %s: connect: connection refused", addr)
	}, nil
}

func (h *Handler) getPod(r *http.Request, namespace, name string) (*api.Pod, error) {
	obj, err := h.srv.Get(r.Context(), client.Pods, namespace, name, client.GetOptions{})
	if err != nil {
		return nil, err
	}
	return obj.(*api.Pod), nil
}

// podTarget is port of pod, the first port its containers declare when
// port is "", else the scheme's.
func (h *Handler) podTarget(pod *api.Pod, scheme, port string, out ProxyRequest) (func() (ProxyResponse, error), error) {
	if port == "" {
		for _, ct := range pod.Spec.Containers {
			if len(ct.Ports) > 0 {
				port = strconv.Itoa(int(ct.Ports[0].ContainerPort))
				break
			}
		}
	}
	ip := net.ParseIP(podIP(pod))
	if ip == nil || !ip.IsGlobalUnicast() {
		return nil, apierrors.NewBadRequest("address not allowed")
	}
	if port == "" {
		port = "80"
		if scheme == "https" {
			port = "443"
		}
	}
	n, err := strconv.ParseUint(port, 10, 16)
	if err != nil {
		return func() (ProxyResponse, error) {
			return ProxyResponse{}, fmt.Errorf("dial tcp: lookup tcp/%s: unknown port", port)
		}, nil
	}
	return func() (ProxyResponse, error) { return h.proxy.PodHTTP(pod, int32(n), out) }, nil
}

func podIP(pod *api.Pod) string {
	if len(pod.Status.PodIPs) > 0 {
		return pod.Status.PodIPs[0].IP
	}
	return pod.Status.PodIP
}

// serviceTarget is a ready endpoint of the service behind the port named
// (or numbered) portStr. kube-apiserver starts its search at a random
// subset and address; miniplane takes the first, so that the same request
// reaches the same pod (DESIGN.md, "Determinism").
func (h *Handler) serviceTarget(r *http.Request, namespace, id, name, scheme, portStr string, out ProxyRequest) (func() (ProxyResponse, error), error) {
	if n, err := strconv.ParseInt(portStr, 10, 64); err == nil {
		obj, err := h.srv.Get(r.Context(), client.Services, namespace, name, client.GetOptions{})
		if err != nil {
			return nil, err
		}
		found := false
		for _, sp := range obj.(*api.Service).Spec.Ports {
			if int64(sp.Port) == n {
				portStr, found = sp.Name, true
				break
			}
		}
		if !found {
			return nil, apierrors.NewServiceUnavailable(fmt.Sprintf("no service port %d found for service %q", n, name))
		}
	}
	obj, err := h.srv.Get(r.Context(), client.Endpoints, namespace, name, client.GetOptions{})
	if err != nil {
		return nil, err
	}
	eps := obj.(*api.Endpoints)
	if len(eps.Subsets) == 0 {
		return nil, apierrors.NewServiceUnavailable(fmt.Sprintf("no endpoints available for service %q", name))
	}
	for _, ss := range eps.Subsets {
		for _, p := range ss.Ports {
			if p.Name != portStr {
				continue
			}
			for _, addr := range ss.Addresses {
				pod, ok := h.endpointPod(r, addr)
				if !ok {
					continue
				}
				return h.podTarget(pod, scheme, strconv.Itoa(int(p.Port)), out)
			}
		}
	}
	return nil, apierrors.NewServiceUnavailable(fmt.Sprintf("no endpoints available for service %q", id))
}

// endpointPod is the pod behind an endpoint address, when the address is
// a pod's (isValidAddress: its target is a pod that has the address).
func (h *Handler) endpointPod(r *http.Request, addr api.EndpointAddress) (*api.Pod, bool) {
	ref := addr.TargetRef
	if ref == nil || ref.Kind != "Pod" {
		return nil, false
	}
	pod, err := h.getPod(r, ref.Namespace, ref.Name)
	if err != nil {
		return nil, false
	}
	for _, ip := range pod.Status.PodIPs {
		if ip.IP == addr.IP {
			return pod, true
		}
	}
	return nil, false
}

// splitSchemeNamePort takes "name", "name:port" or "scheme:name:port"
// apart, the scheme "", "http" or "https" (apimachinery's
// SplitSchemeNamePort).
func splitSchemeNamePort(id string) (scheme, name, port string, ok bool) {
	parts := strings.Split(id, ":")
	switch len(parts) {
	case 1:
		name = parts[0]
	case 2:
		name, port = parts[0], parts[1]
	case 3:
		scheme, name, port = parts[0], parts[1], parts[2]
	default:
		return "", "", "", false
	}
	if name == "" || scheme != "" && scheme != "http" && scheme != "https" {
		return "", "", "", false
	}
	return scheme, name, port, true
}

// rewriteURL makes a link a target answered with go through the proxy: an
// absolute path on the target's host (or the proxy's, host) gets the
// proxy's prefix (proxy.Transport's rewriteURL, whose scheme and host are
// empty as kube-apiserver sees its own requests).
func rewriteURL(s, prefix, host string) string {
	u, err := url.Parse(s)
	if err != nil {
		return s
	}
	if u.Host != "" && u.Host != host || !strings.HasPrefix(u.Path, "/") {
		return s
	}
	u.Scheme, u.Host = "", ""
	if strings.HasPrefix(u.Path, prefix) {
		return u.String()
	}
	trailing := strings.HasSuffix(u.Path, "/")
	u.Path = path.Join(prefix, u.Path)
	if trailing {
		u.Path += "/"
	}
	return u.String()
}

// urlAttrs are the attributes of HTML tags that hold URLs
// (apimachinery's atomsToAttrs).
var urlAttrs = map[string][]string{
	"a": {"href"}, "applet": {"codebase"}, "area": {"href"}, "audio": {"src"}, "base": {"href"},
	"blockquote": {"cite"}, "body": {"background"}, "button": {"formaction"}, "command": {"icon"},
	"del": {"cite"}, "embed": {"src"}, "form": {"action"}, "frame": {"longdesc", "src"},
	"head": {"profile"}, "html": {"manifest"}, "iframe": {"longdesc", "src"},
	"img": {"longdesc", "src", "usemap"}, "input": {"src", "usemap", "formaction"}, "ins": {"cite"},
	"link": {"href"}, "object": {"classid", "codebase", "data", "usemap"}, "q": {"cite"},
	"script": {"src"}, "source": {"src"}, "video": {"poster", "src"},
}

// rewriteHTML rewrites the URL-valued attributes of the start tags of an
// HTML page with rewrite, leaving the rest of the page as it is. It reads
// tags as an HTML tokenizer does for the pages servers write: a name, then
// attributes with double-quoted, single-quoted or bare values; comments
// are skipped.
func rewriteHTML(page string, rewrite func(string) string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(page, '<')
		if i < 0 || i+1 >= len(page) {
			b.WriteString(page)
			return b.String()
		}
		b.WriteString(page[:i])
		page = page[i:]
		if strings.HasPrefix(page, "<!--") {
			end := strings.Index(page, "-->")
			if end < 0 {
				b.WriteString(page)
				return b.String()
			}
			b.WriteString(page[:end+3])
			page = page[end+3:]
			continue
		}
		n := tagEnd(page)
		b.WriteString(rewriteTag(page[:n], rewrite))
		page = page[n:]
	}
}

// tagEnd is the length of the tag that page starts with: up to its '>'
// outside quotes, or all of page.
func tagEnd(page string) int {
	var quote byte
	for i := 1; i < len(page); i++ {
		c := page[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '>':
			return i + 1
		}
	}
	return len(page)
}

// rewriteTag rewrites the URL-valued attributes of one tag ("<a href=x>").
func rewriteTag(tag string, rewrite func(string) string) string {
	i := 1
	for i < len(tag) && isNameByte(tag[i]) {
		i++
	}
	attrs := urlAttrs[strings.ToLower(tag[1:i])]
	if len(attrs) == 0 {
		return tag
	}
	var b strings.Builder
	b.WriteString(tag[:i])
	for i < len(tag) {
		start := i
		for i < len(tag) && isNameByte(tag[i]) {
			i++
		}
		name := strings.ToLower(tag[start:i])
		if name == "" || i >= len(tag) || tag[i] != '=' {
			if i == start {
				i++ // a blank, '/', '>' or a stray byte
			}
			b.WriteString(tag[start:i])
			continue
		}
		i++ // '='
		value, n := attrValue(tag[i:])
		i += n
		b.WriteString(tag[start : start+len(name)+1])
		if isURLAttr(attrs, name) {
			b.WriteString(`"` + strings.ReplaceAll(rewrite(value), `"`, "&#34;") + `"`)
		} else {
			b.WriteString(tag[i-n : i])
		}
	}
	return b.String()
}

// attrValue reads an attribute's value at the start of s: its text and
// how many bytes it took.
func attrValue(s string) (string, int) {
	if s == "" {
		return "", 0
	}
	if q := s[0]; q == '"' || q == '\'' {
		end := strings.IndexByte(s[1:], q)
		if end < 0 {
			return s[1:], len(s)
		}
		return s[1 : end+1], end + 2
	}
	end := strings.IndexAny(s, " \t\n\r\f>")
	if end < 0 {
		end = len(s)
	}
	return s[:end], end
}

func isURLAttr(attrs []string, name string) bool {
	for _, a := range attrs {
		if a == name {
			return true
		}
	}
	return false
}

func isNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == ':'
}
