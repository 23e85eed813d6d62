package electiontest_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/election/electiontest"
)

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func TestClientFaultsAndRecordsWrites(t *testing.T) {
	clk := clock.NewFake(epoch)
	srv, err := apiserver.New(apiserver.Config{Clock: clk, Rand: rand.New(rand.NewPCG(1, 1))})
	require.NoError(t, err)
	c := electiontest.NewClient(srv, clk)
	ctx := context.Background()
	ns := func(name string) *api.Namespace { return &api.Namespace{Metadata: api.ObjectMeta{Name: name}} }

	_, err = c.Create(ctx, ns("one"))
	require.NoError(t, err)
	boom := errors.New("boom")
	var seen []electiontest.Op
	c.SetFault(func(op electiontest.Op) error {
		seen = append(seen, op)
		if op.Verb == "create" {
			return boom
		}
		return nil
	})
	clk.Step(time.Second)
	_, err = c.Create(ctx, ns("two"))
	assert.ErrorIs(t, err, boom)
	_, err = srv.Get(ctx, client.Namespaces, "", "two", client.GetOptions{})
	assert.True(t, apierrors.IsNotFound(err), "a faulted request never reaches the server")
	_, err = c.Get(ctx, client.Namespaces, "", "one", client.GetOptions{})
	assert.NoError(t, err)
	_, err = c.Delete(ctx, client.Namespaces, "", "one", api.DeleteOptions{})
	assert.NoError(t, err)

	assert.Equal(t, []electiontest.Op{
		{Verb: "create", Resource: client.Namespaces, Name: "two"},
		{Verb: "get", Resource: client.Namespaces, Name: "one"},
		{Verb: "delete", Resource: client.Namespaces, Name: "one"},
	}, seen)
	assert.Equal(t, []electiontest.Write{
		{Op: electiontest.Op{Verb: "create", Resource: client.Namespaces, Name: "one"}, At: epoch},
		{Op: electiontest.Op{Verb: "delete", Resource: client.Namespaces, Name: "one"}, At: epoch.Add(time.Second)},
	}, c.Writes(), "only successful writes, with their times")
}

func TestSkewedClockOffsetsNowNotDurations(t *testing.T) {
	base := clock.NewFake(epoch)
	s := electiontest.SkewedClock{Base: base, Offset: -time.Hour}
	assert.Equal(t, epoch.Add(-time.Hour), s.Now())
	assert.Equal(t, time.Hour, s.Since(epoch.Add(-2*time.Hour)))
	timer := s.NewTimer(time.Second)
	base.Step(time.Second)
	select {
	case at := <-timer.C():
		assert.Equal(t, epoch.Add(time.Second), at, "timers fire on the base clock's schedule")
	default:
		t.Fatal("timer did not fire after its duration")
	}
}
