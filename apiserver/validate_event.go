package apiserver

// Events: validation. Kubernetes: ValidateEventCreate and
// ValidateEventUpdate in pkg/apis/core/validation/events.go. Writes through
// core/v1 get the legacy path, with the stricter events.k8s.io checks of
// metadata and type; writes through events.k8s.io/v1 get the strict path.

import (
	"reflect"
	"strconv"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
)

// eventMeta is how events' metadata is checked.
var eventMeta = metaRules{namespaced: true, name: nameIsDNSSubdomain, kubeFinalizers: true}

// Length limits of the newer event fields. Kubernetes: ReasonLengthLimit and
// friends in pkg/apis/core/validation/events.go.
const (
	eventReportingInstanceLimit = 128
	eventActionLimit            = 128
	eventReasonLimit            = 128
	eventNoteLimit              = 1024
)

// defaultEvent does nothing: Kubernetes defaults no event field. It exists so
// that every kind has the same three hooks.
func defaultEvent(*api.Event) {}

// validateEvent checks an event on create.
func validateEvent(e *api.Event) apierrors.FieldErrors {
	errs := validateObjectMeta(nil, &e.Metadata, eventMeta, metadataPath)
	ns, involvedNS := e.Metadata.Namespace, e.InvolvedObject.Namespace
	mismatch := func() apierrors.FieldError {
		return Invalid(pathAt("involvedObject").child("namespace").path(), involvedNS, "does not match event.namespace")
	}
	if e.EventTime.IsZero() {
		// An older-style event lives in its object's namespace; one about
		// a cluster-scoped object lives in "default" (or nowhere).
		switch {
		case involvedNS == "" && ns != "" && ns != "default":
			errs = append(errs, mismatch())
		case involvedNS != "" && ns != involvedNS:
			errs = append(errs, mismatch())
		}
	} else {
		// A newer-style event (eventTime set) says who reported it and what
		// they did.
		if involvedNS == "" && ns != "default" && ns != "kube-system" {
			errs = append(errs, mismatch())
		}
		errs = validateEventField(errs, "reportingController", e.ReportingController, 0)
		errs = validateQualifiedNameField(errs, e.ReportingController, pathAt("reportingController"))
		errs = validateEventField(errs, "reportingInstance", e.ReportingInstance, eventReportingInstanceLimit)
		errs = validateEventField(errs, "action", e.Action, eventActionLimit)
		errs = validateEventField(errs, "reason", e.Reason, eventReasonLimit)
		if len(e.Message) > eventNoteLimit {
			errs = append(errs, Invalid(pathAt("message").path(), "", "can have at most "+strconv.Itoa(eventNoteLimit)+" characters"))
		}
	}
	if e.Type != "" && e.Type != api.EventTypeNormal && e.Type != api.EventTypeWarning {
		errs = append(errs, Invalid(pathAt("type").path(), "", "has invalid value: "+e.Type))
	}
	return errs
}

// validateEventField checks a required field of a newer-style event and,
// when limit > 0, its length.
func validateEventField(errs apierrors.FieldErrors, field, value string, limit int) apierrors.FieldErrors {
	if value == "" {
		errs = append(errs, Required(Path(field), ""))
	}
	if limit > 0 && len(value) > limit {
		errs = append(errs, Invalid(Path(field), "", "can have at most "+strconv.Itoa(limit)+" characters"))
	}
	return errs
}

// validateEventUpdate checks an update: an event keeps its identity. Its
// count and timestamps change as the recorder folds repeats into it.
func validateEventUpdate(e, old *api.Event) apierrors.FieldErrors {
	errs := validateEvent(e)
	return validateObjectMetaUpdate(errs, &e.Metadata, &old.Metadata, metadataPath)
}

// validateEventsV1 checks an event created through events.k8s.io/v1, on its
// stored (core/v1) form: the core/v1 rules, then the stricter ones
// Kubernetes applies to writes through events.k8s.io and newer (the strict
// path of ValidateEventCreate): a new-style event says when it happened
// (eventTime) and whether it is Normal or Warning, a series has counted at
// least two, and the deprecated fields are left to the older API. Field
// paths are core/v1's, as kube-apiserver reports them.
func validateEventsV1(e *api.Event) apierrors.FieldErrors {
	errs := validateEvent(e)
	errs = validateEventSeries(errs, e.Series)
	if e.EventTime.IsZero() {
		errs = append(errs, Required(pathAt("eventTime").path(), ""))
	}
	if e.Type == "" { // validateEvent refused any other wrong type
		errs = append(errs, Invalid(pathAt("type").path(), "", "has invalid value: "))
	}
	unset := func(field string, set bool) {
		if set {
			errs = append(errs, Invalid(Path(field), "", "needs to be unset"))
		}
	}
	unset("firstTimestamp", !e.FirstTimestamp.IsZero())
	unset("lastTimestamp", !e.LastTimestamp.IsZero())
	unset("count", e.Count != 0)
	unset("source", e.Source != api.EventSource{})
	return errs
}

// validateEventSeries checks a series written through events.k8s.io: it
// counts at least two occurrences and says when it saw the last.
// Kubernetes: validateV1EventSeries.
func validateEventSeries(errs apierrors.FieldErrors, s *api.EventSeries) apierrors.FieldErrors {
	if s == nil {
		return errs
	}
	if s.Count < 2 {
		errs = append(errs, Invalid(pathAt("series").child("count").path(), "", "should be at least 2"))
	}
	if s.LastObservedTime.IsZero() {
		errs = append(errs, Required(pathAt("series").child("lastObservedTime").path(), ""))
	}
	return errs
}

// validateEventsV1Update checks an update through events.k8s.io/v1: the
// core/v1 rules, and then, as Kubernetes' strict ValidateEventUpdate, an
// event may change only its series (and metadata other than its
// identity): what happened, to what, and who said so are immutable.
// (Kubernetes checks reason twice and so reports a changed reason twice;
// it is reported once here.)
func validateEventsV1Update(e, old *api.Event) apierrors.FieldErrors {
	errs := validateEventUpdate(e, old)
	if !reflect.DeepEqual(e.Series, old.Series) {
		errs = validateEventSeries(errs, e.Series)
	}
	immutable := func(field string, value, oldValue any) {
		if reflect.DeepEqual(value, oldValue) {
			return
		}
		switch value.(type) {
		case string, int32:
		default:
			value = jsonValue{value} // a struct or pointer prints as JSON
		}
		errs = append(errs, Invalid(Path(field), value, msgImmutable))
	}
	immutable("involvedObject", e.InvolvedObject, old.InvolvedObject)
	immutable("reason", e.Reason, old.Reason)
	immutable("message", e.Message, old.Message)
	immutable("source", e.Source, old.Source)
	immutable("firstTimestamp", e.FirstTimestamp, old.FirstTimestamp)
	immutable("lastTimestamp", e.LastTimestamp, old.LastTimestamp)
	immutable("count", e.Count, old.Count)
	immutable("type", e.Type, old.Type)
	immutable("eventTime", e.EventTime, old.EventTime)
	immutable("action", e.Action, old.Action)
	immutable("related", e.Related, old.Related)
	immutable("reportingController", e.ReportingController, old.ReportingController)
	immutable("reportingInstance", e.ReportingInstance, old.ReportingInstance)
	return errs
}
