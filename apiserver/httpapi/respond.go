package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/miniplane/miniplane/apiserver"
)

// contentTypeJSON is set on every JSON answer: kubectl picks its decoder by
// Content-Type, and Go would otherwise sniff JSON as text/plain.
const contentTypeJSON = "application/json"

// writeJSON writes v as the JSON body of an answer with code.
func writeJSON(w http.ResponseWriter, code int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		writeError(w, apiserver.NewInternalError(err))
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
// a StatusError is a 500 InternalError.
func writeError(w http.ResponseWriter, err error) {
	st := apiserver.StatusOf(err)
	code := int(st.Code)
	if code == 0 {
		code = http.StatusInternalServerError
	}
	b, merr := json.Marshal(st)
	if merr != nil { // a Status always encodes; keep the answer well-formed anyway
		b = []byte(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"internal error","reason":"InternalError","code":500}`)
	}
	writeRaw(w, code, contentTypeJSON, b)
}

// addWarning adds a Warning header, which kubectl prints on stderr as
// "Warning: text".
func addWarning(w http.ResponseWriter, text string) {
	var b bytes.Buffer
	b.WriteString(`299 - `)
	b.WriteString(strconv.Quote(text))
	w.Header().Add("Warning", b.String())
}
