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
// moved since the Endpoints were found right (trackedService.unchanged)
// is checked against the plain computation (desiredModel), and the
// Endpoints are what the model says after every step.
func TestUnchangedSyncsMatchThePlainWay(t *testing.T) {
	shortcuts := 0
	for seed := range uint64(8) {
		r := rand.New(rand.NewPCG(seed, 11))
		e := newEnv(t)
		e.c.checkUnchanged = func(svc *api.Service, pods []*api.Pod, current *api.Endpoints) {
			shortcuts++
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
}
