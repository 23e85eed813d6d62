package workqueue

import (
	"context"
	"sync"
)

// Work is a controller's worker pool: workers goroutines take items and hand
// them to process until ctx is done; then the queue is shut down, and Work
// returns once every worker has returned. process must call Done for its
// item, as a controller's single step does. An item taken after ctx is done
// is handed back with Done and not processed, so no work starts after the
// stop signal (a deposed leader's controllers stop writing at once).
func (q *Queue[T]) Work(ctx context.Context, workers int, process func(item T)) {
	var wg sync.WaitGroup
	for range max(workers, 1) {
		wg.Go(func() {
			for {
				item, shutdown := q.Get()
				if shutdown {
					return
				}
				if ctx.Err() != nil {
					q.Done(item)
					continue
				}
				process(item)
			}
		})
	}
	<-ctx.Done()
	q.ShutDown()
	wg.Wait()
}
