package httpapi

import (
	"encoding/json"
	"sync"

	"github.com/miniplane/miniplane/api"
)

// encodingCacheSize is how many object encodings the watch streams share.
// A burst of writes watched by many clients is encoded once per object
// while the burst is shorter than this.
const encodingCacheSize = 4096

// encodings remembers the JSON of the objects watch events carried last,
// by identity, so that N watchers of one change encode it once instead of
// N times. This is sound because the Server's objects are immutable once
// stored: one pointer always encodes to the same bytes, and a cached
// object is kept alive by the cache, so its address is not reused.
// Kubernetes' watch cache does the same with its cachingObject.
type encodings struct {
	// mu guards byObj and ring; ring holds the keys of byObj in the order
	// they were added, next is the slot the next one replaces.
	mu    sync.Mutex
	byObj map[api.Object][]byte
	ring  []api.Object
	next  int
}

func newEncodings(size int) *encodings {
	return &encodings{byObj: make(map[api.Object][]byte, size), ring: make([]api.Object, size)}
}

// encode returns obj's JSON, from the cache when obj was encoded lately.
// The bytes are shared: do not change them.
func (c *encodings) encode(obj api.Object) ([]byte, error) {
	c.mu.Lock()
	b, ok := c.byObj[obj]
	c.mu.Unlock()
	if ok {
		return b, nil
	}
	b, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byObj[obj]; ok {
		return b, nil // another stream encoded it meanwhile
	}
	if old := c.ring[c.next]; old != nil {
		delete(c.byObj, old)
	}
	c.ring[c.next] = obj
	c.next = (c.next + 1) % len(c.ring)
	c.byObj[obj] = b
	return b, nil
}
