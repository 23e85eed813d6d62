package ui

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"

	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/sim"
)

//go:embed static/trace
var traceFiles embed.FS

// MaxTraceBytes bounds a trace file posted to /ui/api/trace.
const MaxTraceBytes = 64 << 20

// Paths the trace view serves.
const (
	TracePage = "/ui/trace/"
	TraceAPI  = "/ui/api/trace"
)

// NewTraceHandler returns the handler of the trace view:
//
//   - GET /ui/trace/ serves the page (index.html, trace.js, trace.css);
//   - GET /ui/api/trace returns the replay (sim.Replay as JSON) of trace,
//     the trace of the run the handler was made for; 204 No Content when
//     trace is nil (the page then asks for a file);
//   - POST /ui/api/trace replays the trace file in the body and returns
//     it, so the page can open a file; a body that is not a trace is a
//     400 BadRequest naming the bad line, one over MaxTraceBytes a 413.
//
// Errors are Kubernetes Status objects. trace is parsed once, here: a bad
// one is an error.
func NewTraceHandler(trace []byte) (http.Handler, error) {
	return newTraceHandler(trace, MaxTraceBytes)
}

func newTraceHandler(trace []byte, maxBytes int64) (http.Handler, error) {
	var replay []byte
	if trace != nil {
		lines, err := sim.ReadTrace(bytes.NewReader(trace))
		if err != nil {
			return nil, err
		}
		if replay, err = json.Marshal(sim.ReplayTrace(lines)); err != nil {
			return nil, err
		}
	}
	static, err := fs.Sub(traceFiles, "static/trace")
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle(TracePage, http.StripPrefix(TracePage, http.FileServerFS(static)))
	mux.HandleFunc(TraceAPI, func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet, http.MethodHead:
			if replay == nil {
				// No run: not an error, the page asks for a file.
				w.WriteHeader(http.StatusNoContent)
				return
			}
			writeRawJSON(w, replay)
		case http.MethodPost:
			body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBytes))
			var tooBig *http.MaxBytesError
			if errors.As(err, &tooBig) {
				writeError(w, apierrors.NewRequestEntityTooLarge(fmt.Sprintf("a trace file may have at most %d bytes", maxBytes)))
				return
			} else if err != nil {
				writeError(w, apierrors.NewBadRequest("reading the trace: "+err.Error()))
				return
			}
			lines, err := sim.ReadTrace(bytes.NewReader(body))
			if err != nil {
				writeError(w, apierrors.NewBadRequest("the body is not a miniplane sim trace: "+err.Error()))
				return
			}
			if len(lines) == 0 {
				writeError(w, apierrors.NewBadRequest("the trace is empty"))
				return
			}
			b, err := json.Marshal(sim.ReplayTrace(lines))
			if err != nil {
				writeError(w, apierrors.NewInternalError(err))
				return
			}
			writeRawJSON(w, b)
		default:
			w.Header().Set("Allow", "GET, HEAD, POST")
			writeError(w, apierrors.NewMethodNotSupported(apierrors.GroupResource{Resource: "trace"}, r.Method))
		}
	})
	return mux, nil
}

// writeRawJSON writes b, a JSON document, with code 200.
func writeRawJSON(w http.ResponseWriter, b []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Write(b)
}
