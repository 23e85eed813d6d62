// Package ctrlruntime proves that a controller-runtime v0.25.2 manager
// (the release built on client-go v0.37) works against miniplane's HTTP
// API with its default options: its client and cache talk protobuf for the
// built-in kinds, as client-go's do. The only options its tests set turn
// the metrics server off and give it a logger; leader election and the
// health probe are off by default.
//
// The tests run a reconciler of replication controllers that annotates each
// one and records an Event with both of the manager's recorders — the
// events.k8s.io/v1 one (GetEventRecorder) and the deprecated core/v1 one
// (GetEventRecorderFor) — and a controller of pods watching metadata only
// (builder.OnlyMetadata). The package holds tests only.
package ctrlruntime
