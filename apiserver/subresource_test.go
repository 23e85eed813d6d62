package apiserver_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/client/record"
	"github.com/miniplane/miniplane/clock"
)

func TestScaleSubresource(t *testing.T) {
	s, _ := newServer(t)
	cur := createRC(t, s)
	sc, err := s.GetScale(ctx, client.ReplicationControllers, "default", "web")
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
		{name: "stale resourceVersion", replicas: 1, rv: "1", wantErr: apierrors.IsConflict},
		{
			name: "negative", replicas: -1, wantErr: apierrors.IsInvalid,
			wantMsg: `Scale.autoscaling "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0`,
		},
		{name: "scale down", replicas: 0, want: 0, wantGen: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := s.Store().Rev()
			in := &api.Scale{Metadata: api.ObjectMeta{Name: "web", ResourceVersion: tt.rv}, Spec: api.ScaleSpec{Replicas: tt.replicas}}
			got, err := s.UpdateScale(ctx, client.ReplicationControllers, "default", in)
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
			stored, err := client.For[*api.ReplicationController](s).Get(ctx, "default", "web")
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
	require.True(t, apierrors.IsConflict(err), "got %v", err)
	assert.Contains(t, err.Error(), `pod p is already assigned to node "node-1"`)

	_, err = s.Bind(ctx, "default", "ghost", "node-1")
	assert.True(t, apierrors.IsNotFound(err), "got %v", err)
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
	gone, err := s.DeleteCollection(ctx, client.Pods, "default", client.ListOptions{LabelSelector: "app=web"}, api.DeleteOptions{})
	require.NoError(t, err)
	assert.Len(t, gone.Items, 2)
	left, _, err := client.For[*api.Pod](s).List(ctx, "default", client.ListOptions{})
	require.NoError(t, err)
	require.Len(t, left, 1)
	assert.Equal(t, "c", left[0].Metadata.Name)
}

func TestEventRecorderAggregatesRepeats(t *testing.T) {
	s, clk := newServer(t)
	cur := createRC(t, s)
	r := record.NewEventRecorder(s, clk, "replication-controller", "cm-0")

	require.NoError(t, r.Eventf(ctx, cur, api.EventTypeNormal, "SuccessfulCreate", "Created pod: %s", "web-abcde"))
	clk.Step(10e9)
	require.NoError(t, r.Eventf(ctx, cur, api.EventTypeNormal, "SuccessfulCreate", "Created pod: %s", "web-abcde"))
	require.NoError(t, r.Eventf(ctx, cur, api.EventTypeWarning, "FailedCreate", "quota exceeded"))

	evs, _, err := client.For[*api.Event](s).List(ctx, "default", client.ListOptions{FieldSelector: "involvedObject.name=web"})
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

// TestEventRecorderAnnotates: AnnotatedEventf puts the annotations on the
// Event, a copy the caller may reuse, and a repeat that bumps the event
// carries the latest ones.
func TestEventRecorderAnnotates(t *testing.T) {
	s, clk := newServer(t)
	cur := createRC(t, s)
	r := record.NewEventRecorder(s, clk, "replication-controller", "cm-0")
	facts := map[string]string{"example.com/count": "1"}
	require.NoError(t, r.AnnotatedEventf(ctx, cur, facts, api.EventTypeNormal, "SuccessfulCreate", "Created pod: %s", "web-abcde"))
	facts["example.com/count"] = "changed by the caller afterwards"
	evs, _, err := client.For[*api.Event](s).List(ctx, "default", client.ListOptions{})
	require.NoError(t, err)
	require.Len(t, evs, 1)
	assert.Equal(t, map[string]string{"example.com/count": "1"}, evs[0].Metadata.Annotations)

	facts = map[string]string{"example.com/count": "2"}
	require.NoError(t, r.AnnotatedEventf(ctx, cur, facts, api.EventTypeNormal, "SuccessfulCreate", "Created pod: %s", "web-abcde"))
	facts["example.com/count"] = "changed by the caller after the bump"
	evs, _, err = client.For[*api.Event](s).List(ctx, "default", client.ListOptions{})
	require.NoError(t, err)
	require.Len(t, evs, 1)
	assert.Equal(t, int32(2), evs[0].Count)
	assert.Equal(t, map[string]string{"example.com/count": "2"}, evs[0].Metadata.Annotations)

	require.NoError(t, r.Eventf(ctx, cur, api.EventTypeNormal, "SuccessfulCreate", "Created pod: %s", "web-fghij"))
	evs, _, err = client.For[*api.Event](s).List(ctx, "default", client.ListOptions{FieldSelector: "reason=SuccessfulCreate"})
	require.NoError(t, err)
	require.Len(t, evs, 2)
	assert.Nil(t, evs[1].Metadata.Annotations, "Eventf writes none")
}

// TestEventRecorderNamesNeverClashOnAFakeClock records events about many
// objects of one name (different UIDs, as after deletes and recreates) at
// one instant: each gets its own name, none is lost.
func TestEventRecorderNamesNeverClashOnAFakeClock(t *testing.T) {
	s, clk := newServer(t)
	r := record.NewEventRecorder(s, clk, "replication-controller", "cm-0")
	for i := range 100 {
		rc := &api.ReplicationController{
			TypeMeta: api.TypeMeta{APIVersion: "v1", Kind: "ReplicationController"},
			Metadata: api.ObjectMeta{Namespace: "default", Name: "web", UID: api.UID(fmt.Sprintf("uid-%d", i))},
		}
		require.NoError(t, r.Eventf(ctx, rc, api.EventTypeNormal, "SuccessfulCreate", "Created pod: web-%d", i))
	}
	evs, _, err := client.For[*api.Event](s).List(ctx, "default", client.ListOptions{})
	require.NoError(t, err)
	assert.Len(t, evs, 100)
}

// TestEventRecorderCorrelates is client-go's default correlation: similar
// events (one reason, one object, different messages) are combined from
// the tenth on, and at most 25 events about one object get through at
// once, then one per five minutes.
func TestEventRecorderCorrelates(t *testing.T) {
	type want struct {
		message string
		count   int32
	}
	tests := []struct {
		name   string
		record func(r *record.EventRecorder, rc *api.ReplicationController, clk *clock.Fake)
		want   []want // by name, that is in order of creation
	}{
		{
			name: "nine different messages are nine events",
			record: func(r *record.EventRecorder, rc *api.ReplicationController, _ *clock.Fake) {
				for i := range 9 {
					require.NoError(t, r.Eventf(ctx, rc, api.EventTypeNormal, "SuccessfulCreate", "Created pod: web-%d", i))
				}
			},
			want: []want{{"Created pod: web-0", 1}, {"Created pod: web-1", 1}, {"Created pod: web-2", 1}, {"Created pod: web-3", 1},
				{"Created pod: web-4", 1}, {"Created pod: web-5", 1}, {"Created pod: web-6", 1}, {"Created pod: web-7", 1}, {"Created pod: web-8", 1}},
		},
		{
			name: "from the tenth, combined, showing the latest; a first message's repeat still bumps its own",
			record: func(r *record.EventRecorder, rc *api.ReplicationController, _ *clock.Fake) {
				for i := range 12 {
					require.NoError(t, r.Eventf(ctx, rc, api.EventTypeNormal, "SuccessfulCreate", "Created pod: web-%02d", i))
				}
				require.NoError(t, r.Eventf(ctx, rc, api.EventTypeNormal, "SuccessfulCreate", "Created pod: web-00"))
			},
			want: []want{{"Created pod: web-00", 2}, {"Created pod: web-01", 1}, {"Created pod: web-02", 1}, {"Created pod: web-03", 1},
				{"Created pod: web-04", 1}, {"Created pod: web-05", 1}, {"Created pod: web-06", 1}, {"Created pod: web-07", 1},
				{"Created pod: web-08", 1}, {"(combined from similar events): Created pod: web-11", 3}},
		},
		{
			name: "past 25 writes about one object, the rest are dropped until the bucket refills",
			record: func(r *record.EventRecorder, rc *api.ReplicationController, clk *clock.Fake) {
				for range 30 {
					require.NoError(t, r.Eventf(ctx, rc, api.EventTypeWarning, "FailedCreate", "quota exceeded"))
				}
				clk.Step(5 * time.Minute)
				require.NoError(t, r.Eventf(ctx, rc, api.EventTypeWarning, "FailedCreate", "quota exceeded"))
				require.NoError(t, r.Eventf(ctx, rc, api.EventTypeWarning, "FailedCreate", "quota exceeded"))
			},
			want: []want{{"quota exceeded", 26}},
		},
		{
			name: "a group quiet for ten minutes starts afresh",
			record: func(r *record.EventRecorder, rc *api.ReplicationController, clk *clock.Fake) {
				for i := range 10 {
					require.NoError(t, r.Eventf(ctx, rc, api.EventTypeNormal, "SuccessfulDelete", "Deleted pod: web-%d", i))
				}
				clk.Step(10*time.Minute + time.Second)
				require.NoError(t, r.Eventf(ctx, rc, api.EventTypeNormal, "SuccessfulDelete", "Deleted pod: web-new"))
			},
			want: []want{{"Deleted pod: web-0", 1}, {"Deleted pod: web-1", 1}, {"Deleted pod: web-2", 1}, {"Deleted pod: web-3", 1},
				{"Deleted pod: web-4", 1}, {"Deleted pod: web-5", 1}, {"Deleted pod: web-6", 1}, {"Deleted pod: web-7", 1},
				{"Deleted pod: web-8", 1}, {"(combined from similar events): Deleted pod: web-9", 1}, {"Deleted pod: web-new", 1}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, clk := newServer(t)
			rc := createRC(t, s)
			r := record.NewEventRecorder(s, clk, "replication-controller", "cm-0")
			tt.record(r, rc, clk)
			evs, _, err := client.For[*api.Event](s).List(ctx, "default", client.ListOptions{})
			require.NoError(t, err)
			var got []want
			for _, e := range evs {
				got = append(got, want{e.Message, e.Count})
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestEventRecorderConcurrentRepeats records one event from many goroutines
// at once: one event object comes of it, counting every call.
func TestEventRecorderConcurrentRepeats(t *testing.T) {
	s, clk := newServer(t)
	rc := createRC(t, s)
	r := record.NewEventRecorder(s, clk, "replication-controller", "cm-0")
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			assert.NoError(t, r.Eventf(ctx, rc, api.EventTypeWarning, "FailedCreate", "quota exceeded"))
		})
	}
	wg.Wait()
	evs, _, err := client.For[*api.Event](s).List(ctx, "default", client.ListOptions{})
	require.NoError(t, err)
	require.Len(t, evs, 1)
	assert.Equal(t, int32(20), evs[0].Count)
}
