package apiserver

import (
	"maps"
	"slices"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
)

// eventsGR is events.k8s.io's events resource.
var eventsGR = apierrors.GroupResource{Group: "events.k8s.io", Resource: "events"}

// eventsV1 serves the stored core/v1 Events as events.k8s.io/v1 Events, as
// kube-apiserver does (its events.k8s.io storage is the core Event
// storage): one store prefix, one resourceVersion sequence, a write through
// either API read and watched through both, converted at the edge by
// api.EventToEventsV1 and api.EventsV1ToEvent. What differs is the
// request version's: validation is the stricter one Kubernetes applies to
// events.k8s.io writes, and field selectors take the new names.
func eventsV1(events *kind) *kind {
	k := servedAs(events, eventsGR, "Event", "events.k8s.io/v1",
		func() api.Object { return &api.EventsV1Event{} },
		func(o api.Object) api.Object { return api.EventsV1ToEvent(o.(*api.EventsV1Event)) },
		func(o api.Object) api.Object { return api.EventToEventsV1(o.(*api.Event)) })
	k.fields = eventsV1Fields
	k.fieldNames = slices.Sorted(maps.Keys(eventsV1FieldLabels))
	return typed(k, defaultEvent, validateEventsV1, validateEventsV1Update)
}

// eventsV1FieldLabels maps the field-selector labels of events.k8s.io/v1
// Events to core/v1's, whose values eventFields computes. Kubernetes:
// AddFieldLabelConversionsForEvent in pkg/apis/events/v1 (which keeps
// "source", the deprecatedSource's component, for older selectors).
var eventsV1FieldLabels = map[string]string{
	"regarding.kind":            "involvedObject.kind",
	"regarding.namespace":       "involvedObject.namespace",
	"regarding.name":            "involvedObject.name",
	"regarding.uid":             "involvedObject.uid",
	"regarding.apiVersion":      "involvedObject.apiVersion",
	"regarding.resourceVersion": "involvedObject.resourceVersion",
	"regarding.fieldPath":       "involvedObject.fieldPath",
	"reason":                    "reason",
	"reportingController":       "reportingComponent",
	"source":                    "source",
	"type":                      "type",
}

// eventsV1Fields returns a stored event's field-selector values under the
// events.k8s.io/v1 labels.
func eventsV1Fields(o api.Object) map[string]string {
	core := eventFields(o)
	out := make(map[string]string, len(eventsV1FieldLabels))
	for label, coreLabel := range eventsV1FieldLabels {
		out[label] = core[coreLabel]
	}
	return out
}
