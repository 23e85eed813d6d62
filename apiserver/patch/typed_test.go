package patch

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
)

// store round-trips obj through the typed api.ReplicationController, as the apiserver
// stores it.
func store(t *testing.T, obj []byte) []byte {
	t.Helper()
	var rc api.ReplicationController
	require.NoError(t, json.Unmarshal(obj, &rc))
	out, err := json.Marshal(&rc)
	require.NoError(t, err)
	return out
}

// TestOwnershipSurvivesTypedStorage runs kubectl apply --server-side, kubectl scale (a
// merge patch of the scale subresource, by manager "kubectl" as kube-apiserver names a
// kubectl request without a fieldManager) and apply again, with every object stored as
// api types in between: the managed fields must survive storage for the last apply to
// see the conflict.
func TestOwnershipSurvivesTypedStorage(t *testing.T) {
	applied, err := ServerSideApply("ReplicationController", nil, []byte(rcApplied), "kubectl", false, t0)
	require.NoError(t, err)
	live := store(t, applied)

	again, err := ServerSideApply("ReplicationController", live, []byte(rcApplied), "kubectl", false, t1)
	require.NoError(t, err)
	assert.JSONEq(t, string(live), string(store(t, again)), "the second apply is unchanged once stored")

	scaled, err := TrackSubresourceUpdate("ReplicationController", "scale", live, mustMerge(t, live, `{"spec":{"replicas":5}}`), "kubectl", t1)
	require.NoError(t, err)
	live = store(t, scaled)

	_, err = ServerSideApply("ReplicationController", live, []byte(rcApplied), "kubectl", false, t2)
	c := conflictOf(t, err)
	require.Len(t, c.Causes, 1)
	assert.Equal(t, `conflict with "kubectl" with subresource "scale" using v1 at 2026-11-21T21:01:00Z: .spec.replicas`, c.Causes[0].Message())

	forced, err := ServerSideApply("ReplicationController", live, []byte(rcApplied), "kubectl", true, t2)
	require.NoError(t, err)
	var rc api.ReplicationController
	require.NoError(t, json.Unmarshal(forced, &rc))
	require.NotNil(t, rc.Spec.Replicas)
	assert.EqualValues(t, 3, *rc.Spec.Replicas)
	require.Len(t, rc.Metadata.ManagedFields, 1, "the update entry owned only replicas, which force took")
	assert.Equal(t, "Apply", rc.Metadata.ManagedFields[0].Operation)
}
