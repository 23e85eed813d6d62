package sim

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client"
)

// Fault is one kind of trouble the simulator can inject. Which ones are on
// is a FaultSet; when and where each strikes is drawn from the seed.
type Fault uint8

// The faults, by the names ParseFaults accepts.
const (
	// WatchClose ends a random open watch; its reflector must watch again.
	WatchClose Fault = iota
	// Compact compacts the store's history to the current revision, so a
	// watch or list that is behind gets 410 Gone and relists.
	Compact
	// Conflict makes a write fail with 409 Conflict before it is applied.
	Conflict
	// ServerError makes a write fail with 500 before it is applied.
	ServerError
	// StaleCache holds back one informer of one instance for a while: its
	// cache falls behind the store (the fault Sieve and Acto use).
	StaleCache
	// Crash crashes a controller-manager instance — its informers, caches,
	// queues and expectations are lost — and restarts it fresh later.
	Crash
	// Pause stops a leader's elector for a while; its controllers keep
	// trying to act (only the election's guard can stop them).
	Pause
	// Skew gives each instance's clock a fixed offset from the server's.
	Skew
	// PodCrash crashes a running pod's containers (nodesim.CrashPod).
	PodCrash
	// NodeDown takes a node down and brings it back later.
	NodeDown
	numFaults
)

var faultNames = [numFaults]string{
	WatchClose: "watchclose", Compact: "compact", Conflict: "conflict", ServerError: "servererror",
	StaleCache: "stale", Crash: "crash", Pause: "pause", Skew: "skew", PodCrash: "podcrash", NodeDown: "nodedown",
}

// String returns the fault's name.
func (f Fault) String() string {
	if f < numFaults {
		return faultNames[f]
	}
	return "fault(" + strconv.Itoa(int(f)) + ")"
}

// FaultSet is a set of faults; the zero value is none.
type FaultSet uint32

// AllFaults has every fault.
const AllFaults FaultSet = 1<<numFaults - 1

// Has reports whether f is in the set.
func (s FaultSet) Has(f Fault) bool { return s&(1<<f) != 0 }

// With returns the set with f added.
func (s FaultSet) With(f Fault) FaultSet { return s | 1<<f }

// List returns the set's faults in their declaration order.
func (s FaultSet) List() []Fault {
	var out []Fault
	for f := range numFaults {
		if s.Has(f) {
			out = append(out, f)
		}
	}
	return out
}

// String returns "all", "none", or the names joined by commas.
func (s FaultSet) String() string {
	switch s {
	case AllFaults:
		return "all"
	case 0:
		return "none"
	}
	var names []string
	for _, f := range s.List() {
		names = append(names, f.String())
	}
	return strings.Join(names, ",")
}

// ParseFaults reads "all", "none" (or ""), or a comma-separated list of
// fault names.
func ParseFaults(s string) (FaultSet, error) {
	switch strings.TrimSpace(s) {
	case "all":
		return AllFaults, nil
	case "", "none":
		return 0, nil
	}
	var set FaultSet
	for name := range strings.SplitSeq(s, ",") {
		name = strings.TrimSpace(name)
		f, ok := faultByName(name)
		if !ok {
			return 0, fmt.Errorf("unknown fault %q (known: %s, or all, or none)", name, strings.Join(faultNames[:], ", "))
		}
		set = set.With(f)
	}
	return set, nil
}

func faultByName(name string) (Fault, bool) {
	for f, n := range faultNames {
		if n == name {
			return Fault(f), true
		}
	}
	return 0, false
}

// errInjected is wrapped by the errors the fault client makes up.
var errInjected = errors.New("injected by the simulator")

// faultClient is the simulator's API client for one actor: it passes calls
// to the server, fails writes with a Conflict or a server error when those
// faults are on (before the write, so nothing stored changes), and wraps
// watches so they can be closed by the WatchClose fault and checked for
// exactly-once delivery.
type faultClient struct {
	s     *Sim
	actor string
	owner *instance // nil outside the controller managers
}

var _ client.Client = (*faultClient)(nil)

// injectWriteFault returns the error to fail a write with, if one is drawn.
func (c *faultClient) injectWriteFault(verb, resource, namespace, name string) error {
	s := c.s
	if !s.injecting {
		return nil
	}
	conflict, server := s.cfg.Faults.Has(Conflict), s.cfg.Faults.Has(ServerError)
	if !conflict && !server {
		return nil
	}
	if s.faultRand.Float64() >= s.cfg.WriteFaultRate {
		return nil
	}
	key := name
	if namespace != "" {
		key = namespace + "/" + name
	}
	var err error
	if conflict && (!server || s.faultRand.IntN(2) == 0) {
		err = apierrors.NewConflict(apierrors.GroupResource{Resource: resource}, name,
			"the object has been modified (injected by the simulator)")
	} else {
		err = apierrors.NewInternalError(errInjected)
	}
	s.record(Event{Actor: c.actor, Kind: "fault", Key: s.kindOfResource(resource) + " " + key, Fault: true,
		Detail: verb + " " + resource + ": " + string(apierrors.ReasonOf(err))})
	return err
}

// kindOfResource returns the kind of a resource's objects ("pods": "Pod").
func (s *Sim) kindOfResource(resource string) string {
	for _, r := range s.srv.Resources() {
		if r.Resource == resource {
			return r.Kind
		}
	}
	return resource
}

// objName returns the resource, namespace and name of an object a client
// is about to write (name "<generateName>*" when the server is to choose it).
func objName(obj api.Object) (resource, namespace, name string) {
	m := obj.GetObjectMeta()
	name = m.Name
	if name == "" {
		name = m.GenerateName + "*"
	}
	return client.ResourceOf(obj), m.Namespace, name
}

func (c *faultClient) Create(ctx context.Context, obj api.Object, opts ...client.WriteOption) (api.Object, error) {
	r, ns, n := objName(obj)
	if err := c.injectWriteFault("create", r, ns, n); err != nil {
		return nil, err
	}
	return c.s.srv.Create(ctx, obj, opts...)
}

func (c *faultClient) Update(ctx context.Context, obj api.Object, opts ...client.WriteOption) (api.Object, error) {
	r, ns, n := objName(obj)
	if err := c.injectWriteFault("update", r, ns, n); err != nil {
		return nil, err
	}
	return c.s.srv.Update(ctx, obj, opts...)
}

func (c *faultClient) UpdateStatus(ctx context.Context, obj api.Object, opts ...client.WriteOption) (api.Object, error) {
	r, ns, n := objName(obj)
	if err := c.injectWriteFault("status", r, ns, n); err != nil {
		return nil, err
	}
	return c.s.srv.UpdateStatus(ctx, obj, opts...)
}

func (c *faultClient) Delete(ctx context.Context, resource, namespace, name string, opts api.DeleteOptions) (api.Object, error) {
	if err := c.injectWriteFault("delete", resource, namespace, name); err != nil {
		return nil, err
	}
	return c.s.srv.Delete(ctx, resource, namespace, name, opts)
}

// Bind binds a pod (nodesim's scheduler writes through it).
func (c *faultClient) Bind(ctx context.Context, namespace, name, node string) (*api.Pod, error) {
	if err := c.injectWriteFault("bind", client.Pods, namespace, name); err != nil {
		return nil, err
	}
	return c.s.srv.Bind(ctx, namespace, name, node)
}

func (c *faultClient) Get(ctx context.Context, resource, namespace, name string, opts client.GetOptions) (api.Object, error) {
	return c.s.srv.Get(ctx, resource, namespace, name, opts)
}

func (c *faultClient) List(ctx context.Context, resource, namespace string, opts client.ListOptions) (*client.List, error) {
	return c.s.srv.List(ctx, resource, namespace, opts)
}

func (c *faultClient) Watch(ctx context.Context, resource, namespace string, opts client.ListOptions) (client.Watcher, error) {
	w, err := c.s.srv.Watch(ctx, resource, namespace, opts)
	if err != nil {
		return nil, err
	}
	sw := &simWatch{Watcher: w, s: c.s, name: c.actor + "/" + resource, owner: c.owner}
	if rv, err := strconv.ParseInt(opts.ResourceVersion, 10, 64); err == nil && opts.SendInitialEvents == nil {
		sw.checked, sw.last = true, rv
	}
	if len(c.s.watches) >= 2*pruneWatchesAt {
		c.s.watches = slices.DeleteFunc(c.s.watches, func(w *simWatch) bool { return w.stopped })
	}
	c.s.watches = append(c.s.watches, sw)
	return sw, nil
}

// pruneWatchesAt is half the length at which the list of watches is
// cleared of the stopped ones.
const pruneWatchesAt = 64

// simWatch is a watch the simulator can close, and whose events it checks:
// a watch from a resourceVersion must deliver each later event once, in
// order (strictly rising resourceVersions), or end with an error.
type simWatch struct {
	client.Watcher
	s       *Sim
	name    string
	owner   *instance
	checked bool
	last    int64
	stopped bool
}

func (w *simWatch) Poll(dst []client.WatchEvent, limit int) ([]client.WatchEvent, error) {
	n := len(dst)
	out, err := w.Watcher.Poll(dst, limit)
	if !w.checked {
		return out, err
	}
	for _, ev := range out[n:] {
		if ev.Type == api.WatchError || ev.Object == nil {
			continue
		}
		rv, perr := strconv.ParseInt(ev.Object.GetObjectMeta().ResourceVersion, 10, 64)
		switch {
		case perr != nil:
			w.s.violate("watch-exactly-once", fmt.Sprintf("watch %s: event %s carries resourceVersion %q",
				w.name, ev.Type, ev.Object.GetObjectMeta().ResourceVersion))
		case ev.Type == api.WatchBookmark && rv < w.last,
			ev.Type != api.WatchBookmark && rv <= w.last:
			w.s.violate("watch-exactly-once", fmt.Sprintf("watch %s: %s %s at revision %d after revision %d",
				w.name, ev.Type, api.KeyOf(ev.Object.GetObjectMeta()), rv, w.last))
		}
		w.last = max(w.last, rv)
	}
	return out, err
}

func (w *simWatch) Stop() {
	w.stopped = true
	w.Watcher.Stop()
}
