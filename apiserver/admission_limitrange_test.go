package apiserver_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
)

// The cases of Kubernetes' TestPodLimitFunc and TestLimitRangerAdmit
// (plugin/pkg/admission/limitranger) that miniplane's pods can express.
func TestLimitRangerAdmission(t *testing.T) {
	container := api.LimitRangeItem{Type: api.LimitTypeContainer,
		Max: api.ResourceList{"cpu": "2", "memory": "1Gi"}, Min: api.ResourceList{"cpu": "100m", "memory": "64Mi"},
		Default: api.ResourceList{"cpu": "500m", "memory": "256Mi"}, DefaultRequest: api.ResourceList{"cpu": "250m", "memory": "128Mi"},
		MaxLimitRequestRatio: api.ResourceList{"cpu": "4"}}
	podLimit := api.LimitRangeItem{Type: api.LimitTypePod, Max: api.ResourceList{"cpu": "3"}}
	claims := api.LimitRangeItem{Type: api.LimitTypePersistentVolumeClaim, Max: api.ResourceList{"storage": "10Gi"}, Min: api.ResourceList{"storage": "1Gi"}}
	claim := func(size string) *api.PersistentVolumeClaim {
		return &api.PersistentVolumeClaim{Metadata: api.ObjectMeta{Namespace: "default", Name: "c"}, Spec: api.PersistentVolumeClaimSpec{
			AccessModes: []api.PersistentVolumeAccessMode{"ReadWriteOnce"},
			Resources:   api.VolumeResourceRequirements{Requests: api.ResourceList{"storage": size}}}}
	}
	tests := []struct {
		name       string
		limits     []api.LimitRangeItem
		obj        api.Object
		wantReq    api.ResourceList
		wantLim    api.ResourceList
		wantNote   string
		wantErr    string
		otherSpace bool
	}{
		{name: "defaults applied", limits: []api.LimitRangeItem{container}, obj: pod("default", "p", nil),
			wantReq: api.ResourceList{"cpu": "250m", "memory": "128Mi"}, wantLim: api.ResourceList{"cpu": "500m", "memory": "256Mi"},
			wantNote: "LimitRanger plugin set: cpu, memory request for container app; cpu, memory limit for container app"},
		{name: "a set limit is kept", limits: []api.LimitRangeItem{container},
			obj:     withResources(pod("default", "p", nil), api.ResourceList{"cpu": "1"}, api.ResourceList{"cpu": "2"}),
			wantReq: api.ResourceList{"cpu": "1", "memory": "128Mi"}, wantLim: api.ResourceList{"cpu": "2", "memory": "256Mi"},
			wantNote: "LimitRanger plugin set: memory request for container app; memory limit for container app"},
		{name: "a limit without a request is its request", limits: []api.LimitRangeItem{container},
			obj:     withResources(pod("default", "p", nil), nil, api.ResourceList{"cpu": "300m"}),
			wantReq: api.ResourceList{"cpu": "300m", "memory": "128Mi"}, wantLim: api.ResourceList{"cpu": "300m", "memory": "256Mi"},
			wantNote: "LimitRanger plugin set: memory request for container app; memory limit for container app"},
		{name: "above max", limits: []api.LimitRangeItem{container},
			obj:     withResources(pod("default", "p", nil), api.ResourceList{"cpu": "1"}, api.ResourceList{"cpu": "3"}),
			wantErr: `pods "p" is forbidden: maximum cpu usage per Container is 2, but limit is 3`},
		{name: "below min", limits: []api.LimitRangeItem{container},
			obj:     withResources(pod("default", "p", nil), api.ResourceList{"memory": "32Mi"}, nil),
			wantErr: `pods "p" is forbidden: minimum memory usage per Container is 64Mi, but request is 32Mi`},
		{name: "ratio", limits: []api.LimitRangeItem{container},
			obj:     withResources(pod("default", "p", nil), api.ResourceList{"cpu": "100m"}, api.ResourceList{"cpu": "1"}),
			wantErr: `pods "p" is forbidden: cpu max limit to request ratio per Container is 4, but provided ratio is 10.000000`},
		{name: "several breaches", limits: []api.LimitRangeItem{container},
			obj:     withResources(pod("default", "p", nil), api.ResourceList{"cpu": "50m"}, api.ResourceList{"cpu": "3"}),
			wantErr: `pods "p" is forbidden: [minimum cpu usage per Container is 100m, but request is 50m, maximum cpu usage per Container is 2, but limit is 3, cpu max limit to request ratio per Container is 4, but provided ratio is 60.000000]`},
		{name: "pod max without limits", limits: []api.LimitRangeItem{podLimit}, obj: pod("default", "p", nil),
			wantErr: `pods "p" is forbidden: maximum cpu usage per Pod is 3.  No limit is specified`},
		{name: "another namespace", limits: []api.LimitRangeItem{podLimit}, obj: pod("kube-system", "p", nil), otherSpace: true},
		{name: "claim within bounds", limits: []api.LimitRangeItem{claims}, obj: claim("5Gi")},
		{name: "claim too large", limits: []api.LimitRangeItem{claims}, obj: claim("20Gi"),
			wantErr: `persistentvolumeclaims "c" is forbidden: maximum storage usage per PersistentVolumeClaim is 10Gi, but request is 20Gi`},
		{name: "claim too small", limits: []api.LimitRangeItem{claims}, obj: claim("500Mi"),
			wantErr: `persistentvolumeclaims "c" is forbidden: minimum storage usage per PersistentVolumeClaim is 1Gi, but request is 500Mi`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := apiserver.New(apiserver.Config{Clock: clock.NewFake(epoch), Rand: rand.New(rand.NewPCG(1, 2))})
			require.NoError(t, err)
			_, err = s.Create(ctx, &api.LimitRange{Metadata: api.ObjectMeta{Namespace: "default", Name: "limits"}, Spec: api.LimitRangeSpec{Limits: tt.limits}})
			require.NoError(t, err)
			rev := s.Store().Rev()
			got, err := s.Create(ctx, tt.obj)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.True(t, apierrors.IsForbidden(err), "%v", err)
				assert.EqualError(t, err, tt.wantErr)
				assert.Equal(t, rev, s.Store().Rev(), "nothing is stored")
				return
			}
			require.NoError(t, err)
			p, ok := got.(*api.Pod)
			if !ok || tt.otherSpace {
				return
			}
			assert.Equal(t, tt.wantReq, p.Spec.Containers[0].Resources.Requests)
			assert.Equal(t, tt.wantLim, p.Spec.Containers[0].Resources.Limits)
			assert.Equal(t, tt.wantNote, p.Metadata.Annotations["kubernetes.io/limit-ranger"])
		})
	}
}

func TestLimitRangeLeavesPodUpdatesAlone(t *testing.T) {
	s, err := apiserver.New(apiserver.Config{Clock: clock.NewFake(epoch), Rand: rand.New(rand.NewPCG(1, 2))})
	require.NoError(t, err)
	created, err := s.Create(ctx, pod("default", "p", nil))
	require.NoError(t, err)
	_, err = s.Create(ctx, &api.LimitRange{Metadata: api.ObjectMeta{Namespace: "default", Name: "limits"},
		Spec: api.LimitRangeSpec{Limits: []api.LimitRangeItem{{Type: api.LimitTypePod, Max: api.ResourceList{"cpu": "1"}}}}})
	require.NoError(t, err)
	upd := created.(*api.Pod).DeepCopy()
	upd.Metadata.Labels = map[string]string{"a": "b"}
	_, err = s.Update(ctx, upd)
	assert.NoError(t, err, "a pod made before the range is not checked on update")
	_, err = client.For[*api.LimitRange](s).Get(ctx, "default", "limits")
	assert.NoError(t, err)
}
