package informer

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/miniplane/miniplane/api"
)

// TestNodeNameIndexValues: a pod is indexed by its node, each node's values
// made once; an unbound pod, or another kind, by nothing.
func TestNodeNameIndexValues(t *testing.T) {
	v := new(nodeNameValues)
	bound := func(node string) api.Object { return &api.Pod{Spec: api.PodSpec{NodeName: node}} }
	a := v.podNodeName(bound("node-0"))
	assert.Equal(t, []string{"node-0"}, a)
	again := v.podNodeName(bound("node-0"))
	assert.Equal(t, []string{"node-0"}, again)
	assert.Same(t, &a[0], &again[0], "made once per node")
	assert.Equal(t, []string{"node-1"}, v.podNodeName(bound("node-1")))
	assert.Nil(t, v.podNodeName(bound("")))
	assert.Nil(t, v.podNodeName(&api.Node{}))
}
