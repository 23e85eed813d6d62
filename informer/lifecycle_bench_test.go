package informer_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"syscall"
	"testing"
	"time"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/informer"
	"github.com/miniplane/miniplane/internal/testenv"
)

// scriptLW is a ListerWatcher that lists a fixed list and then plays a
// fixed script of watch events, as fast as they are polled.
type scriptLW struct {
	list   []api.Object
	script []client.WatchEvent
}

func (s *scriptLW) List(context.Context, client.ListOptions) (*client.List, error) {
	return &client.List{Metadata: api.ListMeta{ResourceVersion: "1"}, Items: s.list}, nil
}

func (s *scriptLW) Watch(context.Context, client.ListOptions) (client.Watcher, error) {
	return &scriptWatch{evs: s.script}, nil
}

type scriptWatch struct{ evs []client.WatchEvent }

func (w *scriptWatch) Poll(dst []client.WatchEvent, limit int) ([]client.WatchEvent, error) {
	n := min(limit, len(w.evs))
	dst = append(dst, w.evs[:n]...)
	w.evs = w.evs[n:]
	return dst, nil
}

func (w *scriptWatch) Ready() <-chan struct{} { return nil }
func (w *scriptWatch) Stop()                  {}

// BenchmarkInformerPodLifecycle: the events a pod's life brings the shared
// pod informer of the scale benchmark, with no API server in the loop: a
// cache of 100,000 pods with its three extra indexes (owner, label, node)
// and four handlers; 10,000 cached pods, taken at random, are deleted
// gracefully (an update setting deletionTimestamp, then the deletion), and
// 10,000 new ones created, bound to a node and made Running. Reports ns per
// event, through the reflector, the FIFO, the cache and every handler.
func BenchmarkInformerPodLifecycle(b *testing.B) {
	const n, per, changed, nodes = 100_000, 100, 10_000, 1_000
	byOwner := func(obj api.Object) []string {
		return []string{string(obj.GetObjectMeta().OwnerReferences[0].UID)}
	}
	byLabel := func(obj api.Object) []string { return []string{obj.GetObjectMeta().Labels["app"]} }
	nodeVals := make(map[string][]string)
	byNode := func(obj api.Object) []string {
		if node := obj.(*api.Pod).Spec.NodeName; node != "" {
			return nodeVals[node]
		}
		return nil
	}
	for i := range nodes {
		node := fmt.Sprintf("node-%04d", i)
		nodeVals[node] = []string{node}
	}
	rng := rand.New(rand.NewPCG(5, 8))
	rv := 1
	newPod := func(i int) *api.Pod {
		app := fmt.Sprintf("app-%04d", i%(n/per))
		rv++
		return &api.Pod{Metadata: api.ObjectMeta{
			Namespace: "default", Name: fmt.Sprintf("%s-%08x", app, rng.Uint32()), ResourceVersion: fmt.Sprint(rv),
			Labels:          map[string]string{"app": app},
			OwnerReferences: []api.OwnerReference{{UID: api.UID("uid-" + app)}},
		}}
	}
	next := func(p *api.Pod, change func(q *api.Pod)) *api.Pod {
		q := *p
		rv++
		q.Metadata.ResourceVersion = fmt.Sprint(rv)
		change(&q)
		return &q
	}
	list := make([]api.Object, n)
	for i := range list {
		p := newPod(i)
		p.Spec.NodeName = fmt.Sprintf("node-%04d", rng.IntN(nodes))
		list[i] = p
	}
	var script []client.WatchEvent
	for _, j := range rng.Perm(n)[:changed] {
		p := next(list[j].(*api.Pod), func(q *api.Pod) { q.Metadata.DeletionTimestamp = &api.Time{} })
		script = append(script, client.WatchEvent{Type: api.WatchModified, Object: p})
		script = append(script, client.WatchEvent{Type: api.WatchDeleted, Object: next(p, func(*api.Pod) {})})
	}
	for i := range changed {
		p := newPod(i)
		script = append(script, client.WatchEvent{Type: api.WatchAdded, Object: p})
		p = next(p, func(q *api.Pod) { q.Spec.NodeName = fmt.Sprintf("node-%04d", rng.IntN(nodes)) })
		script = append(script, client.WatchEvent{Type: api.WatchModified, Object: p})
		p = next(p, func(q *api.Pod) { q.Status.Phase = api.PodRunning })
		script = append(script, client.WatchEvent{Type: api.WatchModified, Object: p})
	}
	noop := informer.HandlerFuncs{}
	var cpu time.Duration // user and system time of the timed parts: wall time is the machine's load's
	for b.Loop() {
		b.StopTimer()
		inf := informer.New(&scriptLW{list: list, script: script}, informer.Config{
			Clock:    clock.NewFake(testenv.Epoch()),
			Indexers: map[string]informer.IndexFunc{"owner": byOwner, "label": byLabel, "node": byNode},
		})
		regs := make([]*informer.Registration, 4)
		for i := range regs {
			regs[i] = inf.AddEventHandler(noop, 0)
		}
		inf.Reflector().Step(ctx) // the list, and the watch
		for inf.ProcessOne() {
		}
		drain(regs...)
		if inf.Indexer().Len() != n {
			b.Fatalf("cached %d of %d", inf.Indexer().Len(), n)
		}
		b.StartTimer()
		start := cpuTime()
		for stepAll(inf, regs) {
		}
		cpu += cpuTime() - start
		b.StopTimer()
		if inf.Indexer().Len() != n {
			b.Fatalf("cached %d of %d after the script", inf.Indexer().Len(), n)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(script)), "ns/event")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N*len(script)), "cpu-ns/event")
}

// cpuTime returns the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
