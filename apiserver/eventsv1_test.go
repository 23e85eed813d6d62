package apiserver_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/store"
)

var (
	podRef  = api.ObjectReference{Kind: "Pod", Namespace: "default", Name: "web", UID: "u-web", APIVersion: "v1", ResourceVersion: "7", FieldPath: "spec.containers{app}"}
	nodeRef = api.ObjectReference{Kind: "Node", Name: "node-1", UID: "u-node", APIVersion: "v1"}
	seen    = time.Date(2024, 5, 14, 9, 21, 7, 123456000, time.UTC)
)

// coreEvent is a new-style event, valid through either API, as core/v1
// shows it; v1Event is the same event as events.k8s.io/v1 shows it.
func coreEvent(name string) *api.Event {
	return &api.Event{
		Metadata:       api.ObjectMeta{Namespace: "default", Name: name},
		InvolvedObject: podRef,
		Reason:         "Scheduled", Message: "Successfully assigned default/web to node-1", Type: api.EventTypeNormal,
		EventTime: api.NewMicroTime(seen), Action: "Binding",
		ReportingController: "default-scheduler", ReportingInstance: "default-scheduler-1",
	}
}

func v1Event(name string) *api.EventsV1Event {
	return &api.EventsV1Event{
		Metadata:  api.ObjectMeta{Namespace: "default", Name: name},
		Regarding: podRef,
		Reason:    "Scheduled", Note: "Successfully assigned default/web to node-1", Type: api.EventTypeNormal,
		EventTime: api.NewMicroTime(seen), Action: "Binding",
		ReportingController: "default-scheduler", ReportingInstance: "default-scheduler-1",
	}
}

// TestEventsV1Conversion writes an event through one API and reads it
// through the other, one field at a time, in both directions: every field
// of each version lands in its counterpart of the other. The deprecated
// fields are core/v1's to write: events.k8s.io refuses them.
func TestEventsV1Conversion(t *testing.T) {
	later := api.NewMicroTime(seen.Add(time.Minute))
	tests := []struct {
		name string
		core func(*api.Event)         // the field, set through core/v1
		v1   func(*api.EventsV1Event) // the same field as events.k8s.io/v1 shows it
		// v1Refused, when set, is why events.k8s.io refuses the field.
		v1Refused string
	}{
		{name: "nothing more", core: func(*api.Event) {}, v1: func(*api.EventsV1Event) {}},
		{name: "metadata", core: func(e *api.Event) { e.Metadata.Labels = map[string]string{"a": "b"} },
			v1: func(e *api.EventsV1Event) { e.Metadata.Labels = map[string]string{"a": "b"} }},
		{name: "involvedObject is regarding", core: func(e *api.Event) { e.InvolvedObject.Name = "web-2" },
			v1: func(e *api.EventsV1Event) { e.Regarding.Name = "web-2" }},
		{name: "message is note", core: func(e *api.Event) { e.Message = "other" },
			v1: func(e *api.EventsV1Event) { e.Note = "other" }},
		{name: "reason", core: func(e *api.Event) { e.Reason = "Preempted" },
			v1: func(e *api.EventsV1Event) { e.Reason = "Preempted" }},
		{name: "type", core: func(e *api.Event) { e.Type = api.EventTypeWarning },
			v1: func(e *api.EventsV1Event) { e.Type = api.EventTypeWarning }},
		{name: "eventTime", core: func(e *api.Event) { e.EventTime = later },
			v1: func(e *api.EventsV1Event) { e.EventTime = later }},
		{name: "series", core: func(e *api.Event) { e.Series = &api.EventSeries{Count: 3, LastObservedTime: later} },
			v1: func(e *api.EventsV1Event) { e.Series = &api.EventsV1EventSeries{Count: 3, LastObservedTime: later} }},
		{name: "action", core: func(e *api.Event) { e.Action = "Preempting" },
			v1: func(e *api.EventsV1Event) { e.Action = "Preempting" }},
		{name: "related", core: func(e *api.Event) { e.Related = &nodeRef },
			v1: func(e *api.EventsV1Event) { e.Related = &nodeRef }},
		{name: "reportingComponent is reportingController", core: func(e *api.Event) { e.ReportingController = "kubelet" },
			v1: func(e *api.EventsV1Event) { e.ReportingController = "kubelet" }},
		{name: "reportingInstance", core: func(e *api.Event) { e.ReportingInstance = "node-1" },
			v1: func(e *api.EventsV1Event) { e.ReportingInstance = "node-1" }},
		{name: "source is deprecatedSource", core: func(e *api.Event) { e.Source = api.EventSource{Component: "kubelet", Host: "node-1"} },
			v1:        func(e *api.EventsV1Event) { e.DeprecatedSource = api.EventSource{Component: "kubelet", Host: "node-1"} },
			v1Refused: `source: Invalid value: "": needs to be unset`},
		{name: "firstTimestamp is deprecatedFirstTimestamp", core: func(e *api.Event) { e.FirstTimestamp = api.NewTime(seen) },
			v1:        func(e *api.EventsV1Event) { e.DeprecatedFirstTimestamp = api.NewTime(seen) },
			v1Refused: `firstTimestamp: Invalid value: "": needs to be unset`},
		{name: "lastTimestamp is deprecatedLastTimestamp", core: func(e *api.Event) { e.LastTimestamp = api.NewTime(seen) },
			v1:        func(e *api.EventsV1Event) { e.DeprecatedLastTimestamp = api.NewTime(seen) },
			v1Refused: `lastTimestamp: Invalid value: "": needs to be unset`},
		{name: "count is deprecatedCount", core: func(e *api.Event) { e.Count = 4 },
			v1:        func(e *api.EventsV1Event) { e.DeprecatedCount = 4 },
			v1Refused: `count: Invalid value: "": needs to be unset`},
	}
	s, _ := newServer(t)
	core, v1 := client.For[*api.Event](s), client.For[*api.EventsV1Event](s)
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Run("core/v1 to events.k8s.io/v1", func(t *testing.T) {
				in := coreEvent("to-v1-" + strconv.Itoa(i))
				tt.core(in)
				_, err := core.Create(ctx, in)
				require.NoError(t, err)
				got, err := v1.Get(ctx, "default", in.Metadata.Name)
				require.NoError(t, err)

				want := v1Event(in.Metadata.Name)
				tt.v1(want)
				want.TypeMeta = api.TypeMeta{APIVersion: "events.k8s.io/v1", Kind: "Event"}
				want.Metadata = withServerFields(t, want.Metadata, got.Metadata)
				assert.Equal(t, want, got)
			})
			t.Run("events.k8s.io/v1 to core/v1", func(t *testing.T) {
				in := v1Event("to-core-" + strconv.Itoa(i))
				tt.v1(in)
				rev := s.Store().Rev()
				created, err := v1.Create(ctx, in)
				if tt.v1Refused != "" {
					require.True(t, apierrors.IsInvalid(err), "got %v", err)
					assert.Equal(t, `Event "`+in.Metadata.Name+`" is invalid: `+tt.v1Refused, err.Error())
					assert.Equal(t, rev, s.Store().Rev(), "nothing stored")
					return
				}
				require.NoError(t, err)
				assert.Equal(t, api.TypeMeta{APIVersion: "events.k8s.io/v1", Kind: "Event"}, created.TypeMeta, "answered in the request's version")
				got, err := core.Get(ctx, "default", in.Metadata.Name)
				require.NoError(t, err)

				want := coreEvent(in.Metadata.Name)
				tt.core(want)
				want.TypeMeta = api.TypeMeta{APIVersion: "v1", Kind: "Event"}
				want.Metadata = withServerFields(t, want.Metadata, got.Metadata)
				assert.Equal(t, want, got)
				assert.Equal(t, created.Metadata, got.Metadata, "one object, one metadata")
			})
		})
	}
}

// withServerFields returns want with the fields the server sets on create
// taken from got, after checking that got has them.
func withServerFields(t *testing.T, want, got api.ObjectMeta) api.ObjectMeta {
	t.Helper()
	require.NotEmpty(t, got.UID)
	require.NotEmpty(t, got.ResourceVersion)
	want.UID, want.ResourceVersion, want.CreationTimestamp, want.Generation = got.UID, got.ResourceVersion, got.CreationTimestamp, got.Generation
	return want
}

// TestEventsV1SharedStorage checks that the two APIs are one storage: one
// key per event, one resourceVersion sequence, a list through either holds
// the writes of both, and a watch through either sees them.
func TestEventsV1SharedStorage(t *testing.T) {
	s, _ := newServer(t)
	core, v1 := client.For[*api.Event](s), client.For[*api.EventsV1Event](s)
	start := strconv.FormatInt(s.Store().Rev(), 10)
	coreWatch, err := s.Watch(ctx, client.Events, "default", client.ListOptions{ResourceVersion: start})
	require.NoError(t, err)
	defer coreWatch.Stop()
	v1Watch, err := s.Watch(ctx, client.EventsK8sIO, "default", client.ListOptions{ResourceVersion: start})
	require.NoError(t, err)
	defer v1Watch.Stop()

	a, err := core.Create(ctx, coreEvent("a"))
	require.NoError(t, err)
	b, err := v1.Create(ctx, v1Event("b"))
	require.NoError(t, err)
	rvA, _ := strconv.Atoi(a.Metadata.ResourceVersion)
	rvB, _ := strconv.Atoi(b.Metadata.ResourceVersion)
	assert.Equal(t, rvA+1, rvB, "one resourceVersion sequence")

	// An update through one API, a delete through the other.
	bCore, err := core.Get(ctx, "default", "b")
	require.NoError(t, err)
	bCore = bCore.DeepCopy()
	bCore.Series = &api.EventSeries{Count: 2, LastObservedTime: api.NewMicroTime(seen.Add(time.Second))}
	bUpdated, err := core.Update(ctx, bCore)
	require.NoError(t, err)
	_, err = v1.Delete(ctx, "default", "a", api.DeleteOptions{})
	require.NoError(t, err)

	keys := 0
	list, err := s.Store().List("/registry/events/", store.ListOptions{})
	require.NoError(t, err)
	for _, r := range list.Records {
		assert.IsType(t, &api.Event{}, r.Value, "stored once, as core/v1")
		keys++
	}
	assert.Equal(t, 1, keys)
	assert.Equal(t, 1, s.Count(client.Events))
	assert.Equal(t, 1, s.Count(client.EventsK8sIO))

	coreList, _, err := core.List(ctx, "", client.ListOptions{})
	require.NoError(t, err)
	v1List, listRV, err := v1.List(ctx, "", client.ListOptions{})
	require.NoError(t, err)
	require.Len(t, coreList, 1)
	require.Len(t, v1List, 1)
	assert.Equal(t, bUpdated.Metadata.ResourceVersion, v1List[0].Metadata.ResourceVersion)
	assert.Equal(t, &api.EventsV1EventSeries{Count: 2, LastObservedTime: api.NewMicroTime(seen.Add(time.Second))}, v1List[0].Series)
	assert.Equal(t, strconv.FormatInt(s.Store().Rev(), 10), listRV)

	wantEvents := []string{"ADDED default/a", "ADDED default/b", "MODIFIED default/b", "DELETED default/a"}
	for _, w := range []struct {
		name    string
		watcher client.Watcher
		goType  api.Object
	}{{"core/v1", coreWatch, &api.Event{}}, {"events.k8s.io/v1", v1Watch, &api.EventsV1Event{}}} {
		t.Run("watch through "+w.name, func(t *testing.T) {
			evs := pollAll(t, w.watcher)
			var got []string
			for _, ev := range evs {
				assert.IsType(t, w.goType, ev.Object)
				got = append(got, ev.Type+" "+api.KeyOf(ev.Object.GetObjectMeta()))
			}
			assert.Equal(t, wantEvents, got)
			require.Len(t, evs, 4)
			assert.Equal(t, bUpdated.Metadata.ResourceVersion, evs[2].Object.GetObjectMeta().ResourceVersion)
		})
	}
}

// TestEventsV1Errors checks what the events.k8s.io API refuses and how it
// names things in errors: the request's resource in NotFound and
// AlreadyExists, the stored kind in Invalid (as kube-apiserver, which
// validates the internal core Event); the request version's field-selector
// labels. A refused request stores nothing.
func TestEventsV1Errors(t *testing.T) {
	s, _ := newServer(t)
	v1 := client.For[*api.EventsV1Event](s)
	_, err := v1.Create(ctx, v1Event("exists"))
	require.NoError(t, err)
	tests := []struct {
		name string
		do   func() error
		is   func(error) bool
		want string
	}{
		{name: "get missing", do: func() error { _, err := v1.Get(ctx, "default", "nope"); return err },
			is: apierrors.IsNotFound, want: `events.events.k8s.io "nope" not found`},
		{name: "create existing", do: func() error { _, err := v1.Create(ctx, v1Event("exists")); return err },
			is: apierrors.IsAlreadyExists, want: `events.events.k8s.io "exists" already exists`},
		{name: "no eventTime, no type", do: func() error {
			e := v1Event("old-style")
			e.EventTime, e.Type = api.MicroTime{}, ""
			_, err := v1.Create(ctx, e)
			return err
		}, is: apierrors.IsInvalid, want: `Event "old-style" is invalid: [eventTime: Required value, type: Invalid value: "": has invalid value: ]`},
		{name: "series of one", do: func() error {
			e := v1Event("single")
			e.Series = &api.EventsV1EventSeries{Count: 1}
			_, err := v1.Create(ctx, e)
			return err
		}, is: apierrors.IsInvalid, want: `Event "single" is invalid: [series.count: Invalid value: "": should be at least 2, series.lastObservedTime: Required value]`},
		{name: "wrong apiVersion", do: func() error {
			e := v1Event("typed")
			e.TypeMeta = api.TypeMeta{APIVersion: "v1", Kind: "Event"}
			_, err := v1.Create(ctx, e)
			return err
		}, is: apierrors.IsBadRequest, want: `the object's apiVersion "v1" and kind "Event" do not match the resource events.events.k8s.io (events.k8s.io/v1, Event)`},
		{name: "changed note", do: func() error {
			e, err := v1.Get(ctx, "default", "exists")
			require.NoError(t, err)
			e = e.DeepCopy()
			e.Note = "rewritten"
			_, err = v1.Update(ctx, e)
			return err
		}, is: apierrors.IsInvalid, want: `Event "exists" is invalid: message: Invalid value: "rewritten": field is immutable`},
		{name: "core field label", do: func() error {
			_, _, err := v1.List(ctx, "", client.ListOptions{FieldSelector: "involvedObject.name=web"})
			return err
		}, is: apierrors.IsBadRequest, want: "field label not supported: involvedObject.name"},
		{name: "events.k8s.io field label on core", do: func() error {
			_, _, err := client.For[*api.Event](s).List(ctx, "", client.ListOptions{FieldSelector: "regarding.name=web"})
			return err
		}, is: apierrors.IsBadRequest, want: "field label not supported: regarding.name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rev := s.Store().Rev()
			err := tt.do()
			require.True(t, tt.is(err), "got %v", err)
			assert.Equal(t, tt.want, err.Error())
			assert.Equal(t, rev, s.Store().Rev(), "nothing stored")
		})
	}
}

// TestEventsV1FieldSelectors lists and watches events.k8s.io events by the
// newer API's field labels, which select on the same stored fields as
// core/v1's.
func TestEventsV1FieldSelectors(t *testing.T) {
	s, _ := newServer(t)
	core, v1 := client.For[*api.Event](s), client.For[*api.EventsV1Event](s)
	scheduled := coreEvent("scheduled")
	pulled := coreEvent("pulled")
	pulled.InvolvedObject.Name, pulled.Reason, pulled.ReportingController = "db", "Pulled", "kubelet"
	pulled.Source = api.EventSource{Component: "kubelet"}
	pulled.Type = api.EventTypeWarning
	for _, e := range []*api.Event{scheduled, pulled} {
		_, err := core.Create(ctx, e)
		require.NoError(t, err)
	}
	tests := []struct {
		selector string
		want     []string
	}{
		{"regarding.name=web", []string{"scheduled"}},
		{"regarding.kind=Pod,regarding.namespace=default", []string{"pulled", "scheduled"}},
		{"regarding.uid=u-web,regarding.apiVersion=v1,regarding.resourceVersion=7", []string{"pulled", "scheduled"}},
		{"regarding.fieldPath=spec.containers{app}", []string{"pulled", "scheduled"}},
		{"reportingController=kubelet", []string{"pulled"}},
		{"reason!=Pulled", []string{"scheduled"}},
		{"source=kubelet", []string{"pulled"}},
		// With no deprecatedSource, source is the reporting controller
		// (conformance: Events API "can be fetched, patched, deleted, and listed").
		{"source=default-scheduler", []string{"scheduled"}},
		{"type=Warning", []string{"pulled"}},
		{"metadata.name=scheduled", []string{"scheduled"}},
	}
	for _, tt := range tests {
		t.Run(tt.selector, func(t *testing.T) {
			items, _, err := v1.List(ctx, "default", client.ListOptions{FieldSelector: tt.selector})
			require.NoError(t, err)
			var names []string
			for _, e := range items {
				names = append(names, e.Metadata.Name)
			}
			assert.Equal(t, tt.want, names)
		})
	}
	t.Run("core/v1 source=default-scheduler", func(t *testing.T) {
		items, _, err := core.List(ctx, "default", client.ListOptions{FieldSelector: "source=default-scheduler"})
		require.NoError(t, err)
		require.Len(t, items, 1)
		assert.Equal(t, "scheduled", items[0].Metadata.Name)
	})
}
