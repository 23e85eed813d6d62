package apiserver_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver"
)

func TestScaleSubresource(t *testing.T) {
	s, _ := newServer(t)
	cur := createRC(t, s)
	sc, err := s.GetScale(ctx, "default", "web")
	require.NoError(t, err)
	assert.Equal(t, &api.Scale{
		TypeMeta: api.TypeMeta{APIVersion: "autoscaling/v1", Kind: "Scale"},
		Metadata: api.ObjectMeta{
			Name: "web", Namespace: "default", UID: cur.Metadata.UID,
			ResourceVersion: cur.Metadata.ResourceVersion, CreationTimestamp: cur.Metadata.CreationTimestamp,
		},
		Spec:   api.ScaleSpec{Replicas: 3},
		Status: api.ScaleStatus{Replicas: 0, Selector: "app=web"},
	}, sc)

	tests := []struct {
		name     string
		replicas int32
		rv       string
		wantErr  func(error) bool
		wantMsg  string
		want     int32
		wantGen  int64
	}{
		{name: "scale up", replicas: 5, want: 5, wantGen: 2},
		{name: "same count writes nothing", replicas: 5, want: 5, wantGen: 2},
		{name: "stale resourceVersion", replicas: 1, rv: "1", wantErr: apiserver.IsConflict},
		{
			name: "negative", replicas: -1, wantErr: apiserver.IsInvalid,
			wantMsg: `Scale.autoscaling "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0`,
		},
		{name: "scale down", replicas: 0, want: 0, wantGen: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := s.Store().Rev()
			in := &api.Scale{Metadata: api.ObjectMeta{Name: "web", ResourceVersion: tt.rv}, Spec: api.ScaleSpec{Replicas: tt.replicas}}
			got, err := s.UpdateScale(ctx, "default", in)
			if tt.wantErr != nil {
				require.True(t, tt.wantErr(err), "got %v", err)
				if tt.wantMsg != "" {
					assert.Equal(t, tt.wantMsg, err.Error())
				}
				assert.Equal(t, before, s.Store().Rev())
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got.Spec.Replicas)
			stored, err := apiserver.For[*api.ReplicationController](s).Get(ctx, "default", "web")
			require.NoError(t, err)
			assert.Equal(t, tt.want, *stored.Spec.Replicas)
			assert.Equal(t, tt.wantGen, stored.Metadata.Generation)
			assert.Equal(t, cur.Spec.Template, stored.Spec.Template, "only replicas changed")
		})
	}
}

func TestBind(t *testing.T) {
	s, _ := newServer(t)
	_, err := s.Create(ctx, pod("default", "p", nil))
	require.NoError(t, err)

	got, err := s.Bind(ctx, "default", "p", "node-1")
	require.NoError(t, err)
	assert.Equal(t, "node-1", got.Spec.NodeName)
	require.Len(t, got.Status.Conditions, 1)
	assert.Equal(t, api.PodScheduled, got.Status.Conditions[0].Type)
	assert.Equal(t, api.ConditionTrue, got.Status.Conditions[0].Status)

	_, err = s.Bind(ctx, "default", "p", "node-2")
	require.True(t, apiserver.IsConflict(err), "got %v", err)
	assert.Contains(t, err.Error(), `pod p is already assigned to node "node-1"`)

	_, err = s.Bind(ctx, "default", "ghost", "node-1")
	assert.True(t, apiserver.IsNotFound(err), "got %v", err)
}

func TestDeleteCollection(t *testing.T) {
	s, _ := newServer(t)
	for _, name := range []string{"a", "b", "c"} {
		app := "web"
		if name == "c" {
			app = "db"
		}
		_, err := s.Create(ctx, pod("default", name, map[string]string{"app": app}))
		require.NoError(t, err)
	}
	gone, err := s.DeleteCollection(ctx, apiserver.Pods, "default", apiserver.ListOptions{LabelSelector: "app=web"}, api.DeleteOptions{})
	require.NoError(t, err)
	assert.Len(t, gone.Items, 2)
	left, _, err := apiserver.For[*api.Pod](s).List(ctx, "default", apiserver.ListOptions{})
	require.NoError(t, err)
	require.Len(t, left, 1)
	assert.Equal(t, "c", left[0].Metadata.Name)
}

func TestEventRecorderAggregatesRepeats(t *testing.T) {
	s, clk := newServer(t)
	cur := createRC(t, s)
	r := apiserver.NewEventRecorder(s, clk, "replication-controller", "cm-0")

	require.NoError(t, r.Eventf(ctx, cur, api.EventTypeNormal, "SuccessfulCreate", "Created pod: %s", "web-abcde"))
	clk.Step(10e9)
	require.NoError(t, r.Eventf(ctx, cur, api.EventTypeNormal, "SuccessfulCreate", "Created pod: %s", "web-abcde"))
	require.NoError(t, r.Eventf(ctx, cur, api.EventTypeWarning, "FailedCreate", "quota exceeded"))

	evs, _, err := apiserver.For[*api.Event](s).List(ctx, "default", apiserver.ListOptions{FieldSelector: "involvedObject.name=web"})
	require.NoError(t, err)
	require.Len(t, evs, 2)
	byReason := map[string]*api.Event{}
	for _, e := range evs {
		byReason[e.Reason] = e
	}
	created := byReason["SuccessfulCreate"]
	require.NotNil(t, created)
	assert.Equal(t, int32(2), created.Count, "the repeat was aggregated")
	assert.Equal(t, epoch, created.FirstTimestamp.Time)
	assert.Equal(t, epoch.Add(10e9), created.LastTimestamp.Time)
	assert.Equal(t, api.ObjectReference{
		Kind: "ReplicationController", APIVersion: "v1", Namespace: "default", Name: "web",
		UID: cur.Metadata.UID, ResourceVersion: cur.Metadata.ResourceVersion,
	}, created.InvolvedObject)
	assert.Equal(t, "replication-controller", created.Source.Component)
	assert.Equal(t, "Created pod: web-abcde", created.Message)
	assert.Equal(t, int32(1), byReason["FailedCreate"].Count)
	assert.Equal(t, api.EventTypeWarning, byReason["FailedCreate"].Type)
}

// TestEventRecorderNamesNeverClashOnAFakeClock records many different events
// about one object at one instant: each gets its own name, none is lost.
func TestEventRecorderNamesNeverClashOnAFakeClock(t *testing.T) {
	s, clk := newServer(t)
	cur := createRC(t, s)
	r := apiserver.NewEventRecorder(s, clk, "replication-controller", "cm-0")
	for i := range 100 {
		require.NoError(t, r.Eventf(ctx, cur, api.EventTypeNormal, "SuccessfulCreate", "Created pod: web-%d", i))
	}
	evs, _, err := apiserver.For[*api.Event](s).List(ctx, "default", apiserver.ListOptions{})
	require.NoError(t, err)
	assert.Len(t, evs, 100)
}
