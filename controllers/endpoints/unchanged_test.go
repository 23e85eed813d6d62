package endpoints

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
)

// TestUnchangedSyncsMatchThePlainWay: over seeded random runs in which
// pods are created with and without an address, flip, terminate and go,
// and a service changes, every sync that writes nothing because nothing
// moved since the Endpoints were found right or written
// (trackedService.unchanged) is checked against the plain computation
// (desiredModel), and the Endpoints are what the model says after every
// step.
func TestUnchangedSyncsMatchThePlainWay(t *testing.T) {
	shortcuts, afterWrite := 0, 0
	for seed := range uint64(8) {
		r := rand.New(rand.NewPCG(seed, 11))
		e := newEnv(t)
		e.c.checkUnchanged = func(svc *api.Service, pods []*api.Pod, current *api.Endpoints) {
			shortcuts++
			if ts := e.c.triggers.states[api.KeyOf(&svc.Metadata)]; ts.verified != current {
				afterWrite++ // the version the controller wrote (trackedService.written)
			}
			want := desiredModel(svc, scanPods(e.c, svc.Metadata.Namespace, svc.Spec.Selector))
			require.True(t, subsetsEqual(want, current.Subsets), "seed %d: %s skipped a write: has %+v, wants %+v",
				seed, svc.Metadata.Name, current.Subsets, want)
			require.True(t, labelsCurrent(current.Metadata.Labels, svc.Metadata.Labels))
			require.False(t, overCapacityMarked(current.Metadata.Annotations))
		}
		e.create(service("default", "web", webLabels, api.ServicePort{Port: 80}))
		peers := service("default", "peers", webLabels, api.ServicePort{Port: 80})
		peers.Spec.PublishNotReadyAddresses = true
		e.create(peers)
		e.settle()
		for step := range 60 {
			name := fmt.Sprintf("p%d", r.IntN(10))
			obj, err := e.srv.Get(e.ctx, client.Pods, "default", name, client.GetOptions{})
			exists := err == nil
			switch op := r.IntN(6); {
			case !exists:
				ip := fmt.Sprintf("10.1.0.%d", 1+r.IntN(200))
				if r.IntN(3) == 0 {
					ip = ""
				}
				e.createPod("default", name, ip, r.IntN(2) == 0, webLabels)
			case op == 0:
				_, err := e.srv.Delete(e.ctx, client.Pods, "default", name, api.DeleteOptions{})
				require.NoError(t, err)
			case op == 1:
				e.clk.Step(time.Duration(apiserver.DefaultTerminationGracePeriodSeconds) * time.Second)
				e.srv.Sweep()
			case op == 2:
				e.setReady("default", name, r.IntN(2) == 0)
			case op == 3:
				// A status write that moves nothing.
				p := obj.(*api.Pod).DeepCopy()
				p.Status.Message = fmt.Sprint(step)
				_, err := e.srv.UpdateStatus(e.ctx, p)
				require.NoError(t, err)
			case op == 4:
				obj, err := e.srv.Get(e.ctx, client.Services, "default", "web", client.GetOptions{})
				require.NoError(t, err)
				svc := obj.(*api.Service).DeepCopy()
				svc.Spec.Ports[0].Port = int32(80 + r.IntN(2))
				_, err = e.srv.Update(e.ctx, svc)
				require.NoError(t, err)
			default:
				e.clk.Step(time.Second)
			}
			e.settle()
			// Every service's pods are synced again: a sync of each with
			// nothing new must find its Endpoints right.
			e.c.queue.Add("default/web")
			e.c.queue.Add("default/peers")
			e.settle()
			for _, svcName := range []string{"web", "peers"} {
				obj, err := e.srv.Get(e.ctx, client.Services, "default", svcName, client.GetOptions{})
				require.NoError(t, err)
				svc := obj.(*api.Service)
				want := desiredModel(svc, scanPods(e.c, "default", svc.Spec.Selector))
				assert.True(t, subsetsEqual(want, e.endpoints("default", svcName).Subsets), "seed %d step %d: %s", seed, step, svcName)
			}
		}
	}
	assert.Greater(t, shortcuts, 100, "the shortcut was hardly taken: the test checks nothing")
	assert.Greater(t, afterWrite, 20, "the shortcut after a write was hardly taken: the test checks nothing of it")
	t.Logf("%d shortcuts, %d of them on a version written", shortcuts, afterWrite)
}

// TestSyncAfterWriteComputesNothing: once the controller has written the
// Endpoints without a pod that began terminating, the syncs that the
// pod's later changes queue (it stops being ready, it goes) find the
// version written in the cache and nothing moved, and compute nothing, as
// a scale-down's removals do: the shortcut on the version written, which
// TestUnchangedSyncsMatchThePlainWay checks against the plain way.
func TestSyncAfterWriteComputesNothing(t *testing.T) {
	e := newEnv(t)
	e.create(service("default", "web", webLabels, api.ServicePort{Port: 80}))
	for i := range 3 {
		e.createPod("default", fmt.Sprintf("web-%d", i), fmt.Sprintf("10.0.0.%d", i+1), true, webLabels)
	}
	e.settle()
	require.Len(t, e.endpoints("default", "web").Subsets[0].Addresses, 3)
	shortcuts := 0
	e.c.checkUnchanged = func(*api.Service, []*api.Pod, *api.Endpoints) { shortcuts++ }
	rv := e.endpoints("default", "web").Metadata.ResourceVersion

	_, err := e.srv.Delete(e.ctx, client.Pods, "default", "web-1", api.DeleteOptions{})
	require.NoError(t, err)
	e.settle()
	ep := e.endpoints("default", "web")
	require.Len(t, ep.Subsets[0].Addresses, 2, "the terminating pod left the Endpoints")
	require.NotEqual(t, rv, ep.Metadata.ResourceVersion, "the controller wrote")
	require.Zero(t, shortcuts)

	e.setReady("default", "web-1", false) // a terminating pod's change: it serves no more
	e.settle()
	assert.Equal(t, 1, shortcuts, "the sync after the write computed the Endpoints again")
	assert.Equal(t, ep.Metadata.ResourceVersion, e.endpoints("default", "web").Metadata.ResourceVersion, "it wrote")
}
