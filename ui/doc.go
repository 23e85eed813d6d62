// Package ui serves miniplane's browser view at /ui/: the cluster as it is
// (nodes and their pods; workloads grouped by their controller
// ownerReferences — Deployments holding their ReplicaSets, newest revision
// first, with their conditions and rollout status, each ReplicaSet or
// replication controller holding its pods; services and their endpoints;
// every custom kind discovery serves (Config.CustomKinds), its objects and
// their owner links both ways; the leader Lease, every controller's
// workqueue), as it was at
// any revision still in the store's history window, and the loop as a
// timeline of store writes — who wrote what, the diff, and for a
// controller's write the reconcile that made it and the watch event that
// started that reconcile.
//
// It has no Kubernetes counterpart; it is what `kubectl get -w` and a
// controller's logs would show together, drawn for a learner. Pods are
// counted by the STATUS column `kubectl get pods` prints
// (api.PodStatusReason, which the API server's Table prints too), and a
// rollout reads as `kubectl rollout status` would print it.
//
// The server side is JSON under /ui/api/ (see Handler's routes) and a
// stream of timeline rows as server-sent events; the page is plain ES
// modules and CSS embedded with go:embed, with no build step and no
// network beyond this handler. Past states are read with the API server's
// own exact-revision lists, and the timeline from a store watch over the
// history window, so the page shows what a client would have seen.
//
// The simulator's trace view (trace.go, static/trace/) is the second page:
// a recorded `miniplane sim` run replayed step by step with the same
// renderers — the cluster at each line, a timeline of the writes with their
// causes, faults marked, and the violation, if any, highlighted. Its
// renderers take plain data, the JSON of sim.Replay.
//
// Imports: api, store, client, apiserver, controllers/workqueue (for queue
// metrics) and sim (the trace replay), and the standard library; no
// third-party module.
//
// Concurrency: a Handler holds no mutable state of its own; every request
// reads the server and the store, which are safe for concurrent use.
package ui
