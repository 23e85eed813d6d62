// Package inproc starts miniplane's whole control plane in process for the
// examples' tests (plane/planetest.Start): the API server behind the seeded
// fault injector, its in-memory transport, the controller manager and the
// simulated nodes, so that a stock client-go clientset or a
// controller-runtime manager talks to it with rest.Config{Host: host,
// Transport: rt} and nothing else, and the whole test can run inside a
// testing/synctest bubble.
package inproc

import (
	"net/http"
	"testing"

	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/apiserver/faults"
	"github.com/miniplane/miniplane/plane"
	"github.com/miniplane/miniplane/plane/planetest"
)

// Rate is the chance of each enabled fault striking a request it applies
// to.
const Rate = 0.1

// StartPlane starts a control plane whose fault injector draws fs from
// seed (its uids and generated names come from seed too) and returns the
// in-memory transport to it, the host to pair with it, and the server, for
// checks that must not meet the faults. It runs on the real clock, which
// inside a synctest bubble is the bubble's virtual clock; planetest stops
// it when the test ends.
func StartPlane(tb testing.TB, seed int64, fs faults.Set) (rt http.RoundTripper, host string, srv *apiserver.Server) {
	tb.Helper()
	p := planetest.Start(tb, plane.Config{Seed: uint64(seed), Faults: fs, FaultRate: Rate})
	return p.Transport(), p.Host(), p.Server()
}
