package ui

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/sim"
)

// gadget installs the simulator's Gadget definition (a kind no list in
// this package names, so the page can know it only from discovery) unless
// installed, and creates the Gadget name with spec.size size.
func (c *cluster) gadget(name string, size int64) *api.Unstructured {
	c.t.Helper()
	if _, ok := c.srv.Resource("gadgets.gadgets.example.com"); !ok {
		_, err := c.srv.Create(as("kubectl-client-side-apply"), sim.GadgetDefinition())
		require.NoError(c.t, err)
	}
	out, err := c.srv.Create(as("kubectl-client-side-apply"), &api.Unstructured{
		TypeMeta: api.TypeMeta{APIVersion: "gadgets.example.com/v1", Kind: "Gadget"},
		Metadata: api.ObjectMeta{Namespace: "default", Name: name},
		Content:  api.JSONObject{"spec": map[string]any{"size": size}},
	})
	require.NoError(c.t, err)
	return out.(*api.Unstructured)
}

// ownerRef returns a controller reference to the Gadget g.
func ownerRef(g *api.Unstructured) []api.OwnerReference {
	yes := true
	return []api.OwnerReference{{APIVersion: g.APIVersion, Kind: g.Kind, Name: g.Metadata.Name, UID: g.Metadata.UID, Controller: &yes}}
}

// TestCustomResourcesOnThePage: a custom kind is listed from discovery
// with its objects and their owner links both ways (a Gadget owning a
// ConfigMap and a pod; a Gadget owned by another), its writes are timeline
// rows and diffs like a built-in kind's, and a snapshot at an earlier
// revision shows the Gadget as it was then.
func TestCustomResourcesOnThePage(t *testing.T) {
	c := newCluster(t, 0)
	var none Snapshot
	require.Equal(t, http.StatusOK, c.get("/ui/api/snapshot", &none))
	assert.Empty(t, none.Custom, "no definition, no custom kind")

	big := c.gadget("big", 1)
	before := c.rev()
	_, err := c.srv.Create(as("gadget-operator"), &api.ConfigMap{Metadata: api.ObjectMeta{Namespace: "default", Name: "big-config", OwnerReferences: ownerRef(big)}})
	require.NoError(t, err)
	pod := &api.Pod{Metadata: api.ObjectMeta{Namespace: "default", Name: "big-worker", OwnerReferences: ownerRef(big)}}
	pod.Spec.Containers = []api.Container{{Name: "c", Image: "busybox"}}
	_, err = c.srv.Create(as("gadget-operator"), pod)
	require.NoError(t, err)
	small := c.gadget("small", 2).DeepCopy()
	small.Metadata.OwnerReferences = ownerRef(big)
	_, err = c.srv.Update(as("gadget-operator"), small)
	require.NoError(t, err)

	obj, err := c.srv.Get(context.Background(), "gadgets.gadgets.example.com", "default", "big", client.GetOptions{})
	require.NoError(t, err)
	grown := obj.(*api.Unstructured).DeepCopy()
	grown.Content["spec"] = map[string]any{"size": int64(3)}
	_, err = c.srv.Update(as("kubectl-edit"), grown)
	require.NoError(t, err)
	grew := c.rev()

	var now Snapshot
	require.Equal(t, http.StatusOK, c.get("/ui/api/snapshot", &now))
	require.Len(t, now.Custom, 1)
	k := now.Custom[0]
	assert.Equal(t, []string{"gadgets.example.com", "v1", "Gadget", "gadgets"}, []string{k.Group, k.Version, k.Kind, k.Resource})
	assert.True(t, k.Namespaced)
	require.Len(t, k.Objects, 2)
	assert.Equal(t, "big", k.Objects[0].Name)
	assert.Equal(t, int64(2), k.Objects[0].Generation, "the spec change bumped it")
	assert.Equal(t, []LinkView{
		{Kind: "ConfigMap", Namespace: "default", Name: "big-config", Controller: true},
		{Kind: "Gadget", Namespace: "default", Name: "small", Controller: true},
		{Kind: "Pod", Namespace: "default", Name: "big-worker", Controller: true},
	}, k.Objects[0].Owns)
	assert.Empty(t, k.Objects[0].Owners)
	assert.Equal(t, []LinkView{{Kind: "Gadget", Namespace: "default", Name: "big", Controller: true}}, k.Objects[1].Owners)

	var then Snapshot
	require.Equal(t, http.StatusOK, c.get(fmt.Sprintf("/ui/api/snapshot?revision=%d", before), &then))
	require.Len(t, then.Custom, 1)
	require.Len(t, then.Custom[0].Objects, 1, "small did not exist yet")
	assert.Equal(t, int64(1), then.Custom[0].Objects[0].Generation)
	assert.Empty(t, then.Custom[0].Objects[0].Owns, "nothing owned it yet")

	tl := rowsOf(t, c, "/ui/api/timeline?kind=Gadget")
	var rows []string
	for _, r := range tl.Rows {
		rows = append(rows, fmt.Sprintf("%s %s %s", r.Verb, r.Object(), r.Actor))
	}
	assert.Equal(t, []string{
		"MODIFIED Gadget/default/big kubectl-edit",
		"MODIFIED Gadget/default/small gadget-operator",
		"ADDED Gadget/default/small kubectl-client-side-apply",
		"ADDED Gadget/default/big kubectl-client-side-apply",
	}, rows)
	assert.Contains(t, tl.Rows[0].Changes, Change{Path: "spec.size", From: float64(1), To: float64(3)})

	var d Diff
	require.Equal(t, http.StatusOK, c.get(fmt.Sprintf("/ui/api/diff?from=%d&to=%d", grew-1, grew), &d))
	require.Len(t, d.Objects, 1)
	assert.Equal(t, "Gadget", d.Objects[0].Kind)
	assert.Contains(t, d.Objects[0].Changes, Change{Path: "spec.size", From: float64(1), To: float64(3)})
}
