package apiserver_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
)

// boundPod creates default/<name> and binds it to node-1, so deleting it is
// graceful.
func boundPod(t *testing.T, s *apiserver.Server, name string, grace *int64) *api.Pod {
	t.Helper()
	in := pod("default", name, nil)
	in.Spec.TerminationGracePeriodSeconds = grace
	_, err := s.Create(ctx, in)
	require.NoError(t, err)
	p, err := s.Bind(ctx, "default", name, "node-1")
	require.NoError(t, err)
	return p
}

func TestGracefulPodDeletion(t *testing.T) {
	tests := []struct {
		name      string
		specGrace *int64
		opts      api.DeleteOptions
		wantGrace int64 // 0: removed at once
	}{
		{name: "default grace period", wantGrace: 30},
		{name: "the pod's own grace period", specGrace: ptr(int64(10)), wantGrace: 10},
		{name: "the delete's grace period wins", specGrace: ptr(int64(10)), opts: api.DeleteOptions{GracePeriodSeconds: ptr(int64(3))}, wantGrace: 3},
		{name: "grace 0 removes at once", opts: api.DeleteOptions{GracePeriodSeconds: ptr(int64(0))}, wantGrace: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, clk := newServer(t)
			boundPod(t, s, "p", tt.specGrace)
			pods := client.For[*api.Pod](s)

			got, err := pods.Delete(ctx, "default", "p", tt.opts)
			require.NoError(t, err)
			if tt.wantGrace == 0 {
				_, err = pods.Get(ctx, "default", "p")
				assert.True(t, apierrors.IsNotFound(err), "removed at once, got %v", err)
				return
			}
			require.NotNil(t, got.Metadata.DeletionTimestamp)
			assert.Equal(t, epoch.Add(time.Duration(tt.wantGrace)*time.Second), got.Metadata.DeletionTimestamp.Time)
			assert.Equal(t, tt.wantGrace, *got.Metadata.DeletionGracePeriodSeconds)
			next, ok := s.NextSweep()
			require.True(t, ok)
			assert.Equal(t, got.Metadata.DeletionTimestamp.Time, next)

			clk.Step(time.Duration(tt.wantGrace)*time.Second - time.Second)
			assert.Zero(t, s.Sweep(), "not before the grace period ends")
			_, err = pods.Get(ctx, "default", "p")
			require.NoError(t, err)

			clk.Step(time.Second)
			assert.Equal(t, 1, s.Sweep())
			_, err = pods.Get(ctx, "default", "p")
			assert.True(t, apierrors.IsNotFound(err), "removed when the grace period ended, got %v", err)
			_, ok = s.NextSweep()
			assert.False(t, ok)
		})
	}
}

func TestUnboundOrFinishedPodsGoAtOnce(t *testing.T) {
	s, _ := newServer(t)
	pods := client.For[*api.Pod](s)
	_, err := s.Create(ctx, pod("default", "pending", nil))
	require.NoError(t, err)
	_, err = pods.Delete(ctx, "default", "pending", api.DeleteOptions{GracePeriodSeconds: ptr(int64(60))})
	require.NoError(t, err)
	_, err = pods.Get(ctx, "default", "pending")
	assert.True(t, apierrors.IsNotFound(err), "a pod never bound has nothing to stop")

	done := boundPod(t, s, "done", nil)
	fin := done.DeepCopy()
	fin.Status.Phase = api.PodSucceeded
	_, err = pods.UpdateStatus(ctx, fin)
	require.NoError(t, err)
	_, err = pods.Delete(ctx, "default", "done", api.DeleteOptions{})
	require.NoError(t, err)
	_, err = pods.Get(ctx, "default", "done")
	assert.True(t, apierrors.IsNotFound(err), "a finished pod has nothing to stop")
}

// TestKubeletConfirmsDeletion: the second delete, with grace 0, as the
// kubelet sends once the containers stopped, removes the pod before its
// grace period ends; a longer grace period is ignored, a shorter one
// brings the deadline forward.
func TestKubeletConfirmsDeletion(t *testing.T) {
	s, clk := newServer(t)
	boundPod(t, s, "p", nil)
	pods := client.For[*api.Pod](s)
	_, err := pods.Delete(ctx, "default", "p", api.DeleteOptions{})
	require.NoError(t, err)

	clk.Step(5 * time.Second)
	longer, err := pods.Delete(ctx, "default", "p", api.DeleteOptions{GracePeriodSeconds: ptr(int64(100))})
	require.NoError(t, err)
	assert.Equal(t, epoch.Add(30*time.Second), longer.Metadata.DeletionTimestamp.Time, "a longer grace period changes nothing")

	shorter, err := pods.Delete(ctx, "default", "p", api.DeleteOptions{GracePeriodSeconds: ptr(int64(10))})
	require.NoError(t, err)
	assert.Equal(t, epoch.Add(10*time.Second), shorter.Metadata.DeletionTimestamp.Time, "counted from when deletion started")
	assert.Equal(t, int64(10), *shorter.Metadata.DeletionGracePeriodSeconds)

	_, err = pods.Delete(ctx, "default", "p", api.DeleteOptions{GracePeriodSeconds: ptr(int64(0))})
	require.NoError(t, err)
	_, err = pods.Get(ctx, "default", "p")
	assert.True(t, apierrors.IsNotFound(err), "grace 0 from the kubelet removes it, got %v", err)
}

// TestPropagationPolicy checks what each policy records for the garbage
// collector, and Kubernetes' v1 default for replication controllers.
func TestPropagationPolicy(t *testing.T) {
	tests := []struct {
		name           string
		opts           api.DeleteOptions
		wantFinalizers []string // nil: removed at once
		wantErr        string
	}{
		{name: "replication controllers orphan by default", wantFinalizers: []string{"orphan"}},
		{name: "orphan", opts: api.DeleteOptions{PropagationPolicy: ptr(api.DeletePropagationOrphan)}, wantFinalizers: []string{"orphan"}},
		{name: "deprecated orphanDependents", opts: api.DeleteOptions{OrphanDependents: ptr(true)}, wantFinalizers: []string{"orphan"}},
		{name: "foreground", opts: api.DeleteOptions{PropagationPolicy: ptr(api.DeletePropagationForeground)}, wantFinalizers: []string{"foregroundDeletion"}},
		{name: "background", opts: api.DeleteOptions{PropagationPolicy: ptr(api.DeletePropagationBackground)}},
		{name: "orphanDependents false is background", opts: api.DeleteOptions{OrphanDependents: ptr(false)}},
		{
			name:    "both set",
			opts:    api.DeleteOptions{OrphanDependents: ptr(true), PropagationPolicy: ptr(api.DeletePropagationOrphan)},
			wantErr: `DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Invalid value: "Orphan": orphanDependents and deletionPropagation cannot be both set`,
		},
		{
			name:    "unknown policy",
			opts:    api.DeleteOptions{PropagationPolicy: ptr(api.DeletionPropagation("Sideways"))},
			wantErr: `DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan"`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newServer(t)
			rcs := client.For[*api.ReplicationController](s)
			createRC(t, s)
			got, err := rcs.Delete(ctx, "default", "web", tt.opts)
			if tt.wantErr != "" {
				require.True(t, apierrors.IsInvalid(err), "got %v", err)
				assert.Equal(t, tt.wantErr, err.Error())
				return
			}
			require.NoError(t, err)
			stored, getErr := rcs.Get(ctx, "default", "web")
			if tt.wantFinalizers == nil {
				assert.True(t, apierrors.IsNotFound(getErr), "removed at once, got %v", getErr)
				return
			}
			require.NoError(t, getErr)
			assert.Equal(t, tt.wantFinalizers, stored.Metadata.Finalizers)
			assert.NotNil(t, stored.Metadata.DeletionTimestamp)
			assert.Equal(t, got, stored)
		})
	}
}

// TestSecondDeleteKeepsTheRecordedPolicy: a delete that names no policy
// keeps the one an earlier delete recorded in the finalizers, as the
// kubelet's grace-0 delete of a pod deleted in the foreground does
// (conformance: the garbage collector "should not be blocked by dependency
// circle"); one that names a policy replaces it.
func TestSecondDeleteKeepsTheRecordedPolicy(t *testing.T) {
	tests := []struct {
		name           string
		first, second  api.DeleteOptions
		wantFinalizers []string
	}{
		{name: "foreground, then the kubelet's grace 0",
			first:          api.DeleteOptions{PropagationPolicy: ptr(api.DeletePropagationForeground)},
			second:         api.DeleteOptions{GracePeriodSeconds: ptr(int64(0))},
			wantFinalizers: []string{"foregroundDeletion"}},
		{name: "orphan, then no options",
			first:          api.DeleteOptions{PropagationPolicy: ptr(api.DeletePropagationOrphan)},
			wantFinalizers: []string{"orphan"}},
		{name: "foreground, then orphan",
			first:          api.DeleteOptions{PropagationPolicy: ptr(api.DeletePropagationForeground)},
			second:         api.DeleteOptions{PropagationPolicy: ptr(api.DeletePropagationOrphan)},
			wantFinalizers: []string{"orphan"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newServer(t)
			boundPod(t, s, "p", nil)
			pods := client.For[*api.Pod](s)
			_, err := pods.Delete(ctx, "default", "p", tt.first)
			require.NoError(t, err)
			_, err = pods.Delete(ctx, "default", "p", tt.second)
			require.NoError(t, err)
			stored, err := pods.Get(ctx, "default", "p")
			require.NoError(t, err, "a pod with a finalizer stays")
			assert.Equal(t, tt.wantFinalizers, stored.Metadata.Finalizers)
		})
	}
}

func TestPodsDeleteInBackgroundByDefault(t *testing.T) {
	s, _ := newServer(t)
	_, err := s.Create(ctx, pod("default", "p", nil))
	require.NoError(t, err)
	_, err = s.Delete(ctx, client.Pods, "default", "p", api.DeleteOptions{})
	require.NoError(t, err)
	_, err = s.Get(ctx, client.Pods, "default", "p", client.GetOptions{})
	assert.True(t, apierrors.IsNotFound(err), "no finalizer added, got %v", err)
}

func TestDeletePreconditionsAndDryRun(t *testing.T) {
	tests := []struct {
		name    string
		opts    func(cur *api.ReplicationController) api.DeleteOptions
		wantErr string
		kept    bool
	}{
		{
			name: "uid matches",
			opts: func(cur *api.ReplicationController) api.DeleteOptions {
				return api.DeleteOptions{Preconditions: &api.Preconditions{UID: &cur.Metadata.UID}, PropagationPolicy: ptr(api.DeletePropagationBackground)}
			},
		},
		{
			name: "uid differs",
			opts: func(*api.ReplicationController) api.DeleteOptions {
				return api.DeleteOptions{Preconditions: &api.Preconditions{UID: ptr(api.UID("other"))}}
			},
			wantErr: `Operation cannot be fulfilled on replicationcontrollers "web": Precondition failed: UID in precondition: other, UID in object meta: `,
			kept:    true,
		},
		{
			name: "resourceVersion differs",
			opts: func(*api.ReplicationController) api.DeleteOptions {
				return api.DeleteOptions{Preconditions: &api.Preconditions{ResourceVersion: ptr("1")}}
			},
			wantErr: `Operation cannot be fulfilled on replicationcontrollers "web": Precondition failed: ResourceVersion in precondition: 1, ResourceVersion in object meta: `,
			kept:    true,
		},
		{
			name: "dry run",
			opts: func(*api.ReplicationController) api.DeleteOptions {
				return api.DeleteOptions{DryRun: []string{api.DryRunAll}, PropagationPolicy: ptr(api.DeletePropagationBackground)}
			},
			kept: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newServer(t)
			cur := createRC(t, s)
			before := s.Store().Rev()
			_, err := s.Delete(ctx, client.ReplicationControllers, "default", "web", tt.opts(cur))
			if tt.wantErr != "" {
				require.True(t, apierrors.IsConflict(err), "got %v", err)
				assert.Contains(t, err.Error(), tt.wantErr)
			} else {
				require.NoError(t, err)
			}
			got, err := s.Get(ctx, client.ReplicationControllers, "default", "web", client.GetOptions{})
			if tt.kept {
				require.NoError(t, err)
				assert.Equal(t, cur, got)
				assert.Equal(t, before, s.Store().Rev())
			} else {
				assert.True(t, apierrors.IsNotFound(err))
			}
		})
	}
}

func TestDeleteMissingIsNotFound(t *testing.T) {
	s, _ := newServer(t)
	_, err := s.Delete(ctx, client.Pods, "default", "ghost", api.DeleteOptions{})
	require.True(t, apierrors.IsNotFound(err), "got %v", err)
	_, err = s.Delete(ctx, "widgets", "default", "ghost", api.DeleteOptions{})
	require.True(t, apierrors.IsNotFound(err), "unknown resource, got %v", err)
	assert.Equal(t, "the server could not find the requested resource (widgets)", err.Error())
}

// TestNamespaceDeletion: a namespace turns Terminating, its content is
// deleted (pods gracefully), and it goes once it is empty.
func TestNamespaceDeletion(t *testing.T) {
	s, clk := newServer(t)
	_, err := s.Create(ctx, &api.Namespace{Metadata: api.ObjectMeta{Name: "team"}})
	require.NoError(t, err)
	in := pod("team", "slow", nil)
	_, err = s.Create(ctx, in)
	require.NoError(t, err)
	_, err = s.Bind(ctx, "team", "slow", "node-1")
	require.NoError(t, err)
	_, err = s.Create(ctx, rc("team", "web", 1))
	require.NoError(t, err)

	got, err := s.Delete(ctx, client.Namespaces, "", "team", api.DeleteOptions{})
	require.NoError(t, err)
	ns := got.(*api.Namespace)
	assert.Equal(t, api.NamespaceTerminating, ns.Status.Phase)
	assert.NotNil(t, ns.Metadata.DeletionTimestamp)

	s.Sweep() // deletes the content: the rc at once, the pod gracefully
	_, err = s.Get(ctx, client.ReplicationControllers, "team", "web", client.GetOptions{})
	assert.True(t, apierrors.IsNotFound(err), "rc deleted in the background, got %v", err)
	p, err := s.Get(ctx, client.Pods, "team", "slow", client.GetOptions{})
	require.NoError(t, err, "the pod is in its grace period")
	assert.NotNil(t, p.GetObjectMeta().DeletionTimestamp)
	_, err = s.Get(ctx, client.Namespaces, "", "team", client.GetOptions{})
	require.NoError(t, err, "the namespace waits for its pod")

	for i := 0; i < 10 && s.Sweep() >= 0; i++ {
		next, ok := s.NextSweep()
		if !ok {
			break
		}
		clk.SetTime(next)
	}
	_, err = s.Get(ctx, client.Pods, "team", "slow", client.GetOptions{})
	assert.True(t, apierrors.IsNotFound(err), "got %v", err)
	_, err = s.Get(ctx, client.Namespaces, "", "team", client.GetOptions{})
	assert.True(t, apierrors.IsNotFound(err), "the empty namespace is gone, got %v", err)
}

func TestSystemNamespacesCannotBeDeleted(t *testing.T) {
	s, _ := newServer(t)
	for _, name := range []string{"default", "kube-system"} {
		_, err := s.Delete(ctx, client.Namespaces, "", name, api.DeleteOptions{})
		require.True(t, apierrors.IsForbidden(err), "got %v", err)
		assert.Equal(t, `namespaces "`+name+`" is forbidden: this namespace may not be deleted`, err.Error())
	}
}

// TestRunSweepsOnTheClock runs the live loop and steps the fake clock past
// a pod's grace period: Run removes it without anyone calling Sweep.
func TestRunSweepsOnTheClock(t *testing.T) {
	s, clk := newServer(t)
	boundPod(t, s, "p", ptr(int64(5)))
	runCtx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); s.Run(runCtx) }()

	_, err := s.Delete(ctx, client.Pods, "default", "p", api.DeleteOptions{})
	require.NoError(t, err)
	require.Eventually(t, func() bool { return clk.Waiters() > 0 }, 5*time.Second, time.Millisecond, "Run set a timer for the grace period")
	clk.Step(5 * time.Second)
	require.Eventually(t, func() bool {
		_, err := s.Get(ctx, client.Pods, "default", "p", client.GetOptions{})
		return apierrors.IsNotFound(err)
	}, 5*time.Second, time.Millisecond)
	cancel()
	wg.Wait()
}
