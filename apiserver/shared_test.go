package apiserver

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
)

// newSharedTestServer returns a server with pods a, b, c and d in "default",
// and its clock.
func newSharedTestServer(t *testing.T) (*Server, *clock.Fake) {
	t.Helper()
	clk := clock.NewFake(time.Date(2026, 5, 14, 9, 0, 0, 0, time.UTC))
	s, err := New(Config{Clock: clk, Rand: rand.New(rand.NewPCG(1, 2))})
	require.NoError(t, err)
	for _, name := range []string{"a", "b", "c", "d"} {
		_, err := s.Create(context.Background(), &api.Pod{
			Metadata: api.ObjectMeta{Namespace: "default", Name: name},
			Spec:     api.PodSpec{Containers: []api.Container{{Name: "app", Image: "nginx"}}},
		})
		require.NoError(t, err)
	}
	return s, clk
}

// TestBindSharesScheduledConditions checks that pods bound in one second
// share one PodScheduled list, equal to the one each would get of its own,
// and that a later second or a pod with conditions of its own gets its own.
func TestBindSharesScheduledConditions(t *testing.T) {
	ctx := context.Background()
	s, clk := newSharedTestServer(t)
	plain := func(now time.Time, before ...api.PodCondition) []api.PodCondition {
		return append(before, api.PodCondition{Type: api.PodScheduled, Status: api.ConditionTrue, LastTransitionTime: api.NewTime(now)})
	}

	a, err := s.Bind(ctx, "default", "a", "node-1")
	require.NoError(t, err)
	b, err := s.Bind(ctx, "default", "b", "node-1")
	require.NoError(t, err)
	assert.Equal(t, plain(clk.Now()), a.Status.Conditions)
	assert.Equal(t, plain(clk.Now()), b.Status.Conditions)
	assert.Same(t, &a.Status.Conditions[0], &b.Status.Conditions[0], "bound in one second: one list")
	assert.Equal(t, len(a.Status.Conditions), cap(a.Status.Conditions), "no room to grow into")

	clk.Step(time.Second)
	c, err := s.Bind(ctx, "default", "c", "node-1")
	require.NoError(t, err)
	assert.Equal(t, plain(clk.Now()), c.Status.Conditions)
	assert.NotSame(t, &a.Status.Conditions[0], &c.Status.Conditions[0], "a later second: another list")

	ready := api.PodCondition{Type: api.PodReady, Status: api.ConditionFalse, LastTransitionTime: api.NewTime(clk.Now())}
	d, err := s.Get(ctx, client.Pods, "default", "d", client.GetOptions{})
	require.NoError(t, err)
	withCond := d.(*api.Pod).DeepCopy()
	withCond.Status.Conditions = []api.PodCondition{ready}
	_, err = s.UpdateStatus(ctx, withCond)
	require.NoError(t, err)
	bound, err := s.Bind(ctx, "default", "d", "node-1")
	require.NoError(t, err)
	assert.Equal(t, plain(clk.Now(), ready), bound.Status.Conditions, "its own conditions kept, PodScheduled added")
}

// TestDeleteSharesDeletionMarks checks that pods marked for deletion in one
// second with one grace period share their deletionTimestamp and
// deletionGracePeriodSeconds, with the values each would get of its own.
func TestDeleteSharesDeletionMarks(t *testing.T) {
	ctx := context.Background()
	s, clk := newSharedTestServer(t)
	for _, name := range []string{"a", "b", "c", "d"} {
		_, err := s.Bind(ctx, "default", name, "node-1")
		require.NoError(t, err)
	}
	mark := func(name string, grace *int64) *api.ObjectMeta {
		t.Helper()
		obj, err := s.Delete(ctx, client.Pods, "default", name, api.DeleteOptions{GracePeriodSeconds: grace})
		require.NoError(t, err)
		return obj.GetObjectMeta()
	}
	check := func(m *api.ObjectMeta, grace int64) {
		t.Helper()
		require.NotNil(t, m.DeletionTimestamp)
		require.NotNil(t, m.DeletionGracePeriodSeconds)
		assert.Equal(t, api.NewTime(clk.Now().Add(time.Duration(grace)*time.Second)), *m.DeletionTimestamp)
		assert.Equal(t, grace, *m.DeletionGracePeriodSeconds)
	}

	a, b := mark("a", nil), mark("b", nil)
	check(a, DefaultTerminationGracePeriodSeconds)
	check(b, DefaultTerminationGracePeriodSeconds)
	assert.Same(t, a.DeletionTimestamp, b.DeletionTimestamp, "one second, one grace period: one timestamp")
	assert.Same(t, a.DeletionGracePeriodSeconds, b.DeletionGracePeriodSeconds)

	ten := int64(10)
	c := mark("c", &ten)
	check(c, 10)
	assert.NotSame(t, a.DeletionGracePeriodSeconds, c.DeletionGracePeriodSeconds, "another grace period")

	clk.Step(time.Second)
	d := mark("d", nil)
	check(d, DefaultTerminationGracePeriodSeconds)
	assert.NotSame(t, a.DeletionTimestamp, d.DeletionTimestamp, "a later second")

	// A shorter grace period moves the deadline forward from the start.
	five := int64(5)
	shorter := mark("a", &five)
	assert.Equal(t, api.NewTime(clk.Now().Add(-time.Second+5*time.Second)), *shorter.DeletionTimestamp)
	assert.Equal(t, five, *shorter.DeletionGracePeriodSeconds)
	assert.Equal(t, DefaultTerminationGracePeriodSeconds, int(*a.DeletionGracePeriodSeconds), "the first mark is unchanged")
}
