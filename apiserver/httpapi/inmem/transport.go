package inmem

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"sync"
)

// Host is a base URL for clients of a Transport, such as client-go's
// rest.Config.Host. The Transport ignores the host, but a client needs
// one; the .invalid top-level domain never resolves (RFC 2606), so a
// request that escapes to a real transport fails instead of reaching a
// machine.
const Host = "http://miniplane.invalid"

// RemoteAddr is the RemoteAddr of every request a Transport serves.
const RemoteAddr = "inmem"

// Transport is an http.RoundTripper that serves every request with its
// handler, in memory. Create it with NewTransport.
type Transport struct {
	h http.Handler
}

var _ http.RoundTripper = (*Transport)(nil)

// NewTransport returns a Transport that serves requests with h. It starts
// nothing.
func NewTransport(h http.Handler) *Transport { return &Transport{h: h} }

// RoundTrip serves req with the handler on a goroutine of its own and
// returns the response as soon as the handler has written its status (at
// its first WriteHeader, Write or Flush, or when it returns). The body
// streams what the handler writes; closing it cancels the handler's
// request context. If req's context ends before the status is written,
// RoundTrip returns the context's error, and a body being read ends with
// it. RoundTrip closes req.Body when the handler returns, and does not
// change req.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL == nil {
		closeBody(req)
		return nil, errors.New("inmem: request has no URL")
	}
	ctx, cancel := context.WithCancel(req.Context())
	sreq := serverRequest(ctx, req)
	pr, pw := io.Pipe()
	rw := &responseWriter{
		req:      req,
		head:     req.Method == http.MethodHead,
		header:   make(http.Header),
		pw:       pw,
		declared: -1,
		ready:    make(chan struct{}),
		cancel:   cancel,
		pr:       pr,
	}
	// A client that gives up on its request ends the body with its
	// context's error, and unblocks a handler stuck writing to it, as
	// closing the connection would. A body already complete is left as it
	// is: the first close of the pipe's writer wins.
	stop := context.AfterFunc(req.Context(), func() { pw.CloseWithError(req.Context().Err()) })
	go func() {
		defer func() {
			p := recover()
			rw.finish(p)
			stop()
			cancel() // net/http cancels a request's context when its handler returns
			closeBody(sreq)
		}()
		t.h.ServeHTTP(rw, sreq)
	}()
	select {
	case <-rw.ready:
		if err := req.Context().Err(); err != nil {
			// Cancelled by the time the answer was ready: a handler that
			// returns because its request was cancelled makes its answer
			// then, and select would pick either case at random. A
			// client that gave up before it read the headers gets its
			// context's error, as from net/http's transport.
			return nil, err
		}
		if rw.err != nil {
			return nil, rw.err
		}
		return rw.resp, nil
	case <-req.Context().Done():
		return nil, req.Context().Err()
	}
}

// serverRequest is req as a handler receives it from net/http's server:
// the path and query only in its URL, RequestURI and Host set, its own
// header, and ctx as its context.
func serverRequest(ctx context.Context, req *http.Request) *http.Request {
	method := req.Method
	if method == "" {
		method = http.MethodGet
	}
	header := req.Header.Clone()
	if header == nil {
		header = make(http.Header)
	}
	if _, ok := header["User-Agent"]; !ok {
		header.Set("User-Agent", "Go-http-client/1.1") // what net/http's client sends
	}
	host := req.Host
	if host == "" {
		host = req.URL.Host
	}
	body := req.Body
	if body == nil {
		body = http.NoBody
	}
	u := &url.URL{Path: req.URL.Path, RawPath: req.URL.RawPath, RawQuery: req.URL.RawQuery}
	if u.Path == "" {
		u.Path = "/"
	}
	sreq := &http.Request{
		Method:        method,
		URL:           u,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        header,
		Body:          body,
		ContentLength: req.ContentLength,
		Host:          host,
		RemoteAddr:    RemoteAddr,
		RequestURI:    u.RequestURI(),
	}
	return sreq.WithContext(ctx)
}

func closeBody(req *http.Request) {
	if req.Body != nil {
		_ = req.Body.Close()
	}
}

// responseWriter is the handler's side of one exchange. Only the
// handler's goroutine calls its methods, as net/http allows; resp and err
// are written before ready is closed and read only after.
type responseWriter struct {
	req    *http.Request // the client's request, for the Response
	head   bool          // a HEAD request: writes are counted, not sent
	header http.Header
	pw     *io.PipeWriter
	pr     *io.PipeReader
	cancel context.CancelFunc // cancels the handler's request context

	wroteHeader bool
	code        int
	declared    int64 // the Content-Length the handler set, or -1
	written     int64 // body bytes written

	ready chan struct{} // closed once resp (or err) is set
	resp  *http.Response
	err   error
}

// Header returns the header map the response will carry; changes after
// the status is written have no effect, as with net/http.
func (w *responseWriter) Header() http.Header { return w.header }

// WriteHeader sends the status and a copy of the headers to the client.
// Later calls do nothing. An informational (1xx) code is not sent: the
// client waits for the final one.
func (w *responseWriter) WriteHeader(code int) {
	if code < 100 || code > 999 {
		panic(fmt.Sprintf("inmem: invalid WriteHeader code %d", code))
	}
	if w.wroteHeader || code < 200 {
		return
	}
	w.wroteHeader, w.code = true, code
	if v := w.header.Get("Content-Length"); v != "" {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil && n >= 0 {
			w.declared = n
		}
	}
	w.deliver()
}

// Write sends b to the client, blocking until the client has read it or
// gone away. The first Write writes the status (200 unless WriteHeader
// said otherwise), sniffing a Content-Type if none is set.
func (w *responseWriter) Write(b []byte) (int, error) {
	if !w.wroteHeader {
		if _, ok := w.header["Content-Type"]; !ok && len(b) > 0 {
			w.header.Set("Content-Type", http.DetectContentType(b))
		}
		w.WriteHeader(http.StatusOK)
	}
	if !bodyAllowed(w.code) {
		return 0, http.ErrBodyNotAllowed
	}
	if w.declared >= 0 && w.written+int64(len(b)) > w.declared {
		return 0, http.ErrContentLength
	}
	if w.head {
		w.written += int64(len(b))
		return len(b), nil
	}
	n, err := w.pw.Write(b)
	w.written += int64(n)
	return n, err
}

// Flush writes the status if it has not been written. What Write wrote has
// already reached the client: the pipe has no buffer.
func (w *responseWriter) Flush() {
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
}

// deliver hands the client its Response.
func (w *responseWriter) deliver() {
	length := w.declared
	if !bodyAllowed(w.code) {
		length = 0
	}
	w.resp = &http.Response{
		Status:        strconv.Itoa(w.code) + " " + http.StatusText(w.code),
		StatusCode:    w.code,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        w.header.Clone(),
		Body:          &body{pr: w.pr, cancel: w.cancel},
		ContentLength: length,
		Request:       w.req,
	}
	close(w.ready)
}

// finish ends the exchange when the handler has returned, p being what
// it panicked with (nil if it did not). A handler that wrote nothing
// answers 200 with no body; one that panicked before writing a status
// fails the round trip; one that panicked after, or wrote less than its
// Content-Length, ends the body with io.ErrUnexpectedEOF; and if the
// client's context has ended, the body ends with its error.
func (w *responseWriter) finish(p any) {
	switch {
	case p != nil && !w.wroteHeader:
		w.err = fmt.Errorf("inmem: the handler panicked: %v: %w", p, io.ErrUnexpectedEOF)
		close(w.ready)
		w.pw.CloseWithError(w.err)
		return
	case !w.wroteHeader:
		if _, ok := w.header["Content-Length"]; !ok && bodyAllowed(http.StatusOK) && !w.head {
			w.header.Set("Content-Length", "0") // net/http says so for an empty answer
		}
		w.WriteHeader(http.StatusOK)
	}
	switch {
	case w.req.Context().Err() != nil:
		// The client gave up: its reads end with why, whichever of this
		// and RoundTrip's AfterFunc closes the pipe first.
		w.pw.CloseWithError(w.req.Context().Err())
	case p != nil || (w.declared >= 0 && w.written < w.declared && !w.head):
		w.pw.CloseWithError(io.ErrUnexpectedEOF)
	default:
		_ = w.pw.Close()
	}
}

// bodyAllowed reports whether a response with code may have a body.
func bodyAllowed(code int) bool {
	return code != http.StatusNoContent && code != http.StatusNotModified && (code < 100 || code >= 200)
}

// body is the client's side of a response body.
type body struct {
	pr     *io.PipeReader
	cancel context.CancelFunc
	once   sync.Once
}

func (b *body) Read(p []byte) (int, error) { return b.pr.Read(p) }

// Close stops the body: the handler's writes fail from now on and its
// request context is cancelled, as when a client closes its connection.
func (b *body) Close() error {
	b.once.Do(func() {
		_ = b.pr.Close()
		b.cancel()
	})
	return nil
}
