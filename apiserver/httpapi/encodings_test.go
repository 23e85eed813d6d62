package httpapi

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
)

// TestEncodings checks the shared watch encodings: one object is encoded
// once, another object with equal content separately, and the oldest
// entry goes when the cache is full.
func TestEncodings(t *testing.T) {
	c := newEncodings(2)
	a := &api.Pod{Metadata: api.ObjectMeta{Name: "a"}}
	b := &api.Pod{Metadata: api.ObjectMeta{Name: "a"}}
	first, err := c.encode(a)
	require.NoError(t, err)
	assert.JSONEq(t, `{"metadata":{"name":"a","creationTimestamp":null},"spec":{"containers":null},"status":{}}`, string(first))
	again, err := c.encode(a)
	require.NoError(t, err)
	assert.Same(t, &first[0], &again[0], "a hit returns the cached bytes")
	other, err := c.encode(b)
	require.NoError(t, err)
	assert.NotSame(t, &first[0], &other[0], "identity, not content, is the key")

	_, err = c.encode(&api.Pod{}) // a third object evicts a, the oldest
	require.NoError(t, err)
	assert.Len(t, c.byObj, 2)
	_, hasA := c.byObj[a] // by identity: testify's Contains compares values
	_, hasB := c.byObj[b]
	assert.False(t, hasA)
	assert.True(t, hasB)
}
