package apiserver

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/miniplane/miniplane/api"
)

// validEvent is an older-style event, as the replication controller records.
func validEvent() *api.Event {
	return &api.Event{
		Metadata:       api.ObjectMeta{Name: "web.17c9a2b3d4e5f601", Namespace: "default"},
		InvolvedObject: api.ObjectReference{Kind: "ReplicationController", Namespace: "default", Name: "web", UID: "u1", APIVersion: "v1"},
		Reason:         "SuccessfulCreate",
		Message:        "Created pod: web-abcde",
		Source:         api.EventSource{Component: "replication-controller"},
		Count:          1,
		Type:           api.EventTypeNormal,
	}
}

// newStyleEvent is one with eventTime set, as events.k8s.io clients write.
func newStyleEvent() *api.Event {
	e := validEvent()
	e.EventTime = api.NewMicroTime(time.Date(2024, 5, 14, 9, 21, 7, 0, time.UTC))
	e.ReportingController = "example.com/controller"
	e.ReportingInstance = "controller-1"
	e.Action = "Create"
	return e
}

func TestValidateEvent(t *testing.T) {
	for _, tc := range []struct {
		name   string
		event  func() *api.Event
		change func(*api.Event)
		want   string
		causes []cause
	}{
		{name: "valid", event: validEvent, change: func(*api.Event) {}},
		{name: "about a node, in default", event: validEvent, change: func(e *api.Event) {
			e.InvolvedObject = api.ObjectReference{Kind: "Node", Name: "node-1"}
		}},
		{name: "long reason and message allowed", event: validEvent, change: func(e *api.Event) {
			e.Reason = strings.Repeat("r", 200)
			e.Message = strings.Repeat("m", 5000)
		}},
		{name: "no type", event: validEvent, change: func(e *api.Event) { e.Type = "" }},
		{name: "other namespace", event: validEvent, change: func(e *api.Event) { e.InvolvedObject.Namespace = "kube-system" },
			want:   `involvedObject.namespace: Invalid value: "kube-system": does not match event.namespace`,
			causes: []cause{{invalid, "involvedObject.namespace"}}},
		{name: "about a node, outside default", event: validEvent, change: func(e *api.Event) {
			e.Metadata.Namespace = "web"
			e.InvolvedObject = api.ObjectReference{Kind: "Node", Name: "node-1"}
		},
			want:   `involvedObject.namespace: Invalid value: "": does not match event.namespace`,
			causes: []cause{{invalid, "involvedObject.namespace"}}},
		{name: "bad type", event: validEvent, change: func(e *api.Event) { e.Type = "Error" },
			want: `type: Invalid value: "": has invalid value: Error`, causes: []cause{{invalid, "type"}}},
		{name: "bad name", event: validEvent, change: func(e *api.Event) { e.Metadata.Name = "web:17c9" },
			want: `metadata.name: Invalid value: "web:17c9": ` + msgDNS1123Subdomain, causes: []cause{{invalid, "metadata.name"}}},
		{name: "new style valid", event: newStyleEvent, change: func(*api.Event) {}},
		{name: "new style about a node in kube-system", event: newStyleEvent, change: func(e *api.Event) {
			e.Metadata.Namespace = "kube-system"
			e.InvolvedObject = api.ObjectReference{Kind: "Node", Name: "node-1"}
		}},
		{name: "new style missing fields", event: newStyleEvent, change: func(e *api.Event) {
			e.ReportingController, e.ReportingInstance, e.Action, e.Reason = "", "", "", ""
		},
			want: `[reportingController: Required value, ` +
				`reportingController: Invalid value: "": name part must be non-empty, ` +
				`reportingController: Invalid value: "": name part ` + msgQualifiedNamePart + `, ` +
				`reportingInstance: Required value, action: Required value, reason: Required value]`,
			causes: []cause{{required, "reportingController"}, {invalid, "reportingController"}, {invalid, "reportingController"},
				{required, "reportingInstance"}, {required, "action"}, {required, "reason"}}},
		{name: "new style too long", event: newStyleEvent, change: func(e *api.Event) {
			e.Reason = strings.Repeat("r", 129)
			e.Message = strings.Repeat("m", 1025)
		},
			want:   `[reason: Invalid value: "": can have at most 128 characters, message: Invalid value: "": can have at most 1024 characters]`,
			causes: []cause{{invalid, "reason"}, {invalid, "message"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := tc.event()
			tc.change(e)
			defaultEvent(e)
			assertErrors(t, validateEvent(e), tc.want, tc.causes)
		})
	}
}

func TestValidateEventUpdate(t *testing.T) {
	old := validEvent()
	e := old.DeepCopy()
	e.Count = 2
	e.LastTimestamp = api.NewTime(time.Date(2024, 5, 14, 9, 22, 0, 0, time.UTC))
	assert.Nil(t, validateEventUpdate(e, old), "the recorder folds repeats into one event")

	e.Metadata.Name = "other"
	assertErrors(t, validateEventUpdate(e, old), `metadata.name: Invalid value: "other": field is immutable`, []cause{{invalid, "metadata.name"}})
}

// TestValidateEventsV1 checks the stricter rules of a create through
// events.k8s.io/v1 (on the stored, core/v1 form of the event).
func TestValidateEventsV1(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*api.Event)
		want   string
		causes []cause
	}{
		{name: "valid", change: func(*api.Event) {}},
		{name: "valid series", change: func(e *api.Event) {
			e.Series = &api.EventSeries{Count: 2, LastObservedTime: api.NewMicroTime(time.Date(2024, 5, 14, 9, 22, 0, 0, time.UTC))}
		}},
		{name: "no eventTime", change: func(e *api.Event) { e.EventTime = api.MicroTime{} },
			want: `eventTime: Required value`, causes: []cause{{required, "eventTime"}}},
		{name: "no type", change: func(e *api.Event) { e.Type = "" },
			want: `type: Invalid value: "": has invalid value: `, causes: []cause{{invalid, "type"}}},
		{name: "bad type", change: func(e *api.Event) { e.Type = "Error" },
			want: `type: Invalid value: "": has invalid value: Error`, causes: []cause{{invalid, "type"}}},
		{name: "short series", change: func(e *api.Event) { e.Series = &api.EventSeries{Count: 1} },
			want:   `[series.count: Invalid value: "": should be at least 2, series.lastObservedTime: Required value]`,
			causes: []cause{{invalid, "series.count"}, {required, "series.lastObservedTime"}}},
		{name: "deprecated fields set", change: func(e *api.Event) {
			e.FirstTimestamp = api.NewTime(time.Date(2024, 5, 14, 9, 21, 7, 0, time.UTC))
			e.LastTimestamp = e.FirstTimestamp
			e.Count = 1
			e.Source = api.EventSource{Host: "node-1"}
		},
			want: `[firstTimestamp: Invalid value: "": needs to be unset, lastTimestamp: Invalid value: "": needs to be unset, ` +
				`count: Invalid value: "": needs to be unset, source: Invalid value: "": needs to be unset]`,
			causes: []cause{{invalid, "firstTimestamp"}, {invalid, "lastTimestamp"}, {invalid, "count"}, {invalid, "source"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newStyleEvent()
			e.FirstTimestamp, e.Count, e.Source = api.Time{}, 0, api.EventSource{}
			tc.change(e)
			defaultEvent(e)
			assertErrors(t, validateEventsV1(e), tc.want, tc.causes)
		})
	}
}

// TestValidateEventsV1Update checks that an update through events.k8s.io/v1
// may change an event's series and metadata, and nothing it reports.
func TestValidateEventsV1Update(t *testing.T) {
	old := newStyleEvent()
	old.FirstTimestamp, old.Count, old.Source = api.Time{}, 0, api.EventSource{}
	later := api.NewMicroTime(time.Date(2024, 5, 14, 9, 30, 0, 0, time.UTC))
	for _, tc := range []struct {
		name   string
		change func(*api.Event)
		want   string
		causes []cause
	}{
		{name: "series starts", change: func(e *api.Event) { e.Series = &api.EventSeries{Count: 2, LastObservedTime: later} }},
		{name: "labels", change: func(e *api.Event) { e.Metadata.Labels = map[string]string{"a": "b"} }},
		{name: "bad series", change: func(e *api.Event) { e.Series = &api.EventSeries{Count: 1, LastObservedTime: later} },
			want: `series.count: Invalid value: "": should be at least 2`, causes: []cause{{invalid, "series.count"}}},
		{name: "what it reports", change: func(e *api.Event) {
			e.InvolvedObject.Name = "db"
			e.Message = "changed"
			e.Count = 2
			e.EventTime = later
			e.Related = &api.ObjectReference{Kind: "Node", Name: "node-1"}
			e.ReportingInstance = "controller-2"
		},
			want: `[involvedObject: Invalid value: {"kind":"ReplicationController","namespace":"default","name":"db","uid":"u1","apiVersion":"v1"}: field is immutable, ` +
				`message: Invalid value: "changed": field is immutable, count: Invalid value: 2: field is immutable, ` +
				`eventTime: Invalid value: "2024-05-14T09:30:00.000000Z": field is immutable, ` +
				`related: Invalid value: {"kind":"Node","name":"node-1"}: field is immutable, ` +
				`reportingInstance: Invalid value: "controller-2": field is immutable]`,
			causes: []cause{{invalid, "involvedObject"}, {invalid, "message"}, {invalid, "count"}, {invalid, "eventTime"},
				{invalid, "related"}, {invalid, "reportingInstance"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := old.DeepCopy()
			tc.change(e)
			assertErrors(t, validateEventsV1Update(e, old), tc.want, tc.causes)
		})
	}
}
