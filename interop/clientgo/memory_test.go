package clientgo

// BenchmarkCacheMemory: the heap an informer holds once it has synced N
// objects from a LIST (N = 100,000 with -large, else 10,000), measured with
// runtime.MemStats (HeapAlloc after a GC) before the informer is made and
// after it has synced, while it runs. B/object is that difference per
// object: everything the informer keeps. The objects it was fed are not in
// it — client-go's prebuilt list and miniplane's stored pods exist before
// the first reading — but client-go's reflector makes a shallow copy of
// every listed object (meta.ExtractListWithAlloc) and caches that, so
// B/object-beyond-copy subtracts the size of a corev1.Pod struct for
// client-go: the cache's own overhead, comparable to miniplane's, which
// caches the server's objects themselves.
//
// handlers=0 measures the cache alone; handlers=1 adds one counting handler
// and waits until it has seen all N, so its notification buffer's capacity
// after the burst is included.

import (
	"fmt"
	"runtime"
	"testing"
	"unsafe"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/informer"
)

func BenchmarkCacheMemory(b *testing.B) {
	n := 10_000
	if *large {
		n = 100_000
	}
	var list *corev1.PodList
	var ps *podServer
	for _, handlers := range []int{0, 1} {
		name := fmt.Sprintf("objects=%d/handlers=%d", n, handlers)
		b.Run(name+"/clientgo", func(b *testing.B) {
			if list == nil {
				list = clientGoList(clientGoPods(n))
			}
			for b.Loop() {
				lw := fakeListWatch(list, watch.NewFake())
				perObject := heapGrowth(b, n, func() running {
					inf := newClientGoInformer(lw)
					r, err := startClientGo(inf, n, handlers, inf.RunWithContext)
					if err != nil {
						b.Fatal(err)
					}
					return r
				})
				b.ReportMetric(perObject, "B/object")
				b.ReportMetric(perObject-float64(unsafe.Sizeof(corev1.Pod{})), "B/object-beyond-copy")
			}
		})
		b.Run(name+"/miniplane", func(b *testing.B) {
			if ps == nil {
				var err error
				if ps, err = newPodServer(n); err != nil {
					b.Fatal(err)
				}
			}
			for b.Loop() {
				perObject := heapGrowth(b, n, func() running {
					return startMiniplane(informer.Source{Client: ps.s, Resource: client.Pods}, n, handlers)
				})
				b.ReportMetric(perObject, "B/object")
				b.ReportMetric(perObject, "B/object-beyond-copy")
			}
		})
	}
}

// heapGrowth starts an informer, waits until it has synced n objects, and
// returns the heap it then holds per object. It stops the informer.
func heapGrowth(b *testing.B, n int, start func() running) float64 {
	b.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&before)
	r := start()
	defer r.stop()
	err := r.wait()
	if err == nil {
		err = r.check(n)
	}
	if err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(r)
	return (float64(after.HeapAlloc) - float64(before.HeapAlloc)) / float64(n)
}
