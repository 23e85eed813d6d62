package job

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/informer"
	"github.com/miniplane/miniplane/internal/testenv"
)

// TestAdoptsOrphansAndReleasesNonMatchingPods ports the conformance test
// "Job should adopt matching orphans and release non-matching pods": a pod
// whose owner reference is removed is adopted again, with the tracking
// finalizer; a pod whose labels stop matching is released, and loses it.
func TestAdoptsOrphansAndReleasesNonMatchingPods(t *testing.T) {
	srv, clk := testenv.NewServer(t, apiserver.Config{})
	ctx := t.Context()
	f := informer.NewFactory(srv, "", clk, testenv.Logger(t))
	c, err := New(Config{Client: srv, Factory: f, Clock: clk, Logger: testenv.Logger(t)})
	require.NoError(t, err)
	settle := func() { testenv.SettleController(t, ctx, f, c) }

	two := int32(2)
	_, err = srv.Create(ctx, &api.Job{Metadata: api.ObjectMeta{Namespace: "default", Name: "adopt"},
		Spec: api.JobSpec{Parallelism: &two, Completions: &two, Template: api.PodTemplateSpec{Spec: api.PodSpec{
			RestartPolicy: api.RestartPolicyNever, Containers: []api.Container{{Name: "c", Image: "busybox", Command: []string{"sleep", "100"}}},
		}}}})
	require.NoError(t, err)
	settle()
	pods := podsOfJob(ctx, t, srv)
	require.Len(t, pods, 2)

	orphan := pods[0].DeepCopy()
	orphan.Metadata.OwnerReferences = nil
	_, err = srv.Update(ctx, orphan)
	require.NoError(t, err)
	settle()
	got := getPod(ctx, t, srv, orphan.Metadata.Name)
	ref := api.GetControllerOf(&got.Metadata)
	require.NotNil(t, ref, "the orphan is adopted again")
	assert.Equal(t, "adopt", ref.Name)
	assert.Contains(t, got.Metadata.Finalizers, api.JobTrackingFinalizer)

	released := getPod(ctx, t, srv, pods[1].Metadata.Name).DeepCopy()
	delete(released.Metadata.Labels, api.ControllerUIDLabel)
	delete(released.Metadata.Labels, api.LegacyControllerUIDLabel)
	_, err = srv.Update(ctx, released)
	require.NoError(t, err)
	settle()
	got = getPod(ctx, t, srv, released.Metadata.Name)
	assert.Nil(t, api.GetControllerOf(&got.Metadata), "a pod the selector no longer matches is released")
	assert.NotContains(t, got.Metadata.Finalizers, api.JobTrackingFinalizer, "and no longer tracked")
}

func podsOfJob(ctx context.Context, t *testing.T, srv *apiserver.Server) []*api.Pod {
	l, _, err := client.For[*api.Pod](srv).List(ctx, "default", client.ListOptions{})
	require.NoError(t, err)
	return l
}

func getPod(ctx context.Context, t *testing.T, srv *apiserver.Server, name string) *api.Pod {
	p, err := client.For[*api.Pod](srv).Get(ctx, "default", name)
	require.NoError(t, err)
	return p
}
