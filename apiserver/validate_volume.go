package apiserver

// PersistentVolumes and PersistentVolumeClaims: defaulting and validation.
// Kubernetes: SetDefaults_PersistentVolume{,Claim} in pkg/apis/core/v1,
// ValidatePersistentVolume{,Update} and ValidatePersistentVolumeClaim{,Update}
// in pkg/apis/core/validation (v1.32). No binder or provisioner acts on them
// here.

import (
	"path"
	"reflect"
	"slices"
	"strings"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
)

// pvMeta and pvcMeta are how the volume kinds' metadata is checked.
var (
	pvMeta  = metaRules{name: nameIsDNSSubdomain, kubeFinalizers: true}
	pvcMeta = metaRules{namespaced: true, name: nameIsDNSSubdomain, kubeFinalizers: true}
)

var (
	supportedAccessModes = []string{string(api.ReadOnlyMany), string(api.ReadWriteMany), string(api.ReadWriteOnce), string(api.ReadWriteOncePod)}
	supportedVolumeModes = []string{string(api.PersistentVolumeBlock), string(api.PersistentVolumeFilesystem)}
	supportedReclaim     = []string{string(api.PersistentVolumeReclaimDelete), string(api.PersistentVolumeReclaimRecycle), string(api.PersistentVolumeReclaimRetain)}
)

// defaultPersistentVolume fills the reclaim policy (Retain), the volume mode
// (Filesystem) and, on create (when the server has reset the status), the
// Pending phase.
func defaultPersistentVolume(pv *api.PersistentVolume) {
	if pv.Spec.PersistentVolumeReclaimPolicy == "" {
		pv.Spec.PersistentVolumeReclaimPolicy = api.PersistentVolumeReclaimRetain
	}
	if pv.Spec.VolumeMode == nil {
		pv.Spec.VolumeMode = ptr(api.PersistentVolumeFilesystem)
	}
	if pv.Status.Phase == "" {
		pv.Status.Phase = api.VolumePending
	}
}

// validatePersistentVolume checks a volume on create.
func validatePersistentVolume(pv *api.PersistentVolume) apierrors.FieldErrors {
	errs := validateObjectMeta(nil, &pv.Metadata, pvMeta, metadataPath)
	return validatePersistentVolumeSpec(errs, &pv.Spec, false, pathAt("spec"))
}

// validatePersistentVolumeUpdate checks an update: the volume source and
// the volume mode may not change.
func validatePersistentVolumeUpdate(pv, old *api.PersistentVolume) apierrors.FieldErrors {
	errs := validatePersistentVolume(pv)
	errs = validateObjectMetaUpdate(errs, &pv.Metadata, &old.Metadata, metadataPath)
	if !reflect.DeepEqual(pv.Spec.PersistentVolumeSource, old.Spec.PersistentVolumeSource) {
		errs = append(errs, Forbidden(NewPath("spec", "persistentvolumesource"), "spec.persistentvolumesource is immutable after creation"))
	}
	if !reflect.DeepEqual(pv.Spec.VolumeMode, old.Spec.VolumeMode) {
		errs = append(errs, Invalid(NewPath("volumeMode"), pv.Spec.VolumeMode, msgImmutable))
	}
	return errs
}

// validateAccessModes checks a volume's or claim's access modes: each
// supported, and ReadWriteOncePod alone.
func validateAccessModes(errs apierrors.FieldErrors, modes []api.PersistentVolumeAccessMode, p fieldPath) apierrors.FieldErrors {
	oncePod := false
	for _, m := range modes {
		if !slices.Contains(supportedAccessModes, string(m)) {
			errs = append(errs, NotSupported(p.path(), m, supportedAccessModes...))
		}
		oncePod = oncePod || m == api.ReadWriteOncePod
	}
	if oncePod && len(modes) > 1 {
		errs = append(errs, Forbidden(p.path(), "may not use ReadWriteOncePod with other access modes"))
	}
	return errs
}

// validatePersistentVolumeSpec checks a volume's spec at p; inline is a
// VolumeAttachment's inline volume spec, which has fewer fields. Kubernetes:
// ValidatePersistentVolumeSpec.
func validatePersistentVolumeSpec(errs apierrors.FieldErrors, s *api.PersistentVolumeSpec, inline bool, p fieldPath) apierrors.FieldErrors {
	if inline {
		if s.ClaimRef != nil {
			errs = append(errs, Forbidden(p.child("claimRef").path(), "may not be specified in the context of inline volumes"))
		}
		if len(s.Capacity) != 0 {
			errs = append(errs, Forbidden(p.child("capacity").path(), "may not be specified in the context of inline volumes"))
		}
		if s.CSI == nil {
			errs = append(errs, Required(p.child("csi").path(), "has to be specified in the context of inline volumes"))
		}
	}
	if len(s.AccessModes) == 0 {
		errs = append(errs, Required(p.child("accessModes").path(), ""))
	}
	errs = validateAccessModes(errs, s.AccessModes, p.child("accessModes"))
	if !inline {
		if len(s.Capacity) == 0 {
			errs = append(errs, Required(p.child("capacity").path(), ""))
		}
		if _, ok := s.Capacity[api.ResourceStorage]; !ok || len(s.Capacity) > 1 {
			errs = append(errs, NotSupported(p.child("capacity").path(), s.Capacity, api.ResourceStorage))
		}
		for _, r := range sortedKeys(s.Capacity) {
			errs, _, _ = validateQuantity(errs, s.Capacity[r], p.child("capacity").key(r))
		}
	}
	if rp := s.PersistentVolumeReclaimPolicy; rp != "" {
		if inline && rp != api.PersistentVolumeReclaimRetain {
			errs = append(errs, Forbidden(p.child("persistentVolumeReclaimPolicy").path(), "may only be Retain in the context of inline volumes"))
		} else if !slices.Contains(supportedReclaim, string(rp)) {
			errs = append(errs, NotSupported(p.child("persistentVolumeReclaimPolicy").path(), rp, supportedReclaim...))
		}
	}
	affinity := false
	if s.NodeAffinity != nil {
		if inline {
			errs = append(errs, Forbidden(p.child("nodeAffinity").path(), "may not be specified in the context of inline volumes"))
		} else {
			errs, affinity = validateVolumeNodeAffinity(errs, s.NodeAffinity, p.child("nodeAffinity"))
		}
	}
	errs = validateVolumeSource(errs, &s.PersistentVolumeSource, affinity, p)
	if s.HostPath != nil && path.Clean(s.HostPath.Path) == "/" && s.PersistentVolumeReclaimPolicy == api.PersistentVolumeReclaimRecycle {
		errs = append(errs, Forbidden(p.child("persistentVolumeReclaimPolicy").path(), "may not be 'recycle' for a hostPath mount of '/'"))
	}
	if s.StorageClassName != "" {
		if inline {
			errs = append(errs, Forbidden(p.child("storageClassName").path(), "may not be specified in the context of inline volumes"))
		} else {
			errs = invalidEach(errs, p.child("storageClassName"), s.StorageClassName, nameIsDNSSubdomain(s.StorageClassName, false))
		}
	}
	if s.VolumeMode != nil {
		if inline && *s.VolumeMode != api.PersistentVolumeFilesystem {
			errs = append(errs, Forbidden(p.child("volumeMode").path(), "may not specify volumeMode other than Filesystem in the context of inline volumes"))
		} else if !slices.Contains(supportedVolumeModes, string(*s.VolumeMode)) {
			errs = append(errs, NotSupported(p.child("volumeMode").path(), *s.VolumeMode, supportedVolumeModes...))
		}
	}
	return errs
}

// validateVolumeSource checks that exactly one volume source is set, and
// that one. A local volume needs node affinity (affinity).
func validateVolumeSource(errs apierrors.FieldErrors, src *api.PersistentVolumeSource, affinity bool, p fieldPath) apierrors.FieldErrors {
	n := 0
	one := func(name string) bool {
		if n > 0 {
			errs = append(errs, Forbidden(p.child(name).path(), "may not specify more than 1 volume type"))
			return false
		}
		n++
		return true
	}
	if src.HostPath != nil && one("hostPath") {
		if src.HostPath.Path == "" {
			errs = append(errs, Required(p.child("hostPath").child("path").path(), ""))
		}
	}
	if src.NFS != nil && one("nfs") {
		np := p.child("nfs")
		if src.NFS.Server == "" {
			errs = append(errs, Required(np.child("server").path(), ""))
		}
		if src.NFS.Path == "" {
			errs = append(errs, Required(np.child("path").path(), ""))
		} else if !strings.HasPrefix(src.NFS.Path, "/") {
			errs = append(errs, Invalid(np.child("path").path(), src.NFS.Path, "must be an absolute path"))
		}
	}
	if src.Local != nil && one("local") {
		if src.Local.Path == "" {
			errs = append(errs, Required(p.child("local").child("path").path(), ""))
		}
		if !affinity {
			errs = append(errs, Required(p.child("nodeAffinity").path(), "Local volume requires node affinity"))
		}
	}
	if src.CSI != nil && one("csi") {
		cp := p.child("csi")
		errs = validateCSIDriverName(errs, src.CSI.Driver, cp.child("driver"))
		if src.CSI.VolumeHandle == "" {
			errs = append(errs, Required(cp.child("volumeHandle").path(), ""))
		}
	}
	if n == 0 {
		errs = append(errs, Required(p.path(), "must specify a volume type"))
	}
	return errs
}

// validateCSIDriverName checks a CSI driver's name: required, at most 63
// characters, a DNS subdomain in lower case. Kubernetes:
// ValidateCSIDriverName.
func validateCSIDriverName(errs apierrors.FieldErrors, name string, p fieldPath) apierrors.FieldErrors {
	if name == "" {
		errs = append(errs, Required(p.path(), ""))
	}
	if len(name) > 63 {
		errs = append(errs, TooLong(p.path(), 63))
	}
	for _, m := range dns1123SubdomainMsgs(strings.ToLower(name)) {
		errs = append(errs, Invalid(p.path(), name, m))
	}
	return errs
}

// validateVolumeNodeAffinity checks a volume's node affinity, and reports
// whether it requires anything. Kubernetes: validateVolumeNodeAffinity.
func validateVolumeNodeAffinity(errs apierrors.FieldErrors, a *api.VolumeNodeAffinity, p fieldPath) (apierrors.FieldErrors, bool) {
	if a.Required == nil {
		return append(errs, Required(p.child("required").path(), "must specify required node constraints")), false
	}
	return validateNodeSelector(errs, a.Required, p.child("required")), true
}

// validateNodeSelector checks a node selector: at least one term, and each
// requirement's operator and values. Kubernetes: ValidateNodeSelector.
func validateNodeSelector(errs apierrors.FieldErrors, ns *api.NodeSelector, p fieldPath) apierrors.FieldErrors {
	tp := p.child("nodeSelectorTerms")
	if len(ns.NodeSelectorTerms) == 0 {
		return append(errs, Required(tp.path(), "must have at least one node selector term"))
	}
	for i, t := range ns.NodeSelectorTerms {
		errs = validateNodeSelectorTerm(errs, t, tp.index(i))
	}
	return errs
}

// validateNodeSelectorTerm checks one term's label and field requirements.
// Kubernetes: ValidateNodeSelectorTerm.
func validateNodeSelectorTerm(errs apierrors.FieldErrors, t api.NodeSelectorTerm, p fieldPath) apierrors.FieldErrors {
	for j, r := range t.MatchExpressions {
		errs = validateNodeSelectorRequirement(errs, r, p.child("matchExpressions").index(j))
	}
	for j, r := range t.MatchFields {
		rp := p.child("matchFields").index(j)
		if r.Key != "metadata.name" {
			errs = append(errs, Invalid(rp.child("key").path(), r.Key, "not a valid field selector key"))
		}
		if (r.Operator == "In" || r.Operator == "NotIn") && len(r.Values) != 1 {
			errs = append(errs, Required(rp.child("values").path(), "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"))
		} else if r.Operator != "In" && r.Operator != "NotIn" {
			errs = append(errs, Invalid(rp.child("operator").path(), r.Operator, "not a valid selector operator"))
		}
	}
	return errs
}

func validateNodeSelectorRequirement(errs apierrors.FieldErrors, r api.NodeSelectorRequirement, p fieldPath) apierrors.FieldErrors {
	switch r.Operator {
	case "In", "NotIn":
		if len(r.Values) == 0 {
			errs = append(errs, Required(p.child("values").path(), "must be specified when `operator` is 'In' or 'NotIn'"))
		}
	case "Exists", "DoesNotExist":
		if len(r.Values) > 0 {
			errs = append(errs, Forbidden(p.child("values").path(), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
		}
	case "Gt", "Lt":
		if len(r.Values) != 1 {
			errs = append(errs, Required(p.child("values").path(), "must be specified single value when `operator` is 'Lt' or 'Gt'"))
		}
	default:
		errs = append(errs, Invalid(p.child("operator").path(), r.Operator, "not a valid selector operator"))
	}
	return validateQualifiedNameField(errs, r.Key, p.child("key"))
}

// defaultPersistentVolumeClaimSpec fills the volume mode (Filesystem).
func defaultPersistentVolumeClaimSpec(s *api.PersistentVolumeClaimSpec) {
	if s.VolumeMode == nil {
		s.VolumeMode = ptr(api.PersistentVolumeFilesystem)
	}
}

// defaultPersistentVolumeClaim fills the claim's spec and, on create (when
// the server has reset the status), the Pending phase.
func defaultPersistentVolumeClaim(pvc *api.PersistentVolumeClaim) {
	defaultPersistentVolumeClaimSpec(&pvc.Spec)
	if pvc.Status.Phase == "" {
		pvc.Status.Phase = api.ClaimPending
	}
}

// validatePersistentVolumeClaim checks a claim on create.
func validatePersistentVolumeClaim(pvc *api.PersistentVolumeClaim) apierrors.FieldErrors {
	errs := validateObjectMeta(nil, &pvc.Metadata, pvcMeta, metadataPath)
	return validatePersistentVolumeClaimSpec(errs, &pvc.Spec, pathAt("spec"))
}

// validatePersistentVolumeClaimSpec: Kubernetes'
// ValidatePersistentVolumeClaimSpec.
func validatePersistentVolumeClaimSpec(errs apierrors.FieldErrors, s *api.PersistentVolumeClaimSpec, p fieldPath) apierrors.FieldErrors {
	if len(s.AccessModes) == 0 {
		errs = append(errs, Required(p.child("accessModes").path(), "at least 1 access mode is required"))
	}
	errs = validateLabelSelector(errs, s.Selector, p.child("selector"))
	errs = validateAccessModes(errs, s.AccessModes, p.child("accessModes"))
	sp := p.child("resources").key(api.ResourceStorage)
	if v, ok := s.Resources.Requests[api.ResourceStorage]; !ok {
		errs = append(errs, Required(sp.path(), ""))
	} else {
		var q quantity
		var valid bool
		if errs, q, valid = validateQuantity(errs, v, sp); valid && q.isZero() {
			errs = append(errs, Invalid(sp.path(), v, "must be greater than zero"))
		}
	}
	if s.StorageClassName != nil && *s.StorageClassName != "" {
		errs = invalidEach(errs, p.child("storageClassName"), *s.StorageClassName, nameIsDNSSubdomain(*s.StorageClassName, false))
	}
	if s.VolumeMode != nil && !slices.Contains(supportedVolumeModes, string(*s.VolumeMode)) {
		errs = append(errs, NotSupported(p.child("volumeMode").path(), *s.VolumeMode, supportedVolumeModes...))
	}
	if ds := s.DataSource; ds != nil {
		dp := p.child("dataSource")
		if ds.Name == "" {
			errs = append(errs, Required(dp.child("name").path(), ""))
		}
		if ds.Kind == "" {
			errs = append(errs, Required(dp.child("kind").path(), ""))
		}
	}
	return errs
}

// validatePersistentVolumeClaimUpdate checks an update: the spec is
// immutable but for the storage request of a bound claim, and for the
// volume name of a claim not yet bound to one.
func validatePersistentVolumeClaimUpdate(pvc, old *api.PersistentVolumeClaim) apierrors.FieldErrors {
	errs := validatePersistentVolumeClaim(pvc)
	errs = validateObjectMetaUpdate(errs, &pvc.Metadata, &old.Metadata, metadataPath)
	changed := pvc.Spec
	if old.Spec.VolumeName == "" {
		changed.VolumeName = "" // binding sets it once
	}
	if old.Status.Phase == api.ClaimBound {
		changed.Resources.Requests = old.Spec.Resources.Requests // expansion
	}
	changed.VolumeAttributesClassName = old.Spec.VolumeAttributesClassName
	if !reflect.DeepEqual(changed, old.Spec) {
		errs = append(errs, Forbidden(NewPath("spec"), "spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims"))
	}
	return errs
}
