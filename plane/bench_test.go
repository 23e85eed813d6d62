package plane_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/miniplane/miniplane/controllers/manager"
	"github.com/miniplane/miniplane/plane"
)

// BenchmarkStart measures how long a plane takes from New to Ready on the
// real clock, in memory: three nodes, one controller-manager instance,
// kube-controller-manager's controllers. Stopping it is not timed. Besides
// ns/op it reports the median and the 99th percentile of the starts, in
// milliseconds: run it with -benchtime=200x for 200 starts.
func BenchmarkStart(b *testing.B) {
	benchStarts(b, plane.Config{Options: options(func(o *manager.Options) { o.Nodes = 3 })})
}

// BenchmarkStartWithCRDs is BenchmarkStart with 20 definitions in
// Config.CRDs, read from a directory as envtest's CRDDirectoryPaths are and
// installed before New returns: "plain" has a schema with one field, "rule"
// is shaped as controller-gen writes a kubebuilder project's kind (status
// subresource, defaults, an enum, a printer column and a CEL rule, each
// definition's rule compiled). Reading the files is timed too.
func BenchmarkStartWithCRDs(b *testing.B) {
	for _, tc := range []struct {
		name string
		crd  func(i int) string
	}{
		{"plain", func(i int) string { return crdJSON(fmt.Sprintf("things%d", i), fmt.Sprintf("Thing%d", i)) }},
		{"rule", benchCRDWithRule},
	} {
		b.Run(tc.name, func(b *testing.B) {
			dir := b.TempDir()
			for i := range 20 {
				if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("crd%02d.yaml", i)), []byte(tc.crd(i)), 0o600); err != nil {
					b.Fatal(err)
				}
			}
			benchStarts(b, plane.Config{Options: options(func(o *manager.Options) { o.Nodes = 3 }), CRDs: []string{dir}})
		})
	}
}

// benchCRDWithRule is the i-th of BenchmarkStartWithCRDs' "rule"
// definitions.
func benchCRDWithRule(i int) string {
	return strings.NewReplacer("KIND", fmt.Sprintf("Gadget%d", i), "PLURAL", fmt.Sprintf("gadgets%d", i)).Replace(`---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: PLURAL.bench.example.com
spec:
  group: bench.example.com
  names:
    kind: KIND
    listKind: KINDList
    plural: PLURAL
    singular: PLURAL
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
    additionalPrinterColumns:
    - name: Size
      type: string
      jsonPath: .spec.size
    schema:
      openAPIV3Schema:
        type: object
        properties:
          apiVersion:
            type: string
          kind:
            type: string
          metadata:
            type: object
          spec:
            type: object
            x-kubernetes-validations:
            - rule: self.size != 'large' || self.replicas <= 3
              message: a large one has at most 3 replicas
            properties:
              size:
                type: string
                default: small
                enum: ["small", "medium", "large"]
              replicas:
                type: integer
                format: int32
                default: 1
                minimum: 0
              message:
                type: string
          status:
            type: object
            properties:
              observedGeneration:
                type: integer
                format: int64
`)
}

// benchStarts times b.N starts of the plane cfg describes, from New to
// Ready, and reports their median and 99th percentile in milliseconds.
func benchStarts(b *testing.B, cfg plane.Config) {
	var starts []time.Duration
	for b.Loop() {
		began := time.Now()
		p, err := plane.New(cfg)
		if err != nil {
			b.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- p.Run(ctx) }()
		select {
		case <-p.Ready():
		case err := <-done:
			b.Fatalf("the plane stopped before it was ready: %v", err)
		}
		starts = append(starts, time.Since(began))
		b.StopTimer()
		cancel()
		if err := <-done; err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	slices.Sort(starts)
	pct := func(q float64) float64 {
		return float64(starts[int(q*float64(len(starts)-1))]) / float64(time.Millisecond)
	}
	b.ReportMetric(pct(0.5), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
}
