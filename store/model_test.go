package store_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/internal/storetest"
	"github.com/miniplane/miniplane/store"
)

// inMemory makes the stores the model test runs against here.
func inMemory(_ testing.TB, historyLimit int) store.Backend[string] {
	return store.New[string](store.Options{HistoryLimit: historyLimit})
}

// TestModel is the randomized model test (internal/storetest) on the
// in-memory store; etcdtest runs it on the etcd backend.
func TestModel(t *testing.T) { storetest.Model(t, 0, inMemory) }

func TestModelReplaysSameSeedIdentically(t *testing.T) {
	storetest.ReplaysSameSeedIdentically(t, inMemory)
}

// TestPollProgressNeverPassesStoreRevision checks the bookmark Poll returns in
// every state a watcher can be in: it never goes back, never falls below the
// last event delivered, and never names a revision the store has not reached
// (etcd's progress notifications carry the store's header revision; a client
// that lists at a bookmark must not get ErrFutureRev).
func TestPollProgressNeverPassesStoreRevision(t *testing.T) {
	tests := []struct {
		name    string
		from    int64 // Watch's fromRev; the store is at revision 4
		stop    bool
		wantErr error
	}{
		{name: "live, from now", from: 0},
		{name: "live, from an old revision", from: 2},
		{name: "live, from the future", from: 10},
		{name: "stopped, from now", from: 0, stop: true, wantErr: store.ErrStopped},
		{name: "stopped, from an old revision", from: 2, stop: true, wantErr: store.ErrStopped},
		{name: "stopped, from the future", from: 10, stop: true, wantErr: store.ErrStopped},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := store.New[string](store.Options{})
			for _, k := range []string{"a", "b", "c"} {
				_, err := s.Create(k, "v")
				require.NoError(t, err)
			}
			w, err := s.Watch("", tt.from)
			require.NoError(t, err)
			defer w.Stop()
			evs, first, err := w.Poll(nil, 0)
			require.NoError(t, err)
			var last int64
			for _, ev := range evs {
				last = ev.Rev
			}
			assert.LessOrEqual(t, first, s.Rev(), "progress of a live watcher")
			if tt.stop {
				w.Stop()
			}
			_, progress, err := w.Poll(nil, 0)
			require.ErrorIs(t, err, tt.wantErr)
			assert.GreaterOrEqual(t, progress, first, "progress went back")
			assert.GreaterOrEqual(t, progress, last, "progress below the last event")
			assert.LessOrEqual(t, progress, s.Rev(), "progress beyond the store's revision %d", s.Rev())
		})
	}
}

// runModel runs cfg against a fresh store and model and returns the digest of
// the run and how often it saw each case.
