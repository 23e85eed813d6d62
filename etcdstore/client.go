package etcdstore

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
)

// Client speaks etcd's v3 API through the JSON gateway etcd serves beside
// gRPC on its client URLs (/v3/kv/range, /v3/kv/txn, /v3/kv/compaction,
// /v3/watch), with the standard library only: go.etcd.io/etcd/client/v3
// and gRPC would make the serve binary 43 % larger, for every user, with or
// without etcd (DESIGN.md, "The etcd backend"). It knows the calls this
// package makes and no others.
type Client struct {
	endpoints []string
	http      *http.Client

	mu   sync.Mutex
	good int // the endpoint that last answered
}

// Dial returns a client of the etcd members at endpoints
// ("http://127.0.0.1:2379"). It sends nothing: the first call finds a member
// that answers.
func Dial(endpoints []string) (*Client, error) { return DialTLS(endpoints, nil) }

// DialTLS is Dial for members served over TLS (https:// endpoints): tc
// holds the CA that signed their certificates and the client certificate
// they ask for, as kube-apiserver's --etcd-cafile, --etcd-certfile and
// --etcd-keyfile give them; nil is Dial's default.
func DialTLS(endpoints []string, tc *tls.Config) (*Client, error) {
	if len(endpoints) == 0 {
		return nil, errors.New("etcdstore: no etcd endpoints")
	}
	for _, e := range endpoints {
		u, err := url.Parse(e)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("etcdstore: endpoint %q is not an http(s) URL", e)
		}
		if tc != nil && u.Scheme != "https" {
			return nil, fmt.Errorf("etcdstore: endpoint %q is not https, but TLS is configured", e)
		}
	}
	return &Client{endpoints: endpoints, http: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64, TLSClientConfig: tc}}}, nil
}

// Close closes the client's idle connections.
func (c *Client) Close() error {
	c.http.CloseIdleConnections()
	return nil
}

// i64 is an int64 as etcd's gateway writes it: a JSON string (or number).
type i64 int64

func (n *i64) UnmarshalJSON(b []byte) error {
	v, err := strconv.ParseInt(strings.Trim(string(b), `"`), 10, 64)
	*n = i64(v)
	return err
}

// keyValue is mvccpb.KeyValue.
type keyValue struct {
	Key            []byte `json:"key"`
	Value          []byte `json:"value"`
	CreateRevision i64    `json:"create_revision"`
	ModRevision    i64    `json:"mod_revision"`
	Version        i64    `json:"version"`
}

type responseHeader struct {
	Revision i64 `json:"revision"`
}

// rangeRequest and rangeResponse are etcdserverpb's.
type rangeRequest struct {
	Key      []byte `json:"key"`
	RangeEnd []byte `json:"range_end,omitempty"`
	Limit    int64  `json:"limit,omitempty"`
	Revision int64  `json:"revision,omitempty"`
	KeysOnly bool   `json:"keys_only,omitempty"`
}

type rangeResponse struct {
	Header responseHeader `json:"header"`
	Kvs    []keyValue     `json:"kvs"`
	More   bool           `json:"more"`
}

type putRequest struct {
	Key   []byte `json:"key"`
	Value []byte `json:"value"`
}

type deleteRangeRequest struct {
	Key    []byte `json:"key"`
	PrevKv bool   `json:"prev_kv,omitempty"`
}

type deleteRangeResponse struct {
	PrevKvs []keyValue `json:"prev_kvs"`
}

// compare is etcdserverpb.Compare on a key's mod_revision.
type compare struct {
	Target      string `json:"target"` // "MOD"
	Key         []byte `json:"key"`
	Result      string `json:"result"` // "EQUAL", "GREATER"
	ModRevision int64  `json:"mod_revision"`
}

type requestOp struct {
	RequestRange       *rangeRequest       `json:"request_range,omitempty"`
	RequestPut         *putRequest         `json:"request_put,omitempty"`
	RequestDeleteRange *deleteRangeRequest `json:"request_delete_range,omitempty"`
}

type responseOp struct {
	ResponseRange       *rangeResponse       `json:"response_range"`
	ResponseDeleteRange *deleteRangeResponse `json:"response_delete_range"`
}

type txnRequest struct {
	Compare []compare   `json:"compare"`
	Success []requestOp `json:"success"`
	Failure []requestOp `json:"failure,omitempty"`
}

type txnResponse struct {
	Header    responseHeader `json:"header"`
	Succeeded bool           `json:"succeeded"`
	Responses []responseOp   `json:"responses"`
}

// gatewayError is the body of a failed call.
type gatewayError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// Errors etcd answers that this package tells apart.
var (
	errCompacted = errors.New("etcdserver: mvcc: required revision has been compacted")
	errFutureRev = errors.New("etcdserver: mvcc: required revision is a future revision")
)

// post sends one call to the first member that answers and decodes its
// reply into out.
func (c *Client) post(ctx context.Context, path string, in, out any) error {
	resp, err := c.open(ctx, path, in)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	return json.NewDecoder(resp.Body).Decode(out)
}

// open sends a call and returns the open response of a member that
// answered 200. A member that cannot be reached is skipped; a call that
// reached one is never sent twice.
func (c *Client) open(ctx context.Context, path string, in any) (*http.Response, error) {
	body, err := json.Marshal(in)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	first := c.good
	c.mu.Unlock()
	var errs []error
	for i := range c.endpoints {
		at := (first + i) % len(c.endpoints)
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoints[at]+path, bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := c.http.Do(req)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			errs = append(errs, err)
			continue
		}
		c.mu.Lock()
		c.good = at
		c.mu.Unlock()
		if resp.StatusCode != http.StatusOK {
			defer resp.Body.Close()
			b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
			var ge gatewayError
			_ = json.Unmarshal(b, &ge)
			switch ge.Message {
			case errCompacted.Error():
				return nil, errCompacted
			case errFutureRev.Error():
				return nil, errFutureRev
			}
			return nil, fmt.Errorf("etcd %s: %s: %s", path, resp.Status, bytes.TrimSpace(b))
		}
		return resp, nil
	}
	return nil, fmt.Errorf("no etcd member answered: %w", errors.Join(errs...))
}

func (c *Client) get(ctx context.Context, r rangeRequest) (*rangeResponse, error) {
	var out rangeResponse
	return &out, c.post(ctx, "/v3/kv/range", r, &out)
}

func (c *Client) txn(ctx context.Context, r txnRequest) (*txnResponse, error) {
	var out txnResponse
	return &out, c.post(ctx, "/v3/kv/txn", r, &out)
}

func (c *Client) compact(ctx context.Context, rev int64) error {
	var out struct{}
	return c.post(ctx, "/v3/kv/compaction", map[string]int64{"revision": rev}, &out)
}

// watchEvent and watchResponse are mvccpb.Event and etcdserverpb's.
type watchEvent struct {
	Type   string    `json:"type"` // "" (PUT) or "DELETE"
	Kv     keyValue  `json:"kv"`
	PrevKv *keyValue `json:"prev_kv"`
}

type watchResponse struct {
	Header          responseHeader `json:"header"`
	Created         bool           `json:"created"`
	Canceled        bool           `json:"canceled"`
	CancelReason    string         `json:"cancel_reason"`
	CompactRevision i64            `json:"compact_revision"`
	Events          []watchEvent   `json:"events"`
}

// watchStream is one open watch: Next returns its responses in order.
type watchStream struct {
	body io.ReadCloser
	dec  *json.Decoder
}

// watch opens a watch on [key, end) from revision from, with previous
// values and progress notifications.
func (c *Client) watch(ctx context.Context, key, end []byte, from int64) (*watchStream, error) {
	type createRequest struct {
		Key            []byte `json:"key"`
		RangeEnd       []byte `json:"range_end"`
		StartRevision  int64  `json:"start_revision"`
		PrevKv         bool   `json:"prev_kv"`
		ProgressNotify bool   `json:"progress_notify"`
	}
	req := map[string]createRequest{"create_request": {Key: key, RangeEnd: end, StartRevision: from, PrevKv: true, ProgressNotify: true}}
	resp, err := c.open(ctx, "/v3/watch", req)
	if err != nil {
		return nil, err
	}
	return &watchStream{body: resp.Body, dec: json.NewDecoder(resp.Body)}, nil
}

// Next returns the next response; an error once the stream ended.
func (w *watchStream) Next() (*watchResponse, error) {
	var msg struct {
		Result *watchResponse `json:"result"`
		Error  *gatewayError  `json:"error"`
	}
	if err := w.dec.Decode(&msg); err != nil {
		return nil, err
	}
	switch {
	case msg.Error != nil:
		return nil, fmt.Errorf("etcd watch: %s", msg.Error.Message)
	case msg.Result == nil:
		return nil, errors.New("etcd watch: an empty response")
	}
	return msg.Result, nil
}

// Close ends the stream.
func (w *watchStream) Close() error { return w.body.Close() }

// prefixEnd is the end of the range of keys under prefix, as clientv3's
// GetPrefixRangeEnd.
func prefixEnd(prefix string) []byte {
	end := []byte(prefix)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] < 0xff {
			end[i]++
			return end[:i+1]
		}
	}
	return []byte{0} // every key
}

// compactRevision returns etcd's compaction revision, which a watch from
// before it reports: the oldest revision still readable.
func (c *Client) compactRevision(ctx context.Context, before int64) (int64, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w, err := c.watch(ctx, []byte{0}, []byte{0}, before)
	if err != nil {
		return 0, err
	}
	defer w.Close()
	for {
		resp, err := w.Next()
		if err != nil {
			return 0, err
		}
		if resp.CompactRevision != 0 {
			return int64(resp.CompactRevision), nil
		}
		if !resp.Created {
			return 0, fmt.Errorf("etcd watch from revision %d: no compaction reported", before)
		}
	}
}

// Get returns the value of one key outside the store's prefix and its
// ModRevision: nil and 0 when there is none. kube-apiserver's allocators
// read their RangeAllocation keys so, past any watch cache.
func (c *Client) Get(ctx context.Context, key string) ([]byte, int64, error) {
	resp, err := c.get(ctx, rangeRequest{Key: []byte(key)})
	if err != nil {
		return nil, 0, fmt.Errorf("etcdstore: get %q: %w", key, err)
	}
	if len(resp.Kvs) == 0 {
		return nil, 0, nil
	}
	return resp.Kvs[0].Value, int64(resp.Kvs[0].ModRevision), nil
}

// Swap is the outcome of a CompareAndSwap: Swapped and the key's new
// ModRevision, or the value and ModRevision that made it fail.
type Swap struct {
	Swapped bool
	Rev     int64  // the key's ModRevision now (0: there is no key)
	Current []byte // when not Swapped, the key's value
}

// CompareAndSwap writes value under key if the key's ModRevision is rev (0:
// the key does not exist), in one transaction whose failure branch reads
// the key, as kube-apiserver's GuaranteedUpdate does for an allocator's
// RangeAllocation.
func (c *Client) CompareAndSwap(ctx context.Context, key string, value []byte, rev int64) (Swap, error) {
	resp, err := c.txn(ctx, txnRequest{
		Compare: []compare{{Target: "MOD", Key: []byte(key), Result: "EQUAL", ModRevision: rev}},
		Success: []requestOp{{RequestPut: &putRequest{Key: []byte(key), Value: value}}},
		Failure: []requestOp{{RequestRange: &rangeRequest{Key: []byte(key)}}},
	})
	if err != nil {
		return Swap{}, fmt.Errorf("etcdstore: swap %q: %w", key, err)
	}
	if resp.Succeeded {
		return Swap{Swapped: true, Rev: int64(resp.Header.Revision)}, nil
	}
	var out Swap
	if len(resp.Responses) > 0 && resp.Responses[0].ResponseRange != nil {
		if kvs := resp.Responses[0].ResponseRange.Kvs; len(kvs) > 0 {
			out.Rev, out.Current = int64(kvs[0].ModRevision), kvs[0].Value
		}
	}
	return out, nil
}
