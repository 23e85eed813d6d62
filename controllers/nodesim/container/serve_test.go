package container

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestServe checks the server rule: each modelled program's answers as
// the real program gives them (test/images/agnhost and the update-demo
// images), and the refusals of ports nothing listens on.
func TestServe(t *testing.T) {
	const agnhost = "registry.k8s.io/e2e-test-images/agnhost:2.53"
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	env := func(kv ...string) Input {
		in := Input{Env: []EnvVar{{Name: "HOSTNAME", Value: "pod-a"}}}
		for i := 0; i+1 < len(kv); i += 2 {
			in.Env = append(in.Env, EnvVar{Name: kv[i], Value: kv[i+1]})
		}
		return in
	}
	porterEnv := env("SERVE_PORT_80", `<a href="/rewriteme">test</a>`, "SERVE_PORT_160", "foo", "SERVE_TLS_PORT_443", "tls baz")
	get := func(p string) Request { return Request{Method: "GET", Path: p, Now: now} }
	const e2eHttpd = "registry.k8s.io/e2e-test-images/httpd:2.4.38-4"
	httpdIn := Input{FS: ImageFiles(e2eHttpd)}
	tests := []struct {
		name     string
		prog     Program
		port     int32
		req      Request
		wantCode int
		wantBody string
		wantType string
		wantErr  string
	}{
		{name: "serve-hostname", prog: NewProgram(agnhost, nil, []string{"serve-hostname"}, env()), port: 9376, req: get("/anything"),
			wantCode: 200, wantBody: "pod-a", wantType: "text/plain; charset=utf-8"},
		{name: "serve-hostname --port", prog: NewProgram(agnhost, []string{"/agnhost", "serve-hostname", "--port=8000"}, nil, env()), port: 8000, req: get("/"),
			wantCode: 200, wantBody: "pod-a", wantType: "text/plain; charset=utf-8"},
		{name: "serve-hostname, another port", prog: NewProgram(agnhost, nil, []string{"serve-hostname"}, env()), port: 80, req: get("/"), wantErr: "connect: connection refused"},
		{name: "serve-hostname --http=false", prog: NewProgram(agnhost, nil, []string{"serve-hostname", "--http=false"}, env()), port: 9376, req: get("/"), wantErr: "connect: connection refused"},
		{name: "serve-hostname --tcp", prog: NewProgram(agnhost, nil, []string{"serve-hostname", "--http=false", "--tcp"}, env()), port: 9376, req: get("/"), wantErr: `malformed HTTP response "pod-a"`},
		{name: "serve-hostname over TLS", prog: NewProgram(agnhost, nil, []string{"serve-hostname"}, env()), port: 9376, req: Request{Method: "GET", Path: "/", TLS: true},
			wantErr: "tls: first record does not look like a TLS handshake"},

		{name: "netexec /hostname", prog: NewProgram(agnhost, nil, []string{"netexec", "--http-port", "8083"}, env()), port: 8083, req: get("/hostname"), wantCode: 200, wantBody: "pod-a"},
		{name: "netexec /echo", prog: NewProgram(agnhost, nil, []string{"netexec"}, env()), port: 8080, req: Request{Method: "GET", Path: "/echo", RawQuery: "msg=hi%20there"}, wantCode: 200, wantBody: "hi there"},
		{name: "netexec /echo code", prog: NewProgram(agnhost, nil, []string{"netexec"}, env()), port: 8080, req: Request{Method: "GET", Path: "/echo", RawQuery: "msg=gone&code=410"}, wantCode: 410, wantBody: "gone"},
		{name: "netexec /healthz", prog: NewProgram(agnhost, nil, []string{"netexec"}, env()), port: 8080, req: get("/healthz"), wantCode: 200, wantBody: ""},
		{name: "netexec /", prog: NewProgram(agnhost, nil, []string{"netexec"}, env()), port: 8080, req: get("/"), wantCode: 200, wantBody: "NOW: 2026-03-01 12:00:00 +0000 UTC"},
		{name: "netexec /clientip", prog: NewProgram(agnhost, nil, []string{"netexec"}, env()), port: 8080, req: get("/clientip"),
			wantErr: "miniplane does not simulate netexec's /clientip: it needs a pod network or a process"},

		{name: "porter", prog: NewProgram(agnhost, []string{"/agnhost", "porter"}, nil, porterEnv), port: 160, req: get("/"), wantCode: 200, wantBody: "foo"},
		{name: "porter HTML", prog: NewProgram(agnhost, []string{"/agnhost", "porter"}, nil, porterEnv), port: 80, req: get("/"),
			wantCode: 200, wantBody: `<a href="/rewriteme">test</a>`, wantType: "text/html; charset=utf-8"},
		{name: "porter TLS", prog: NewProgram(agnhost, []string{"/agnhost", "porter"}, nil, porterEnv), port: 443, req: Request{Method: "GET", Path: "/", TLS: true}, wantCode: 200, wantBody: "tls baz"},
		{name: "porter TLS port, plain request", prog: NewProgram(agnhost, []string{"/agnhost", "porter"}, nil, porterEnv), port: 443, req: get("/"),
			wantCode: 400, wantBody: "Client sent an HTTP request to an HTTPS server.\n"},
		{name: "porter, no such variable", prog: NewProgram(agnhost, []string{"/agnhost", "porter"}, nil, porterEnv), port: 161, req: get("/"), wantErr: "connect: connection refused"},
		{name: "porter --json-response", prog: NewProgram(agnhost, []string{"/agnhost", "porter", "--json-response"}, nil, env("SERVE_PORT_80", "foo")), port: 80,
			req: Request{Method: "DELETE", Path: "/"}, wantCode: 200, wantBody: `{"Method":"DELETE","Body":"foo"}`, wantType: "application/json"},

		{name: "nautilus data.json", prog: NewProgram("registry.k8s.io/e2e-test-images/nautilus:1.7", []string{"/agnhost"}, []string{"test-webserver"}, env()), port: 80, req: get("/data.json"),
			wantCode: 200, wantBody: "{\n  \"image\": \"nautilus.jpg\"\n}\n", wantType: "application/json"},
		{name: "kitten data.json", prog: NewProgram("registry.k8s.io/e2e-test-images/kitten:1.7", []string{"/agnhost"}, []string{"test-webserver"}, env()), port: 80, req: get("/data.json"),
			wantCode: 200, wantBody: "{\n  \"image\": \"kitten.jpg\"\n}\n", wantType: "application/json"},
		{name: "test-webserver, a volume's file", prog: NewProgram(agnhost, nil, []string{"test-webserver"}, Input{FS: FS{"/data/index.html": {Data: "<p>hi</p>", Mode: 0o644}}}), port: 80,
			req: get("/data/index.html"), wantCode: 200, wantBody: "<p>hi</p>", wantType: "text/html; charset=utf-8"},
		{name: "test-webserver, no such file", prog: NewProgram(agnhost, nil, []string{"test-webserver"}, env()), port: 80, req: get("/nope"),
			wantCode: 404, wantBody: "404 page not found\n"},

		{name: "httpd's page", prog: NewProgram("httpd:2.4", nil, nil, httpdIn), port: 80, req: get("/"),
			wantCode: 200, wantBody: "<html><body><h1>It works!</h1></body></html>\n", wantType: "text/html; charset=utf-8"},
		{name: "the e2e httpd's index.html", prog: NewProgram(e2eHttpd, nil, nil, httpdIn), port: 80, req: get("/index.html"),
			wantCode: 200, wantBody: "<html><body><h1>It works!</h1></body></html>\n"},
		{name: "httpd, index.html moved away", prog: NewProgram(e2eHttpd, nil, nil, Input{FS: FS{"/usr/local/apache2/htdocs": Dir(0o755)}}), port: 80, req: get("/index.html"),
			wantCode: 404, wantType: "text/html; charset=iso-8859-1",
			wantBody: "<!DOCTYPE HTML PUBLIC \"-//IETF//DTD HTML 2.0//EN\">\n<html><head>\n<title>404 Not Found</title>\n</head><body>\n<h1>Not Found</h1>\n<p>The requested URL /index.html was not found on this server.</p>\n</body></html>\n"},
		{name: "httpd, another port", prog: NewProgram(e2eHttpd, nil, nil, httpdIn), port: 8080, req: get("/"), wantErr: "connect: connection refused"},
		{name: "sleep listens nowhere", prog: NewProgram("busybox", []string{"sleep", "3600"}, nil, env()), port: 80, req: get("/"), wantErr: "connect: connection refused"},
		{name: "agnhost pause listens nowhere", prog: NewProgram(agnhost, []string{"/agnhost"}, []string{"pause"}, env()), port: 80, req: get("/"), wantErr: "connect: connection refused"},
		{name: "an image the rule does not know", prog: NewProgram("myorg/app:v2", nil, nil, env()), port: 8080, req: get("/"),
			wantErr: `miniplane does not simulate what the image "myorg/app:v2" serves (it models agnhost's serve-hostname, netexec, porter and test-webserver, and httpd's page)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := tt.prog.Serve(tt.port, tt.req)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Equal(t, tt.wantErr, err.Error())
				var ns *NotSimulated
				assert.Equal(t, strings.HasPrefix(tt.wantErr, "miniplane"), errors.As(err, &ns), "only what the simulator does not know is NotSimulated")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.wantCode, resp.Code)
			assert.Equal(t, tt.wantBody, string(resp.Body))
			if tt.wantType != "" {
				assert.Equal(t, tt.wantType, resp.Header.Get("Content-Type"))
			}
		})
	}
}

// TestPorts lists the ports the modelled programs listen on, which a
// probe or a proxy finds open.
func TestPorts(t *testing.T) {
	const agnhost = "registry.k8s.io/e2e-test-images/agnhost:2.53"
	in := Input{Env: []EnvVar{{Name: "SERVE_PORT_162", Value: "x"}, {Name: "SERVE_TLS_PORT_443", Value: "y"}, {Name: "SERVE_PORT_80", Value: "z"}}}
	for _, tc := range []struct {
		name string
		prog Program
		want []int32
	}{
		{"serve-hostname", NewProgram(agnhost, nil, []string{"serve-hostname"}, Input{}), []int32{9376}},
		{"netexec", NewProgram(agnhost, nil, []string{"netexec", "--http-port=8083"}, Input{}), []int32{8083}},
		{"porter", NewProgram(agnhost, []string{"/agnhost", "porter"}, nil, in), []int32{80, 162, 443}},
		{"test-webserver", NewProgram("registry.k8s.io/e2e-test-images/nautilus:1.7", []string{"/agnhost"}, []string{"test-webserver"}, Input{}), []int32{80}},
		{"httpd", NewProgram("httpd", nil, nil, Input{}), []int32{80}},
		{"sleep", NewProgram("busybox", []string{"sleep", "10"}, nil, Input{}), nil},
	} {
		assert.Equal(t, tc.want, tc.prog.Ports(), tc.name)
	}
}
