package api

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEventConversionFixtures converts each core/v1 event fixture to events.k8s.io/v1 and
// each events.k8s.io/v1 fixture back, and requires the JSON of the other fixture, which
// holds the same event as kube-apiserver shows it in the other version.
func TestEventConversionFixtures(t *testing.T) {
	tests := []struct{ core, v1 string }{
		{"event.json", "eventsv1-event.json"},
		{"event-series.json", "eventsv1-event-series.json"},
	}
	for _, tt := range tests {
		t.Run(tt.core, func(t *testing.T) {
			var core Event
			decodeFixture(t, tt.core, &core)
			var v1 EventsV1Event
			decodeFixture(t, tt.v1, &v1)

			toV1 := EventToEventsV1(&core)
			assert.Equal(t, TypeMeta{}, toV1.TypeMeta, "the conversion leaves the version to the caller")
			toV1.TypeMeta = TypeMeta{APIVersion: "events.k8s.io/v1", Kind: "Event"}
			assertSameJSON(t, tt.v1, toV1)

			toCore := EventsV1ToEvent(&v1)
			assert.Equal(t, TypeMeta{}, toCore.TypeMeta)
			toCore.TypeMeta = TypeMeta{APIVersion: "v1", Kind: "Event"}
			assertSameJSON(t, tt.core, toCore)
		})
	}
}

func assertSameJSON(t *testing.T, fixture string, got any) {
	t.Helper()
	want, err := readTestdata(fixture)
	require.NoError(t, err)
	encoded, err := json.Marshal(got)
	require.NoError(t, err)
	assert.Equal(t, genericJSON(t, want), genericJSON(t, encoded))
}

// TestEventConversionRoundTrip fills every field of one version with a distinct value,
// converts to the other version and back, and requires the object it started from: a field
// the conversion dropped, or two fields it crossed, would come back different.
func TestEventConversionRoundTrip(t *testing.T) {
	t.Run("core/v1 to events.k8s.io/v1 and back", func(t *testing.T) {
		in := newFilled(t, reflect.TypeFor[Event]()).Interface().(*Event)
		in.TypeMeta = TypeMeta{}
		v1 := EventToEventsV1(in)
		assert.Equal(t, in, EventsV1ToEvent(v1))
		assert.Equal(t, in.InvolvedObject, v1.Regarding)
		assert.Equal(t, in.Message, v1.Note)
		assert.Equal(t, in.ReportingController, v1.ReportingController)
	})
	t.Run("events.k8s.io/v1 to core/v1 and back", func(t *testing.T) {
		in := newFilled(t, reflect.TypeFor[EventsV1Event]()).Interface().(*EventsV1Event)
		in.TypeMeta = TypeMeta{}
		core := EventsV1ToEvent(in)
		assert.Equal(t, in, EventToEventsV1(core))
		assert.Equal(t, in.DeprecatedSource, core.Source)
		assert.Equal(t, in.DeprecatedCount, core.Count)
	})
	t.Run("no series stays no series", func(t *testing.T) {
		assert.Nil(t, EventToEventsV1(&Event{}).Series)
		assert.Nil(t, EventsV1ToEvent(&EventsV1Event{}).Series)
	})
}

// TestEventConversionSharesNothing changes everything reachable from a conversion's result
// and requires the object it was converted from to be unchanged.
func TestEventConversionSharesNothing(t *testing.T) {
	t.Run("to events.k8s.io/v1", func(t *testing.T) {
		in := newFilled(t, reflect.TypeFor[Event]())
		pristine := newFilled(t, reflect.TypeFor[Event]())
		out := EventToEventsV1(in.Interface().(*Event))
		mutate(reflect.ValueOf(out).Elem())
		assert.Equal(t, pristine.Interface(), in.Interface())
	})
	t.Run("to core/v1", func(t *testing.T) {
		in := newFilled(t, reflect.TypeFor[EventsV1Event]())
		pristine := newFilled(t, reflect.TypeFor[EventsV1Event]())
		out := EventsV1ToEvent(in.Interface().(*EventsV1Event))
		mutate(reflect.ValueOf(out).Elem())
		assert.Equal(t, pristine.Interface(), in.Interface())
	})
}
