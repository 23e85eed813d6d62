// Package inproc starts miniplane's API in process for the examples'
// tests, behind the seeded fault injector and the in-memory transport, so
// that a stock client-go clientset or a controller-runtime manager talks
// to it with rest.Config{Host: host, Transport: rt} and nothing else, and
// the whole test can run inside a testing/synctest bubble.
//
// It is the one place the examples build a plane. When the public package
// plane lands, StartPlane's body becomes a call to planetest.Start with
// the same seed and faults.
package inproc

import (
	"context"
	"math/rand/v2"
	"net/http"
	"sync"
	"testing"

	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/apiserver/faults"
	"github.com/miniplane/miniplane/apiserver/httpapi"
	"github.com/miniplane/miniplane/apiserver/httpapi/inmem"
	"github.com/miniplane/miniplane/clock"
)

// Rate is the chance of each enabled fault striking a request it applies
// to.
const Rate = 0.1

// StartPlane starts an API server (its sweeper running, so graceful
// deletions finish), its HTTP handler and, in front of it, a fault
// injector drawing fs from seed, and returns the in-memory transport to
// it, the host to pair with it and the server, for checks that must not
// meet the faults. The server's uids and generated names come from seed
// too. Everything runs on clock.Real, which inside a synctest bubble is
// the bubble's virtual clock; tb.Cleanup stops the sweeper.
func StartPlane(tb testing.TB, seed int64, fs faults.Set) (rt http.RoundTripper, host string, srv *apiserver.Server) {
	tb.Helper()
	clk := clock.Real{}
	srv, err := apiserver.New(apiserver.Config{Clock: clk, Rand: rand.New(rand.NewPCG(uint64(seed), 1))})
	if err != nil {
		tb.Fatalf("inproc: %v", err)
	}
	h, err := httpapi.New(httpapi.Config{Server: srv, Clock: clk})
	if err != nil {
		tb.Fatalf("inproc: %v", err)
	}
	inj, err := faults.New(faults.Config{Handler: h, Clock: clk, Rand: rand.New(rand.NewPCG(uint64(seed), 2)), Faults: fs, Rate: Rate})
	if err != nil {
		tb.Fatalf("inproc: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { srv.Run(ctx) })
	tb.Cleanup(func() {
		cancel()
		wg.Wait()
	})
	return inmem.NewTransport(inj), inmem.Host, srv
}
