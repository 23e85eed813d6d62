package apiserver_test

// Benchmarks of the in-process API server: each request goes through the
// whole server path (defaulting, validation, metadata, the store, history),
// as a controller's requests do. Each benchmark checks that what it timed
// was right, so a fast wrong answer fails.
//
// The real run, and where the allocations come from:
//
//	go test -run='^$' -bench=. -benchtime=1s -count=3 ./apiserver/
//	go test -run='^$' -bench=CreatePod -memprofile=mem.out ./apiserver/ && go tool pprof -sample_index=alloc_objects -top mem.out
//
// The CI smoke run (every benchmark once, all checks on, well under a second):
//
//	go test -run='^$' -bench=. -benchtime=1x ./apiserver/
//
// Targets (2-core reference machine): BenchmarkCreatePod ≥ 100,000
// creates/s, and no write making more than one deep copy of the object.

import (
	"strconv"
	"testing"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
)

// benchPods creates n pods named pod-0 ... pod-(n-1) in "default" and
// returns their names.
func benchPods(b *testing.B, s *apiserver.Server, n int) []string {
	b.Helper()
	names := make([]string, n)
	for i := range n {
		names[i] = "pod-" + strconv.Itoa(i)
		if _, err := s.Create(ctx, pod("default", names[i], map[string]string{"app": "web"})); err != nil {
			b.Fatal(err)
		}
	}
	return names
}

// BenchmarkCreatePod creates b.N pods in one namespace, one after the other,
// and reports creates/s. The client reuses one input pod (the server copies
// what it is given), so the allocations counted are the server's.
func BenchmarkCreatePod(b *testing.B) {
	s, _ := newServer(b)
	names := make([]string, b.N)
	for i := range names {
		names[i] = "pod-" + strconv.Itoa(i)
	}
	in := pod("default", "", map[string]string{"app": "web", "tier": "front"})
	before := s.Store().Stats().Keys
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		in.Metadata.Name = names[i]
		if _, err := s.Create(ctx, in); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "creates/s")
	if got := s.Store().Stats().Keys - before; got != b.N {
		b.Fatalf("created %d pods, the store holds %d more keys", b.N, got)
	}
}

// BenchmarkGetPod reads pods from a server holding 1,000, round robin.
func BenchmarkGetPod(b *testing.B) {
	s, _ := newServer(b)
	names := benchPods(b, s, 1000)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		name := names[i%len(names)]
		obj, err := s.Get(ctx, client.Pods, "default", name, client.GetOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if obj.GetObjectMeta().Name != name {
			b.Fatalf("got %s, want %s", obj.GetObjectMeta().Name, name)
		}
	}
}

// BenchmarkUpdatePod updates one pod b.N times, changing a label each time
// and conditionally on the resourceVersion the last update returned, as a
// controller does with the version in its cache. The client reuses its own
// copy of the pod (the server copies what it is given).
func BenchmarkUpdatePod(b *testing.B) {
	s, _ := newServer(b)
	created, err := s.Create(ctx, pod("default", "web", map[string]string{"app": "web", "flip": "a"}))
	if err != nil {
		b.Fatal(err)
	}
	in := created.(*api.Pod).DeepCopy()
	flips := [2]string{"b", "a"}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		in.Metadata.Labels["flip"] = flips[i%2]
		got, err := s.Update(ctx, in)
		if err != nil {
			b.Fatal(err)
		}
		in.Metadata.ResourceVersion = got.GetObjectMeta().ResourceVersion
	}
	b.StopTimer()
	want := strconv.FormatInt(mustParseRV(b, created)+int64(b.N), 10)
	if in.Metadata.ResourceVersion != want {
		b.Fatalf("after %d updates the resourceVersion is %s, want %s: an update wrote nothing", b.N, in.Metadata.ResourceVersion, want)
	}
}

func mustParseRV(b *testing.B, obj api.Object) int64 {
	rv, err := strconv.ParseInt(obj.GetObjectMeta().ResourceVersion, 10, 64)
	if err != nil {
		b.Fatal(err)
	}
	return rv
}

// BenchmarkListPods1000 lists a namespace of 1,000 pods, unpaged, at the
// latest revision.
func BenchmarkListPods1000(b *testing.B) {
	s, _ := newServer(b)
	benchPods(b, s, 1000)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		l, err := s.List(ctx, client.Pods, "default", client.ListOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if len(l.Items) != 1000 {
			b.Fatalf("listed %d pods, want 1000", len(l.Items))
		}
	}
}

// BenchmarkCreateEvent creates b.N events as the event recorder does: each
// a fresh object handed over, written by a named field manager, about a
// pod, with a name made of the pod's and a unique suffix.
func BenchmarkCreateEvent(b *testing.B) {
	s, clk := newServer(b)
	wctx := client.WithFieldManager(ctx, "kubelet")
	events := make([]*api.Event, b.N)
	for i := range events {
		events[i] = &api.Event{
			Metadata:       api.ObjectMeta{Namespace: "default", Name: "web-" + strconv.Itoa(i) + ".18a3f2c4d5e6f7a8"},
			InvolvedObject: api.ObjectReference{Kind: "Pod", Namespace: "default", Name: "web-" + strconv.Itoa(i), APIVersion: "v1"},
			Reason:         "Scheduled", Message: "Successfully assigned default/web to node-1", Type: api.EventTypeNormal,
			Source: api.EventSource{Component: "default-scheduler"}, Count: 1,
			FirstTimestamp: api.NewTime(clk.Now()), LastTimestamp: api.NewTime(clk.Now()),
		}
	}
	before := s.Store().Stats().Keys
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if _, err := s.Create(wctx, events[i], client.Handover()); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if got := s.Store().Stats().Keys - before; got != b.N {
		b.Fatalf("created %d events, the store holds %d more keys", b.N, got)
	}
}

// BenchmarkDeletePodGracefully deletes bound pods as a scale-down does: a
// delete that marks the pod for deletion with its grace period, then its
// kubelet's delete with grace 0 that removes it.
func BenchmarkDeletePodGracefully(b *testing.B) {
	s, _ := newServer(b)
	names := benchPods(b, s, b.N)
	for _, name := range names {
		if _, err := s.Bind(ctx, "default", name, "node-1"); err != nil {
			b.Fatal(err)
		}
	}
	before := s.Store().Stats().Keys
	zero := int64(0)
	b.ReportAllocs()
	b.ResetTimer()
	for _, name := range names {
		marked, err := s.Delete(ctx, client.Pods, "default", name, api.DeleteOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if marked.GetObjectMeta().DeletionTimestamp == nil {
			b.Fatalf("pod %s was not marked for deletion", name)
		}
		if _, err := s.Delete(ctx, client.Pods, "default", name, api.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if got := before - s.Store().Stats().Keys; got != b.N {
		b.Fatalf("deleted %d pods, the store holds %d fewer keys", b.N, got)
	}
}
