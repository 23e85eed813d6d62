// Package faults injects API-layer faults, drawn from a seed, in front of
// miniplane's HTTP API (apiserver/httpapi), so that a controller under test
// meets what a real kube-apiserver in front of etcd does to its clients:
// watches that end mid-stream, watches resumed too late (410 Expired, so
// the client relists), conflicting updates (409), throttling (429 with
// Retry-After), server errors (500), slow answers, stale reads served from
// a lagging watch cache, and watches whose events lag. Each Kind says what
// in Kubernetes it stands for; none is something kube-apiserver would not
// do.
//
// An Injector is an http.Handler wrapping an *httpapi.Handler; put it in
// front of the Handler wherever the Handler would serve (httpapi.Serve's
// listener, or inmem.NewTransport for an in-process plane). Faults strike
// only requests on resources: discovery, /version, health and /metrics pass
// through untouched. A refused request (429, 500, 409) never reaches the
// Server, so nothing stored changes. Stale reads go through the Handler and
// its Server at an exact older resourceVersion, so what the client gets is
// the store's own state at that revision, never a body made up here; a
// read with resourceVersion unset (a quorum read) is never stale.
//
// # Determinism
//
// Which faults strike depends only on the seed (Config.Rand) and on the
// sequence of requests, not on goroutine timing: each request draws from a
// generator of its own, seeded from the seed, its stream (client, verb,
// resource, namespace, name, selectors) and its position in that stream
// (see Injector). The client is ClientOf the User-Agent: client-go's
// default one names the binary and the platform, which ClientOf drops, so
// a seed found by one build of a test replays in another build, renamed or
// for another platform. What a draw means against the store is read when the
// fault strikes: a stale read takes the drawn fraction of the revisions
// it may be served at then, and strikes only if there is one. Delays
// (Latency, Lag) run on the injected clock, so in a testing/synctest
// bubble or on a fake clock they take no real time, and one seed replays
// one trace byte for byte when the requests come in one order.
//
// # Trace and metrics
//
// Every request, and every fault as it strikes, is one JSON line (Event)
// on Config.Trace; Injector.WriteMetrics writes
// miniplane_injected_faults_total{fault="..."} for /metrics. Since the
// Handler is built first, plug it in with a closure:
//
//	var inj *faults.Injector
//	h, _ := httpapi.New(httpapi.Config{..., Metrics: func(w io.Writer) { inj.WriteMetrics(w) }})
//	inj, _ = faults.New(faults.Config{Handler: h, ...})
//
// Parse reads the set of faults from a flag ("all", "none", or a list such
// as "gone,stale,lag").
//
// Concurrency: an Injector is safe for concurrent use. Each request runs on
// its caller's goroutine; a lagging watch adds one goroutine that writes
// its delayed events, which ends before ServeHTTP returns. The package
// imports api/protobuf, apiserver, apiserver/httpapi, clock, zap and
// protowire.
package faults
