package apiserver

// Events (core/v1): validation. Kubernetes: ValidateEventCreate and
// ValidateEventUpdate in pkg/apis/core/validation/events.go, on the core/v1
// path, with the stricter events.k8s.io checks of metadata and type.

import (
	"strconv"

	"github.com/miniplane/miniplane/api"
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
func validateEvent(e *api.Event) FieldErrors {
	errs := validateObjectMeta(nil, &e.Metadata, eventMeta, metadataPath)
	ns, involvedNS := e.Metadata.Namespace, e.InvolvedObject.Namespace
	mismatch := func() FieldError {
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
func validateEventField(errs FieldErrors, field, value string, limit int) FieldErrors {
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
func validateEventUpdate(e, old *api.Event) FieldErrors {
	errs := validateEvent(e)
	return validateObjectMetaUpdate(errs, &e.Metadata, &old.Metadata, metadataPath)
}
