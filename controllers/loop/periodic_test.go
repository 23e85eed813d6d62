package loop_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/controllers/loop"
	"github.com/miniplane/miniplane/informer"
	"github.com/miniplane/miniplane/internal/testenv"
)

// TestPeriodicSweepsAtStartAndEveryPeriod steps a periodic controller on a
// fake clock: it waits for its cache, sweeps once at start over the initial
// list, then once each Period after a sweep, not before; a failed sweep is
// retried with the queue's backoff, and the periodic sweep still follows.
func TestPeriodicSweepsAtStartAndEveryPeriod(t *testing.T) {
	srv, clk := testenv.NewServer(t, apiserver.Config{})
	ctx := t.Context()
	_, err := srv.Create(ctx, &api.ConfigMap{Metadata: api.ObjectMeta{Namespace: "default", Name: "a"}})
	require.NoError(t, err)
	f := informer.NewFactory(srv, "", clk, testenv.Logger(t))
	inf := f.ForResource(client.ConfigMaps)
	var seen []int // the cached ConfigMaps at each sweep
	fail := false
	c, err := loop.NewPeriodic(loop.PeriodicConfig{
		Name: "counter", Informers: []*informer.Informer{inf}, Clock: clk, Period: time.Minute, Logger: testenv.Logger(t),
		Sweep: func(context.Context) error {
			seen = append(seen, inf.Indexer().Len())
			if fail {
				return errors.New("sweep failed")
			}
			return nil
		},
	})
	require.NoError(t, err)
	assert.False(t, c.HasSynced(), "no initial list yet")
	assert.Equal(t, 1, c.Queue().Len(), "the first sweep is queued from the start")

	testenv.SettleController(t, ctx, f, c)
	assert.True(t, c.HasSynced())
	assert.Equal(t, []int{1}, seen, "one sweep, over the initial list")

	_, err = srv.Create(ctx, &api.ConfigMap{Metadata: api.ObjectMeta{Namespace: "default", Name: "b"}})
	require.NoError(t, err)
	clk.Step(time.Minute - time.Second)
	testenv.SettleController(t, ctx, f, c)
	assert.Equal(t, []int{1}, seen, "a change queues no sweep, nor does less than a period")

	clk.Step(time.Second)
	testenv.SettleController(t, ctx, f, c)
	assert.Equal(t, []int{1, 2}, seen, "a period after the last sweep")

	fail = true
	clk.Step(time.Minute)
	testenv.SettleController(t, ctx, f, c)
	require.Equal(t, []int{1, 2, 2}, seen)
	clk.Step(time.Second) // past the queue's first backoff, well short of a period
	testenv.SettleController(t, ctx, f, c)
	assert.Equal(t, []int{1, 2, 2, 2}, seen, "a failed sweep is retried with backoff")
}

// TestNewPeriodicRequires checks NewPeriodic's required fields.
func TestNewPeriodicRequires(t *testing.T) {
	srv, clk := testenv.NewServer(t, apiserver.Config{})
	inf := informer.NewFactory(srv, "", clk, testenv.Logger(t)).ForResource(client.ConfigMaps)
	sweep := func(context.Context) error { return nil }
	for _, tt := range []struct {
		name string
		cfg  loop.PeriodicConfig
		want string
	}{
		{"name", loop.PeriodicConfig{Informers: []*informer.Informer{inf}, Clock: clk, Period: time.Minute, Sweep: sweep}, "loop.NewPeriodic: PeriodicConfig.Name is required"},
		{"informers", loop.PeriodicConfig{Name: "x", Clock: clk, Period: time.Minute, Sweep: sweep}, "loop.NewPeriodic x: PeriodicConfig.Informers is empty"},
		{"clock", loop.PeriodicConfig{Name: "x", Informers: []*informer.Informer{inf}, Period: time.Minute, Sweep: sweep}, "loop.NewPeriodic x: PeriodicConfig.Clock is required"},
		{"period", loop.PeriodicConfig{Name: "x", Informers: []*informer.Informer{inf}, Clock: clk, Sweep: sweep}, "loop.NewPeriodic x: PeriodicConfig.Period must be positive"},
		{"sweep", loop.PeriodicConfig{Name: "x", Informers: []*informer.Informer{inf}, Clock: clk, Period: time.Minute}, "loop.NewPeriodic x: PeriodicConfig.Sweep is required"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := loop.NewPeriodic(tt.cfg)
			assert.EqualError(t, err, tt.want)
		})
	}
}
