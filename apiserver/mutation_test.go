package apiserver_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
)

// newCheckedServer returns a server with the mutation check on, which the
// test calls itself.
func newCheckedServer(t *testing.T) *apiserver.Server {
	t.Helper()
	s, err := apiserver.New(apiserver.Config{Clock: clock.NewFake(epoch), Rand: rand.New(rand.NewPCG(1, 2)), CheckMutations: true})
	require.NoError(t, err)
	return s
}

// TestMutationCheckCatchesAChangedObject plants the bug the check is for:
// a reader changes an object the server handed out, which every other
// reader shares. The check names the object, its version and the field.
func TestMutationCheckCatchesAChangedObject(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(t *testing.T, s *apiserver.Server)
		want   []string
	}{{
		name: "a label of a got pod",
		mutate: func(t *testing.T, s *apiserver.Server) {
			got, err := client.For[*api.Pod](s).Get(ctx, "default", "web")
			require.NoError(t, err)
			got.Metadata.Labels["app"] = "db"
		},
		want: []string{`metadata.labels.app: "web" → "db"`},
	}, {
		name: "the image of a listed pod",
		mutate: func(t *testing.T, s *apiserver.Server) {
			pods, _, err := client.For[*api.Pod](s).List(ctx, "default", client.ListOptions{})
			require.NoError(t, err)
			pods[0].Spec.Containers[0].Image = "nginx:latest"
		},
		want: []string{`spec.containers[0].image: "nginx:1.27" → "nginx:latest"`},
	}, {
		name: "the node of a watched pod",
		mutate: func(t *testing.T, s *apiserver.Server) {
			w, err := s.Watch(ctx, client.Pods, "default", client.ListOptions{ResourceVersion: "0"})
			require.NoError(t, err)
			defer w.Stop()
			evs, err := w.Poll(nil, 0)
			require.NoError(t, err)
			require.NotEmpty(t, evs)
			evs[0].Object.(*api.Pod).Spec.NodeName = "node-0"
		},
		want: []string{`spec.nodeName: null → "node-0"`},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newCheckedServer(t)
			_, err := s.Create(ctx, pod("default", "web", map[string]string{"app": "web"}))
			require.NoError(t, err)
			require.NoError(t, s.CheckMutations(), "nothing changed yet")

			tt.mutate(t, s)
			err = s.CheckMutations()
			var me *apiserver.MutationError
			require.ErrorAs(t, err, &me)
			assert.Equal(t, "Pod default/web", me.Object)
			assert.Equal(t, tt.want, me.Changes)
			assert.Contains(t, err.Error(), "Pod default/web at resourceVersion")
			assert.NoError(t, s.CheckMutations(), "a mutation is reported once")
		})
	}
}

// TestMutationCheckOnReadBack checks that a changed object is caught when
// the server hands it out again or replaces it, before any full check,
// and reported by the next one.
func TestMutationCheckOnReadBack(t *testing.T) {
	s := newCheckedServer(t)
	created, err := s.Create(ctx, pod("default", "web", map[string]string{"app": "web"}))
	require.NoError(t, err)
	created.(*api.Pod).Metadata.Annotations = map[string]string{"touched": "yes"}

	fresh, err := client.For[*api.Pod](s).Get(ctx, "default", "web") // the read-back
	require.NoError(t, err)
	fresh = fresh.DeepCopy()
	fresh.Metadata.Labels["tier"] = "front"
	_, err = s.Update(ctx, fresh) // replaces the changed version
	require.NoError(t, err)

	var me *apiserver.MutationError
	require.ErrorAs(t, s.CheckMutations(), &me)
	assert.Equal(t, []string{`metadata.annotations: null → {"touched":"yes"}`}, me.Changes)
}

// TestMutationCheckQuietWhenNothingChanges runs writes of every sort,
// deep-copying before each change as callers must, and finds nothing;
// with the check off, nothing is looked at.
func TestMutationCheckQuietWhenNothingChanges(t *testing.T) {
	s := newCheckedServer(t)
	p := client.For[*api.Pod](s)
	for i := range 3 {
		_, err := s.Create(ctx, pod("default", "web-"+string(rune('a'+i)), map[string]string{"app": "web"}))
		require.NoError(t, err)
	}
	got, err := p.Get(ctx, "default", "web-a")
	require.NoError(t, err)
	next := got.DeepCopy()
	next.Metadata.Labels["tier"] = "front"
	_, err = s.Update(ctx, next)
	require.NoError(t, err)
	_, err = s.Delete(ctx, client.Pods, "default", "web-b", api.DeleteOptions{GracePeriodSeconds: new(int64)})
	require.NoError(t, err)
	_, err = s.Create(ctx, rc("default", "app", 2))
	require.NoError(t, err)
	_, err = s.UpdateScale(ctx, client.ReplicationControllers, "default", &api.Scale{Metadata: api.ObjectMeta{Name: "app"}, Spec: api.ScaleSpec{Replicas: 5}})
	require.NoError(t, err)
	assert.NoError(t, s.CheckMutations())

	off, err := apiserver.New(apiserver.Config{Clock: clock.NewFake(epoch), Rand: rand.New(rand.NewPCG(1, 2))})
	require.NoError(t, err)
	created, err := off.Create(ctx, pod("default", "web", nil))
	require.NoError(t, err)
	created.(*api.Pod).Spec.NodeName = "node-0"
	assert.NoError(t, off.CheckMutations(), "off, the check sees nothing")
}
