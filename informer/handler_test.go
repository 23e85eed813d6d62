package informer

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"

	"github.com/miniplane/miniplane/api"
)

// TestRegistrationSleep checks Run's dispatcher wait, which reuses one
// buffered channel instead of Ready's channel per wait: whatever wakes a
// dispatcher that waits on Ready wakes one in sleep, at once if the
// notification came before it slept, and no token is left behind to
// wake it for nothing later.
func TestRegistrationSleep(t *testing.T) {
	note := notification{kind: notifyAdd, obj: &api.Pod{}}
	tests := []struct {
		name string
		// before runs before sleep is called, during its wait.
		before, during func(r *Registration, cancel context.CancelFunc)
		want           bool // sleep's answer
		wantPending    int
	}{
		{
			name:        "a notification already pending: no wait",
			before:      func(r *Registration, _ context.CancelFunc) { r.enqueue(note) },
			want:        true,
			wantPending: 1,
		},
		{
			name:   "removed before: no wait, and false",
			before: func(r *Registration, _ context.CancelFunc) { removeLocked(r) },
			want:   false,
		},
		{
			name:        "woken by a notification",
			during:      func(r *Registration, _ context.CancelFunc) { r.enqueue(note) },
			want:        true,
			wantPending: 1,
		},
		{
			name:   "woken by removal",
			during: func(r *Registration, _ context.CancelFunc) { removeLocked(r) },
			want:   true, // the next sleep says removed
		},
		{
			name:   "woken by the end of ctx",
			during: func(_ *Registration, cancel context.CancelFunc) { cancel() },
			want:   true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r := &Registration{log: zap.NewNop(), warnAt: backlogWarnAt, wake: make(chan struct{}, 1)}
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				if tt.before != nil {
					tt.before(r, cancel)
				}
				var got, returned bool
				go func() { got, returned = r.sleep(ctx), true }()
				synctest.Wait()
				if tt.during != nil {
					require.False(t, returned, "sleep returned before anything woke it")
					tt.during(r, cancel)
					synctest.Wait()
				}
				require.True(t, returned, "sleep still waits")
				assert.Equal(t, tt.want, got)
				assert.Equal(t, tt.wantPending, r.Pending())
				assert.Zero(t, len(r.wake), "a token left behind")
				assert.False(t, r.sleeping, "still marked sleeping")
				assert.Nil(t, r.ready, "a Ready channel was made")
			})
		})
	}
}

// TestRegistrationSleepAfterManyWakes: a dispatcher that runs dry after
// every notification, as Run's does under a steady trickle, sees each one
// and makes no channel.
func TestRegistrationSleepAfterManyWakes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var seen int
		r := &Registration{
			log: zap.NewNop(), warnAt: backlogWarnAt, wake: make(chan struct{}, 1),
			handler: HandlerFuncs{AddFunc: func(api.Object, bool) { seen++ }},
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			for {
				if r.DispatchOne() {
					continue
				}
				if !r.sleep(t.Context()) {
					return
				}
			}
		}()
		for i := range 100 {
			synctest.Wait()
			require.Equal(t, i, seen)
			require.True(t, r.sleeping, "the dispatcher is not asleep after %d", i)
			r.enqueue(notification{kind: notifyAdd, obj: &api.Pod{}})
		}
		synctest.Wait()
		assert.Equal(t, 100, seen)
		assert.Nil(t, r.ready, "a Ready channel was made")
		removeLocked(r)
		<-done
	})
}

// removeLocked is RemoveEventHandler's part on the registration.
func removeLocked(r *Registration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.removed, r.pending, r.head, r.initialLeft = true, nil, 0, 0
	r.wakeLocked()
}
