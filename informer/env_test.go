package informer_test

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/informer"
	"github.com/miniplane/miniplane/internal/testenv"
)

var ctx = context.Background()

// env is an informer on pods over a real API server, through a faultyLW, on
// a fake clock that moves only when a test steps it.
type env struct {
	t   *testing.T
	clk *clock.Fake
	srv *apiserver.Server
	lw  *faultyLW
	inf *informer.Informer
}

// newEnv starts nothing. cfg's Clock and Rand are filled in
// (testenv.NewServer).
func newEnv(t *testing.T, cfg apiserver.Config) *env {
	t.Helper()
	srv, clk := testenv.NewServer(t, cfg)
	lw := newFaultyLW(informer.Source{Client: srv, Resource: client.Pods})
	inf := informer.New(lw, informer.Config{Clock: clk, Logger: testenv.Logger(t)})
	return &env{t: t, clk: clk, srv: srv, lw: lw, inf: inf}
}

// pod returns a minimal valid pod.
func pod(ns, name string, labels map[string]string) *api.Pod {
	return &api.Pod{
		Metadata: api.ObjectMeta{Namespace: ns, Name: name, Labels: labels},
		Spec:     api.PodSpec{Containers: []api.Container{{Name: "app", Image: "nginx:1.27"}}},
	}
}

func (e *env) createPod(ns, name string, labels map[string]string) *api.Pod {
	e.t.Helper()
	p, err := client.For[*api.Pod](e.srv).Create(ctx, pod(ns, name, labels))
	require.NoError(e.t, err)
	return p
}

// updatePod sets one label on a copy of p and stores it.
func (e *env) updatePod(p *api.Pod, key, value string) *api.Pod {
	e.t.Helper()
	c := p.DeepCopy()
	if c.Metadata.Labels == nil {
		c.Metadata.Labels = map[string]string{}
	}
	c.Metadata.Labels[key] = value
	out, err := client.For[*api.Pod](e.srv).Update(ctx, c)
	require.NoError(e.t, err)
	require.NotEqual(e.t, p.Metadata.ResourceVersion, out.Metadata.ResourceVersion, "the update wrote")
	return out
}

// deletePod deletes p and returns the revision of the deletion, which its
// DELETED event carries as resourceVersion.
func (e *env) deletePod(p *api.Pod) string {
	e.t.Helper()
	_, err := client.For[*api.Pod](e.srv).Delete(ctx, p.Metadata.Namespace, p.Metadata.Name, api.DeleteOptions{})
	require.NoError(e.t, err)
	return strconv.FormatInt(e.srv.Store().Rev(), 10)
}

// rev returns the server's current revision as a resourceVersion.
func (e *env) rev() string { return strconv.FormatInt(e.srv.Store().Rev(), 10) }

// pump steps the reflector, the informer and the given registrations'
// dispatchers until none has work. With no registrations the cache ends up
// up to date and the notifications queued, not dispatched.
func (e *env) pump(regs ...*informer.Registration) {
	e.t.Helper()
	steps := []func() bool{func() bool { return e.inf.Reflector().Step(ctx) }, e.inf.ProcessOne}
	for _, r := range regs {
		steps = append(steps, r.DispatchOne)
	}
	testenv.Settle(e.t, 0, steps...)
}

// drain dispatches everything pending for regs.
func drain(regs ...*informer.Registration) {
	for _, r := range regs {
		for r.DispatchOne() {
		}
	}
}

// recorder is a Handler that writes down every notification as a line:
//
//	add default/a@5 (initial)
//	update default/a@5->7
//	delete default/a@8
//	delete default/a@5 (final state unknown)
//
// where @N is the object's resourceVersion (for a tombstone, the last known
// one). It is safe for concurrent use.
type recorder struct {
	mu     sync.Mutex
	events []string
	// tombstones holds the DeletedFinalStateUnknown values OnDelete got.
	tombstones []informer.DeletedFinalStateUnknown
	// updates holds the (old, new) pairs OnUpdate got.
	updates [][2]api.Object
}

var _ informer.Handler = (*recorder)(nil)

func (r *recorder) OnAdd(obj api.Object, isInInitialList bool) {
	r.record(added(obj, isInInitialList))
}

func (r *recorder) OnUpdate(oldObj, newObj api.Object) {
	r.mu.Lock()
	r.updates = append(r.updates, [2]api.Object{oldObj, newObj})
	r.mu.Unlock()
	r.record(updated(oldObj, newObj))
}

func (r *recorder) OnDelete(obj any) {
	o, unknown := informer.DeletedObject(obj)
	switch {
	case o == nil:
		r.record(fmt.Sprintf("delete of a %T", obj))
	case unknown:
		ts := obj.(informer.DeletedFinalStateUnknown)
		r.mu.Lock()
		r.tombstones = append(r.tombstones, ts)
		r.mu.Unlock()
		if ts.Key != informer.KeyOf(o) {
			r.record(fmt.Sprintf("tombstone key %q does not match its object %q", ts.Key, informer.KeyOf(o)))
			return
		}
		r.record(lost(o))
	default:
		r.record(deleted(o, o.GetObjectMeta().ResourceVersion))
	}
}

func (r *recorder) record(line string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, line)
}

// Events returns what the handler has been told so far.
func (r *recorder) Events() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.events...)
}

// Take returns what the handler has been told since the last Take.
func (r *recorder) Take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.events
	r.events = nil
	return out
}

func (r *recorder) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.events)
}

// The lines a recorder writes, for expectations.

func added(obj api.Object, initial bool) string {
	s := "add " + informer.KeyOf(obj) + "@" + obj.GetObjectMeta().ResourceVersion
	if initial {
		s += " (initial)"
	}
	return s
}

func updated(oldObj, newObj api.Object) string {
	return fmt.Sprintf("update %s@%s->%s", informer.KeyOf(newObj),
		oldObj.GetObjectMeta().ResourceVersion, newObj.GetObjectMeta().ResourceVersion)
}

// deleted is the line for a deletion seen on the watch at revision rv.
func deleted(obj api.Object, rv string) string {
	return "delete " + informer.KeyOf(obj) + "@" + rv
}

// lost is the line for a missed deletion whose last known state is obj.
func lost(obj api.Object) string {
	return "delete " + informer.KeyOf(obj) + "@" + obj.GetObjectMeta().ResourceVersion + " (final state unknown)"
}

// lines concatenates expectations, for readability.
func lines(parts ...any) []string {
	var out []string
	for _, p := range parts {
		switch v := p.(type) {
		case string:
			out = append(out, v)
		case []string:
			out = append(out, v...)
		default:
			panic(fmt.Sprintf("lines: %T", p))
		}
	}
	return out
}
