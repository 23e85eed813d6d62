package httpapi_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/apiserver/httpapi"
	"github.com/miniplane/miniplane/clock"
)

// TestServeClosesStuckWatches checks that Serve returns when its context
// ends even while a watch is stuck writing to a client that stopped
// reading: after ShutdownGrace on the server's clock it closes the
// connection, and the watch's handler returns.
func TestServeClosesStuckWatches(t *testing.T) {
	clk := clock.NewFake(epoch)
	srv, err := apiserver.New(apiserver.Config{Clock: clk, Rand: rand.New(rand.NewPCG(1, 2))})
	require.NoError(t, err)
	h, err := httpapi.New(httpapi.Config{Server: srv, Clock: clk})
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- httpapi.Serve(ctx, ln, h) }()

	conn, err := net.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	defer conn.Close()
	_, err = fmt.Fprintf(conn, "GET /api/v1/pods?watch=true HTTP/1.1\r\nHost: miniplane\r\n\r\n")
	require.NoError(t, err)
	require.Eventually(t, func() bool { return srv.Store().Stats().Watchers == 1 }, watchBound, time.Millisecond, "the watch started")

	// About 20 MiB of events, more than loopback socket buffers hold, that
	// the client never reads.
	big := strings.Repeat("x", 10<<10)
	for i := range 2000 {
		p := podOf("default", fmt.Sprintf("pod-%04d", i), nil)
		p.Metadata.Annotations = map[string]string{"padding": big}
		_, err := srv.Create(ctx, p)
		require.NoError(t, err)
	}

	cancel()
	require.Eventually(t, func() bool { return clk.Waiters() == 1 }, watchBound, time.Millisecond, "Serve is waiting out the grace period")
	clk.Step(httpapi.ShutdownGrace)
	bound, stop := context.WithTimeout(context.Background(), watchBound)
	defer stop()
	select {
	case err := <-done:
		assert.NoError(t, err)
	case <-bound.Done():
		t.Fatal("Serve did not return")
	}
	assert.Equal(t, 0, srv.Store().Stats().Watchers, "the watch ended")
}
