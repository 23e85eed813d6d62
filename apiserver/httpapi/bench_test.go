package httpapi_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/clock"
)

// benchClient is an HTTP client with enough idle connections for the
// parallel benchmarks.
var benchClient = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256}}

// get fetches url with an Accept header and returns the body, failing on
// anything but 200.
func get(b *testing.B, url, accept string) []byte {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		b.Fatal(err)
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := benchClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		b.Fatalf("GET %s: %d %v %s", url, resp.StatusCode, err, body)
	}
	return body
}

// BenchmarkGetPod: GET of one pod over loopback HTTP, one client after
// another (ns/op is the latency) and from many goroutines at once
// (req/s is the throughput).
func BenchmarkGetPod(b *testing.B) {
	ts := newTestServer(b, clock.NewFake(epoch), nil)
	_, err := ts.srv.Create(ctx, podOf("default", "web", map[string]string{"app": "web"}))
	require.NoError(b, err)
	url := ts.url + "/api/v1/namespaces/default/pods/web"
	for _, tc := range []struct{ name, accept string }{{"json", "application/json"}, {"protobuf", acceptProtobuf}, {"table", acceptTable}} {
		b.Run(tc.name+"/serial", func(b *testing.B) {
			for b.Loop() {
				get(b, url, tc.accept)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
		})
		b.Run(tc.name+"/parallel", func(b *testing.B) {
			b.SetParallelism(8)
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					get(b, url, tc.accept)
				}
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
		})
	}
}

// BenchmarkListPods: a list of 10,000 pods over loopback HTTP, as JSON, as
// protobuf (what client-go asks for) and as a Table (what kubectl get pods
// asks for).
func BenchmarkListPods(b *testing.B) {
	const n = 10_000
	ts := newTestServer(b, clock.NewFake(epoch), nil)
	for i := range n {
		_, err := ts.srv.Create(ctx, podOf("default", fmt.Sprintf("pod-%05d", i), map[string]string{"app": "web"}))
		require.NoError(b, err)
	}
	url := ts.url + "/api/v1/namespaces/default/pods"
	for _, tc := range []struct{ name, accept, want string }{
		{"json", "application/json", `"name":"pod-09999"`},
		{"protobuf", acceptProtobuf, "\x0a\x09pod-09999"},
		{"table", acceptTable, `["pod-09999","0/1","Pending",0,`},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var size int
			for b.Loop() {
				body := get(b, url, tc.accept)
				size = len(body)
				if !bytes.Contains(body, []byte(tc.want)) {
					b.Fatalf("the list lacks %s", tc.want)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
			b.ReportMetric(float64(size)/(1<<20), "MiB/list")
		})
	}
}

// BenchmarkWatchFanout: 100 HTTP watchers on pods while 10,000 pods are
// created, in JSON and in protobuf; every watcher must see every ADDED
// event. events/s counts deliveries (watchers × pods) per second from the
// first create to the last delivery.
func BenchmarkWatchFanout(b *testing.B) {
	b.Run("json", func(b *testing.B) { benchWatchFanout(b, "application/json", countJSONAdded) })
	b.Run("protobuf", func(b *testing.B) { benchWatchFanout(b, acceptProtobuf, countProtobufAdded) })
}

// countJSONAdded counts the ADDED events of a JSON watch stream, up to n.
func countJSONAdded(r io.Reader, n int) int {
	lines := bufio.NewScanner(r)
	lines.Buffer(make([]byte, 0, 64<<10), 1<<20)
	count := 0
	for count < n && lines.Scan() {
		if bytes.HasPrefix(lines.Bytes(), []byte(`{"type":"ADDED"`)) {
			count++
		}
	}
	return count
}

// countProtobufAdded counts the ADDED events of a protobuf watch stream,
// up to n: each frame is a length and a WatchEvent whose type is field 1.
func countProtobufAdded(r io.Reader, n int) int {
	br := bufio.NewReaderSize(r, 64<<10)
	added := []byte("\x0a\x05ADDED")
	var frame []byte
	count := 0
	for count < n {
		var size [4]byte
		if _, err := io.ReadFull(br, size[:]); err != nil {
			return count
		}
		frame = slices.Grow(frame[:0], int(binary.BigEndian.Uint32(size[:])))[:binary.BigEndian.Uint32(size[:])]
		if _, err := io.ReadFull(br, frame); err != nil {
			return count
		}
		if bytes.HasPrefix(frame, added) {
			count++
		}
	}
	return count
}

func benchWatchFanout(b *testing.B, accept string, countAdded func(io.Reader, int) int) {
	const watchers, pods = 100, 10_000
	for b.Loop() {
		b.StopTimer()
		ts := newTestServer(b, clock.NewFake(epoch), nil)
		rv := strconv.FormatInt(ts.srv.Store().Rev(), 10)
		ctx, cancel := context.WithCancel(context.Background())
		var ready, done sync.WaitGroup
		counts := make([]int, watchers)
		for i := range watchers {
			ready.Add(1)
			done.Add(1)
			go func() {
				defer done.Done()
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, ts.url+"/api/v1/pods?watch=true&resourceVersion="+rv, nil)
				req.Header.Set("Accept", accept)
				resp, err := benchClient.Do(req)
				ready.Done()
				if err != nil {
					return
				}
				defer resp.Body.Close()
				counts[i] = countAdded(resp.Body, pods)
			}()
		}
		ready.Wait()
		b.StartTimer()
		start := b.Elapsed()
		for i := range pods {
			if _, err := ts.srv.Create(ctx, podOf("default", fmt.Sprintf("pod-%05d", i), nil)); err != nil {
				b.Fatal(err)
			}
		}
		done.Wait()
		elapsed := b.Elapsed() - start
		b.StopTimer()
		cancel()
		for i, c := range counts {
			if c != pods {
				b.Fatalf("watcher %d saw %d of %d events", i, c, pods)
			}
		}
		b.ReportMetric(float64(watchers*pods)/elapsed.Seconds(), "events/s")
		b.StartTimer()
	}
}
