package garbagecollector

import (
	"fmt"
	"testing"

	"github.com/miniplane/miniplane/api"
)

// BenchmarkGraph measures the graph's work for the pod events of the scale
// benchmark, in a graph of 100 controllers with 100 pods each: a status
// write (the pod's references as they were, on a new object, as the
// informer hands over), and a new pod seen then removed.
func BenchmarkGraph(b *testing.B) {
	g := newGraph()
	var rcs []*api.ReplicationController
	for i := range 100 {
		rc := testRC(api.UID(fmt.Sprintf("rc-%03d", i)))
		rcs = append(rcs, rc)
		g.observe(&rcKind, rc)
		for j := range 100 {
			g.observe(&podKind, testPod(api.UID(fmt.Sprintf("pod-%03d-%03d", i, j)), ref(rc)))
		}
	}
	b.Run("status-write", func(b *testing.B) {
		// Two objects of one pod, each with its own references, as two
		// versions decoded apart.
		versions := []*api.Pod{testPod("pod-042-042", ref(rcs[42])), testPod("pod-042-042", ref(rcs[42]))}
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if keys := g.observe(&podKind, versions[i%2]); len(keys) != 0 {
				b.Fatalf("a status write called for %v", keys)
			}
			i++
		}
	})
	b.Run("add-remove", func(b *testing.B) {
		pod := testPod("pod-new", ref(rcs[7]))
		b.ReportAllocs()
		for b.Loop() {
			g.observe(&podKind, pod)
			g.remove(pod)
		}
	})
	if msg := g.check(); msg != "" {
		b.Fatal(msg)
	}
}
