package loop_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/controllers/loop"
	"github.com/miniplane/miniplane/informer"
	"github.com/miniplane/miniplane/internal/testenv"
)

// deleter stands for a controller's own Client interface.
type deleter interface {
	Delete(ctx context.Context, resource, namespace, name string, opts api.DeleteOptions) (api.Object, error)
}

// TestCheckRequired checks the error every controller's New returns for a
// missing Client, Factory or Clock, the first missing in that order, and
// that a nil Client of the controller's interface type counts as missing.
func TestCheckRequired(t *testing.T) {
	srv, clk := testenv.NewServer(t, apiserver.Config{})
	f := informer.NewFactory(srv, "", clk, testenv.Logger(t))
	var none deleter
	for _, tt := range []struct {
		name    string
		client  deleter
		factory *informer.Factory
		clock   bool
		want    string
	}{
		{"all set", srv, f, true, ""},
		{"no client", none, f, true, "job: Config.Client is required"},
		{"no factory", srv, nil, true, "job: Config.Factory is required"},
		{"no clock", srv, f, false, "job: Config.Clock is required"},
		{"nothing: the client is named first", none, nil, false, "job: Config.Client is required"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			if tt.clock {
				err = loop.CheckRequired("job", tt.client, tt.factory, clk)
			} else {
				err = loop.CheckRequired("job", tt.client, tt.factory, nil)
			}
			if tt.want == "" {
				assert.NoError(t, err)
			} else {
				assert.EqualError(t, err, tt.want)
			}
		})
	}
}

// TestLoggerDefaultsToNop: a nil Logger logs nothing, and a set one is kept.
func TestLoggerDefaultsToNop(t *testing.T) {
	assert.NotNil(t, loop.Logger(nil))
	log := testenv.Logger(t)
	assert.Same(t, log, loop.Logger(log))
}

// TestNewQueueHasNameAndMetrics checks that a controller's queue carries
// its name and records its metrics, by which the manager reports it.
func TestNewQueueHasNameAndMetrics(t *testing.T) {
	_, clk := testenv.NewServer(t, apiserver.Config{})
	q := loop.NewQueue("job", clk, nil)
	q.Add("default/pi")
	m := q.Metrics()
	assert.Equal(t, "job", m.Name)
	assert.Equal(t, uint64(1), m.Adds)
}
