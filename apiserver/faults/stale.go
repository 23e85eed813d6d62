package faults

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/api/protobuf"
	"github.com/miniplane/miniplane/apiserver/httpapi"
	"github.com/miniplane/miniplane/client"
)

// serveStale serves a read at an older revision than the latest, no older
// than the one it allows, through the Handler: a LIST as the same LIST at
// resourceVersion=N with resourceVersionMatch=Exact; a GET as the LIST of
// its one object (fieldSelector=metadata.name) at that revision, answered
// as the object itself, or 404 NotFound if it did not exist then, as a
// lagging watch cache answers. Nothing is made up: the object, its
// resourceVersion and the list's are the store's at N. When the store
// holds no older revision the read allows, it is served as it is and no
// fault strikes.
func (in *Injector) serveStale(w http.ResponseWriter, r *http.Request, route httpapi.Route, ev Event, p plan) {
	rev, ok := in.staleRevision(p)
	if !ok {
		in.next.ServeHTTP(w, r)
		return
	}
	asked := r.URL.Query().Get("resourceVersion")
	detail := fmt.Sprintf("served at revision %d of %d (resourceVersion=%s)", rev, in.srv.Store().Rev(), asked)
	q := r.URL.Query()
	q.Set("resourceVersion", strconv.FormatInt(rev, 10))
	q.Set("resourceVersionMatch", client.MatchExact)
	if route.Verb == "list" {
		if asked == "0" {
			q.Del("limit") // the Handler serves "0" unpaged, as the watch cache does
		}
		in.strike(ev, Stale, rev, detail)
		in.next.ServeHTTP(w, withQuery(r, r.URL.Path, q))
		return
	}

	// A GET: the list of the one object, at rev.
	collection, ok := strings.CutSuffix(r.URL.Path, "/"+route.Name)
	if !ok {
		in.next.ServeHTTP(w, r)
		return
	}
	q.Set("fieldSelector", "metadata.name="+route.Name)
	var rec recorder
	in.next.ServeHTTP(&rec, withQuery(r, collection, q))
	if rec.code != http.StatusOK {
		rec.copyTo(w) // the Handler's own answer, such as a 410 if rev was compacted meanwhile
		return
	}
	obj, found, err := onlyItem(rec.header.Get("Content-Type"), rec.body.Bytes())
	switch {
	case err != nil:
		httpapi.WriteStatus(w, r, apierrors.NewInternalError(err))
		return
	case !found:
		in.strike(ev, Stale, rev, detail+": not found")
		httpapi.WriteStatus(w, r, apierrors.NewNotFound(route.Resource.GroupResource(), route.Name))
		return
	}
	in.strike(ev, Stale, rev, detail)
	h := w.Header()
	for k, v := range rec.header {
		h[k] = v
	}
	h.Set("Content-Length", strconv.Itoa(len(obj)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(obj)
}

// staleRevision picks the revision a stale read is served at: in the
// allowed range [floor, latest-1], further bounded by the store's oldest
// readable revision and MaxStaleRevisions, at the drawn fraction of it.
// It reports false when the range is empty.
func (in *Injector) staleRevision(p plan) (int64, bool) {
	st := in.srv.Store().Stats()
	lo := max(p.staleFloor, st.CompactRev, st.Rev-MaxStaleRevisions, 1)
	hi := st.Rev - 1
	if lo > hi {
		return 0, false
	}
	return min(lo+int64(p.staleFrac*float64(hi-lo+1)), hi), true
}

// withQuery returns a copy of r on path with query q.
func withQuery(r *http.Request, path string, q url.Values) *http.Request {
	r2 := r.Clone(r.Context())
	r2.URL.Path, r2.URL.RawPath = path, ""
	r2.URL.RawQuery = q.Encode()
	r2.RequestURI = r2.URL.RequestURI()
	return r2
}

// onlyItem returns the one item of a list answer, as a body of its own in
// the list's format: in JSON the item as it stands (list items carry their
// kind), in protobuf the item's message in an envelope naming the list's
// kind without "List". found is false for an empty list.
func onlyItem(contentType string, body []byte) (obj []byte, found bool, err error) {
	if isProtobuf(contentType) {
		return onlyProtobufItem(body)
	}
	var l struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(body, &l); err != nil {
		return nil, false, fmt.Errorf("reading the list of one object: %w", err)
	}
	switch len(l.Items) {
	case 0:
		return nil, false, nil
	case 1:
		return bytes.TrimSpace(l.Items[0]), true, nil
	}
	return nil, false, fmt.Errorf("the list of one object has %d items", len(l.Items))
}

// listItems is the field number of the items of every XxxList message.
const listItems protowire.Number = 2

func onlyProtobufItem(body []byte) ([]byte, bool, error) {
	u, err := protobuf.UnmarshalEnvelope(body)
	if err != nil {
		return nil, false, err
	}
	var item []byte
	items := 0
	for b := u.Raw; len(b) > 0; {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return nil, false, protowire.ParseError(n)
		}
		b = b[n:]
		if num == listItems && typ == protowire.BytesType {
			v, m := protowire.ConsumeBytes(b)
			if m < 0 {
				return nil, false, protowire.ParseError(m)
			}
			item, items = v, items+1
			b = b[m:]
			continue
		}
		m := protowire.ConsumeFieldValue(num, typ, b)
		if m < 0 {
			return nil, false, protowire.ParseError(m)
		}
		b = b[m:]
	}
	switch {
	case items == 0:
		return nil, false, nil
	case items > 1:
		return nil, false, fmt.Errorf("the list of one object has %d items", items)
	}
	kind, ok := strings.CutSuffix(u.Kind, "List")
	if !ok {
		return nil, false, errors.New("the answer is not a list: " + u.Kind)
	}
	return protobuf.AppendUnknown(nil, protobuf.Unknown{APIVersion: u.APIVersion, Kind: kind, Raw: item}), true, nil
}

// recorder keeps an answer of the Handler, to be rewritten.
type recorder struct {
	header http.Header
	code   int
	body   bytes.Buffer
}

func (rec *recorder) Header() http.Header {
	if rec.header == nil {
		rec.header = make(http.Header)
	}
	return rec.header
}

func (rec *recorder) WriteHeader(code int) {
	if rec.code == 0 {
		rec.code = code
	}
}

func (rec *recorder) Write(b []byte) (int, error) {
	rec.WriteHeader(http.StatusOK)
	return rec.body.Write(b)
}

// copyTo writes the kept answer to w as it was.
func (rec *recorder) copyTo(w http.ResponseWriter) {
	h := w.Header()
	for k, v := range rec.Header() {
		h[k] = v
	}
	if rec.code == 0 {
		rec.code = http.StatusOK
	}
	w.WriteHeader(rec.code)
	_, _ = w.Write(rec.body.Bytes())
}
