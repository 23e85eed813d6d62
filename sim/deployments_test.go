package sim_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/sim"
)

// rollout creates a deployment, rolls two new images out, scales it
// mid-rollout and rolls back.
func rollout(s *sim.Sim, _ time.Duration) {
	change := func(mutate func(d *api.Deployment)) func(ctx context.Context) {
		return func(ctx context.Context) {
			for {
				obj, err := s.Client().Get(ctx, client.Deployments, "default", "web", client.GetOptions{})
				if err != nil {
					return
				}
				d := obj.(*api.Deployment).DeepCopy()
				mutate(d)
				if _, err := s.Client().Update(ctx, d); !apierrors.IsConflict(err) {
					return
				}
			}
		}
	}
	image := func(img string) func(*api.Deployment) {
		return func(d *api.Deployment) { d.Spec.Template.Spec.Containers[0].Image = img }
	}
	s.At(0, func(ctx context.Context) {
		replicas := int32(5)
		_, _ = s.Client().Create(ctx, &api.Deployment{
			Metadata: api.ObjectMeta{Namespace: "default", Name: "web"},
			Spec: api.DeploymentSpec{
				Replicas: &replicas,
				Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
				Template: api.PodTemplateSpec{
					Metadata: api.ObjectMeta{Labels: map[string]string{"app": "web"}},
					Spec:     api.PodSpec{Containers: []api.Container{{Name: "web", Image: "nginx:1"}}},
				},
			},
		})
	})
	s.At(20*time.Second, change(image("nginx:2")))
	s.At(21*time.Second, change(func(d *api.Deployment) { d.Spec.Replicas = new(int32(9)) }))
	s.At(40*time.Second, change(image("nginx:3")))
	s.At(60*time.Second, change(image("nginx:1")))
}

// TestDeploymentInvariants runs rollouts under several seeds, without and
// with faults: deployment-surge and deployment-rollout hold, and the
// deployment ends on its first set, at full size.
func TestDeploymentInvariants(t *testing.T) {
	for _, faults := range []sim.FaultSet{0, sim.AllFaults} {
		for seed := uint64(1); seed <= 3; seed++ {
			t.Run(fmt.Sprintf("seed%d-faults%v", seed, faults != 0), func(t *testing.T) {
				s, err := sim.New(t.Context(), sim.Config{Seed: seed, Faults: faults})
				require.NoError(t, err)
				rollout(s, 0)
				err = s.RunFor(t.Context(), 90*time.Second)
				if err == nil {
					err = s.RunUntilQuiet(t.Context(), 10*time.Minute)
				}
				require.NoError(t, err)
				obj, err := s.Server().Get(t.Context(), client.Deployments, "default", "web", client.GetOptions{})
				require.NoError(t, err)
				d := obj.(*api.Deployment)
				assert.Equal(t, "4", d.Metadata.Annotations["deployment.kubernetes.io/revision"])
				assert.Equal(t, int32(9), d.Status.AvailableReplicas)
				assert.Equal(t, int32(9), d.Status.UpdatedReplicas)
			})
		}
	}
}
