package apiserver

// DaemonSets and ControllerRevisions: defaulting and validation.
// Kubernetes: SetDefaults_DaemonSet in pkg/apis/apps/v1,
// ValidateDaemonSet{,Update}, ValidateDaemonSetUpdateStrategy,
// ValidateRollingUpdateDaemonSet and ValidateControllerRevision{,Update} in
// pkg/apis/apps/validation, and the selector check of the daemon set
// strategy's ValidateUpdate (v1.32).

import (
	"bytes"
	"maps"
	"reflect"
	"strconv"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
)

// defaultDaemonSet fills what apps/v1 defaults: a RollingUpdate strategy of
// one unavailable pod and no surge, ten revisions of history, and the
// template's pod spec.
func defaultDaemonSet(ds *api.DaemonSet) {
	s := &ds.Spec
	if s.UpdateStrategy.Type == "" {
		s.UpdateStrategy.Type = api.RollingUpdateDaemonSetStrategyType
	}
	if s.UpdateStrategy.Type == api.RollingUpdateDaemonSetStrategyType {
		if s.UpdateStrategy.RollingUpdate == nil {
			s.UpdateStrategy.RollingUpdate = &api.RollingUpdateDaemonSet{}
		}
		ru := s.UpdateStrategy.RollingUpdate
		if ru.MaxUnavailable == nil {
			ru.MaxUnavailable = ptr(api.FromInt(1))
		}
		if ru.MaxSurge == nil {
			ru.MaxSurge = ptr(api.FromInt(0))
		}
	}
	if s.RevisionHistoryLimit == nil {
		s.RevisionHistoryLimit = ptr(int32(10))
	}
	defaultPodSpec(&s.Template.Spec)
}

// validateDaemonSet checks a daemon set on create. Kubernetes:
// ValidateDaemonSet and ValidateDaemonSetSpec.
func validateDaemonSet(ds *api.DaemonSet) apierrors.FieldErrors {
	errs := validateObjectMeta(nil, &ds.Metadata, appsMeta, metadataPath)
	s, p := &ds.Spec, pathAt("spec")
	errs = validateSelectedTemplate(errs, s.Selector, &s.Template, "daemonset", p)
	errs = validateNonNegative(errs, int64(s.MinReadySeconds), p.child("minReadySeconds"))
	errs = validateDaemonSetUpdateStrategy(errs, &s.UpdateStrategy, p.child("updateStrategy"))
	if s.RevisionHistoryLimit != nil {
		errs = validateNonNegative(errs, int64(*s.RevisionHistoryLimit), p.child("revisionHistoryLimit"))
	}
	return errs
}

// validateDaemonSetUpdateStrategy checks the strategy at p. Kubernetes:
// ValidateDaemonSetUpdateStrategy and ValidateRollingUpdateDaemonSet:
// exactly one of maxUnavailable and maxSurge is non-zero, neither above
// 100%.
func validateDaemonSetUpdateStrategy(errs apierrors.FieldErrors, st *api.DaemonSetUpdateStrategy, p fieldPath) apierrors.FieldErrors {
	switch st.Type {
	case api.OnDeleteDaemonSetStrategyType:
	case api.RollingUpdateDaemonSetStrategyType:
		ru := st.RollingUpdate
		rp := p.child("rollingUpdate")
		if ru == nil {
			return append(errs, Required(rp.path(), ""))
		}
		var unavailable, surge api.IntOrString
		if ru.MaxUnavailable != nil {
			unavailable = *ru.MaxUnavailable
		}
		if ru.MaxSurge != nil {
			surge = *ru.MaxSurge
		}
		errs = validateIntOrPercent(errs, unavailable, rp.child("maxUnavailable"))
		errs = validateIntOrPercent(errs, surge, rp.child("maxSurge"))
		hasUnavailable, hasSurge := intOrPercentValue(unavailable) != 0, intOrPercentValue(surge) != 0
		switch {
		case hasUnavailable && hasSurge:
			errs = append(errs, Invalid(rp.child("maxSurge").path(), ru.MaxSurge, "may not be set when maxUnavailable is non-zero"))
		case !hasUnavailable && !hasSurge:
			errs = append(errs, Required(rp.child("maxUnavailable").path(), "cannot be 0 when maxSurge is 0"))
		}
	default:
		errs = append(errs, NotSupported(p.path(), st, api.RollingUpdateDaemonSetStrategyType, api.OnDeleteDaemonSetStrategyType))
	}
	return errs
}

// validateDaemonSetUpdate checks an update: as on create, and the selector
// may not change (apps/v1 made it immutable).
func validateDaemonSetUpdate(ds, old *api.DaemonSet) apierrors.FieldErrors {
	errs := validateDaemonSet(ds)
	errs = validateObjectMetaUpdate(errs, &ds.Metadata, &old.Metadata, metadataPath)
	return validateSelectorUnchanged(errs, ds.Spec.Selector, old.Spec.Selector)
}

// defaultControllerRevision: a controller revision has no defaults.
func defaultControllerRevision(*api.ControllerRevision) {}

// validateControllerRevision checks a controller revision on create: data
// is required and the revision may not be negative.
func validateControllerRevision(cr *api.ControllerRevision) apierrors.FieldErrors {
	errs := validateObjectMeta(nil, &cr.Metadata, appsMeta, metadataPath)
	if cr.Data == nil || bytes.Equal(cr.Data, []byte("null")) {
		errs = append(errs, Required(NewPath("data"), "data is mandatory"))
	}
	return validateNonNegative(errs, cr.Revision, pathAt("revision"))
}

// validateControllerRevisionUpdate checks an update: as on create, and data
// may not change. The revision may: the daemon set controller renumbers a
// revision it rolls back to.
func validateControllerRevisionUpdate(cr, old *api.ControllerRevision) apierrors.FieldErrors {
	errs := validateObjectMetaUpdate(nil, &cr.Metadata, &old.Metadata, metadataPath)
	errs = append(errs, validateControllerRevision(cr)...)
	if !bytes.Equal(cr.Data, old.Data) {
		errs = append(errs, Invalid(NewPath("data"), cr.Data, msgImmutable))
	}
	return errs
}

// templateGeneration is the template generation m's annotation holds, 0
// when it holds none.
func templateGeneration(m *api.ObjectMeta) int64 {
	n, err := strconv.ParseInt(m.Annotations[api.DaemonSetTemplateGenerationAnnotation], 10, 64)
	if err != nil {
		return 0
	}
	return n
}

// setTemplateGeneration writes gen into m's annotations, on a copy of the
// map: the caller's may be shared.
func setTemplateGeneration(m *api.ObjectMeta, gen int64) {
	a := maps.Clone(m.Annotations)
	if a == nil {
		a = map[string]string{}
	}
	a[api.DaemonSetTemplateGenerationAnnotation] = strconv.FormatInt(gen, 10)
	m.Annotations = a
}

// stampTemplateGeneration sets a daemon set's template generation as
// kube-apiserver's strategy does: on create (old nil) what the client
// sent, at least 1; on update old's, raised by one when the template
// changed, whatever the client sent. Kubernetes: the daemon set strategy's
// PrepareForCreate and PrepareForUpdate, and the apps/v1 conversion that
// shows spec.templateGeneration as the annotation.
func stampTemplateGeneration(ds, old *api.DaemonSet) {
	if old == nil {
		setTemplateGeneration(&ds.Metadata, max(1, templateGeneration(&ds.Metadata)))
		return
	}
	gen := templateGeneration(&old.Metadata)
	if !reflect.DeepEqual(ds.Spec.Template, old.Spec.Template) {
		gen++
	}
	setTemplateGeneration(&ds.Metadata, gen)
}
