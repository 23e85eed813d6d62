package httpapi

import (
	"sync"

	"github.com/miniplane/miniplane/api"
)

// encodingCacheSize is how many object encodings the watch streams share.
// A burst of writes watched by many clients is encoded once per object
// while the burst is shorter than this.
const encodingCacheSize = 4096

// encodings remembers the encodings (JSON, or enveloped protobuf) of the
// objects watch events carried last, by identity and format, so that N
// watchers of one change encode it once per format instead of N times. This is sound because the Server's objects are immutable once
// stored: one pointer always encodes to the same bytes, and a cached
// object is kept alive by the cache, so its address is not reused.
// Kubernetes' watch cache does the same with its cachingObject.
type encodings struct {
	// mu guards byObj and ring; ring holds the keys of byObj in the order
	// they were added, next is the slot the next one replaces.
	mu    sync.Mutex
	byObj map[encodingKey][]byte
	ring  []encodingKey
	next  int
}

// encodingKey is one object in one format.
type encodingKey struct {
	obj api.Object
	f   format
}

func newEncodings(size int) *encodings {
	return &encodings{byObj: make(map[encodingKey][]byte, size), ring: make([]encodingKey, size)}
}

// encode returns obj's encoding in f (protobuf in the envelope naming
// apiVersion and kind), from the cache when obj was encoded lately. The
// bytes are shared: do not change them.
func (c *encodings) encode(obj api.Object, f format, apiVersion, kind string) ([]byte, error) {
	key := encodingKey{obj: obj, f: f}
	c.mu.Lock()
	b, ok := c.byObj[key]
	c.mu.Unlock()
	if ok {
		return b, nil
	}
	b, err := encodeValue(f, apiVersion, kind, obj)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byObj[key]; ok {
		return b, nil // another stream encoded it meanwhile
	}
	if old := c.ring[c.next]; old.obj != nil {
		delete(c.byObj, old)
	}
	c.ring[c.next] = key
	c.next = (c.next + 1) % len(c.ring)
	c.byObj[key] = b
	return b, nil
}
