package election_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/election"
	"github.com/miniplane/miniplane/election/electiontest"
)

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// env is one API server on a fake clock, reached through a fault-injecting
// client.
type env struct {
	clk    *clock.Fake
	srv    *apiserver.Server
	client *electiontest.Client
	log    *zap.Logger
}

func newEnv(t *testing.T) *env {
	t.Helper()
	clk := clock.NewFake(epoch)
	log := zaptest.NewLogger(t, zaptest.Level(zap.WarnLevel))
	srv, err := apiserver.New(apiserver.Config{Clock: clk, Rand: rand.New(rand.NewPCG(1, 2)), Logger: log})
	require.NoError(t, err)
	return &env{clk: clk, srv: srv, client: electiontest.NewClient(srv, clk), log: log}
}

// elector returns a candidate on the env's clock with client-go's default
// timings; mod may change its config.
func (e *env) elector(t *testing.T, id string, mod ...func(*election.Config)) *election.Elector {
	t.Helper()
	cfg := election.Config{Client: e.client, Clock: e.clk, Logger: e.log, Identity: id}
	for _, m := range mod {
		m(&cfg)
	}
	el, err := election.New(cfg)
	require.NoError(t, err)
	return el
}

// lease reads the lease from the server directly.
func (e *env) lease(t *testing.T) *api.Lease {
	t.Helper()
	obj, err := e.srv.Get(context.Background(), client.Leases, election.DefaultNamespace, election.DefaultName, client.GetOptions{})
	require.NoError(t, err)
	return obj.(*api.Lease)
}

// failLeaseWrites makes every lease write fail, as an API server that
// cannot persist would.
func failLeaseWrites(op electiontest.Op) error {
	if op.Resource == client.Leases && op.IsWrite() {
		return apierrors.NewInternalError(errors.New("etcdserver: request timed out"))
	}
	return nil
}

// stepAt moves the clock to t (never back) and steps el there.
func (e *env) stepAt(el *election.Elector, t time.Time) time.Time {
	if t.After(e.clk.Now()) {
		e.clk.SetTime(t)
	}
	return el.Step(context.Background())
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
