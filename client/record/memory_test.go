package record

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestObjectMemoryCorrelates checks the per-object memory the recorder
// decides with: repeats find their event, a tenth message is combined, a
// group that went quiet starts over but its events can still be bumped,
// and the spam bucket lets a burst through and then refills.
func TestObjectMemoryCorrelates(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	newMemory := func() *objectMemory {
		om := &objectMemory{bucket: spamBucket{tokens: spamBurst, when: t0}}
		om.groups, om.written = om.group0[:0], om.written0[:0]
		return om
	}

	t.Run("repeats bump their own event; types and reasons keep theirs apart", func(t *testing.T) {
		om := newMemory()
		slot, combined := om.aggregate("Normal", "Started", "Started containers", t0)
		first := om.writtenFor("Normal", "Started", slot)
		assert.Same(t, &om.event0, first, "the first event lives in the memory")
		assert.Equal(t, "Started containers", slot)
		assert.False(t, combined)
		slot, _ = om.aggregate("Normal", "Started", "Started containers", t0)
		assert.Same(t, first, om.writtenFor("Normal", "Started", slot))
		slot, _ = om.aggregate("Warning", "Started", "Started containers", t0)
		assert.NotSame(t, first, om.writtenFor("Warning", "Started", slot))
		slot, _ = om.aggregate("Normal", "Pulled", "Started containers", t0)
		assert.NotSame(t, first, om.writtenFor("Normal", "Pulled", slot))
		assert.Len(t, om.groups, 3)
		assert.Len(t, om.written, 3)
	})

	t.Run("the tenth different message is combined, and so are the later ones", func(t *testing.T) {
		om := newMemory()
		var slots []string
		for i := range aggregateMaxEvents + 2 {
			slot, combined := om.aggregate("Normal", "SuccessfulCreate", fmt.Sprintf("Created pod: p%d", i), t0)
			if i < aggregateMaxEvents-1 {
				assert.Equal(t, fmt.Sprintf("Created pod: p%d", i), slot)
				assert.False(t, combined)
			} else {
				assert.Equal(t, combinedPrefix, slot)
				assert.True(t, combined)
			}
			slots = append(slots, slot)
		}
		w := om.writtenFor("Normal", "SuccessfulCreate", slots[aggregateMaxEvents-1])
		assert.Same(t, w, om.writtenFor("Normal", "SuccessfulCreate", slots[aggregateMaxEvents+1]))
		slot, combined := om.aggregate("Normal", "SuccessfulCreate", "Created pod: p0", t0)
		assert.Equal(t, "Created pod: p0", slot, "an early message still bumps its own event")
		assert.False(t, combined)
	})

	t.Run("a group quiet past the interval starts over; its events stay", func(t *testing.T) {
		om := newMemory()
		for i := range aggregateMaxEvents - 1 {
			om.aggregate("Normal", "SuccessfulCreate", fmt.Sprintf("Created pod: p%d", i), t0)
		}
		slot, _ := om.aggregate("Normal", "SuccessfulCreate", "Created pod: p0", t0)
		w := om.writtenFor("Normal", "SuccessfulCreate", slot)
		later := t0.Add(aggregateInterval + time.Second)
		slot, combined := om.aggregate("Normal", "SuccessfulCreate", "Created pod: p99", later)
		assert.Equal(t, "Created pod: p99", slot)
		assert.False(t, combined, "not combined: the group started over")
		assert.Equal(t, 1, om.groups[0].count())
		slot, _ = om.aggregate("Normal", "SuccessfulCreate", "Created pod: p0", later)
		assert.Same(t, w, om.writtenFor("Normal", "SuccessfulCreate", slot))
	})

	t.Run("the spam bucket lets a burst through, then one per refill", func(t *testing.T) {
		om := newMemory()
		for range spamBurst {
			require.True(t, om.bucket.allow(t0))
		}
		assert.False(t, om.bucket.allow(t0))
		assert.False(t, om.bucket.allow(t0.Add(spamRefill/2)))
		assert.True(t, om.bucket.allow(t0.Add(spamRefill)))
		assert.False(t, om.bucket.allow(t0.Add(spamRefill)))
	})
}
