package main

import (
	"net/http"
	"strings"

	"github.com/miniplane/miniplane/controllers/workqueue"
	"github.com/miniplane/miniplane/ui"
)

// mountUI puts the browser view (package ui) at /ui/ in front of the API
// handler api, reading the plane's server, store and instances. The page
// carries no bearer token, so a plane serving with one (--token) does not
// mount it: it would show the cluster to whoever reaches the port.
func (p *plane) mountUI(api http.Handler) (http.Handler, error) {
	if p.cfg.Token != "" {
		return api, nil
	}
	h, err := ui.New(ui.Config{
		Lister: p.srv, History: p.srv.Store(), Clock: p.clock, Instances: p.uiInstances,
		LeaseNamespace: p.cfg.Options.LeaderElection.ResourceNamespace, LeaseName: p.cfg.Options.LeaderElection.ResourceName,
	})
	if err != nil {
		return nil, err
	}
	p.ui = h
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/ui" || strings.HasPrefix(r.URL.Path, "/ui/") {
			if r.URL.Path == "/ui" {
				http.Redirect(w, r, "/ui/", http.StatusMovedPermanently)
				return
			}
			h.ServeHTTP(w, r)
			return
		}
		api.ServeHTTP(w, r)
	}), nil
}

// uiInstances are the controller-manager instances and their workqueues
// now, for the page.
func (p *plane) uiInstances() []ui.Instance {
	out := make([]ui.Instance, 0, len(p.insts)+1)
	for _, in := range p.insts {
		out = append(out, ui.Instance{Identity: in.Identity(), Leading: in.Health().Leading, Queues: in.QueueMetrics()})
	}
	return append(out, ui.Instance{Identity: "nodesim", Leading: true, Queues: []workqueue.MetricsSnapshot{p.nodes.Queue().Metrics()}})
}

// uiURL is where the page is served, or "" when it is not.
func (p *plane) uiURL() string {
	if p.ui == nil {
		return ""
	}
	return p.URL() + "/ui/"
}
