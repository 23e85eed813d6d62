package replication

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/miniplane/miniplane/clock"
)

var t0 = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

func TestExpectations(t *testing.T) {
	const key = "default/web"
	tests := []struct {
		name          string
		act           func(e *Expectations, clk *clock.Fake)
		wantSatisfied bool
		wantAdd       int
		wantDel       int
	}{
		{
			name:          "no record is satisfied",
			act:           func(*Expectations, *clock.Fake) {},
			wantSatisfied: true,
		},
		{
			name:          "pending creations block",
			act:           func(e *Expectations, _ *clock.Fake) { e.ExpectCreations(key, 2); e.CreationObserved(key) },
			wantSatisfied: false, wantAdd: 1,
		},
		{
			name: "all creations observed",
			act: func(e *Expectations, _ *clock.Fake) {
				e.ExpectCreations(key, 2)
				e.CreationObserved(key)
				e.CreationObserved(key)
			},
			wantSatisfied: true,
		},
		{
			name: "more observations than expected still satisfied",
			act: func(e *Expectations, _ *clock.Fake) {
				e.ExpectCreations(key, 1)
				e.CreationObserved(key)
				e.CreationObserved(key)
			},
			wantSatisfied: true, wantAdd: -1,
		},
		{
			name: "a deletion seen twice counts once",
			act: func(e *Expectations, _ *clock.Fake) {
				e.ExpectDeletions(key, []string{"default/a", "default/b"})
				e.DeletionObserved(key, "default/a") // deletionTimestamp set
				e.DeletionObserved(key, "default/a") // then gone
			},
			wantSatisfied: false, wantDel: 1,
		},
		{
			name: "an unexpected pod's deletion does not count",
			act: func(e *Expectations, _ *clock.Fake) {
				e.ExpectDeletions(key, []string{"default/a"})
				e.DeletionObserved(key, "default/other")
			},
			wantSatisfied: false, wantDel: 1,
		},
		{
			name: "expected deletions all observed",
			act: func(e *Expectations, _ *clock.Fake) {
				e.ExpectDeletions(key, []string{"default/a", "default/b"})
				e.DeletionObserved(key, "default/b")
				e.DeletionObserved(key, "default/a")
			},
			wantSatisfied: true,
		},
		{
			name: "not yet expired at the timeout",
			act: func(e *Expectations, clk *clock.Fake) {
				e.ExpectCreations(key, 3)
				clk.Step(ExpectationsTimeout)
			},
			wantSatisfied: false, wantAdd: 3,
		},
		{
			name: "expired after the timeout",
			act: func(e *Expectations, clk *clock.Fake) {
				e.ExpectCreations(key, 3)
				clk.Step(ExpectationsTimeout + time.Second)
			},
			wantSatisfied: true, wantAdd: 3,
		},
		{
			name: "setting again resets the timer and the counts",
			act: func(e *Expectations, clk *clock.Fake) {
				e.ExpectDeletions(key, []string{"default/a"})
				clk.Step(ExpectationsTimeout)
				e.ExpectCreations(key, 1)
				clk.Step(time.Minute)
				e.DeletionObserved(key, "default/a")
			},
			wantSatisfied: false, wantAdd: 1,
		},
		{
			name: "delete forgets the record",
			act: func(e *Expectations, _ *clock.Fake) {
				e.ExpectCreations(key, 3)
				e.Delete(key)
				e.CreationObserved(key) // late observation: no effect
			},
			wantSatisfied: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := clock.NewFake(t0)
			e := NewExpectations(clk)
			tt.act(e, clk)
			assert.Equal(t, tt.wantSatisfied, e.Satisfied(key))
			add, del, _ := e.Get(key)
			assert.Equal(t, tt.wantAdd, add, "add")
			assert.Equal(t, tt.wantDel, del, "del")
		})
	}
}
