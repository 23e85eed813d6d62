package sim_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/controllers/loop"
	"github.com/miniplane/miniplane/controllers/manager"
	"github.com/miniplane/miniplane/informer"
	"github.com/miniplane/miniplane/sim"
)

// nodeStamper is a controller with the bug the mutation check is for: it
// writes a note into the status of the cached pod it reads, which
// is the object the API server stored and every cache shares.
var nodeStamper = manager.Descriptor{Name: "node-stamper", Init: func(ic manager.InitContext) (manager.Controller, int, error) {
	pods := informer.NewLister[*api.Pod](ic.Factory.ForResource(client.Pods), apierrors.GroupResource{Resource: client.Pods})
	c, err := loop.NewController(loop.ControllerConfig{
		Name: "node-stamper", Factory: ic.Factory, Clock: ic.Clock, Logger: ic.Logger,
		Watches: []loop.Watch{{Resource: client.Pods}},
		Reconcile: func(_ context.Context, key string) error {
			ns, name, err := api.SplitKey(key)
			if err != nil {
				return err
			}
			p, err := pods.Namespace(ns).Get(name)
			if err != nil || p.Spec.NodeName == "" {
				return nil
			}
			p.Status.Message = "on " + p.Spec.NodeName // the bug: p is shared
			return nil
		},
	})
	return c, 1, err
}}

// TestMutationCheckCatchesAControllerChangingItsCache plants that bug and
// sees the run stop on it, naming a pod and the field, with no fault on.
func TestMutationCheckCatchesAControllerChangingItsCache(t *testing.T) {
	ctx := context.Background()
	s, err := sim.New(ctx, sim.Config{Seed: 1, Controllers: []manager.Descriptor{nodeStamper}})
	require.NoError(t, err)
	_, err = s.Client().Create(ctx, sim.NewReplicationController("default", "web", 2))
	require.NoError(t, err)
	err = s.RunFor(ctx, 2*time.Minute)
	var v *sim.Violation
	require.ErrorAs(t, err, &v)
	t.Log(v)
	assert.Equal(t, "objects-immutable", v.Invariant)
	assert.Contains(t, v.Detail, "stored object Pod default/")
	assert.Regexp(t, `status\.message: null → "on node-\d"`, v.Detail)
}
