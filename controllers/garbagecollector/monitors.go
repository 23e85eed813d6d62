package garbagecollector

import (
	"context"
	"maps"
	"slices"

	"go.uber.org/zap"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/informer"
)

// Custom resources: with Config.CustomResources the collector watches
// CustomResourceDefinitions and graphs the objects of every established
// one, as Kubernetes' collector follows discovery with a metadata
// informer per resource (GraphBuilder.syncMonitors). A definition
// established starts a monitor, an informer of its storage version's
// resource that the collector owns; a definition removed stops it and
// removes its objects from the graph, which the removal deleted, so that
// what they owned is collected.

// monitor is the collector's informer of one custom resource.
// Kubernetes: GraphBuilder's monitor.
type monitor struct {
	kind *kindInfo
	inf  *informer.Informer
	reg  *informer.Registration
	// stop ends the informer's Run and done is closed once it returned;
	// both nil for a monitor that is stepped, not run.
	stop context.CancelFunc
	done chan struct{}
}

// customResourceKinds returns the kind of every established definition in
// the cache, by the resource its storage version is served as.
func customResourceKinds(crds []api.Object) map[string]kindInfo {
	out := make(map[string]kindInfo, len(crds))
	for _, obj := range crds {
		crd, ok := obj.(*api.CustomResourceDefinition)
		if !ok || !established(crd) {
			continue
		}
		res := crd.Spec.Names.Plural + "." + crd.Spec.Group
		out[res] = kindInfo{
			kind: crd.Spec.Names.Kind, group: crd.Spec.Group, resource: res,
			namespaced: crd.Spec.Scope == api.NamespaceScoped,
		}
	}
	return out
}

func established(crd *api.CustomResourceDefinition) bool {
	for _, c := range crd.Status.Conditions {
		if c.Type == api.CRDEstablished {
			return c.Status == api.ConditionTrue
		}
	}
	return false
}

// definitionsChanged tells runMonitors to look at the definitions again.
func (c *Controller) definitionsChanged() {
	select {
	case c.crdsChanged <- struct{}{}:
	default: // one is pending already
	}
}

// runMonitors keeps the monitors in line with the established definitions
// until ctx is done, then stops them all and returns once they stopped.
func (c *Controller) runMonitors(ctx context.Context) {
	for {
		c.syncMonitors(ctx, true)
		select {
		case <-ctx.Done():
			c.monMu.Lock()
			defer c.monMu.Unlock()
			for _, m := range c.monitors {
				<-m.done // ctx, their Run's parent, is done
			}
			return
		case <-c.crdsChanged:
		}
	}
}

// syncMonitors starts a monitor for each established definition that has
// none (running its informer under ctx when run is set; a test steps it
// otherwise) and stops those whose definition went or changed its kind.
func (c *Controller) syncMonitors(ctx context.Context, run bool) {
	want := customResourceKinds(c.crds.Indexer().List())
	var keys []string
	c.monMu.Lock()
	defer func() {
		c.monMu.Unlock()
		c.enqueue(keys)
	}()
	for _, res := range slices.Sorted(maps.Keys(c.monitors)) {
		m := c.monitors[res]
		if k, ok := want[res]; ok && k == *m.kind {
			continue
		}
		if m.stop != nil {
			m.stop()
			<-m.done // no handler of it runs after this
		}
		delete(c.monitors, res)
		keys = append(keys, c.graph.removeKind(m.kind)...)
		c.log.Info("stopped watching a custom resource", zap.String("resource", res))
	}
	for _, res := range slices.Sorted(maps.Keys(want)) {
		if c.monitors[res] != nil {
			continue
		}
		k := c.graph.kind(want[res])
		c.graph.custom.set(*k)
		inf := c.factory.Unshared(res)
		m := &monitor{kind: k, inf: inf, reg: inf.AddEventHandler(c.handler(k), 0)}
		if run {
			mctx, stop := context.WithCancel(ctx)
			m.stop, m.done = stop, make(chan struct{})
			go func() {
				defer close(m.done)
				inf.Run(mctx)
			}()
		}
		c.monitors[res] = m
		keys = append(keys, c.graph.adoptKind(*k)...)
		c.log.Info("watching a custom resource", zap.String("resource", res))
	}
}

// watches reports whether the objects of resource are graphed.
func (c *Controller) watches(resource string) bool {
	if c.watched[resource] {
		return true
	}
	c.monMu.Lock()
	defer c.monMu.Unlock()
	return c.monitors[resource] != nil
}

// kind returns the graph's interned k.
func (g *graph) kind(k kindInfo) *kindInfo {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.kindLocked(k)
}

// Stepped monitors, for the simulator, which runs no goroutine: it takes
// a monitor sync as a step of its own when MonitorsPending, and steps the
// informers Monitors returns as it steps every other.

// MonitorsPending reports whether a definition changed since the monitors
// were last synced: SyncMonitors has work. False without
// Config.CustomResources.
func (c *Controller) MonitorsPending() bool { return len(c.crdsChanged) > 0 }

// SyncMonitors does one round of Run's monitor loop without running
// anything: a monitor for each established definition that has none, not
// run, and none for those that went.
func (c *Controller) SyncMonitors(ctx context.Context) {
	if c.crds == nil {
		return
	}
	select {
	case <-c.crdsChanged:
	default:
	}
	c.syncMonitors(ctx, false)
}

// Monitors returns the monitors' informers, by resource.
func (c *Controller) Monitors() map[string]*informer.Informer {
	c.monMu.Lock()
	defer c.monMu.Unlock()
	out := make(map[string]*informer.Informer, len(c.monitors))
	for res, m := range c.monitors {
		out[res] = m.inf
	}
	return out
}
