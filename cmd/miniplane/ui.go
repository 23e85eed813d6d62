package main

import (
	"context"
	"net/http"
	"sync"

	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/controllers/workqueue"
	"github.com/miniplane/miniplane/plane"
	"github.com/miniplane/miniplane/ui"
)

// mountUI mounts the browser view (package ui) at /ui/ on p, reading its
// server, store and instances, and returns it; the caller runs it beside
// the plane (its Run ends the page's live streams). The page carries no
// bearer token, so a plane serving with one (--token) does not mount it,
// and mountUI returns nil: it would show the cluster to whoever reaches
// the port.
func mountUI(p *plane.Plane, token string) (*ui.Handler, error) {
	if token != "" {
		return nil, nil
	}
	opts := p.Options()
	h, err := ui.New(ui.Config{
		Lister: p.Server(), History: p.Server().Store(), Clock: p.Clock(),
		CustomKinds:    func() []ui.CustomKind { return customKinds(p.Server().Resources()) },
		Instances:      func() []ui.Instance { return uiInstances(p) },
		LeaseNamespace: opts.LeaderElection.ResourceNamespace, LeaseName: opts.LeaderElection.ResourceName,
	})
	if err != nil {
		return nil, err
	}
	if err := p.Handle("/ui/", h); err != nil {
		return nil, err
	}
	if err := p.Handle("/ui", http.RedirectHandler("/ui/", http.StatusMovedPermanently)); err != nil {
		return nil, err
	}
	return h, nil
}

// uiInstances are the controller-manager instances and their workqueues
// now, for the page, then each component the plane runs once per cluster
// (the kubelets, the scheduler, the node lifecycle controller) as an
// instance of its own: it runs without election, so it always leads.
func uiInstances(p *plane.Plane) []ui.Instance {
	insts := p.Instances()
	cluster := p.ClusterQueues()
	out := make([]ui.Instance, 0, len(insts)+len(cluster))
	for _, in := range insts {
		out = append(out, ui.Instance{Identity: in.Identity(), Leading: in.Health().Leading, Queues: in.QueueMetrics()})
	}
	for _, q := range cluster {
		out = append(out, ui.Instance{Identity: q.Name, Leading: true, Queues: []workqueue.MetricsSnapshot{q}})
	}
	return out
}

// uiURL is where the page is served on p, or "" when it is not (h nil).
func uiURL(p *plane.Plane, h *ui.Handler) string {
	if h == nil {
		return ""
	}
	return p.URL() + "/ui/"
}

// runPlane runs p until ctx ends, and the page h beside it when it is
// mounted (h not nil): the page's live streams end with ctx, so that the
// plane's HTTP server can stop.
func runPlane(ctx context.Context, p *plane.Plane, h *ui.Handler) error {
	if h == nil {
		return p.Run(ctx)
	}
	var wg sync.WaitGroup
	wg.Go(func() { h.Run(ctx) })
	err := p.Run(ctx)
	wg.Wait()
	return err
}

// customKinds returns the custom kinds among what discovery lists, each in
// its storage version (another served version stores the same objects).
func customKinds(resources []apiserver.ResourceInfo) []ui.CustomKind {
	var out []ui.CustomKind
	for _, r := range resources {
		if r.Schema != nil && r.StoredAs == "" {
			out = append(out, ui.CustomKind{Group: r.Group, Version: r.Version, Kind: r.Kind, Resource: r.Name(), Namespaced: r.Namespaced})
		}
	}
	return out
}
