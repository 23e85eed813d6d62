package apiserver_test

import (
	"math/rand/v2"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
)

// newQuotaServer returns a server with ResourceQuota admission on and the
// quota q in "default", its status set as the controller would: hard from
// spec, used as given.
func newQuotaServer(t *testing.T, hard, used api.ResourceList, scopes ...string) *apiserver.Server {
	t.Helper()
	s, err := apiserver.New(apiserver.Config{Clock: clock.NewFake(epoch), Rand: rand.New(rand.NewPCG(1, 2)), ResourceQuotas: true})
	require.NoError(t, err)
	created, err := s.Create(ctx, &api.ResourceQuota{Metadata: api.ObjectMeta{Namespace: "default", Name: "q"},
		Spec: api.ResourceQuotaSpec{Hard: hard, Scopes: scopes}})
	require.NoError(t, err)
	q := created.(*api.ResourceQuota).DeepCopy()
	q.Status = api.ResourceQuotaStatus{Hard: hard, Used: used}
	_, err = s.UpdateStatus(ctx, q)
	require.NoError(t, err)
	return s
}

func withResources(p *api.Pod, req, lim api.ResourceList) *api.Pod {
	p.Spec.Containers[0].Resources = api.ResourceRequirements{Requests: req, Limits: lim}
	return p
}

func TestQuotaAdmission(t *testing.T) {
	tests := []struct {
		name     string
		hard     api.ResourceList
		used     api.ResourceList
		scopes   []string
		obj      api.Object
		wantErr  string
		wantUsed api.ResourceList
	}{
		{name: "fits and is charged", hard: api.ResourceList{"pods": "2"}, used: api.ResourceList{"pods": "1"},
			obj: pod("default", "p", nil), wantUsed: api.ResourceList{"pods": "2"}},
		{name: "exceeds", hard: api.ResourceList{"pods": "2"}, used: api.ResourceList{"pods": "2"},
			obj:     pod("default", "p", nil),
			wantErr: `pods "p" is forbidden: exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2`},
		{name: "exceeds compute", hard: api.ResourceList{"requests.cpu": "1", "requests.memory": "500Mi"}, used: api.ResourceList{"requests.cpu": "500m", "requests.memory": "252Mi"},
			obj:     withResources(pod("default", "p", nil), api.ResourceList{"cpu": "600m", "memory": "100Mi"}, nil),
			wantErr: `pods "p" is forbidden: exceeded quota: q, requested: requests.cpu=600m, used: requests.cpu=500m, limited: requests.cpu=1`},
		{name: "compute charged", hard: api.ResourceList{"cpu": "1", "memory": "500Mi"}, used: api.ResourceList{"cpu": "500m", "memory": "252Mi"},
			obj:      withResources(pod("default", "p", nil), api.ResourceList{"cpu": "250m", "memory": "100Mi"}, nil),
			wantUsed: api.ResourceList{"cpu": "750m", "memory": "352Mi"}},
		{name: "missing limits", hard: api.ResourceList{"limits.cpu": "2", "limits.memory": "1Gi"}, used: api.ResourceList{"limits.cpu": "0", "limits.memory": "0"},
			obj:     pod("default", "p", nil),
			wantErr: `pods "p" is forbidden: failed quota: q: must specify limits.cpu for: app; limits.memory for: app`},
		{name: "not yet counted", hard: api.ResourceList{"pods": "2"},
			obj: pod("default", "p", nil), wantErr: `pods "p" is forbidden: status unknown for quota: q, resources: pods`},
		{name: "object count", hard: api.ResourceList{"configmaps": "1", "count/configmaps": "1"}, used: api.ResourceList{"configmaps": "1", "count/configmaps": "1"},
			obj:     &api.ConfigMap{Metadata: api.ObjectMeta{Namespace: "default", Name: "c"}},
			wantErr: `configmaps "c" is forbidden: exceeded quota: q, requested: configmaps=1,count/configmaps=1, used: configmaps=1,count/configmaps=1, limited: configmaps=1,count/configmaps=1`},
		{name: "out of scope", hard: api.ResourceList{"pods": "0"}, used: api.ResourceList{"pods": "0"}, scopes: []string{api.ScopeNotBestEffort},
			obj: pod("default", "p", nil), wantUsed: api.ResourceList{"pods": "0"}},
		{name: "another namespace", hard: api.ResourceList{"pods": "0"}, used: api.ResourceList{"pods": "0"},
			obj: pod("kube-system", "p", nil), wantUsed: api.ResourceList{"pods": "0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newQuotaServer(t, tt.hard, tt.used, tt.scopes...)
			_, err := s.Create(ctx, tt.obj)
			q, getErr := client.For[*api.ResourceQuota](s).Get(ctx, "default", "q")
			require.NoError(t, getErr)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Equal(t, tt.wantErr, err.Error())
				assert.Equal(t, int32(http.StatusForbidden), apierrors.StatusOf(err).Code)
				assert.Equal(t, tt.used, q.Status.Used, "nothing charged on a refusal")
				m := tt.obj.GetObjectMeta()
				_, getErr := s.Get(ctx, client.ResourceOf(tt.obj), m.Namespace, m.Name, client.GetOptions{})
				assert.True(t, apierrors.IsNotFound(getErr), "nothing stored on a refusal")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.wantUsed, q.Status.Used)
		})
	}
}

// A burst of creates is charged one by one: the third of three pods
// against pods=2 is refused even though no controller recounted between.
func TestQuotaAdmissionBurstCannotOvershoot(t *testing.T) {
	s := newQuotaServer(t, api.ResourceList{"pods": "2"}, api.ResourceList{"pods": "0"})
	_, err := s.Create(ctx, pod("default", "a", nil))
	require.NoError(t, err)
	_, err = s.Create(ctx, pod("default", "b", nil))
	require.NoError(t, err)
	_, err = s.Create(ctx, pod("default", "c", nil))
	require.Error(t, err)
	assert.Equal(t, `pods "c" is forbidden: exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2`, err.Error())
}

// An update is charged what it grows: a Service turned NodePort takes a
// node port, refused when none is left; an update that grows nothing
// passes whatever the quota says.
func TestQuotaAdmissionOfUpdates(t *testing.T) {
	s := newQuotaServer(t, api.ResourceList{"services.nodeports": "1", "services": "1"}, api.ResourceList{"services.nodeports": "0", "services": "0"})
	svc := &api.Service{Metadata: api.ObjectMeta{Namespace: "default", Name: "web"},
		Spec: api.ServiceSpec{Selector: map[string]string{"app": "web"}, Ports: []api.ServicePort{{Name: "http", Port: 80}, {Name: "https", Port: 443}}}}
	created, err := s.Create(ctx, svc)
	require.NoError(t, err)

	labelled := created.(*api.Service).DeepCopy()
	labelled.Metadata.Labels = map[string]string{"tier": "front"}
	_, err = s.Update(ctx, labelled)
	require.NoError(t, err, "an update that grows nothing is admitted though services is at its hard")

	cur, err := client.For[*api.Service](s).Get(ctx, "default", "web")
	require.NoError(t, err)
	nodePort := cur.DeepCopy()
	nodePort.Spec.Type = api.ServiceTypeNodePort
	_, err = s.Update(ctx, nodePort)
	require.Error(t, err)
	assert.Equal(t, `services "web" is forbidden: exceeded quota: q, requested: services.nodeports=2, used: services.nodeports=0, limited: services.nodeports=1`, err.Error())
	q, err := client.For[*api.ResourceQuota](s).Get(ctx, "default", "q")
	require.NoError(t, err)
	assert.Equal(t, api.ResourceList{"services.nodeports": "0", "services": "1"}, q.Status.Used)
}
