package apiserver_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/client"
)

// TestHandoverStoresTheCallersObject checks that a write with
// client.Handover() stores what the caller gave (no copy), that one without
// it stores a copy, and that either way the stored object is the same.
func TestHandoverStoresTheCallersObject(t *testing.T) {
	for _, handover := range []bool{false, true} {
		t.Run(map[bool]string{false: "copied", true: "handed-over"}[handover], func(t *testing.T) {
			s, _ := newServer(t)
			var opts []client.WriteOption
			if handover {
				opts = append(opts, client.Handover())
			}

			in := pod("default", "given", map[string]string{"app": "a"})
			got, err := s.Create(ctx, in, opts...)
			require.NoError(t, err)
			assert.Equal(t, handover, got == api.Object(in), "create keeps the caller's object only when handed over")
			assert.Equal(t, "Pod", got.GetTypeMeta().Kind)
			assert.NotEmpty(t, got.GetObjectMeta().UID)

			status := got.(*api.Pod).DeepCopy()
			status.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: api.ConditionTrue}}
			updated, err := s.UpdateStatus(ctx, status, opts...)
			require.NoError(t, err)
			up := updated.(*api.Pod)
			assert.NotSame(t, status, up, "a status update never keeps the caller's object itself")
			assert.Equal(t, handover, &up.Status.Conditions[0] == &status.Status.Conditions[0], "the status's slices are kept only when handed over")
			assert.Equal(t, status.Status.Conditions, up.Status.Conditions)

			relabel := up.DeepCopy()
			relabel.Metadata.Labels = map[string]string{"app": "b"}
			relabeled, err := s.Update(ctx, relabel, opts...)
			require.NoError(t, err)
			assert.Equal(t, handover, relabeled == api.Object(relabel), "update keeps the caller's object only when handed over")
			assert.Equal(t, "b", relabeled.GetObjectMeta().Labels["app"])
			assert.Equal(t, status.Status.Conditions, relabeled.(*api.Pod).Status.Conditions, "an update keeps the stored status")
		})
	}
}

// TestManagedFieldsStampsShareTheirTime checks that writes by one manager in
// the same second share their managedFields list (and its time), and that
// the entry moves on (in a new list, the old object untouched) when time
// does.
func TestManagedFieldsStampsShareTheirTime(t *testing.T) {
	s, clk := newServer(t)
	wctx := client.WithFieldManager(ctx, "tester")

	a, err := s.Create(wctx, pod("default", "a", nil))
	require.NoError(t, err)
	b, err := s.Create(wctx, pod("default", "b", nil))
	require.NoError(t, err)
	am, bm := a.GetObjectMeta().ManagedFields, b.GetObjectMeta().ManagedFields
	require.Len(t, am, 1)
	require.Len(t, bm, 1)
	assert.Same(t, am[0].Time, bm[0].Time, "one second, one time")
	assert.Same(t, &am[0], &bm[0], "one second, one list")

	clk.Step(2 * time.Second)
	next := a.(*api.Pod).DeepCopy()
	next.Status.Message = "moved on"
	c, err := s.UpdateStatus(wctx, next)
	require.NoError(t, err)
	cm := c.GetObjectMeta().ManagedFields
	require.Len(t, cm, 2)
	assert.Equal(t, api.ManagedFieldsEntry{Manager: "tester", Operation: "Update", APIVersion: "v1", Time: cm[1].Time, Subresource: "status"}, cm[1])
	assert.True(t, cm[1].Time.After(am[0].Time.Time), "the status entry has the new time")
	assert.Len(t, a.GetObjectMeta().ManagedFields, 1, "the first version is untouched")
	nextB := b.(*api.Pod).DeepCopy()
	nextB.Status.Message = "moved on too"
	// A status update stamps the stored list, which a's and b's share.
	e, err := s.UpdateStatus(wctx, nextB)
	require.NoError(t, err)
	assert.Same(t, &cm[0], &e.GetObjectMeta().ManagedFields[0], "the same list, stamped the same way in the same second, gives the same list")

	next = c.(*api.Pod).DeepCopy()
	next.Status.Message = "again, in the same second"
	d, err := s.UpdateStatus(wctx, next)
	require.NoError(t, err)
	dm := d.GetObjectMeta().ManagedFields
	assert.Equal(t, &cm[0], &dm[0], "an entry already last and stamped this second is kept as it is")
}
