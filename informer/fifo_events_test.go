package informer

// pushEvents is the reflector's batch path into the FIFO, so this test is
// inside the package.

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/client"
)

// TestPushEventsQueuesAsOneByOne: a batch of watch events, longer than one
// chunk and mixing every type, queues exactly what Add, Update and Delete
// called one by one queue — same keys, same order, same deltas.
func TestPushEventsQueuesAsOneByOne(t *testing.T) {
	pod := func(name string, rv int) *api.Pod {
		return &api.Pod{Metadata: api.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: fmt.Sprint(rv)}}
	}
	cachedPod := pod("cached", 1)
	var evs []client.WatchEvent
	for i := range 3 * pushEventsChunk {
		name := fmt.Sprintf("p%d", i%(pushEventsChunk+5)) // keys recur across chunks
		switch i % 4 {
		case 0:
			evs = append(evs, client.WatchEvent{Type: api.WatchAdded, Object: pod(name, i+2)})
		case 1:
			evs = append(evs, client.WatchEvent{Type: api.WatchModified, Object: pod(name, i+2)})
		case 2:
			evs = append(evs, client.WatchEvent{Type: api.WatchDeleted, Object: pod(name, i+2)})
		case 3:
			evs = append(evs, client.WatchEvent{Type: api.WatchBookmark, Object: &api.Pod{Metadata: api.ObjectMeta{ResourceVersion: fmt.Sprint(i + 2)}}})
		}
	}
	evs = append(evs,
		client.WatchEvent{Type: api.WatchDeleted, Object: pod("cached", 500)},  // cached only: queued
		client.WatchEvent{Type: api.WatchDeleted, Object: pod("unknown", 501)}) // neither: ignored

	newFIFO := func() *DeltaFIFO {
		x := NewIndexer(nil)
		x.set(KeyOf(cachedPod), cachedPod)
		return NewDeltaFIFO(x)
	}
	oneByOne := newFIFO()
	for _, ev := range evs {
		switch ev.Type {
		case api.WatchAdded:
			oneByOne.Add(ev.Object)
		case api.WatchModified:
			oneByOne.Update(ev.Object)
		case api.WatchDeleted:
			oneByOne.Delete(ev.Object)
		}
	}
	batched := newFIFO()
	keys := make([]string, len(evs))
	for i, ev := range evs {
		if ev.Type != api.WatchBookmark {
			keys[i] = KeyOf(ev.Object)
		}
	}
	ents := make([]*entry, len(evs))
	batched.heldKeys(evs, keys, ents) // the cached key's hint: its delete is queued by it
	batched.pushEvents(evs, keys, ents)

	drain := func(f *DeltaFIFO) (out []string) {
		for {
			key, ds, _, ok := f.Pop()
			if !ok {
				return out
			}
			line := key + ":"
			for _, d := range ds {
				line += " " + string(d.Type) + "@" + d.Object.(api.Object).GetObjectMeta().ResourceVersion
			}
			out = append(out, line)
		}
	}
	want := drain(oneByOne)
	assert.Greater(t, len(want), pushEventsChunk, "keys from every chunk")
	assert.Contains(t, want, "ns/cached: Deleted@500", "a delete of a cached key is queued")
	assert.NotContains(t, fmt.Sprint(want), "unknown", "a delete of a key neither queued nor cached is not")
	assert.Equal(t, want, drain(batched))
}
