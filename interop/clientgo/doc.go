// Package clientgo measures miniplane's workqueue and informer side by side
// with the client-go pieces they mirror — k8s.io/client-go v0.37.2's
// util/workqueue, tools/cache.SharedIndexInformer and the fake clientset —
// in the same benchmark run, on the same scenarios and parameters, so the
// ratios between them are measured rather than assumed.
//
// The scenarios are those of the client-go baseline: the queue under producers
// and workers, the informer pipeline fed a prebuilt list or a backlog of
// watch events, the end-to-end path from creates to a handler, and the
// memory an informer holds per cached object. Every benchmark is in this
// package's tests, named Benchmark<What>/<scenario>/{clientgo,miniplane};
// the package itself holds what both sides share: equivalent pods, and an
// in-memory metrics provider for client-go's queue. See interop/README.md
// for the commands and the figures.
package clientgo
