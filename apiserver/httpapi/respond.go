package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/api/protobuf"
	"github.com/miniplane/miniplane/apiserver"
)

// contentTypeJSON is set on every JSON answer: kubectl picks its decoder by
// Content-Type, and Go would otherwise sniff JSON as text/plain.
const contentTypeJSON = "application/json"

// writeJSON writes v as the JSON body of an answer with code.
func writeJSON(w http.ResponseWriter, code int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		writeError(w, apierrors.NewInternalError(err))
		return
	}
	writeRaw(w, code, contentTypeJSON, b)
}

// writeRaw writes an encoded body with its content type.
func writeRaw(w http.ResponseWriter, code int, contentType string, b []byte) {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(code)
	_, _ = w.Write(b)
}

// writeError answers with err's Status and its code; an error that is not
// a StatusError is a 500 InternalError. The Status is in the format the
// request's Accept header prefers (see errorFormat), which ServeHTTP's
// recorder remembers.
func writeError(w http.ResponseWriter, err error) {
	f := formatJSON
	if rec, ok := w.(*recorder); ok {
		f = rec.errFormat
	}
	writeErrorAs(w, f, err)
}

// writeErrorAs answers with err's Status in format f and its code. A
// Status whose details carry RetryAfterSeconds also gets a Retry-After
// header, as kube-apiserver's responsewriters set it, which client-go reads
// to retry a 429 or a 5xx.
func writeErrorAs(w http.ResponseWriter, f format, err error) {
	st := apierrors.StatusOf(err)
	code := int(st.Code)
	if code == 0 {
		code = http.StatusInternalServerError
	}
	if st.Details != nil && st.Details.RetryAfterSeconds > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(st.Details.RetryAfterSeconds)))
	}
	writeStatus(w, code, f, &st)
}

// writeStatus answers with a Status in format f.
func writeStatus(w http.ResponseWriter, code int, f format, st *api.Status) {
	st.TypeMeta = api.TypeMeta{Kind: "Status", APIVersion: "v1"}
	b, err := encodeValue(f, "v1", "Status", st)
	if err != nil { // a Status always encodes; keep the answer well-formed anyway
		f, b = formatJSON, []byte(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"internal error","reason":"InternalError","code":500}`)
	}
	writeRaw(w, code, f.contentType(false), b)
}

// encodeValue encodes v, an object of kind in apiVersion, in format f:
// JSON as v is (its TypeMeta must be set), protobuf as v's message in the
// runtime.Unknown envelope naming apiVersion and kind.
func encodeValue(f format, apiVersion, kind string, v any) ([]byte, error) {
	if f == formatProtobuf {
		return protobuf.MarshalObject(apiVersion, kind, v)
	}
	return json.Marshal(v)
}

// writeValue answers with v, an object of kind in apiVersion, in format f.
func writeValue(w http.ResponseWriter, code int, f format, apiVersion, kind string, v any) {
	b, err := encodeValue(f, apiVersion, kind, v)
	if err != nil {
		writeError(w, apierrors.NewInternalError(err))
		return
	}
	writeRaw(w, code, f.contentType(false), b)
}

// warnIdle warns, at the creation of an object of info's resource, that
// nothing will act on it when the controller that would is idle here
// (Config.Idle): "created" alone would promise what never comes.
func (h *Handler) warnIdle(w http.ResponseWriter, info apiserver.ResourceInfo) {
	if info.NotCalled != "" {
		addWarning(w, info.NotCalled)
	}
	if h.idle == nil || info.ActedOnBy == "" {
		return
	}
	if why := h.idle(info.ActedOnBy); why != "" {
		addWarning(w, fmt.Sprintf("nothing acts on this %s: kube-controller-manager's %q controller does not run here (%s)", info.Kind, info.ActedOnBy, why))
	}
}

// addWarning adds a Warning header, which kubectl prints on stderr as
// "Warning: text".
func addWarning(w http.ResponseWriter, text string) {
	var b bytes.Buffer
	b.WriteString(`299 - `)
	b.WriteString(strconv.Quote(text))
	w.Header().Add("Warning", b.String())
}
