package apiserver_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client"
)

// TestEvict evicts pods with the DeleteOptions kubectl drain sends and the
// ones it may: an eviction is the pod's delete, every one allowed (no
// PodDisruptionBudgets are served), and a refused one changes nothing.
func TestEvict(t *testing.T) {
	eviction := func(name string, opts *api.DeleteOptions) *api.Eviction {
		return &api.Eviction{
			TypeMeta: api.TypeMeta{APIVersion: "policy/v1", Kind: "Eviction"},
			Metadata: api.ObjectMeta{Namespace: "default", Name: name}, DeleteOptions: opts,
		}
	}
	otherUID := api.UID("not-the-pod")
	staleRV := "1"
	tests := []struct {
		name      string
		unbound   bool
		eviction  *api.Eviction
		wantGrace int64 // when the pod is left marked for deletion
		gone      bool  // the pod is removed at once
		kept      bool  // nothing changed (a refusal, or a dry run)
		is        func(error) bool
		wantErr   string
	}{
		{name: "the pod's grace period", eviction: eviction("p", nil), wantGrace: 30},
		{name: "drain's --grace-period", eviction: eviction("p", &api.DeleteOptions{GracePeriodSeconds: ptr(int64(5))}), wantGrace: 5},
		{name: "grace period 0", eviction: eviction("p", &api.DeleteOptions{GracePeriodSeconds: ptr(int64(0))}), gone: true},
		{name: "a pod on no node goes at once", unbound: true, eviction: eviction("p", nil), gone: true},
		{name: "dry run", eviction: eviction("p", &api.DeleteOptions{DryRun: []string{api.DryRunAll}}), kept: true},
		{name: "uid precondition", eviction: eviction("p", &api.DeleteOptions{Preconditions: &api.Preconditions{UID: &otherUID}}), kept: true,
			is: apierrors.IsConflict, wantErr: `Operation cannot be fulfilled on pods "p": Precondition failed: UID in precondition: not-the-pod, UID in object meta: `},
		{name: "resourceVersion precondition", eviction: eviction("p", &api.DeleteOptions{Preconditions: &api.Preconditions{ResourceVersion: &staleRV}}), kept: true,
			is: apierrors.IsConflict, wantErr: `Operation cannot be fulfilled on pods "p": Precondition failed: ResourceVersion in precondition: 1, ResourceVersion in object meta: `},
		{name: "missing pod", eviction: eviction("nope", nil), kept: true,
			is: apierrors.IsNotFound, wantErr: `pods "nope" not found`},
		{name: "no name", eviction: eviction("", nil), kept: true,
			is: apierrors.IsBadRequest, wantErr: "the Eviction must name the pod to evict: metadata.name and metadata.namespace"},
		{name: "bad propagation policy", eviction: eviction("p", &api.DeleteOptions{PropagationPolicy: ptr(api.DeletionPropagation("Sideways"))}), kept: true,
			is: apierrors.IsInvalid, wantErr: `DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newServer(t)
			pods := client.For[*api.Pod](s)
			var before *api.Pod
			if tt.unbound {
				before = mustCreate(t, s, pod("default", "p", nil))
			} else {
				before = boundPod(t, s, "p", nil)
			}
			rev := s.Store().Rev()

			got, err := s.Evict(ctx, tt.eviction)
			after, getErr := pods.Get(ctx, "default", "p")
			switch {
			case tt.is != nil:
				require.True(t, tt.is(err), "got %v", err)
				assert.Contains(t, err.Error(), tt.wantErr)
			default:
				require.NoError(t, err)
				assert.Equal(t, before.Metadata.UID, got.Metadata.UID, "the evicted pod's last state")
			}
			switch {
			case tt.kept:
				require.NoError(t, getErr)
				assert.Equal(t, before, after)
				assert.Equal(t, rev, s.Store().Rev(), "nothing written")
			case tt.gone:
				assert.True(t, apierrors.IsNotFound(getErr), "removed at once, got %v", getErr)
			default:
				require.NoError(t, getErr)
				require.NotNil(t, after.Metadata.DeletionTimestamp, "marked for deletion")
				assert.Equal(t, epoch.Add(time.Duration(tt.wantGrace)*time.Second), after.Metadata.DeletionTimestamp.Time)
				assert.Equal(t, tt.wantGrace, *after.Metadata.DeletionGracePeriodSeconds)
				assert.Equal(t, after, got)
			}
		})
	}
}
