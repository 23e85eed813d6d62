package etcdtest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/etcdserver/api/v3client"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/etcdstore"
)

// TestRobustness runs etcd's robustness validation on miniplane: writers
// create, update and delete ConfigMaps through two API servers over a
// three-member etcd cluster while the leader member is killed and
// restarted and one API server is stopped and restarted; two clients
// watch throughout, each moving to the other server when its own stops and
// resuming from the last revision it saw. Then it checks what etcd's
// robustness tests check (tests/robustness/validate): every watcher saw
// the events etcd recorded under the prefix, each once, in strictly
// increasing revisions, one event per revision, with no gap across its
// reconnections (ordered, unique, atomic, reliable); a watch opened from
// any revision it saw replays exactly what followed (resumable); and the
// final state is what the acknowledged writes made it, where a write that
// failed without an answer may or may not have happened.
func TestRobustness(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a three-member etcd cluster")
	}
	const (
		writers = 4
		ops     = 48 // per writer
		keys    = 4  // per writer
	)
	ctx := context.Background()
	members := startCluster(t, 3)
	urls := make([]string, len(members))
	for i, m := range members {
		urls[i] = m.URL
	}
	servers := [2]*apiSlot{{urls: urls}, {urls: urls}}
	for _, s := range servers {
		s.start(t)
	}
	t.Cleanup(func() {
		for _, s := range servers {
			s.stop()
		}
	})
	start := mustRev(t, servers[0].get())

	watchCtx, stopWatching := context.WithCancel(ctx)
	defer stopWatching()
	watchers := make([]*watchClient, len(servers))
	var wg sync.WaitGroup
	for i := range watchers {
		watchers[i] = &watchClient{servers: servers[:], prefer: i, last: newLevel(start)}
		wg.Add(1)
		go func() { defer wg.Done(); watchers[i].run(watchCtx) }()
	}

	// The faults, each applied once every writer is close to its op
	// number; no writer passes that op number before it is applied, so
	// that writes run in each state.
	var leader *etcdServer
	faults := []struct {
		at   int
		name string
		do   func()
	}{
		{ops / 5, "kill etcd's leader", func() {
			for _, m := range members {
				if m.e != nil && m.e.Server.Leader() == m.e.Server.MemberID() {
					leader = m
				}
			}
			require.NotNil(t, leader)
			leader.Stop()
		}},
		{2 * ops / 5, "restart the killed member", func() { leader.Start(t) }},
		{3 * ops / 5, "stop API server 0", func() { servers[0].stop() }},
		{4 * ops / 5, "restart API server 0", func() { servers[0].start(t) }},
	}
	done := make([]chan struct{}, len(faults))
	for i := range done {
		done[i] = make(chan struct{})
	}
	progress := newLevel(0)
	hists := make([]*writeHistory, writers)
	for w := range writers {
		hists[w] = &writeHistory{ops: map[string][]writeOp{}}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := range ops {
				for f := range faults {
					if n >= faults[f].at {
						<-done[f]
					}
				}
				name := fmt.Sprintf("w%d-k%d", w, n%keys)
				del := (n/keys)%3 == 2
				value := fmt.Sprintf("w%d-op%d", w, n)
				acked := write(ctx, servers[:], w%len(servers), name, value, del)
				hists[w].add(name, writeOp{value: value, del: del, acked: acked})
				progress.raise(0)
			}
		}()
	}
	for f, fault := range faults {
		progress.waitFor(int64(writers*fault.at - writers/2))
		t.Logf("%s after %d writes", fault.name, progress.get())
		fault.do()
		close(done[f])
	}
	progress.waitFor(writers * ops)

	// What etcd recorded, read from etcd itself.
	truth := etcdHistory(t, members, start)
	require.NotEmpty(t, truth)
	last := truth[len(truth)-1].rev
	for _, w := range watchers {
		w.last.waitFor(last)
	}
	stopWatching()
	wg.Wait()

	want := describeEvents(truth)
	for i, w := range watchers {
		require.NoError(t, w.err, "watcher %d", i)
		for j := 1; j < len(w.seen); j++ {
			require.Greater(t, w.seen[j].rev, w.seen[j-1].rev, "watcher %d: ordered and unique", i)
		}
		assert.Equal(t, want, describeEvents(w.seen), "watcher %d saw every event once (reliable, atomic) across %d reconnections", i, w.reconnects)
	}
	assert.Equal(t, 1, watchers[0].reconnects, "the watcher of the stopped server moved to the other")
	assert.Zero(t, watchers[1].reconnects)
	written := map[string]map[string]bool{}
	for _, h := range hists {
		for name, ops := range h.ops {
			written[name] = map[string]bool{}
			for _, op := range ops {
				written[name][op.value] = true
			}
		}
	}
	for _, ev := range watchers[0].seen {
		if ev.typ != api.WatchDeleted {
			assert.True(t, written[ev.name][ev.value], "%s=%s was written", ev.name, ev.value)
		}
	}

	// Resumable: a watch from any revision seen replays what followed.
	for i := 0; i < len(truth); i += 7 {
		from := truth[i].rev
		for s, srv := range servers {
			got := replay(t, srv.get(), from, last)
			assert.Equal(t, describeEvents(truth[i+1:]), describeEvents(got), "a watch from %d on server %d", from, s)
		}
	}

	// The final state is the acknowledged writes'.
	for s, srv := range servers {
		list, err := srv.get().List(ctx, "configmaps", "default", client.ListOptions{})
		require.NoError(t, err)
		got := map[string]string{}
		for _, o := range list.Items {
			got[o.GetObjectMeta().Name] = o.(*api.ConfigMap).Data["k"]
		}
		for _, h := range hists {
			for name, ops := range h.ops {
				v, ok := got[name]
				assert.True(t, finalAllowed(ops, v, ok), "server %d: %s is %q (present %v) after %v", s, name, v, ok, ops)
				delete(got, name)
			}
		}
		assert.Empty(t, got, "server %d: objects no one wrote", s)
	}
	var uncertain int
	for _, h := range hists {
		for _, ops := range h.ops {
			for _, op := range ops {
				if !op.acked {
					uncertain++
				}
			}
		}
	}
	t.Logf("%d writes (%d unanswered), %d events", writers*ops, uncertain, len(truth))
}

// apiSlot is one API server process that a test stops and restarts.
type apiSlot struct {
	urls []string
	// mu guards srv, cli and down; down is closed when srv stops.
	mu   sync.Mutex
	srv  *apiserver.Server
	cli  *etcdstore.Client
	down chan struct{}
}

func (s *apiSlot) start(t testing.TB) {
	t.Helper()
	cli, err := etcdstore.Dial(s.urls)
	require.NoError(t, err)
	srv, err := apiserver.New(apiserver.Config{Clock: clock.Real{}, Rand: rand.New(rand.NewPCG(1, 2)), Etcd: cli})
	require.NoError(t, err)
	s.mu.Lock()
	s.srv, s.cli, s.down = srv, cli, make(chan struct{})
	s.mu.Unlock()
}

func (s *apiSlot) stop() {
	s.mu.Lock()
	srv, cli, down := s.srv, s.cli, s.down
	s.srv = nil
	s.mu.Unlock()
	if srv == nil {
		return
	}
	close(down)
	_ = srv.Close()
	_ = cli.Close()
}

// up returns the running server and the channel closed when it stops, or
// nil.
func (s *apiSlot) up() (*apiserver.Server, <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.srv, s.down
}

func (s *apiSlot) get() *apiserver.Server { srv, _ := s.up(); return srv }

// pick returns the preferred server if it runs, or the next that does.
func pick(servers []*apiSlot, prefer int) (*apiserver.Server, <-chan struct{}) {
	for i := range servers {
		if srv, down := servers[(prefer+i)%len(servers)].up(); srv != nil {
			return srv, down
		}
	}
	panic("no API server runs")
}

// write puts value under name, or deletes it, through a running server; it
// reports whether the server acknowledged the write (false: it may or may
// not have happened).
func write(ctx context.Context, servers []*apiSlot, prefer int, name, value string, del bool) bool {
	srv, _ := pick(servers, prefer)
	if del {
		_, err := srv.Delete(ctx, "configmaps", "default", name, api.DeleteOptions{})
		return err == nil || apierrors.IsNotFound(err)
	}
	_, err := srv.Create(ctx, configMap("default", name, value))
	if apierrors.IsAlreadyExists(err) {
		_, err = srv.Update(ctx, configMap("default", name, value))
	}
	return err == nil
}

// writeOp is one write of a key, in the order its writer made them.
type writeOp struct {
	value string
	del   bool
	acked bool
}

func (op writeOp) String() string {
	s := op.value
	if op.del {
		s = "delete"
	}
	if !op.acked {
		s += "?"
	}
	return s
}

// writeHistory is one writer's writes, by key.
type writeHistory struct {
	mu  sync.Mutex
	ops map[string][]writeOp
}

func (h *writeHistory) add(name string, op writeOp) {
	h.mu.Lock()
	h.ops[name] = append(h.ops[name], op)
	h.mu.Unlock()
}

// finalAllowed reports whether a key's final state (value, present) is one
// its writes allow: that of its last acknowledged write, or of any
// unanswered one after it. Each key has one writer, who waits for each
// answer, so no other order is possible.
func finalAllowed(ops []writeOp, value string, present bool) bool {
	from := 0
	allowed := func(op writeOp) bool { return op.del == !present && (op.del || op.value == value) }
	for i, op := range ops {
		if op.acked {
			from = i
		}
	}
	if from == 0 && !ops[0].acked && !present {
		return true // nothing acknowledged: never created is possible
	}
	for _, op := range ops[from:] {
		if allowed(op) {
			return true
		}
	}
	return false
}

// level is a number that only grows, which others wait on: the writes
// done, the revision a watcher has seen.
type level struct {
	// mu guards n and changed; changed is closed and replaced when n grows.
	mu      sync.Mutex
	n       int64
	changed chan struct{}
}

func newLevel(n int64) *level { return &level{n: n, changed: make(chan struct{})} }

// raise sets the level to n, or, when n is 0, adds one.
func (l *level) raise(n int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if n == 0 {
		n = l.n + 1
	}
	l.n = n
	close(l.changed)
	l.changed = make(chan struct{})
}

func (l *level) get() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.n
}

// waitFor returns once the level is n or more.
func (l *level) waitFor(n int64) {
	for {
		l.mu.Lock()
		got, changed := l.n, l.changed
		l.mu.Unlock()
		if got >= n {
			return
		}
		<-changed
	}
}

// seenEvent is a watch event as the checks compare them.
type seenEvent struct {
	typ, name, value string
	rev              int64
}

func describeEvents(evs []seenEvent) []string {
	out := make([]string, len(evs))
	for i, ev := range evs {
		out[i] = fmt.Sprintf("%d %s %s", ev.rev, ev.typ, ev.name)
	}
	return out
}

// watchClient watches the ConfigMaps in default through one server, and,
// when it stops, through another, from the last revision it saw, as a
// client-go reflector does.
type watchClient struct {
	servers []*apiSlot
	prefer  int

	// last is the revision of the last event seen.
	last *level
	// seen, reconnects and err belong to run until it returns.
	seen       []seenEvent
	reconnects int
	err        error
}

func (c *watchClient) run(ctx context.Context) {
	for ctx.Err() == nil {
		srv, down := pick(c.servers, c.prefer)
		w, err := srv.Watch(ctx, "configmaps", "default", client.ListOptions{ResourceVersion: strconv.FormatInt(c.last.get(), 10)})
		if err != nil {
			// The server stopped as the watch was opened; any other
			// refusal (410 Gone above all) fails the test.
			select {
			case <-down:
				continue
			default:
			}
			c.err = fmt.Errorf("watch from %d: %w", c.last.get(), err)
			return
		}
		moved, err := c.follow(ctx, w, down)
		w.Stop()
		if err != nil {
			c.err = err
			return
		}
		if moved {
			c.reconnects++
		}
	}
}

// follow delivers w's events until its server stops (moved) or ctx ends.
func (c *watchClient) follow(ctx context.Context, w client.Watcher, down <-chan struct{}) (moved bool, err error) {
	for {
		select {
		case <-ctx.Done():
			return false, nil
		case <-down:
			return true, nil
		case <-w.Ready():
		}
		evs, err := w.Poll(nil, 0)
		if err != nil {
			return false, err
		}
		for _, ev := range evs {
			if ev.Type == api.WatchError {
				return false, fmt.Errorf("an ERROR event: %s", ev.Status.Message)
			}
			cm := ev.Object.(*api.ConfigMap)
			rev := mustRev(nil, cm)
			c.seen = append(c.seen, seenEvent{typ: ev.Type, name: cm.Metadata.Name, value: cm.Data["k"], rev: rev})
			c.last.raise(rev)
		}
	}
}

// mustRev returns an object's resourceVersion, or, for a server, its
// current one (a consistent list's).
func mustRev(t testing.TB, x any) int64 {
	var rv string
	switch x := x.(type) {
	case *apiserver.Server:
		list, err := x.List(context.Background(), "configmaps", "default", client.ListOptions{})
		require.NoError(t, err)
		rv = list.Metadata.ResourceVersion
	case api.Object:
		rv = x.GetObjectMeta().ResourceVersion
	}
	n, err := strconv.ParseInt(rv, 10, 64)
	if err != nil {
		panic(err)
	}
	return n
}

// etcdHistory reads from etcd itself, through a running member, every
// event under the ConfigMaps in default after revision from.
func etcdHistory(t *testing.T, members []*etcdServer, from int64) []seenEvent {
	t.Helper()
	var m *etcdServer
	for _, x := range members {
		if x.e != nil {
			m = x
			break
		}
	}
	cli := v3client.New(m.e.Server)
	defer cli.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// A write outside /registry/ marks the end of the history to read.
	end, err := cli.Put(ctx, "/robustness-end", "")
	require.NoError(t, err)
	const prefix = "/registry/configmaps/default/"
	var out []seenEvent
	for resp := range cli.Watch(ctx, "", clientv3.WithFromKey(), clientv3.WithRev(from+1)) {
		require.NoError(t, resp.Err())
		for _, ev := range resp.Events {
			if ev.Kv.ModRevision >= end.Header.Revision {
				return out
			}
			name, ok := strings.CutPrefix(string(ev.Kv.Key), prefix)
			if !ok {
				continue
			}
			typ := api.WatchModified
			switch {
			case ev.Type == clientv3.EventTypeDelete:
				typ = api.WatchDeleted
			case ev.IsCreate():
				typ = api.WatchAdded
			}
			out = append(out, seenEvent{typ: typ, name: name, rev: ev.Kv.ModRevision})
		}
	}
	require.FailNow(t, "etcd's watch ended before the end mark", "%v", errors.New("watch closed"))
	return nil
}

// replay opens a watch from revision from on srv and returns its events up
// to revision last.
func replay(t *testing.T, srv *apiserver.Server, from, last int64) []seenEvent {
	t.Helper()
	w, err := srv.Watch(context.Background(), "configmaps", "default", client.ListOptions{ResourceVersion: strconv.FormatInt(from, 10)})
	require.NoError(t, err)
	defer w.Stop()
	var out []seenEvent
	for len(out) == 0 || out[len(out)-1].rev < last {
		<-w.Ready()
		evs, err := w.Poll(nil, 0)
		require.NoError(t, err)
		for _, ev := range evs {
			require.NotEqual(t, api.WatchError, ev.Type)
			cm := ev.Object.(*api.ConfigMap)
			out = append(out, seenEvent{typ: ev.Type, name: cm.Metadata.Name, rev: mustRev(t, cm)})
		}
		if from >= last {
			break
		}
	}
	return out
}
