package httpapi

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/protobuf"
)

// TestEncodings checks the shared watch encodings: one object is encoded
// once per format, another object with equal content separately, and the
// oldest entry goes when the cache is full.
func TestEncodings(t *testing.T) {
	c := newEncodings(3)
	a := &api.Pod{Metadata: api.ObjectMeta{Name: "a"}}
	b := &api.Pod{Metadata: api.ObjectMeta{Name: "a"}}
	first, err := c.encode(a, formatJSON, "v1", "Pod")
	require.NoError(t, err)
	assert.JSONEq(t, `{"metadata":{"name":"a","creationTimestamp":null},"spec":{"containers":null},"status":{}}`, string(first))
	again, err := c.encode(a, formatJSON, "v1", "Pod")
	require.NoError(t, err)
	assert.Same(t, &first[0], &again[0], "a hit returns the cached bytes")
	proto, err := c.encode(a, formatProtobuf, "v1", "Pod")
	require.NoError(t, err)
	u, err := protobuf.UnmarshalEnvelope(proto)
	require.NoError(t, err)
	assert.Equal(t, "Pod", u.Kind, "the protobuf encoding is cached apart from the JSON one")
	other, err := c.encode(b, formatJSON, "v1", "Pod")
	require.NoError(t, err)
	assert.NotSame(t, &first[0], &other[0], "identity, not content, is the key")

	_, err = c.encode(&api.Pod{}, formatJSON, "v1", "Pod") // a fourth entry evicts a's JSON, the oldest
	require.NoError(t, err)
	assert.Len(t, c.byObj, 3)
	_, hasA := c.byObj[encodingKey{obj: a, f: formatJSON}] // by identity: testify's Contains compares values
	_, hasAProto := c.byObj[encodingKey{obj: a, f: formatProtobuf}]
	_, hasB := c.byObj[encodingKey{obj: b, f: formatJSON}]
	assert.False(t, hasA)
	assert.True(t, hasAProto)
	assert.True(t, hasB)
}
