package workqueue_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/controllers/workqueue"
)

// TestWorkStopsProcessingAtTheStopSignal: Work processes items with its
// workers; once ctx is done, items still queued are handed back unprocessed
// and Work returns after its workers have.
func TestWorkStopsProcessingAtTheStopSignal(t *testing.T) {
	q := workqueue.New(workqueue.Config[string]{Clock: clock.NewFake(time.Unix(0, 0))})
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan string)
	release := make(chan struct{})
	var mu sync.Mutex
	var processed []string
	done := make(chan struct{})
	go func() {
		defer close(done)
		q.Work(ctx, 1, func(item string) {
			defer q.Done(item)
			started <- item
			<-release
			mu.Lock()
			processed = append(processed, item)
			mu.Unlock()
		})
	}()

	q.Add("a")
	require.Equal(t, "a", <-started)
	q.Add("b") // queued behind a, taken only after the stop signal
	q.Add("c")
	cancel()
	close(release)
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Work did not return after cancel")
	}
	assert.Equal(t, []string{"a"}, processed, "nothing starts after the stop signal")
	assert.True(t, q.ShuttingDown())
	assert.Zero(t, q.Len())
}
