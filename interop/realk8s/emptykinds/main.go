// Command emptykinds is a stand-in for the kinds kube-scheduler lists and
// watches but miniplane does not serve yet: it is a reverse proxy in front
// of `miniplane serve` that answers GETs of those kinds itself — an empty
// list, a watch that stays open and sends nothing, NotFound for a named
// object — and forwards every other request unchanged. It lets
// run-scheduler.sh (MISSING_KINDS=empty) show what the real scheduler does
// once its caches sync, before miniplane serves the kinds; it proves
// nothing about those kinds, and the script says when it was used.
//
// Only the kinds named with --kinds are answered here (resource names as
// in the path, group/version/resource: "v1/persistentvolumes,
// storage.k8s.io/v1/csinodes"); any write to them is refused with a 405
// MethodNotAllowed Status, so nothing is ever stored by pretence.
//
//	emptykinds --upstream=http://127.0.0.1:PORT --kinds=... --addr=127.0.0.1:0
//
// It prints "emptykinds is serving on http://ADDR" once it listens.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "emptykinds:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("emptykinds", flag.ContinueOnError)
	upstream := fs.String("upstream", "", "URL of the API server to forward every other request to (required)")
	kinds := fs.String("kinds", "", "comma-separated group/version/resource to answer empty (core kinds as v1/resource)")
	addr := fs.String("addr", "127.0.0.1:0", "address to listen on")
	if err := fs.Parse(args); err != nil {
		return err
	}
	h, err := newHandler(*upstream, *kinds)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	fmt.Printf("emptykinds is serving on http://%s\n", ln.Addr())
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(shut)
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// kind is one resource answered empty.
type kind struct {
	group, version, resource string
	listKind                 string
}

// handler answers the empty kinds and forwards the rest.
type handler struct {
	kinds map[string]kind // by path prefix: "/api/v1" or "/apis/GROUP/VERSION", then "/"+resource
	proxy *httputil.ReverseProxy
	// watchCap bounds an idle watch when the client names no timeout.
	watchCap time.Duration
}

// listKinds names the list kinds of the resources this stand-in knows; a
// resource not here is refused at start, so a typo cannot pass silently.
var listKinds = map[string]string{
	"persistentvolumes":      "PersistentVolumeList",
	"persistentvolumeclaims": "PersistentVolumeClaimList",
	"storageclasses":         "StorageClassList",
	"csinodes":               "CSINodeList",
	"csidrivers":             "CSIDriverList",
	"csistoragecapacities":   "CSIStorageCapacityList",
	"volumeattachments":      "VolumeAttachmentList",
	"poddisruptionbudgets":   "PodDisruptionBudgetList",
	"replicasets":            "ReplicaSetList",
	"statefulsets":           "StatefulSetList",
}

// newHandler parses --upstream and --kinds.
func newHandler(upstream, kinds string) (*handler, error) {
	u, err := url.Parse(upstream)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("--upstream must be an absolute URL, got %q", upstream)
	}
	h := &handler{kinds: map[string]kind{}, watchCap: 10 * time.Minute}
	for _, s := range strings.Split(kinds, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		parts := strings.Split(s, "/")
		var k kind
		switch len(parts) {
		case 2:
			k = kind{version: parts[0], resource: parts[1]}
		case 3:
			k = kind{group: parts[0], version: parts[1], resource: parts[2]}
		default:
			return nil, fmt.Errorf("--kinds: %q is not group/version/resource or v1/resource", s)
		}
		if k.listKind = listKinds[k.resource]; k.listKind == "" {
			return nil, fmt.Errorf("--kinds: unknown resource %q", k.resource)
		}
		h.kinds[k.resource] = k
	}
	if len(h.kinds) == 0 {
		return nil, errors.New("--kinds names no resource")
	}
	h.proxy = httputil.NewSingleHostReverseProxy(u)
	h.proxy.FlushInterval = -1 // watches stream as they come
	return h, nil
}

// match reports which empty kind a path is for, and the object's name when
// the path names one. Both /PREFIX/RESOURCE[/NAME] and
// /PREFIX/namespaces/NS/RESOURCE[/NAME] match.
func (h *handler) match(path string) (kind, string, bool) {
	var rest string
	var gv string
	switch {
	case strings.HasPrefix(path, "/api/"):
		rest = strings.TrimPrefix(path, "/api/")
		v, r, _ := strings.Cut(rest, "/")
		gv, rest = "/"+v, r
	case strings.HasPrefix(path, "/apis/"):
		seg := strings.SplitN(strings.TrimPrefix(path, "/apis/"), "/", 3)
		if len(seg) < 3 {
			return kind{}, "", false
		}
		gv, rest = seg[0]+"/"+seg[1], seg[2]
	default:
		return kind{}, "", false
	}
	seg := strings.Split(rest, "/")
	if len(seg) >= 3 && seg[0] == "namespaces" {
		seg = seg[2:]
	}
	if len(seg) == 0 || len(seg) > 2 {
		return kind{}, "", false
	}
	k, ok := h.kinds[seg[0]]
	if !ok || gv != k.group+"/"+k.version {
		return kind{}, "", false
	}
	name := ""
	if len(seg) == 2 {
		name = seg[1]
	}
	return k, name, true
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	k, name, ok := h.match(r.URL.Path)
	if !ok {
		h.proxy.ServeHTTP(w, r)
		return
	}
	switch {
	case r.Method != http.MethodGet:
		writeStatus(w, http.StatusMethodNotAllowed, "MethodNotAllowed",
			fmt.Sprintf("%s is answered by the emptykinds stand-in, which serves reads only: %s is not allowed", k.resource, r.Method))
	case name != "":
		writeStatus(w, http.StatusNotFound, "NotFound", fmt.Sprintf("%s %q not found", k.resource, name))
	case r.URL.Query().Get("watch") == "true" || r.URL.Query().Get("watch") == "1":
		h.watch(w, r)
	default:
		apiVersion := k.version
		if k.group != "" {
			apiVersion = k.group + "/" + k.version
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"kind": k.listKind, "apiVersion": apiVersion,
			"metadata": map[string]any{"resourceVersion": "1"}, "items": []any{},
		})
	}
}

// watch holds a watch open with no events until the client goes or its
// timeoutSeconds pass, as an API server does for a kind nothing writes.
func (h *handler) watch(w http.ResponseWriter, r *http.Request) {
	d := h.watchCap
	if s := r.URL.Query().Get("timeoutSeconds"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			writeStatus(w, http.StatusBadRequest, "BadRequest", fmt.Sprintf("timeoutSeconds must be a non-negative integer, got %q", s))
			return
		}
		if n > 0 {
			d = time.Duration(n) * time.Second
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-r.Context().Done():
	case <-t.C:
	}
}

// writeStatus writes a Kubernetes Status failure.
func writeStatus(w http.ResponseWriter, code int, reason, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(map[string]any{
		"kind": "Status", "apiVersion": "v1", "metadata": map[string]any{},
		"status": "Failure", "message": msg, "reason": reason, "code": code,
	})
}
