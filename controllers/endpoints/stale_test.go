package endpoints

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestStaleTrackerHandshake drives the tracker through the orders in which
// a sync's check and the Endpoints handler's cacheMoved can come. After
// remember("5"), the controller's update replaced version 5 with 7.
func TestStaleTrackerHandshake(t *testing.T) {
	// Steps: "check RV" → "stale=B caughtUp=B"; "moved FROM TO" → "wake=B";
	// "remember RV" and "forget" → "".
	tests := []struct {
		name  string
		steps [][2]string // step, want
	}{
		{name: "a stale sync is woken when the cache moves off the replaced version", steps: [][2]string{
			{"check 5", "stale=true caughtUp=false"},
			{"moved 5 7", "wake=true"},
			{"check 7", "stale=false caughtUp=false"},
		}},
		{name: "woken once only", steps: [][2]string{
			{"check 5", "stale=true caughtUp=false"},
			{"moved 5 7", "wake=true"},
			{"moved 7 9", "wake=false"},
		}},
		{name: "the cache moving with no sync waiting wakes nothing", steps: [][2]string{
			{"moved 5 7", "wake=false"},
			{"check 7", "stale=false caughtUp=false"},
		}},
		{name: "a sync that read the replaced version before the cache moved requeues itself", steps: [][2]string{
			{"moved 5 7", "wake=false"},
			{"check 5", "stale=true caughtUp=true"},
		}},
		{name: "a late notification of an older change is not the catch-up", steps: [][2]string{
			{"check 5", "stale=true caughtUp=false"},
			{"moved 3 5", "wake=false"},
			{"moved 1 3", "wake=false"},
			{"check 5", "stale=true caughtUp=false"},
			{"moved 5 7", "wake=true"},
		}},
		{name: "a resync of the replaced version is not the catch-up", steps: [][2]string{
			{"check 5", "stale=true caughtUp=false"},
			{"moved 5 5", "wake=false"},
		}},
		{name: "the requeue is granted once", steps: [][2]string{
			{"moved 5 7", "wake=false"},
			{"check 5", "stale=true caughtUp=true"},
			{"check 5", "stale=true caughtUp=false"},
		}},
		{name: "a newer update replaces what was remembered", steps: [][2]string{
			{"remember 7", ""},
			{"check 5", "stale=false caughtUp=false"},
			{"check 7", "stale=true caughtUp=false"},
			{"moved 5 7", "wake=false"},
			{"moved 7 9", "wake=true"},
		}},
		{name: "a forgotten service is never stale", steps: [][2]string{
			{"forget", ""},
			{"check 5", "stale=false caughtUp=false"},
			{"moved 5 7", "wake=false"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			const key = "default/web"
			tr := &staleTracker{entries: map[string]*staleEntry{}}
			tr.remember(key, "5")
			for i, st := range tt.steps {
				var op, a, b string
				_, _ = fmt.Sscan(st[0], &op, &a, &b)
				var got string
				switch op {
				case "check":
					stale, caughtUp := tr.check(key, a)
					got = fmt.Sprintf("stale=%t caughtUp=%t", stale, caughtUp)
				case "moved":
					got = fmt.Sprintf("wake=%t", tr.cacheMoved(key, a, b))
				case "remember":
					tr.remember(key, a)
				case "forget":
					tr.forget(key)
				default:
					t.Fatalf("unknown step %q", st[0])
				}
				assert.Equal(t, st[1], got, "step %d: %s", i, st[0])
			}
		})
	}
}
