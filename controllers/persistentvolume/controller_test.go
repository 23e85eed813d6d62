package persistentvolume

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/client/record"
	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/informer"
)

// TestBindsThroughTheAPIServer runs the controller against the real API
// server (with its default class) on a fake clock: a claim without a
// class gets the default one and goes Pending → Bound to a provisioned
// volume pvc-<uid>; a claim with class "" stays Pending with
// FailedBinding; deleting the bound claim deletes its volume.
func TestBindsThroughTheAPIServer(t *testing.T) {
	ctx := t.Context()
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	srv, err := apiserver.New(apiserver.Config{Clock: clk, Rand: rand.New(rand.NewPCG(1, 2)), DefaultStorageClass: true})
	require.NoError(t, err)
	log := zaptest.NewLogger(t)
	c, err := New(Config{Client: srv, Factory: informer.NewFactory(srv, "", clk, log), Clock: clk, Logger: log,
		Recorder: record.NewEventRecorder(srv, clk, "persistentvolume-controller", "test")})
	require.NoError(t, err)
	settle := func() {
		for progress := true; progress; {
			progress = false
			for _, inf := range c.informers {
				for inf.Reflector().Step(ctx) {
					progress = true
				}
				for inf.ProcessOne() {
					progress = true
				}
			}
			for _, r := range c.regs {
				for r.DispatchOne() {
					progress = true
				}
			}
			for c.ProcessOne(ctx) {
				progress = true
			}
		}
	}
	settle()
	claims := client.For[*api.PersistentVolumeClaim](srv)
	volumes := client.For[*api.PersistentVolume](srv)
	newClaim := func(name string, class *string) {
		_, err := claims.Create(ctx, &api.PersistentVolumeClaim{Metadata: api.ObjectMeta{Namespace: "default", Name: name},
			Spec: api.PersistentVolumeClaimSpec{StorageClassName: class, AccessModes: []api.PersistentVolumeAccessMode{api.ReadWriteOnce},
				Resources: api.VolumeResourceRequirements{Requests: api.ResourceList{"storage": "1Gi"}}}})
		require.NoError(t, err)
	}
	newClaim("data", nil)
	newClaim("bare", ptr(""))
	settle()

	data, err := claims.Get(ctx, "default", "data")
	require.NoError(t, err)
	assert.Equal(t, api.ClaimBound, data.Status.Phase)
	assert.Equal(t, "pvc-"+string(data.Metadata.UID), data.Spec.VolumeName)
	assert.Equal(t, "yes", data.Metadata.Annotations[AnnBindCompleted])
	assert.Equal(t, "1Gi", data.Status.Capacity["storage"])
	pv, err := volumes.Get(ctx, "", data.Spec.VolumeName)
	require.NoError(t, err)
	assert.Equal(t, api.VolumeBound, pv.Status.Phase)
	assert.Equal(t, data.Metadata.UID, pv.Spec.ClaimRef.UID)
	assert.Equal(t, "standard", pv.Spec.StorageClassName)

	bare, err := claims.Get(ctx, "default", "bare")
	require.NoError(t, err)
	assert.Equal(t, api.ClaimPending, bare.Status.Phase)
	events, _, err := client.For[*api.Event](srv).List(ctx, "default", client.ListOptions{})
	require.NoError(t, err)
	var said []string
	for _, e := range events {
		if e.InvolvedObject.Name == "bare" {
			said = append(said, e.Reason+": "+e.Message)
		}
	}
	assert.Equal(t, []string{"FailedBinding: no persistent volumes available for this claim and no storage class is set"}, said)

	_, err = claims.Delete(ctx, "default", "data", api.DeleteOptions{})
	require.NoError(t, err)
	settle()
	_, err = volumes.Get(ctx, "", pv.Metadata.Name)
	assert.True(t, apierrors.IsNotFound(err), "the provisioned volume goes with its claim: %v", err)
}
