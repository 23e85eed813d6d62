// Package ui is miniplane's browser view, served under /ui/.
//
// This file set holds the simulator's trace view (trace.go, static/trace/):
// a recorded `miniplane sim` run replayed step by step — the cluster's
// nodes, pods, replication controllers, services and endpoints, the leader
// lease and the controllers' queues at each line, a timeline of the writes
// with their causes, faults marked, and the violation, if any, highlighted.
// The live view of a running control plane lands beside it in this
// package. The pages are static ES modules embedded with go:embed; their
// renderers take plain data, the JSON of sim.Replay.
//
// It imports api, apiserver (for Kubernetes Status errors) and sim. A
// handler holds no mutable state: it is safe for concurrent use.
package ui
