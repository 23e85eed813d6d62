package clientgo

// BenchmarkInformerPipeline: the informer pipeline alone (reference §4.3,
// "pipeline only"), from making the informer until every handler has been
// handed all N objects, for N = 10,000 (and 100,000 with -large) and 1 or 3
// handlers. ns/object is the time per object.
//
//   - list: N objects arrive in the informer's initial LIST. client-go's
//     informer lists a prebuilt *corev1.PodList through a fake ListWatch
//     (whose watch then never sends); miniplane's lists N pods created
//     beforehand in its API server. The run ends when every handler has seen
//     N adds and its registration has synced.
//   - watch: the LIST is empty and N creates wait in the watch. client-go's
//     ListWatch returns a fake watcher prefilled with N ADDED events;
//     miniplane's lists nothing at the revision before the N creates, so its
//     watch replays them from the server's history. The run ends when every
//     handler has seen N adds.
//
// Both informers run live (Run, with their own goroutines) and index by
// namespace; both sides see the same pods (pods.go). Preparing the input and
// stopping the informer are not timed, and each round starts after a GC.
// All of client-go's rounds for one N run before miniplane's, so that only
// one side's input is on the heap.

import (
	"fmt"
	"runtime"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/informer"
)

func BenchmarkInformerPipeline(b *testing.B) {
	// One side's input at a time: the other side's would only add to the
	// heap every garbage collection has to scan.
	for _, n := range sizes() {
		var pods []*corev1.Pod
		var list *corev1.PodList
		forEachPipeline(func(mode string, handlers int) {
			b.Run(pipelineName(mode, n, handlers, "clientgo"), func(b *testing.B) {
				if pods == nil {
					pods = clientGoPods(n)
					list = clientGoList(pods)
				}
				for b.Loop() {
					b.StopTimer()
					lw := fakeListWatch(list, watch.NewFake())
					if mode == "watch" {
						w := watch.NewFakeWithChanSize(n, false)
						for _, p := range pods {
							w.Add(p)
						}
						lw = fakeListWatch(&corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}}, w)
					}
					runtime.GC()
					b.StartTimer()
					inf := newClientGoInformer(lw)
					r, err := startClientGo(inf, n, handlers, inf.RunWithContext)
					if err != nil {
						b.Fatal(err)
					}
					finish(b, r, n)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/object")
			})
		})
		pods, list = nil, nil

		var ps *podServer
		source := func(b *testing.B, mode string) informer.ListerWatcher {
			if ps == nil {
				var err error
				if ps, err = newPodServer(n); err != nil {
					b.Fatal(err)
				}
			}
			if mode == "watch" {
				return replaySource{ps}
			}
			return informer.Source{Client: ps.s, Resource: client.Pods}
		}
		forEachPipeline(func(mode string, handlers int) {
			b.Run(pipelineName(mode, n, handlers, "miniplane"), func(b *testing.B) {
				lw := source(b, mode)
				for b.Loop() {
					b.StopTimer()
					runtime.GC()
					b.StartTimer()
					finish(b, startMiniplane(lw, n, handlers), n)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/object")
			})
			b.Run(pipelineName(mode, n, handlers, "miniplane-step"), func(b *testing.B) {
				lw := source(b, mode)
				for b.Loop() {
					b.StopTimer()
					runtime.GC()
					b.StartTimer()
					r := stepMiniplane(b, lw, n, handlers)
					b.StopTimer()
					if err := r.check(n); err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/object")
			})
		})
	}
}

// forEachPipeline calls f for each mode and handler count.
func forEachPipeline(f func(mode string, handlers int)) {
	for _, mode := range []string{"list", "watch"} {
		for _, handlers := range []int{1, 3} {
			f(mode, handlers)
		}
	}
}

func pipelineName(mode string, n, handlers int, side string) string {
	return fmt.Sprintf("%s/objects=%d/handlers=%d/%s", mode, n, handlers, side)
}

// finish waits for r's handlers, then, untimed, stops it and checks that
// every handler saw exactly n adds and the cache holds n objects.
func finish(b *testing.B, r running, n int) {
	b.Helper()
	err := r.wait()
	b.StopTimer()
	r.stop()
	if err == nil {
		err = r.check(n)
	}
	if err != nil {
		b.Fatal(err)
	}
	b.StartTimer()
}
