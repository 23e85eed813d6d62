package apiserver

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
)

// TestDeletedObjectsIsWithRV checks the shared DELETED-event objects
// against withRV, the copy each watch made before: on a random sequence of
// asks, some repeated (as every watch of a kind asks), some far apart (a
// revision whose slot was taken since), some for another object at the
// same revision (another server's store: never in one server, but the
// memo must not care), the answer equals withRV's, and a repeated ask gets
// the object made for the first while its slot still holds it.
func TestDeletedObjectsIsWithRV(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 6))
	var d deletedObjects
	objs := make([]api.Object, 8)
	for i := range objs {
		objs[i] = &api.Pod{Metadata: api.ObjectMeta{Name: "p" + strconv.Itoa(i), ResourceVersion: "1"}}
	}
	type ask struct {
		prev api.Object
		rev  int64
	}
	var asked []ask
	var shared int
	for range 20000 {
		a := ask{prev: objs[rng.IntN(len(objs))], rev: int64(1 + rng.IntN(3*deletedSlots))}
		if len(asked) > 0 && rng.IntN(2) == 0 {
			a = asked[len(asked)-1-rng.IntN(min(len(asked), 4))] // a recent one, again
		}
		before := d.slots[a.rev%deletedSlots]
		got := d.get(a.prev, a.rev)
		require.Equal(t, withRV(a.prev, a.rev), got)
		if before.rev == a.rev && before.prev == a.prev {
			require.Same(t, before.obj, got, "made once while its slot holds it")
			shared++
		}
		assert.Equal(t, "1", a.prev.GetObjectMeta().ResourceVersion, "the deleted object is not changed")
		asked = append(asked, a)
	}
	assert.Greater(t, shared, 5000)
}
