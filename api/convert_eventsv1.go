package api

// The conversions between the two versions of an Event, as kube-apiserver makes them
// (Convert_core_Event_To_v1_Event and Convert_v1_Event_To_core_Event in Kubernetes'
// pkg/apis/events/v1): every field of one version has exactly one field in the other, so a
// conversion there and back gives the object it started from, and an event written through
// either API reads the same through both.
//
//	core/v1 Event          events.k8s.io/v1 Event
//	involvedObject         regarding
//	message                note
//	source                 deprecatedSource
//	firstTimestamp         deprecatedFirstTimestamp
//	lastTimestamp          deprecatedLastTimestamp
//	count                  deprecatedCount
//	reportingComponent     reportingController
//	metadata, eventTime, series, reportingInstance, action, reason, related, type: the same
//
// TypeMeta is not converted: which API version an object is shown in is for whoever shows
// it to say (kube-apiserver's encoder, miniplane's apiserver).

// EventToEventsV1 returns the core/v1 event e as events.k8s.io/v1 shows it, with an empty
// TypeMeta. The result shares nothing mutable with e.
func EventToEventsV1(e *Event) *EventsV1Event {
	out := &EventsV1Event{
		EventTime:                e.EventTime,
		ReportingController:      e.ReportingController,
		ReportingInstance:        e.ReportingInstance,
		Action:                   e.Action,
		Reason:                   e.Reason,
		Regarding:                e.InvolvedObject,
		Related:                  clonePtr(e.Related),
		Note:                     e.Message,
		Type:                     e.Type,
		DeprecatedSource:         e.Source,
		DeprecatedFirstTimestamp: e.FirstTimestamp,
		DeprecatedLastTimestamp:  e.LastTimestamp,
		DeprecatedCount:          e.Count,
	}
	e.Metadata.DeepCopyInto(&out.Metadata)
	if e.Series != nil {
		out.Series = &EventsV1EventSeries{Count: e.Series.Count, LastObservedTime: e.Series.LastObservedTime}
	}
	return out
}

// EventsV1ToEvent returns the events.k8s.io/v1 event e as core/v1 shows it, with an empty
// TypeMeta. The result shares nothing mutable with e.
func EventsV1ToEvent(e *EventsV1Event) *Event {
	out := &Event{
		InvolvedObject:      e.Regarding,
		Reason:              e.Reason,
		Message:             e.Note,
		Source:              e.DeprecatedSource,
		FirstTimestamp:      e.DeprecatedFirstTimestamp,
		LastTimestamp:       e.DeprecatedLastTimestamp,
		Count:               e.DeprecatedCount,
		Type:                e.Type,
		EventTime:           e.EventTime,
		Action:              e.Action,
		Related:             clonePtr(e.Related),
		ReportingController: e.ReportingController,
		ReportingInstance:   e.ReportingInstance,
	}
	e.Metadata.DeepCopyInto(&out.Metadata)
	if e.Series != nil {
		out.Series = &EventSeries{Count: e.Series.Count, LastObservedTime: e.Series.LastObservedTime}
	}
	return out
}
