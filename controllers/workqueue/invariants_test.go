package workqueue

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/clock"
)

// checkInvariants checks what the comments on Queue's fields promise.
func (q *Queue[T]) checkInvariants() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	queued := map[T]bool{}
	for i := range q.queue.Len() {
		e := q.queue.At(i)
		if queued[e.item] {
			return fmt.Errorf("%v is queued twice", e.item)
		}
		queued[e.item] = true
		if slot, ok := q.items[e.item]; !ok || slot != e.state {
			return fmt.Errorf("%v is queued with state slot %d, items says %d (held %t)", e.item, e.state, slot, ok)
		}
		if word := q.states[e.state].word; word&^(delayed|releasing) != dirty {
			return fmt.Errorf("%v is queued with state %b, want dirty (and maybe delayed, releasing) only", e.item, word)
		}
	}
	processingN, delayedN := 0, 0
	owners := map[uint64]T{}
	stateOwners := map[uint32]T{}
	for item, slot := range q.items {
		if slot >= uint32(len(q.states)) {
			return fmt.Errorf("%v owns state slot %d of %d", item, slot, len(q.states))
		}
		if other, ok := stateOwners[slot]; ok {
			return fmt.Errorf("%v and %v own state slot %d", item, other, slot)
		}
		stateOwners[slot] = item
		word := q.states[slot].word
		if word&delayed != 0 {
			delayedN++
			if ds := q.states[slot].delay; int(ds) >= len(q.delayed.entries) ||
				q.delayed.entries[ds].item != item || q.delayed.entries[ds].state != slot {
				return fmt.Errorf("%v (state %d) is delayed in entry %d, which is not its", item, slot, ds)
			}
		} else if q.states[slot].delay != 0 {
			return fmt.Errorf("%v is not delayed but names delayed entry %d", item, q.states[slot].delay)
		}
		switch {
		case word&flagMask == 0:
			return fmt.Errorf("%v is in items with no flag", item)
		case word&processing != 0:
			processingN++
			if queued[item] {
				return fmt.Errorf("%v is both queued and processing", item)
			}
			fs := word >> flagBits
			if other, ok := owners[fs]; ok {
				return fmt.Errorf("%v and %v own flight slot %d", item, other, fs)
			}
			owners[fs] = item
			if fs >= uint64(len(q.flights)) || !q.flights[fs].inUse {
				return fmt.Errorf("%v owns flight slot %d, which is not in use", item, fs)
			}
			if f := q.flights[fs]; f.item != item || f.state != slot {
				return fmt.Errorf("flight slot %d of %v (state %d) holds %v (state %d)", fs, item, slot, f.item, f.state)
			}
		case word&dirty == 0:
			if word&^releasing != delayed && word != releasing {
				return fmt.Errorf("%v is neither dirty nor processing, state %b, want delayed or releasing", item, word)
			}
			if queued[item] {
				return fmt.Errorf("%v is queued but not dirty", item)
			}
		case !queued[item]:
			return fmt.Errorf("%v is dirty, not processing, and not queued", item)
		case word>>flagBits != 0:
			return fmt.Errorf("%v is not in flight but names flight slot %d", item, word>>flagBits)
		}
	}
	if len(q.items)+len(q.freeStates) != len(q.states) {
		return fmt.Errorf("states: %d held + %d free != %d", len(q.items), len(q.freeStates), len(q.states))
	}
	for _, slot := range q.freeStates {
		if _, ok := stateOwners[slot]; ok || q.states[slot] != (itemState{}) {
			return fmt.Errorf("free state slot %d is owned or not zero (%+v)", slot, q.states[slot])
		}
		stateOwners[slot] = *new(T)
	}
	if processingN != q.processing {
		return fmt.Errorf("processing counts %d, items hold %d", q.processing, processingN)
	}
	inUse := 0
	for _, f := range q.flights {
		if f.inUse {
			inUse++
		}
	}
	if inUse != processingN || len(q.freeFlights) != len(q.flights)-inUse {
		return fmt.Errorf("flights: %d in use, %d free of %d, for %d in flight",
			inUse, len(q.freeFlights), len(q.flights), processingN)
	}
	if err := q.delayed.check(); err != nil {
		return err
	}
	for _, slot := range q.delayed.heap {
		e := q.delayed.entries[slot]
		if s, ok := q.items[e.item]; !ok || s != e.state || q.states[s].word&delayed == 0 || q.states[s].delay != slot {
			return fmt.Errorf("delayed entry %d of %v (state %d): items says %d (held %t), state %+v", slot, e.item, e.state, s, ok, q.states[s])
		}
	}
	listed := map[T]bool{}
	for _, r := range q.releases {
		if listed[r.item] {
			return fmt.Errorf("%v is in releases twice", r.item)
		}
		listed[r.item] = true
		if s, ok := q.items[r.item]; !ok || s != r.state || q.states[s].word&releasing == 0 {
			return fmt.Errorf("release of %v (state %d): items says %d (held %t), state %+v", r.item, r.state, s, ok, q.states[s])
		}
	}
	for item, slot := range q.items {
		if q.states[slot].word&releasing != 0 && !listed[item] {
			return fmt.Errorf("%v is flagged releasing but not in releases", item)
		}
	}
	if len(q.releases) >= q.releaseBatch {
		return fmt.Errorf("%d releases listed, the sweep is at %d", len(q.releases), q.releaseBatch)
	}
	if delayedN != q.delayed.len() {
		return fmt.Errorf("%d items are flagged delayed, %d entries are pending", delayedN, q.delayed.len())
	}
	if q.shuttingDown && !q.drainedClosed && q.drained != nil &&
		q.queue.Len() == 0 && q.processing == 0 && q.delayed.len() == 0 {
		return fmt.Errorf("drained but the drain channel is open")
	}
	return nil
}

// checkFlightOf checks that flightOfLocked's two ways agree for each of
// items, held or not: the scan of flights and the lookup through items; and
// that heldStateLocked, which looks among the flights first, agrees with
// items.
func (q *Queue[T]) checkFlightOf(items []T) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, item := range items {
		scanSlot, scanOK := q.flightByScanLocked(item)
		slot, ok := q.flightByItemsLocked(item)
		if scanSlot != slot || scanOK != ok {
			return fmt.Errorf("flight of %v: by scan %d, %t; through items %d, %t", item, scanSlot, scanOK, slot, ok)
		}
		heldSlot, held := q.heldStateLocked(item)
		if itemsSlot, inItems := q.items[item]; heldSlot != itemsSlot || held != inItems {
			return fmt.Errorf("state of %v: heldStateLocked says %d, %t; items says %d, %t", item, heldSlot, held, itemsSlot, inItems)
		}
	}
	return nil
}

// check checks what the comment on delayHeap promises.
func (d *delayHeap[T]) check() error {
	if len(d.heap)+len(d.free) != len(d.entries) {
		return fmt.Errorf("delay heap %d + free %d != %d entries", len(d.heap), len(d.free), len(d.entries))
	}
	seen := map[uint32]bool{}
	for i, slot := range d.heap {
		e := d.entries[slot]
		if seen[slot] {
			return fmt.Errorf("slot %d is in the heap twice", slot)
		}
		seen[slot] = true
		if e.pos != i {
			return fmt.Errorf("entry of %v: slot %d at %d, pos says %d", e.item, slot, i, e.pos)
		}
		if i > 0 && d.less(i, (i-1)/2) {
			return fmt.Errorf("heap order broken at %d", i)
		}
	}
	for _, slot := range d.free {
		if seen[slot] {
			return fmt.Errorf("slot %d is both free and in the heap", slot)
		}
		seen[slot] = true
	}
	return nil
}

// TestAgainstModel drives the queue and the model with the same random
// operations, from fixed seeds, and checks that they agree and that the
// queue's invariants hold after every operation.
//
// Most seeds keep released items in the map and sweep them every few
// items; the rest run at the defaults, where a queue this small lets each
// item go at once: released items are let go, and come back before they
// are, every way. With 6 keys at most 6 are in
// flight, and Done finds its item by a scan of the flights; with 40 and fewer Dones than Gets, more than flightScanMax
// are in flight at times, and Done finds it through items.
func TestAgainstModel(t *testing.T) {
	many := make([]string, 40)
	for i := range many {
		many[i] = fmt.Sprint("k", i)
	}
	manyFlights := 0 // the most flights the many-keys case had
	defer func() {
		assert.Greater(t, manyFlights, flightScanMax, "Done never looked its item up through items")
	}()
	for seed := range uint64(60) {
		keys, doneBelow := []string{"a", "b", "c", "d", "e", "f"}, 80
		if seed >= 40 {
			keys, doneBelow = many, 68
		}
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 0))
			clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
			epoch := clk.Now()
			q := New(Config[string]{Clock: clk, Metrics: seed%2 == 0})
			if seed%4 != 3 {
				// Keep released items in the map whatever its size, and
				// sweep often: every 1 to 8 releases, so that items are
				// let go both at once and after being held again.
				q.releaseBatch, q.retainAbove = 1+int(seed%8), int(seed%3)
			}
			m := &model{dirty: map[string]bool{}, processing: map[string]bool{}}
			maxFlights := 0
			if seed >= 40 {
				defer func() { manyFlights = max(manyFlights, maxFlights) }()
			}
			for op := range 2000 {
				k := keys[rng.IntN(len(keys))]
				var what string
				switch r := rng.IntN(100); {
				case r < 30:
					what = "Add " + k
					q.Add(k)
					if !m.shuttingDown {
						m.add(k)
					}
				case r < 55:
					item, ok, _ := q.TryGet()
					wantItem, wantOK := m.tryGet()
					what = "TryGet"
					require.Equal(t, wantOK, ok, "op %d TryGet ok", op)
					require.Equal(t, wantItem, item, "op %d TryGet item", op)
				case r < doneBelow:
					if len(m.processing) > 0 && rng.IntN(10) > 0 {
						k = slices.Sorted(maps.Keys(m.processing))[rng.IntN(len(m.processing))]
					}
					what = "Done " + k
					q.Done(k)
					m.done(k)
				case r < 80:
					continue // the gap the many-keys case leaves to Get
				case r < 90:
					d := time.Duration(rng.IntN(5)) * time.Second
					what = fmt.Sprintf("AddAfter %s %v", k, d)
					q.AddAfter(k, d)
					if !m.shuttingDown {
						m.addAfter(k, d)
					}
				case r < 99:
					d := time.Duration(rng.IntN(3000)) * time.Millisecond
					what = fmt.Sprintf("Step %v", d)
					clk.Step(d)
					m.step(d)
				default:
					if op < 1500 {
						continue
					}
					what = "ShutDown"
					dropped := q.ShutDown()
					m.shuttingDown = true
					m.sortDelayed()
					var want []string
					for _, e := range m.delayed {
						want = append(want, e.item)
					}
					m.delayed = nil
					require.Equal(t, want, dropped, "op %d ShutDown dropped", op)
				}
				require.NoError(t, q.checkInvariants(), "after op %d: %s", op, what)
				require.NoError(t, q.checkFlightOf(keys), "after op %d: %s", op, what)
				for _, k := range keys {
					require.Equal(t, m.holds(k), q.Holds(k), "op %d (%s) Holds %s", op, what, k)
				}
				maxFlights = max(maxFlights, len(q.flights))
				require.Equal(t, len(m.queue), q.Len(), "op %d (%s) Len", op, what)
				next, ok := q.NextDelayed()
				m.sortDelayed()
				require.Equal(t, len(m.delayed) > 0, ok, "op %d NextDelayed ok", op)
				if ok {
					require.Equal(t, epoch.Add(m.delayed[0].readyAt), next, "op %d NextDelayed", op)
				}
			}
		})
	}
}
