package httpapi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"go.uber.org/zap"

	"github.com/miniplane/miniplane/client"
)

// HealthChecker is one named check behind /healthz, /livez or /readyz, as
// kube-apiserver's healthz.HealthChecker. Check returns nil while the thing
// it checks is healthy, or an error saying why not. Check runs on every
// probe, on the probe's goroutine and possibly on several at once: it must
// be quick and safe for concurrent use. Name is the check's line on the
// endpoint ("[+]<name> ok") and its path (/readyz/<name>).
type HealthChecker interface {
	Name() string
	Check() error
}

// NamedCheck returns a HealthChecker of a name and a function, as
// healthz.NamedCheck does.
func NamedCheck(name string, check func() error) HealthChecker {
	return namedCheck{name: name, check: check}
}

type namedCheck struct {
	name  string
	check func() error
}

func (c namedCheck) Name() string { return c.name }
func (c namedCheck) Check() error { return c.check() }

// The three health endpoints, as kube-apiserver serves them: /healthz (the
// old, combined one), /livez (restart the process if it fails) and /readyz
// (send it no traffic while it fails).
const (
	healthzEndpoint = "healthz"
	livezEndpoint   = "livez"
	readyzEndpoint  = "readyz"
)

// healthChecks are the checks of each endpoint, in the order they print.
// Built once by New and never changed.
type healthChecks map[string][]HealthChecker

// newHealthChecks lays out the endpoints as kube-apiserver does: its own
// ping and etcd checks first, then the caller's HealthChecks, on all three;
// /readyz adds the caller's ReadyChecks and, last, shutdown. Names must be
// unique, not empty, and free of spaces and of "?" and "#" (they are
// paths); a name may contain "/", as kube's poststarthook/... checks do.
func (h *Handler) newHealthChecks(health, ready []HealthChecker) (healthChecks, error) {
	own := []HealthChecker{
		NamedCheck("ping", func() error { return nil }),
		NamedCheck("etcd", h.checkStore),
	}
	common := slices.Concat(own, health)
	all := slices.Concat(common, ready, []HealthChecker{NamedCheck("shutdown", h.checkShutdown)})
	seen := make(map[string]bool, len(all))
	for _, c := range all {
		name := c.Name()
		switch {
		case name == "" || strings.ContainsAny(name, " \t\n?#") || strings.HasPrefix(name, "/") || strings.HasSuffix(name, "/"):
			return nil, fmt.Errorf("httpapi: health check name %q is not a path segment", name)
		case seen[name]:
			return nil, fmt.Errorf("httpapi: health check %q registered twice", name)
		}
		seen[name] = true
	}
	return healthChecks{
		healthzEndpoint: common,
		livezEndpoint:   common,
		readyzEndpoint:  all,
	}, nil
}

// checkStore is the etcd check: the store, which stands where
// kube-apiserver's etcd does, answers a list. An in-memory store always
// answers; the check is here so that /readyz?verbose reads as kube's.
func (h *Handler) checkStore() error {
	_, err := h.srv.List(context.Background(), client.Namespaces, "", client.ListOptions{Limit: 1})
	return err
}

// checkShutdown fails once Shutdown has begun, so that a load balancer stops
// sending requests before the listener closes.
func (h *Handler) checkShutdown() error {
	select {
	case <-h.done:
		return errors.New("the server is shutting down")
	default:
		return nil
	}
}

// healthPath splits a health path ("readyz", "readyz/etcd",
// "readyz/poststarthook/x", without slashes at the ends) into its endpoint
// and the one check it names, if any.
func healthPath(path string) (endpoint, check string, ok bool) {
	endpoint, check, _ = strings.Cut(path, "/")
	switch endpoint {
	case healthzEndpoint, livezEndpoint, readyzEndpoint:
		return endpoint, check, true
	}
	return "", "", false
}

// serveHealth answers a health endpoint in kube-apiserver's text form.
//
// The endpoint itself runs every check but those named by ?exclude=. All
// pass: 200 "ok", or with ?verbose one "[+]<name> ok" line per check and
// "<endpoint> check passed". Any fails: 500 with every line, the failed
// ones "[-]<name> failed: reason withheld", and "<endpoint> check failed";
// the endpoint is public, so the reasons go to the log only.
//
// /<endpoint>/<name> runs one check: 200 "ok", or 500 "internal server
// error: <reason>"; a name the endpoint does not have is 404.
func (h *Handler) serveHealth(w http.ResponseWriter, r *http.Request, endpoint, name string) {
	checks := h.health[endpoint]
	if name != "" {
		i := slices.IndexFunc(checks, func(c HealthChecker) bool { return c.Name() == name })
		if i < 0 {
			writeError(w, notFoundPath())
			return
		}
		if err := checks[i].Check(); err != nil {
			writeHealthText(w, http.StatusInternalServerError, fmt.Sprintf("internal server error: %v\n", err))
			return
		}
		writeHealthText(w, http.StatusOK, "ok")
		return
	}

	query := queryOf(r)
	excluded := map[string]bool{}
	for _, v := range query["exclude"] {
		for _, n := range strings.Split(v, ",") {
			if n = strings.TrimSpace(n); n != "" {
				excluded[n] = true
			}
		}
	}
	var lines, reasons bytes.Buffer
	var failed []string
	for _, c := range checks {
		n := c.Name()
		if excluded[n] {
			delete(excluded, n)
			fmt.Fprintf(&lines, "[+]%s excluded: ok\n", n)
			continue
		}
		if err := c.Check(); err != nil {
			fmt.Fprintf(&lines, "[-]%s failed: reason withheld\n", n)
			fmt.Fprintf(&reasons, "[-]%s failed: %v\n", n, err)
			failed = append(failed, n)
			continue
		}
		fmt.Fprintf(&lines, "[+]%s ok\n", n)
	}
	if len(excluded) > 0 {
		var names []string
		for _, n := range slices.Sorted(maps.Keys(excluded)) {
			names = append(names, fmt.Sprintf("%q", n))
		}
		fmt.Fprintf(&lines, "warn: some health checks cannot be excluded: no matches for %s\n", strings.Join(names, ","))
	}
	if len(failed) > 0 {
		h.log.Debug("health check failed", zap.String("endpoint", endpoint), zap.Strings("checks", failed), zap.String("reasons", reasons.String()))
		writeHealthText(w, http.StatusInternalServerError, fmt.Sprintf("%s%s check failed\n", lines.String(), endpoint))
		return
	}
	if _, verbose := query["verbose"]; !verbose {
		writeHealthText(w, http.StatusOK, "ok")
		return
	}
	writeHealthText(w, http.StatusOK, fmt.Sprintf("%s%s check passed\n", lines.String(), endpoint))
}

// writeHealthText writes a health answer as kube-apiserver's healthz
// handlers do: plain text, never sniffed.
func writeHealthText(w http.ResponseWriter, code int, text string) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	writeRaw(w, code, "text/plain; charset=utf-8", []byte(text))
}
