package faults_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/apiserver/faults"
	"github.com/miniplane/miniplane/apiserver/httpapi"
	"github.com/miniplane/miniplane/clock"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in      string
		want    faults.Set
		wantErr string
	}{
		{in: "all", want: faults.All},
		{in: "none", want: faults.None},
		{in: "", want: faults.None},
		{in: "watch-close,gone,conflict,throttle,error,latency,stale,lag", want: faults.All},
		{in: "gone", want: faults.SetOf(faults.Gone)},
		{in: " stale , lag ", want: faults.SetOf(faults.Stale, faults.Lag)},
		{in: "lag,lag", want: faults.SetOf(faults.Lag)},
		{in: "gone,slow", wantErr: `unknown fault "slow" in "gone,slow": the faults are watch-close, gone, conflict, throttle, error, latency, stale, lag (or all, or none)`},
		{in: "Gone", wantErr: `unknown fault "Gone"`},
		{in: "gone,,lag", wantErr: `item 2 of "gone,,lag" is empty`},
		{in: "gone,", wantErr: `item 2 of "gone," is empty`},
		{in: "all,gone", wantErr: `"all" in "all,gone": all and none stand alone`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := faults.Parse(tt.in)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			again, err := faults.Parse(got.String())
			require.NoError(t, err)
			assert.Equal(t, got, again, "String reads back")
		})
	}
}

func TestNewChecksItsConfig(t *testing.T) {
	srv, err := apiserver.New(apiserver.Config{Clock: clock.Real{}, Rand: rand.New(rand.NewPCG(1, 2))})
	require.NoError(t, err)
	h, err := httpapi.New(httpapi.Config{Server: srv, Clock: clock.Real{}})
	require.NoError(t, err)
	ok := faults.Config{Handler: h, Clock: clock.Real{}, Rand: rand.New(rand.NewPCG(1, 2))}
	tests := []struct {
		name    string
		mutate  func(*faults.Config)
		wantErr string
	}{
		{name: "valid", mutate: func(*faults.Config) {}},
		{name: "no handler", mutate: func(c *faults.Config) { c.Handler = nil }, wantErr: "needs a Handler"},
		{name: "no clock", mutate: func(c *faults.Config) { c.Clock = nil }, wantErr: "needs a Handler, a Clock and a Rand"},
		{name: "no rand", mutate: func(c *faults.Config) { c.Rand = nil }, wantErr: "needs a Handler, a Clock and a Rand"},
		{name: "rate above 1", mutate: func(c *faults.Config) { c.Rate = 1.5 }, wantErr: "Rate 1.5 is not in [0, 1]"},
		{name: "negative rate", mutate: func(c *faults.Config) { c.Rate = -0.1 }, wantErr: "Rate -0.1"},
		{name: "unknown kinds", mutate: func(c *faults.Config) { c.Faults = 1 << 12 }, wantErr: "names kinds that do not exist"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := ok
			tt.mutate(&cfg)
			_, err := faults.New(cfg)
			if tt.wantErr == "" {
				assert.NoError(t, err)
				return
			}
			assert.ErrorContains(t, err, tt.wantErr)
		})
	}
}
