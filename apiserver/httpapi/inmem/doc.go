// Package inmem serves HTTP requests in memory: its Transport is an
// http.RoundTripper that hands each request straight to an http.Handler,
// with no listener, socket or real timer in between, so that a client
// (client-go's rest.Config{Host: inmem.Host, Transport: t}, or an
// http.Client) can talk to miniplane's API (apiserver/httpapi) inside one
// process — and inside a testing/synctest bubble, where the only clock is
// the bubble's and synctest.Wait can prove that every goroutine is idle.
//
// It stands where net/http's server and client meet over a connection,
// reduced to what an API client needs: each request runs the handler on
// its own goroutine; the status and headers reach the client at the
// handler's first WriteHeader, Write or Flush; the body streams through an
// io.Pipe, so a watch's events arrive as they are written and a handler
// blocks while the client has not read what it wrote (as it would on a
// full TCP window). The request's context is cancelled when the client
// closes the response body, when the client's own context ends, and when
// the handler returns, as net/http's server does. Content-Length is
// honoured both ways: the response says it, a handler may not write more,
// and a body cut short reaches the client as io.ErrUnexpectedEOF.
//
// Left out, because no API client needs them: TLS, HTTP/2, 1xx informational
// answers, trailers, Hijack, gzip, and the Date header.
//
// Concurrency: a Transport is safe for concurrent use and holds no state of
// its own; every goroutine it starts ends when its handler returns, which
// a well-behaved handler does once its request's context is cancelled. It
// imports the standard library only.
package inmem
