package looptest

import (
	"sync"
	"time"

	"github.com/miniplane/miniplane/controllers/loop"
)

// SyncCounter is a loop.Observer that counts the syncs of each key, for a
// test that asserts how often a controller reconciled something. Its zero
// value is ready to use, and it is safe for concurrent use.
type SyncCounter struct {
	// mu guards byKey.
	mu    sync.Mutex
	byKey map[string]int
}

// ReconcileStarted counts a sync of info.Key.
func (s *SyncCounter) ReconcileStarted(info loop.Info) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.byKey == nil {
		s.byKey = map[string]int{}
	}
	s.byKey[info.Key]++
}

// ReconcileEnded does nothing.
func (s *SyncCounter) ReconcileEnded(loop.Info, error, time.Duration) {}

// Of returns how many syncs of key have started.
func (s *SyncCounter) Of(key string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.byKey[key]
}
