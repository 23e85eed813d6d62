package apiserver

// Deployments, ReplicaSets and StatefulSets: defaulting and validation.
// Kubernetes: SetDefaults_Deployment, SetDefaults_ReplicaSet and
// SetDefaults_StatefulSet in pkg/apis/apps/v1, ValidateDeployment{,Update},
// ValidateReplicaSet{,Update} and ValidateStatefulSet{,Update} in
// pkg/apis/apps/validation (v1.32).

import (
	"reflect"
	"strconv"
	"strings"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
)

// appsMeta is how the apps kinds' metadata is checked: apps is not the core
// group, so finalizer names are not limited to Kubernetes' own.
var appsMeta = metaRules{namespaced: true, name: nameIsDNSSubdomain}

// defaultReplicaSet fills replicas (1) and the template's pod spec. Unlike
// a replication controller's, the selector does not default to the
// template's labels in apps/v1.
func defaultReplicaSet(rs *api.ReplicaSet) {
	if rs.Spec.Replicas == nil {
		rs.Spec.Replicas = ptr(int32(1))
	}
	defaultPodSpec(&rs.Spec.Template.Spec)
}

// validateReplicaSet checks a replica set on create.
func validateReplicaSet(rs *api.ReplicaSet) apierrors.FieldErrors {
	errs := validateObjectMeta(nil, &rs.Metadata, appsMeta, metadataPath)
	p := pathAt("spec")
	if rs.Spec.Replicas != nil {
		errs = validateNonNegative(errs, int64(*rs.Spec.Replicas), p.child("replicas"))
	}
	errs = validateNonNegative(errs, int64(rs.Spec.MinReadySeconds), p.child("minReadySeconds"))
	// Kubernetes' message names deployments here: the check is shared.
	return validateSelectedTemplate(errs, rs.Spec.Selector, &rs.Spec.Template, "deployment", p)
}

// validateReplicaSetUpdate checks an update: as on create, and the selector
// may not change (apps/v1 made it immutable).
func validateReplicaSetUpdate(rs, old *api.ReplicaSet) apierrors.FieldErrors {
	errs := validateReplicaSet(rs)
	errs = validateObjectMetaUpdate(errs, &rs.Metadata, &old.Metadata, metadataPath)
	return validateSelectorUnchanged(errs, rs.Spec.Selector, old.Spec.Selector)
}

// The StatefulSet enumerations, as apps/v1 spells them.
const (
	podManagementOrderedReady = "OrderedReady"
	podManagementParallel     = "Parallel"
	updateRollingUpdate       = "RollingUpdate"
	updateOnDelete            = "OnDelete"
	pvcRetentionRetain        = "Retain"
	pvcRetentionDelete        = "Delete"
)

// defaultStatefulSet fills what apps/v1 defaults: replicas 1, OrderedReady
// pod management, a RollingUpdate strategy with partition 0, ten revisions
// of history, Retain for the claims, and the template's pod spec.
func defaultStatefulSet(ss *api.StatefulSet) {
	s := &ss.Spec
	if s.Replicas == nil {
		s.Replicas = ptr(int32(1))
	}
	if s.PodManagementPolicy == "" {
		s.PodManagementPolicy = podManagementOrderedReady
	}
	if s.UpdateStrategy.Type == "" {
		s.UpdateStrategy.Type = updateRollingUpdate
	}
	if s.UpdateStrategy.Type == updateRollingUpdate {
		if s.UpdateStrategy.RollingUpdate == nil {
			s.UpdateStrategy.RollingUpdate = &api.RollingUpdateStatefulSetStrategy{}
		}
		if s.UpdateStrategy.RollingUpdate.Partition == nil {
			s.UpdateStrategy.RollingUpdate.Partition = ptr(int32(0))
		}
	}
	if s.RevisionHistoryLimit == nil {
		s.RevisionHistoryLimit = ptr(int32(10))
	}
	if s.PersistentVolumeClaimRetentionPolicy == nil {
		s.PersistentVolumeClaimRetentionPolicy = &api.StatefulSetPersistentVolumeClaimRetentionPolicy{}
	}
	if s.PersistentVolumeClaimRetentionPolicy.WhenDeleted == "" {
		s.PersistentVolumeClaimRetentionPolicy.WhenDeleted = pvcRetentionRetain
	}
	if s.PersistentVolumeClaimRetentionPolicy.WhenScaled == "" {
		s.PersistentVolumeClaimRetentionPolicy.WhenScaled = pvcRetentionRetain
	}
	defaultPodSpec(&s.Template.Spec)
	for i := range s.VolumeClaimTemplates {
		defaultPersistentVolumeClaimSpec(&s.VolumeClaimTemplates[i].Spec)
	}
}

// validateStatefulSet checks a stateful set on create. serviceName has no
// rule in v1.32: it may be empty, and is not checked as a name.
func validateStatefulSet(ss *api.StatefulSet) apierrors.FieldErrors {
	errs := validateObjectMeta(nil, &ss.Metadata, appsMeta, metadataPath)
	s, p := &ss.Spec, pathAt("spec")
	switch s.PodManagementPolicy {
	case "":
		errs = append(errs, Required(p.child("podManagementPolicy").path(), ""))
	case podManagementOrderedReady, podManagementParallel:
	default:
		errs = append(errs, Invalid(p.child("podManagementPolicy").path(), s.PodManagementPolicy, "must be 'OrderedReady' or 'Parallel'"))
	}
	up := p.child("updateStrategy")
	switch s.UpdateStrategy.Type {
	case "":
		errs = append(errs, Required(up.path(), ""))
	case updateOnDelete:
		if s.UpdateStrategy.RollingUpdate != nil {
			errs = append(errs, Invalid(up.child("rollingUpdate").path(), s.UpdateStrategy.RollingUpdate, "only allowed for updateStrategy 'RollingUpdate'"))
		}
	case updateRollingUpdate:
		if ru := s.UpdateStrategy.RollingUpdate; ru != nil && ru.Partition != nil {
			errs = validateNonNegative(errs, int64(*ru.Partition), up.child("rollingUpdate").child("partition"))
		}
	default:
		errs = append(errs, Invalid(up.path(), s.UpdateStrategy, "must be 'RollingUpdate' or 'OnDelete'"))
	}
	if rp := s.PersistentVolumeClaimRetentionPolicy; rp != nil {
		pp := p.child("persistentVolumeClaimRetentionPolicy")
		for _, f := range []struct {
			name, value string
		}{{"whenDeleted", rp.WhenDeleted}, {"whenScaled", rp.WhenScaled}} {
			if f.value != pvcRetentionRetain && f.value != pvcRetentionDelete {
				errs = append(errs, NotSupported(pp.child(f.name).path(), f.value, pvcRetentionRetain, pvcRetentionDelete))
			}
		}
	}
	if s.Replicas != nil {
		errs = validateNonNegative(errs, int64(*s.Replicas), p.child("replicas"))
	}
	errs = validateNonNegative(errs, int64(s.MinReadySeconds), p.child("minReadySeconds"))
	if s.Ordinals != nil {
		errs = validateNonNegative(errs, int64(s.Ordinals.Start), p.child("ordinals.start"))
	}
	return validateSelectedTemplate(errs, s.Selector, &s.Template, "statefulset", p)
}

// validateStatefulSetUpdate checks an update: only replicas, ordinals,
// template, updateStrategy, persistentVolumeClaimRetentionPolicy and
// minReadySeconds may change.
func validateStatefulSetUpdate(ss, old *api.StatefulSet) apierrors.FieldErrors {
	errs := validateObjectMetaUpdate(nil, &ss.Metadata, &old.Metadata, metadataPath)
	errs = append(errs, validateStatefulSet(ss)...)
	changed := ss.Spec
	changed.Replicas, changed.Ordinals, changed.Template = old.Spec.Replicas, old.Spec.Ordinals, old.Spec.Template
	changed.UpdateStrategy, changed.MinReadySeconds = old.Spec.UpdateStrategy, old.Spec.MinReadySeconds
	changed.PersistentVolumeClaimRetentionPolicy = old.Spec.PersistentVolumeClaimRetentionPolicy
	if !reflect.DeepEqual(changed, old.Spec) {
		errs = append(errs, Forbidden(NewPath("spec"), "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden"))
	}
	return errs
}

// defaultDeployment fills what apps/v1 defaults (SetDefaults_Deployment):
// replicas 1, a RollingUpdate strategy of 25% surge and 25% unavailable, ten
// revisions of history, a progress deadline of 600 s, and the template's pod
// spec.
func defaultDeployment(d *api.Deployment) {
	s := &d.Spec
	if s.Replicas == nil {
		s.Replicas = ptr(int32(1))
	}
	if s.Strategy.Type == "" {
		s.Strategy.Type = api.RollingUpdateDeploymentStrategyType
	}
	if s.Strategy.Type == api.RollingUpdateDeploymentStrategyType {
		if s.Strategy.RollingUpdate == nil {
			s.Strategy.RollingUpdate = &api.RollingUpdateDeployment{}
		}
		ru := s.Strategy.RollingUpdate
		if ru.MaxUnavailable == nil {
			ru.MaxUnavailable = ptr(api.FromString("25%"))
		}
		if ru.MaxSurge == nil {
			ru.MaxSurge = ptr(api.FromString("25%"))
		}
	}
	if s.RevisionHistoryLimit == nil {
		s.RevisionHistoryLimit = ptr(int32(10))
	}
	if s.ProgressDeadlineSeconds == nil {
		s.ProgressDeadlineSeconds = ptr(int32(600))
	}
	defaultPodSpec(&s.Template.Spec)
}

// validateDeployment checks a deployment on create. Kubernetes:
// ValidateDeployment and ValidateDeploymentSpec.
func validateDeployment(d *api.Deployment) apierrors.FieldErrors {
	errs := validateObjectMeta(nil, &d.Metadata, appsMeta, metadataPath)
	s, p := &d.Spec, pathAt("spec")
	if s.Replicas != nil {
		errs = validateNonNegative(errs, int64(*s.Replicas), p.child("replicas"))
	}
	errs = validateSelectedTemplate(errs, s.Selector, &s.Template, "deployment", p)
	errs = validateDeploymentStrategy(errs, &s.Strategy, p.child("strategy"))
	errs = validateNonNegative(errs, int64(s.MinReadySeconds), p.child("minReadySeconds"))
	if s.RevisionHistoryLimit != nil {
		errs = validateNonNegative(errs, int64(*s.RevisionHistoryLimit), p.child("revisionHistoryLimit"))
	}
	if pd := s.ProgressDeadlineSeconds; pd != nil {
		pp := p.child("progressDeadlineSeconds")
		errs = validateNonNegative(errs, int64(*pd), pp)
		if *pd <= s.MinReadySeconds {
			errs = append(errs, Invalid(pp.path(), *pd, "must be greater than minReadySeconds"))
		}
	}
	return errs
}

// validateDeploymentStrategy checks the strategy at p. Kubernetes:
// ValidateDeploymentStrategy and ValidateRollingUpdateDeployment.
func validateDeploymentStrategy(errs apierrors.FieldErrors, st *api.DeploymentStrategy, p fieldPath) apierrors.FieldErrors {
	switch st.Type {
	case api.RecreateDeploymentStrategyType:
		if st.RollingUpdate != nil {
			errs = append(errs, Forbidden(p.child("rollingUpdate").path(), "may not be specified when strategy `type` is 'Recreate'"))
		}
	case api.RollingUpdateDeploymentStrategyType:
		ru := st.RollingUpdate
		if ru == nil {
			return append(errs, Required(p.child("rollingUpdate").path(), "this should be defaulted and never be nil"))
		}
		rp := p.child("rollingUpdate")
		var unavailable, surge api.IntOrString
		if ru.MaxUnavailable != nil {
			unavailable = *ru.MaxUnavailable
			errs = validateIntOrPercent(errs, unavailable, rp.child("maxUnavailable"))
		}
		if ru.MaxSurge != nil {
			surge = *ru.MaxSurge
			errs = validatePositiveIntOrPercent(errs, surge, rp.child("maxSurge"))
		}
		if intOrPercentValue(unavailable) == 0 && intOrPercentValue(surge) == 0 {
			errs = append(errs, Invalid(rp.child("maxUnavailable").path(), unavailable, "may not be 0 when `maxSurge` is 0"))
		}
	default:
		errs = append(errs, NotSupported(p.path(), st, api.RecreateDeploymentStrategyType, api.RollingUpdateDeploymentStrategyType))
	}
	return errs
}

// validatePositiveIntOrPercent checks a non-negative integer or a
// well-formed percentage, with no upper bound (maxSurge may exceed 100%).
// Kubernetes: ValidatePositiveIntOrPercent.
func validatePositiveIntOrPercent(errs apierrors.FieldErrors, v api.IntOrString, p fieldPath) apierrors.FieldErrors {
	if v.Type == api.Int {
		return validateNonNegative(errs, int64(v.IntVal), p)
	}
	if intOrPercentValue(v) < 0 {
		return append(errs, Invalid(p.path(), v, msgPercent))
	}
	return errs
}

// intOrPercentValue is an integer's value or a percentage's number (0 for
// "0%"), -1 when the percentage is malformed. Kubernetes: getIntOrPercentValue.
func intOrPercentValue(v api.IntOrString) int {
	if v.Type == api.Int {
		return int(v.IntVal)
	}
	digits, ok := strings.CutSuffix(v.StrVal, "%")
	if !ok || digits == "" || strings.TrimLeft(digits, "0123456789") != "" {
		return -1
	}
	n, err := strconv.Atoi(digits)
	if err != nil {
		return -1
	}
	return n
}

// validateDeploymentUpdate checks an update: as on create, and the selector
// may not change (apps/v1 made it immutable).
func validateDeploymentUpdate(d, old *api.Deployment) apierrors.FieldErrors {
	errs := validateDeployment(d)
	errs = validateObjectMetaUpdate(errs, &d.Metadata, &old.Metadata, metadataPath)
	return validateSelectorUnchanged(errs, d.Spec.Selector, old.Spec.Selector)
}

// validateSelectorUnchanged refuses a change of spec.selector, which
// apps/v1 made immutable.
func validateSelectorUnchanged(errs apierrors.FieldErrors, sel, old *api.LabelSelector) apierrors.FieldErrors {
	if !reflect.DeepEqual(sel, old) {
		errs = append(errs, Invalid(pathAt("spec").child("selector").path(), sel, msgImmutable))
	}
	return errs
}
