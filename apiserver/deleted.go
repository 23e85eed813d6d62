package apiserver

import (
	"sync"

	"github.com/miniplane/miniplane/api"
)

// deletedSlots is how many recent deletions deletedObjects remembers: more
// than the watches of a kind are apart in a burst of deletions, mostly.
const deletedSlots = 1024

// deletedObjects shares the object of a DELETED event among the watches
// that deliver it. That object is the deleted object with the deletion's
// resourceVersion (withRV), a copy made for the event; without sharing,
// every watch of pods made its own copy of each pod a scale-down removes.
// The copy is never changed after it is made (watch events carry shared,
// immutable objects, as the store's do), so watches may share it; and
// whichever watch makes it first makes the same object any other would,
// since it depends on the deleted object and the revision alone. A
// revision whose slot a later deletion took is made again: a watch far
// behind the others gets a copy of its own.
type deletedObjects struct {
	// mu guards slots; slot rev%deletedSlots holds the last deletion made
	// for a revision that falls there.
	mu    sync.Mutex
	slots [deletedSlots]deletedObject
}

type deletedObject struct {
	rev  int64
	prev api.Object // the object deleted at rev, as the store held it
	obj  api.Object // withRV(prev, rev)
}

// get returns withRV(prev, rev), made once for every watch that asks.
func (d *deletedObjects) get(prev api.Object, rev int64) api.Object {
	d.mu.Lock()
	defer d.mu.Unlock()
	slot := &d.slots[rev%deletedSlots]
	if slot.rev != rev || slot.prev != prev {
		*slot = deletedObject{rev: rev, prev: prev, obj: withRV(prev, rev)}
	}
	return slot.obj
}
