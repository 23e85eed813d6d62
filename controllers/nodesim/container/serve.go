package container

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The server rule. A container's program answers HTTP requests on its
// ports as the real program does, decided by its image and argv (and its
// environment and files), with no socket opened:
//
//   - agnhost serve-hostname [--port=N] [--http=false] [--tcp]: every
//     path on port N (9376) answers the container's hostname (with
//     --http=false --tcp, the hostname with no HTTP around it);
//   - agnhost netexec [--http-port=N]: on port N (8080), /hostname and
//     /hostName answer the hostname, /echo?msg=M[&code=C] answers M (with
//     status C), /healthz 200 and /readyz "ok", / and any other path "NOW:
//     " and the time; /clientip, /dial, /shell, /upload, /header,
//     /redirect, /exit and /shutdown need a network or a process the
//     simulator does not have, and are not simulated;
//   - agnhost porter [--json-response]: each SERVE_PORT_N variable of its
//     environment is served on port N, each SERVE_TLS_PORT_N over TLS:
//     every path answers the value (with --json-response, {"Method":M,
//     "Body":value} in JSON);
//   - agnhost test-webserver [--port=N]: on port N (80), the files of the
//     container's filesystem by path (its volumes and what its image
//     holds: the update-demo images' /data.json), 404 for others;
//   - httpd running its own command: on port 80, the files under its
//     document root as they are now (the image's index.html, "It
//     works!", unless an exec'd command moved it away: then Apache's 404),
//     / answering index.html.
//
// A port none of them listens on refuses the connection (ErrRefused); one
// whose server the simulator does not model, or a path it does not
// answer, is NotSimulated. A plain request to a TLS port gets the 400 Go's
// server sends, and a TLS handshake with a plain port fails as Go's client
// reports. Go's http.Server chooses the Content-Type the real programs
// send (http.DetectContentType), and so does Serve.

// Program is what runs in a container, as its servers see it: its image
// and argv (the image's configuration applied: Config.Argv) and what the
// kubelet handed it.
type Program struct {
	Image string
	Argv  []string
	In    Input
	// idle says the command grammar runs the command, which serves nothing.
	idle bool
}

// NewProgram is the program a container of image runs with command and
// args (Config.Argv applied) when the kubelet hands it in. A command the
// grammar runs (Plan: sleep, echo, agnhost pause, ...) listens on no port.
func NewProgram(image string, command, args []string, in Input) Program {
	config, _ := ImageConfig(image)
	command, args = config.Argv(command, args)
	argv := append(slices.Clip(command), args...)
	return Program{Image: image, Argv: argv, In: in, idle: PlanIn(command, args, in).Why == "" && len(argv) > 0}
}

// Request is an HTTP request as a container's server receives it.
type Request struct {
	Method string
	// Path is the request's path ("" when the client sent none).
	Path     string
	RawQuery string
	Header   http.Header
	// TLS says the client speaks TLS (https).
	TLS bool
	// Now is the time on the injected clock, which netexec's / prints.
	Now time.Time
}

// Response is a server's answer.
type Response struct {
	Code   int
	Header http.Header
	Body   []byte
}

// ErrRefused is the connection to a port nothing listens on.
var ErrRefused = errors.New("connect: connection refused")

// NotSimulated says something listens on a port but the simulator does not
// know what it answers there.
type NotSimulated struct{ Why string }

func (e *NotSimulated) Error() string { return e.Why }

// Serve answers req sent to port of the container running p, or says why
// it cannot (ErrRefused, *NotSimulated, or the error of a TLS handshake
// with a plain server).
func (p Program) Serve(port int32, req Request) (Response, error) {
	sub, flags := p.agnhost()
	switch {
	case sub == "serve-hostname":
		switch {
		case flags.int("port", 9376) != port:
			return Response{}, ErrRefused
		case !flags.bool("http", true) && flags.bool("tcp", false):
			// Its TCP server writes the hostname and closes.
			return Response{}, fmt.Errorf("malformed HTTP response %q", p.hostname())
		case !flags.bool("http", true):
			return Response{}, ErrRefused
		}
		return p.plain(req, reply(http.StatusOK, p.hostname()))
	case sub == "netexec":
		if flags.int("http-port", 8080) != port {
			return Response{}, ErrRefused
		}
		if flags.str("tls-cert-file") != "" || flags.str("http-override") != "" {
			return Response{}, &NotSimulated{"miniplane does not simulate netexec with --tls-cert-file or --http-override"}
		}
		resp, err := p.netexec(req)
		if err != nil {
			return Response{}, err
		}
		return p.plain(req, resp)
	case sub == "porter":
		return p.porter(port, req, flags.bool("json-response", false))
	case sub == "test-webserver":
		if flags.int("port", 80) != port {
			return Response{}, ErrRefused
		}
		resp, err := p.webserver(req)
		if err != nil {
			return Response{}, err
		}
		return p.plain(req, resp)
	case sub == "" && len(p.Argv) == 0 && isHttpd(p.Image):
		if port != 80 {
			return Response{}, ErrRefused
		}
		resp, err := p.httpd(req)
		if err != nil {
			return Response{}, err
		}
		return p.plain(req, resp)
	}
	if p.idle {
		return Response{}, ErrRefused
	}
	return Response{}, &NotSimulated{fmt.Sprintf("miniplane does not simulate what %s serves (it models agnhost's serve-hostname, netexec, porter and test-webserver, and httpd's page)", p.describe())}
}

// httpdPage is the httpd image's htdocs/index.html.
const httpdPage = "<html><body><h1>It works!</h1></body></html>\n"

// httpdRoot is httpd's DocumentRoot in its image.
const httpdRoot = "/usr/local/apache2/htdocs"

// isHttpd reports whether image is httpd's: Docker's, or the Kubernetes
// e2e image built on it (test/images/httpd).
func isHttpd(image string) bool {
	r := repository(image)
	return r == "httpd" || r == "registry.k8s.io/e2e-test-images/httpd"
}

// httpd answers as Apache httpd with its image's configuration: the files
// under its DocumentRoot as the container's files are now (an exec'd mv
// takes index.html away), / being its index.html, and Apache's 404 page
// for a file that is not there. A directory's listing is not simulated.
func (p Program) httpd(req Request) (Response, error) {
	name := path.Clean("/" + req.Path)
	if name == "/" {
		name = "/index.html" // DirectoryIndex
		if _, ok := p.In.FS.Lookup(httpdRoot + name); !ok {
			return Response{}, &NotSimulated{"miniplane does not simulate httpd's listing of a directory without index.html"}
		}
	}
	f, ok := p.In.FS.Lookup(httpdRoot + name)
	switch {
	case ok && f.IsDir():
		return Response{}, &NotSimulated{"miniplane does not simulate httpd's listing of the directory " + name}
	case ok:
		return reply(http.StatusOK, f.Data), nil
	}
	resp := reply(http.StatusNotFound, "<!DOCTYPE HTML PUBLIC \"-//IETF//DTD HTML 2.0//EN\">\n<html><head>\n<title>404 Not Found</title>\n</head><body>\n<h1>Not Found</h1>\n<p>The requested URL "+name+" was not found on this server.</p>\n</body></html>\n")
	resp.Header.Set("Content-Type", "text/html; charset=iso-8859-1")
	return resp, nil
}

// describe names the program for a message: its argv, or its image.
func (p Program) describe() string {
	if len(p.Argv) > 0 {
		return strconv.Quote(strings.Join(p.Argv, " "))
	}
	return "the image " + strconv.Quote(p.Image)
}

// plain serves resp from a server that does not speak TLS: a client that
// does fails its handshake.
func (p Program) plain(req Request, resp Response) (Response, error) {
	if req.TLS {
		return Response{}, errors.New("tls: first record does not look like a TLS handshake")
	}
	return resp, nil
}

// reply is a response as Go's http.Server writes body: its Content-Type
// sniffed from the body when the handler set none.
func reply(code int, body string) Response {
	h := http.Header{}
	h.Set("Content-Type", http.DetectContentType([]byte(body)))
	return Response{Code: code, Header: h, Body: []byte(body)}
}

// hostname is the container's hostname (os.Hostname), which the kubelet
// also hands it as $HOSTNAME.
func (p Program) hostname() string {
	h, _ := p.In.lookup("HOSTNAME")
	return h
}

// netexec answers the paths of agnhost netexec's mux.
func (p Program) netexec(req Request) (Response, error) {
	q, _ := url.ParseQuery(req.RawQuery)
	switch req.Path {
	case "/hostname", "/hostName":
		return reply(http.StatusOK, p.hostname()), nil
	case "/healthz":
		return reply(http.StatusOK, ""), nil
	case "/readyz":
		return reply(http.StatusOK, "ok"), nil
	case "/echo":
		code := http.StatusOK
		if c := q.Get("code"); c != "" {
			n, err := strconv.Atoi(c)
			if err != nil {
				return reply(http.StatusOK, fmt.Sprintf("argument 'code' must be an integer or empty, got %q\n", c)), nil
			}
			code = n
		}
		return reply(code, q.Get("msg")), nil
	case "/clientip", "/dial", "/shell", "/upload", "/header", "/redirect", "/exit", "/shutdown":
		return Response{}, &NotSimulated{"miniplane does not simulate netexec's " + req.Path + ": it needs a pod network or a process"}
	}
	return reply(http.StatusOK, fmt.Sprintf("NOW: %v", req.Now.Round(0))), nil
}

// porter serves its SERVE_PORT_N and SERVE_TLS_PORT_N variables.
func (p Program) porter(port int32, req Request, asJSON bool) (Response, error) {
	value, tls, ok := "", false, false
	for _, v := range p.In.Env {
		if n, found := strings.CutPrefix(v.Name, "SERVE_PORT_"); found && n == strconv.Itoa(int(port)) {
			value, tls, ok = v.Value, false, true
		}
		if n, found := strings.CutPrefix(v.Name, "SERVE_TLS_PORT_"); found && n == strconv.Itoa(int(port)) {
			value, tls, ok = v.Value, true, true
		}
	}
	switch {
	case !ok:
		return Response{}, ErrRefused
	case tls && !req.TLS:
		return reply(http.StatusBadRequest, "Client sent an HTTP request to an HTTPS server.\n"), nil
	case !tls && req.TLS:
		return p.plain(req, Response{})
	case !asJSON:
		return reply(http.StatusOK, value), nil
	}
	body, _ := json.Marshal(struct{ Method, Body string }{req.Method, value})
	return Response{Code: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}}, Body: body}, nil
}

// webserver answers as agnhost test-webserver: http.FileServer over the
// container's files, with the headers it adds.
func (p Program) webserver(req Request) (Response, error) {
	name := path.Clean("/" + req.Path)
	var resp Response
	f, ok := p.In.FS.Lookup(name)
	if !ok {
		f, ok = ImageFiles(p.Image)[name]
	}
	if name == "/" { // the root is there, if nothing else is
		f, ok = Dir(0o755), true
	}
	switch {
	case ok && f.IsDir():
		return Response{}, &NotSimulated{"miniplane does not simulate test-webserver's listing of the directory " + name}
	case ok:
		resp = reply(http.StatusOK, f.Data)
		if ct := contentTypes[path.Ext(name)]; ct != "" {
			resp.Header.Set("Content-Type", ct)
		}
	default:
		resp = reply(http.StatusNotFound, "404 page not found\n")
		resp.Header.Set("X-Content-Type-Options", "nosniff")
	}
	resp.Header.Set("Cache-Control", "private")
	resp.Header.Set("Access-Control-Allow-Origin", "*")
	resp.Header.Set("Access-Control-Allow-Credentials", "true")
	resp.Header.Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
	resp.Header.Set("Access-Control-Allow-Headers", "DNT,X-Mx-ReqToken,Keep-Alive,User-Agent,X-Requested-With,Cache-Control,Content-Type")
	return resp, nil
}

// contentTypes are the types mime.TypeByExtension gives the files the
// simulated servers hold.
var contentTypes = map[string]string{".json": "application/json", ".html": "text/html; charset=utf-8", ".txt": "text/plain; charset=utf-8"}

// ImageFiles are the files the simulator knows an image holds, by
// repository, which the kubelet lays under a container's volumes
// (package podenv): the update-demo images' data.json (test/images/nautilus
// and kitten, html/data.json copied to the image's root), and httpd's
// document root (its htdocs/index.html) and /tmp. nil for another image.
func ImageFiles(image string) FS {
	switch repository(image) {
	case "registry.k8s.io/e2e-test-images/nautilus":
		return FS{"/data.json": {Data: "{\n  \"image\": \"nautilus.jpg\"\n}\n", Mode: 0o644}}
	case "registry.k8s.io/e2e-test-images/kitten":
		return FS{"/data.json": {Data: "{\n  \"image\": \"kitten.jpg\"\n}\n", Mode: 0o644}}
	case "httpd", "registry.k8s.io/e2e-test-images/httpd":
		return FS{httpdRoot + "/index.html": {Data: httpdPage, Mode: 0o644}, "/tmp": Dir(0o1777)}
	}
	return nil
}

// repository is image's repository as people write it ("httpd",
// "registry.k8s.io/e2e-test-images/nautilus"), or "" when it does not
// parse.
func repository(image string) string {
	ref, ok := ParseRef(image)
	if !ok {
		return ""
	}
	return ref.short()
}

// agnhost returns the agnhost subcommand p runs and its flags, or "" when
// p does not run agnhost.
func (p Program) agnhost() (string, flagSet) {
	if len(p.Argv) < 2 || !isAgnhost(path.Base(p.Argv[0])) {
		return "", nil
	}
	return p.Argv[1], flagSet(p.Argv[2:])
}

// flagSet is a command's arguments read as pflag reads them: --name=value,
// --name value, and -name for either.
type flagSet []string

// str returns the value of the flag name, or "".
func (f flagSet) str(name string) string {
	v, _ := f.lookup(name, false)
	return v
}

// lookup returns the last value given to the flag name; a boolean flag
// takes no separate value.
func (f flagSet) lookup(name string, boolean bool) (string, bool) {
	value, found := "", false
	for i := 0; i < len(f); i++ {
		a := strings.TrimPrefix(strings.TrimPrefix(f[i], "-"), "-")
		if a == f[i] {
			continue // not a flag
		}
		if v, ok := strings.CutPrefix(a, name+"="); ok {
			value, found = v, true
			continue
		}
		if a != name {
			continue
		}
		switch {
		case boolean:
			value, found = "true", true
		case i+1 < len(f):
			value, found = f[i+1], true
			i++
		}
	}
	return value, found
}

// int returns the flag name as a port number, or def.
func (f flagSet) int(name string, def int32) int32 {
	v, ok := f.lookup(name, false)
	if !ok {
		return def
	}
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil {
		return def
	}
	return int32(n)
}

// bool returns the boolean flag name, or def.
func (f flagSet) bool(name string, def bool) bool {
	v, ok := f.lookup(name, true)
	if !ok {
		return def
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return def
	}
	return b
}

// Ports returns the TCP ports p listens on, as far as the server rule
// knows, in increasing order.
func (p Program) Ports() []int32 {
	sub, flags := p.agnhost()
	var ports []int32
	switch {
	case sub == "serve-hostname" && (flags.bool("http", true) || flags.bool("tcp", false)):
		ports = append(ports, flags.int("port", 9376))
	case sub == "netexec":
		ports = append(ports, flags.int("http-port", 8080))
	case sub == "test-webserver":
		ports = append(ports, flags.int("port", 80))
	case sub == "porter":
		for _, v := range p.In.Env {
			n, ok := strings.CutPrefix(v.Name, "SERVE_PORT_")
			if !ok {
				n, ok = strings.CutPrefix(v.Name, "SERVE_TLS_PORT_")
			}
			if port, err := strconv.ParseInt(n, 10, 32); ok && err == nil {
				ports = append(ports, int32(port))
			}
		}
	case sub == "" && len(p.Argv) == 0 && isHttpd(p.Image):
		ports = append(ports, 80)
	}
	slices.Sort(ports)
	return slices.Compact(ports)
}

// ServesFiles reports whether what p's server answers depends on the
// container's files as they are when asked (httpd's document root,
// test-webserver's files), which an exec'd command may change.
func (p Program) ServesFiles() bool {
	sub, _ := p.agnhost()
	return sub == "test-webserver" || sub == "" && len(p.Argv) == 0 && isHttpd(p.Image)
}

// Listening says, for the container's log, which ports p serves HTTP on by
// the server rule, or "" when it serves none: the real programs log lines
// of their own, which the simulator does not print.
func (p Program) Listening() string {
	ports := p.Ports()
	if len(ports) == 0 {
		return ""
	}
	list := make([]string, len(ports))
	for i, n := range ports {
		list[i] = strconv.Itoa(int(n))
	}
	return fmt.Sprintf("%s serves HTTP on port %s, as the simulator's server rule answers for it (read it through pods/NAME:PORT/proxy/); it prints nothing here and runs until the container is stopped",
		p.describe(), strings.Join(list, ", "))
}
