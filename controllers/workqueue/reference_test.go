package workqueue

// The queue's contract, read this first: client-go's work queue written as
// plainly as possible. Queue (queue.go) is the tuned version — slot arrays,
// flags packed in a word, batched releases — and TestAgainstModel
// (invariants_test.go) holds it to this model on seeded random operations.

import (
	"cmp"
	"slices"
	"time"
)

// model is client-go's queue contract written as plainly as possible: a
// slice for the queue, sets for dirty and processing, a list of delayed items.
type model struct {
	now          time.Duration
	queue        []string
	dirty        map[string]bool
	processing   map[string]bool
	delayed      []modelDelayed
	seq          int
	shuttingDown bool
}

type modelDelayed struct {
	item    string
	readyAt time.Duration
	seq     int
}

func (m *model) add(item string) {
	if m.dirty[item] {
		return
	}
	m.dirty[item] = true
	if !m.processing[item] {
		m.queue = append(m.queue, item)
	}
}

func (m *model) tryGet() (string, bool) {
	if len(m.queue) == 0 {
		return "", false
	}
	item := m.queue[0]
	m.queue = m.queue[1:]
	delete(m.dirty, item)
	m.processing[item] = true
	return item, true
}

func (m *model) done(item string) {
	if !m.processing[item] {
		return
	}
	delete(m.processing, item)
	if m.dirty[item] {
		m.queue = append(m.queue, item)
	}
}

func (m *model) addAfter(item string, d time.Duration) {
	if d <= 0 {
		m.add(item)
		return
	}
	m.seq++
	for i, e := range m.delayed {
		if e.item == item {
			if m.now+d < e.readyAt {
				m.delayed[i] = modelDelayed{item, m.now + d, m.seq}
			}
			return
		}
	}
	m.delayed = append(m.delayed, modelDelayed{item, m.now + d, m.seq})
}

// holds reports whether item is waiting, in flight or delayed.
func (m *model) holds(item string) bool {
	if m.dirty[item] || m.processing[item] {
		return true
	}
	return slices.ContainsFunc(m.delayed, func(e modelDelayed) bool { return e.item == item })
}

func (m *model) sortDelayed() {
	slices.SortFunc(m.delayed, func(a, b modelDelayed) int {
		return cmp.Or(cmp.Compare(a.readyAt, b.readyAt), cmp.Compare(a.seq, b.seq))
	})
}

func (m *model) step(d time.Duration) {
	m.now += d
	m.sortDelayed()
	for len(m.delayed) > 0 && m.delayed[0].readyAt <= m.now {
		m.add(m.delayed[0].item)
		m.delayed = m.delayed[1:]
	}
}
