package httpapi

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/client"
)

// arrivingWatcher is a Watcher whose events arrive in waves: each Poll
// first takes the next wave into the pending events (as if their writes
// had committed while gather yielded), then hands out up to limit of them.
type arrivingWatcher struct {
	waves   [][]client.WatchEvent
	pending []client.WatchEvent
	polls   int
	err     error // returned by the Poll that takes the last wave
}

func (w *arrivingWatcher) Poll(dst []client.WatchEvent, limit int) ([]client.WatchEvent, error) {
	w.polls++
	var err error
	if len(w.waves) > 0 {
		w.pending = append(w.pending, w.waves[0]...)
		w.waves = w.waves[1:]
		if len(w.waves) == 0 {
			err = w.err
		}
	}
	n := len(w.pending)
	if limit > 0 {
		n = min(n, limit)
	}
	dst = append(dst, w.pending[:n]...)
	w.pending = w.pending[n:]
	return dst, err
}

func (w *arrivingWatcher) Ready() <-chan struct{} { return nil }
func (w *arrivingWatcher) Stop()                  {}

// added returns n ADDED events, named from first on.
func added(first, n int) []client.WatchEvent {
	evs := make([]client.WatchEvent, n)
	for i := range evs {
		evs[i] = client.WatchEvent{Type: api.WatchAdded, Object: &api.Pod{Metadata: api.ObjectMeta{Name: fmt.Sprintf("p%d", first+i)}}}
	}
	return evs
}

func concat(waves ...[]client.WatchEvent) []client.WatchEvent {
	var out []client.WatchEvent
	for _, w := range waves {
		out = append(out, w...)
	}
	return out
}

func TestGatherTakesWhatArrivesWhileItYieldsInOrder(t *testing.T) {
	gone := errors.New("stopped")
	errorEvent := client.WatchEvent{Type: api.WatchError, Status: &api.Status{Code: 410}}
	tests := []struct {
		name      string
		waves     [][]client.WatchEvent
		err       error
		want      []client.WatchEvent
		wantPolls int
		wantErr   error
		wantLeft  int // events still pending afterwards
	}{
		{
			name:      "nothing pending: one poll",
			waves:     nil,
			wantPolls: 1,
		},
		{
			name:      "one wave: a second poll finds nothing more",
			waves:     [][]client.WatchEvent{added(0, 2)},
			want:      added(0, 2),
			wantPolls: 2,
		},
		{
			name:      "three waves, then quiet: all of them, in order",
			waves:     [][]client.WatchEvent{added(0, 1), added(1, 3), added(4, 2)},
			want:      added(0, 6),
			wantPolls: 4,
		},
		{
			name:      "a wave on every poll: it stops after watchYields more polls",
			waves:     [][]client.WatchEvent{added(0, 1), added(1, 1), added(2, 1), added(3, 1), added(4, 1), added(5, 1), added(6, 1)},
			want:      added(0, watchYields+1),
			wantPolls: watchYields + 1,
		},
		{
			name:      "more than a batch: exactly watchBatch, the rest left pending",
			waves:     [][]client.WatchEvent{added(0, 200), added(200, 100)},
			want:      added(0, watchBatch),
			wantPolls: 2,
			wantLeft:  300 - watchBatch,
		},
		{
			name:      "an ERROR ends the gathering",
			waves:     [][]client.WatchEvent{concat(added(0, 1), []client.WatchEvent{errorEvent}), added(1, 1)},
			want:      concat(added(0, 1), []client.WatchEvent{errorEvent}),
			wantPolls: 1,
		},
		{
			name:      "a Poll error ends the gathering and is returned",
			waves:     [][]client.WatchEvent{added(0, 1), added(1, 1)},
			err:       gone,
			want:      added(0, 2),
			wantPolls: 2,
			wantErr:   gone,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := &arrivingWatcher{waves: tt.waves, err: tt.err}
			got, err := gather(w, nil)
			require.ErrorIs(t, err, tt.wantErr)
			if tt.wantErr == nil {
				require.NoError(t, err)
			}
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.wantPolls, w.polls)
			assert.Len(t, w.pending, tt.wantLeft)
		})
	}
}

// Gathering until nothing is left hands out every event once, in the
// order polling one at a time does: gather changes only how the events are
// cut into writes.
func TestGatherRepeatedlyIsPlainPolling(t *testing.T) {
	var waves [][]client.WatchEvent
	n := 0
	for i := range 40 {
		waves = append(waves, added(n, i%7))
		n += i % 7
	}
	plain := &arrivingWatcher{waves: waves}
	var want []client.WatchEvent
	for len(plain.waves) > 0 || len(plain.pending) > 0 {
		want, _ = plain.Poll(want, 1)
	}
	gathered := &arrivingWatcher{waves: waves}
	var got []client.WatchEvent
	for len(gathered.waves) > 0 || len(gathered.pending) > 0 {
		evs, err := gather(gathered, nil)
		require.NoError(t, err)
		require.LessOrEqual(t, len(evs), watchBatch)
		got = append(got, evs...)
	}
	require.Len(t, want, n)
	assert.Equal(t, want, got)
}
