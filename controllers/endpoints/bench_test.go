package endpoints

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/client"
)

// benchPods is the size of the benchmarks' service: the scale benchmark's
// replication controllers have 100 replicas behind one service each.
const benchPods = 100

// newBenchEnv returns a settled env with service default/web selecting
// benchPods ready pods on port 80, and its Endpoints written.
func newBenchEnv(b *testing.B) *env {
	e := newEnv(b)
	e.create(service("default", "web", webLabels, api.ServicePort{Port: 80}))
	for i := range benchPods {
		e.createPod("default", fmt.Sprintf("web-%03d", i), fmt.Sprintf("10.0.%d.%d", i/200, i%200+1), true, webLabels)
	}
	e.settle()
	require.Len(b, e.endpoints("default", "web").Subsets[0].Addresses, benchPods)
	return e
}

// BenchmarkSync measures the controller's syncs of a service of
// benchPods pods: one that finds the Endpoints right and writes nothing
// (most syncs of the scale benchmark), and one that rewrites them after a
// pod's readiness flipped (the server's update and the informers'
// delivery included).
func BenchmarkSync(b *testing.B) {
	b.Run("unchanged", func(b *testing.B) {
		e := newBenchEnv(b)
		b.ReportAllocs()
		for b.Loop() {
			require.NoError(b, e.c.sync(e.ctx, "default/web"))
		}
		require.Empty(b, e.settleInformers(), "an unchanged sync wrote")
	})
	b.Run("rewrite", func(b *testing.B) {
		e := newBenchEnv(b)
		ready := false
		b.ReportAllocs()
		for b.Loop() {
			e.setReady("default", "web-042", ready)
			ready = !ready
			e.settleInformers()
			for e.c.queue.Len() > 0 {
				require.True(b, e.c.ProcessOne(e.ctx))
			}
		}
	})
}

// BenchmarkPack measures collecting and packing a service's benchPods
// pods into subsets with a reused packer, as a sync that writes does.
func BenchmarkPack(b *testing.B) {
	e := newBenchEnv(b)
	svc, err := e.c.services.Namespace("default").Get("web")
	require.NoError(b, err)
	pods := e.c.selectedPods("default", svc.Spec.Selector, new(podBuffers))
	require.Len(b, pods, benchPods)
	var p packer
	b.ReportAllocs()
	for b.Loop() {
		p.collect(svc, pods)
		if got := p.pack(nil); len(got[0].Addresses) != benchPods {
			b.Fatalf("packed %d addresses, want %d", len(got[0].Addresses), benchPods)
		}
		p.reset()
	}
}

// BenchmarkPodUpdate measures the pod update handler for a status write
// that moves no pod (the most common pod event) and for one that flips
// readiness and queues the service.
func BenchmarkPodUpdate(b *testing.B) {
	e := newBenchEnv(b)
	obj, ok := e.c.podIndexer.Get("default/web-042")
	require.True(b, ok)
	old := obj.(*api.Pod)
	same := old.DeepCopy()
	same.Metadata.ResourceVersion += "0"
	flipped := same.DeepCopy()
	flipped.Status.Conditions[0].Status = api.ConditionFalse
	// A pending pod's binding: the scheduler's write, once per pod.
	unbound := old.DeepCopy()
	unbound.Spec.NodeName, unbound.Status.PodIP, unbound.Status.PodIPs = "", "", nil
	unbound.Status.Conditions = nil
	bound := unbound.DeepCopy()
	bound.Metadata.ResourceVersion += "0"
	bound.Spec.NodeName = old.Spec.NodeName
	for _, bc := range []struct {
		name     string
		old, pod *api.Pod
	}{{"unchanged", old, same}, {"readiness", old, flipped}, {"bound", unbound, bound}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				e.c.onPodUpdate(bc.old, bc.pod)
			}
		})
	}
}

// BenchmarkPodIndexFunc measures podLabelIndex's function on a pod with
// one label and on one with three, as the pod informer calls it on every
// pod event.
func BenchmarkPodIndexFunc(b *testing.B) {
	e := newBenchEnv(b)
	obj, ok := e.c.podIndexer.Get("default/web-042")
	require.True(b, ok)
	one := obj.(*api.Pod)
	three := one.DeepCopy()
	three.Metadata.Labels = map[string]string{"app": "web", "tier": "front", "pod-template-hash": "5d8f9c7b6"}
	for _, bc := range []struct {
		name string
		pod  *api.Pod
	}{{"one-label", one}, {"three-labels", three}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if got := e.c.labels.podIndexFunc(bc.pod); len(got) != len(bc.pod.Metadata.Labels) {
					b.Fatalf("%d values for %d labels", len(got), len(bc.pod.Metadata.Labels))
				}
			}
		})
	}
}

// BenchmarkScaleDown measures what removing one pod of a service of
// benchPods costs the controller, as in the scale benchmark's scale-down:
// the pod's graceful deletion (a sync that writes the Endpoints without
// it) and then its removal (a sync that finds nothing to write), the
// server's writes and the informers' deliveries included. The pod is
// created again outside the timer.
func BenchmarkScaleDown(b *testing.B) {
	e := newBenchEnv(b)
	now := int64(0)
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		name := fmt.Sprintf("web-%03d", i%benchPods)
		_, err := e.srv.Delete(e.ctx, client.Pods, "default", name, api.DeleteOptions{})
		require.NoError(b, err)
		e.settle()
		_, err = e.srv.Delete(e.ctx, client.Pods, "default", name, api.DeleteOptions{GracePeriodSeconds: &now})
		require.NoError(b, err)
		e.settle()
		b.StopTimer()
		require.Len(b, e.endpoints("default", "web").Subsets[0].Addresses, benchPods-1)
		e.createPod("default", name, fmt.Sprintf("10.0.%d.%d", i%benchPods/200, i%benchPods%200+1), true, webLabels)
		e.settle()
		i++
		b.StartTimer()
	}
}
