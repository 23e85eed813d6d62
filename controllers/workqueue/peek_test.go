package workqueue_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPeekNamesWhatTryGetHandsOut(t *testing.T) {
	q, _ := newQueue(false)
	_, ok := q.Peek()
	assert.False(t, ok, "empty queue")
	q.Add("a")
	q.Add("b")
	for _, want := range []string{"a", "b"} {
		got, ok := q.Peek()
		require.True(t, ok)
		assert.Equal(t, want, got)
		item, ok, _ := q.TryGet()
		require.True(t, ok)
		assert.Equal(t, got, item, "Peek does not take the item")
		q.Done(item)
	}
}

func TestHoldsWaitingInFlightAndDelayed(t *testing.T) {
	q, clk := newQueue(true)
	assert.False(t, q.Holds("a"))
	q.Add("a")
	assert.True(t, q.Holds("a"), "waiting")
	item, _, _ := q.TryGet()
	assert.True(t, q.Holds(item), "in flight")
	q.Done(item)
	assert.False(t, q.Holds("a"), "done")
	q.AddAfter("a", time.Second)
	assert.True(t, q.Holds("a"), "delayed")
	clk.Step(time.Second)
	assert.True(t, q.Holds("a"), "due: waiting")
	assert.Equal(t, []string{"a"}, takeReady(q))
	assert.False(t, q.Holds("a"))
}
