package apiserver

// The storage.k8s.io/v1 kinds: defaulting and validation. Kubernetes:
// pkg/apis/storage/v1/defaults.go and pkg/apis/storage/validation (v1.32).
// No CSI driver, provisioner or attach-detach controller acts on them here.

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
)

// storageMeta is how the cluster-scoped storage kinds' metadata is checked;
// csiStorageCapacityMeta the namespaced CSIStorageCapacity's.
var (
	storageMeta            = metaRules{name: nameIsDNSSubdomain}
	csiStorageCapacityMeta = metaRules{namespaced: true, name: nameIsDNSSubdomain}
	csiDriverMeta          = metaRules{name: csiDriverNameRule}
)

// csiDriverNameRule is a CSIDriver's name rule: a CSI driver name.
func csiDriverNameRule(name string, prefix bool) []string {
	var msgs []string
	for _, e := range validateCSIDriverName(nil, name, pathAt("metadata").child("name")) {
		msgs = append(msgs, e.Detail)
	}
	return msgs
}

var (
	supportedBindingModes  = []string{string(api.VolumeBindingImmediate), string(api.VolumeBindingWaitForFirstConsumer)}
	supportedFSGroupPolicy = []string{"File", "None", "ReadWriteOnceWithFSType"}
	supportedLifecycle     = []string{"Ephemeral", "Persistent"}
)

// defaultStorageClass fills the reclaim policy (Delete) and the binding
// mode (Immediate).
func defaultStorageClass(sc *api.StorageClass) {
	if sc.ReclaimPolicy == nil {
		sc.ReclaimPolicy = ptr(api.PersistentVolumeReclaimDelete)
	}
	if sc.VolumeBindingMode == nil {
		sc.VolumeBindingMode = ptr(api.VolumeBindingImmediate)
	}
}

// validateStorageClass checks a class on create: a provisioner that is a
// qualified name, parameters with non-empty keys, a supported reclaim
// policy and binding mode, allowed topologies without duplicate keys.
func validateStorageClass(sc *api.StorageClass) apierrors.FieldErrors {
	errs := validateObjectMeta(nil, &sc.Metadata, storageMeta, metadataPath)
	if sc.Provisioner == "" {
		errs = append(errs, Required(NewPath("provisioner"), sc.Provisioner))
	} else {
		errs = validateQualifiedNameField(errs, strings.ToLower(sc.Provisioner), pathAt("provisioner"))
	}
	size := 0
	for _, k := range sortedKeys(sc.Parameters) {
		if k == "" {
			errs = append(errs, Invalid(NewPath("parameters"), k, "field can not be empty."))
		}
		size += len(k) + len(sc.Parameters[k])
	}
	if size > 256*1024 {
		errs = append(errs, TooLong(NewPath("parameters"), 256*1024))
	}
	if rp := sc.ReclaimPolicy; rp != nil && *rp != api.PersistentVolumeReclaimDelete && *rp != api.PersistentVolumeReclaimRetain {
		errs = append(errs, NotSupported(NewPath("reclaimPolicy"), rp, string(api.PersistentVolumeReclaimDelete), string(api.PersistentVolumeReclaimRetain)))
	}
	if m := sc.VolumeBindingMode; m == nil {
		errs = append(errs, Required(NewPath("volumeBindingMode"), ""))
	} else if !slices.Contains(supportedBindingModes, string(*m)) {
		errs = append(errs, NotSupported(NewPath("volumeBindingMode"), m, supportedBindingModes...))
	}
	for i, term := range sc.AllowedTopologies {
		tp := pathAt("allowedTopologies").index(i)
		if len(term.MatchLabelExpressions) == 0 {
			errs = append(errs, Required(tp.child("matchLabelExpressions").path(), "must have at least one label requirement"))
		}
		keys := map[string]bool{}
		for j, r := range term.MatchLabelExpressions {
			rp := tp.child("matchLabelExpressions").index(j)
			errs = validateQualifiedNameField(errs, r.Key, rp.child("key"))
			if len(r.Values) == 0 {
				errs = append(errs, Required(rp.child("values").path(), "must specify as least one value"))
			}
			if keys[r.Key] {
				errs = append(errs, Duplicate(tp.child("matchLabelExpressions").path(), r.Key))
			}
			keys[r.Key] = true
		}
	}
	return errs
}

// validateStorageClassUpdate checks an update: parameters, provisioner and
// reclaim policy may not change.
func validateStorageClassUpdate(sc, old *api.StorageClass) apierrors.FieldErrors {
	errs := validateStorageClass(sc)
	errs = validateObjectMetaUpdate(errs, &sc.Metadata, &old.Metadata, metadataPath)
	if !reflect.DeepEqual(sc.Parameters, old.Parameters) && (len(sc.Parameters) > 0 || len(old.Parameters) > 0) {
		errs = append(errs, Forbidden(NewPath("parameters"), "updates to parameters are forbidden."))
	}
	if sc.Provisioner != old.Provisioner {
		errs = append(errs, Forbidden(NewPath("provisioner"), "updates to provisioner are forbidden."))
	}
	if !reflect.DeepEqual(sc.ReclaimPolicy, old.ReclaimPolicy) {
		errs = append(errs, Forbidden(NewPath("reclaimPolicy"), "updates to reclaimPolicy are forbidden."))
	}
	return errs
}

func defaultCSINode(*api.CSINode) {}

// csiNodeIDMaxLength is the longest node ID a CSINode driver may have.
const csiNodeIDMaxLength = 192

// validateCSINode checks a CSINode on create: each driver's name is a CSI
// driver name, unique in the list, with a node ID, a non-negative volume
// limit and unique, qualified topology keys.
func validateCSINode(n *api.CSINode) apierrors.FieldErrors {
	errs := validateObjectMeta(nil, &n.Metadata, storageMeta, metadataPath)
	dp := pathAt("spec").child("drivers")
	names := map[string]bool{}
	for i, d := range n.Spec.Drivers {
		p := dp.index(i)
		errs = validateCSIDriverName(errs, d.Name, p.child("name"))
		if d.NodeID == "" {
			errs = append(errs, Required(p.child("nodeID").path(), d.NodeID))
		}
		if len(d.NodeID) > csiNodeIDMaxLength {
			errs = append(errs, Invalid(p.child("nodeID").path(), d.NodeID, fmt.Sprintf("must be %d characters or less", csiNodeIDMaxLength)))
		}
		if d.Allocatable != nil && d.Allocatable.Count != nil {
			errs = validateNonNegative(errs, int64(*d.Allocatable.Count), p.child("allocatable").child("count"))
		}
		if names[d.Name] {
			errs = append(errs, Duplicate(p.child("name").path(), d.Name))
		}
		names[d.Name] = true
		keys := map[string]bool{}
		for _, key := range d.TopologyKeys {
			if key == "" {
				errs = append(errs, Required(p.path(), key))
			}
			if keys[key] {
				errs = append(errs, Duplicate(p.path(), key))
			}
			keys[key] = true
			errs = validateQualifiedNameField(errs, key, p)
		}
	}
	return errs
}

// validateCSINodeUpdate checks an update: a driver already listed may not
// change, though drivers may be added and removed.
func validateCSINodeUpdate(n, old *api.CSINode) apierrors.FieldErrors {
	errs := validateCSINode(n)
	errs = validateObjectMetaUpdate(errs, &n.Metadata, &old.Metadata, metadataPath)
	for _, od := range old.Spec.Drivers {
		for _, nd := range n.Spec.Drivers {
			if od.Name == nd.Name && (od.NodeID != nd.NodeID || !reflect.DeepEqual(od.TopologyKeys, nd.TopologyKeys) || !reflect.DeepEqual(od.Allocatable, nd.Allocatable)) {
				errs = append(errs, Invalid(NewPath("CSINodeDriver"), nd, msgImmutable))
			}
		}
	}
	return errs
}

// defaultCSIDriver fills what storage/v1 defaults: attachRequired true,
// podInfoOnMount, storageCapacity, requiresRepublish and seLinuxMount false,
// fsGroupPolicy ReadWriteOnceWithFSType, lifecycle modes [Persistent].
func defaultCSIDriver(d *api.CSIDriver) {
	s := &d.Spec
	if s.AttachRequired == nil {
		s.AttachRequired = ptr(true)
	}
	if s.PodInfoOnMount == nil {
		s.PodInfoOnMount = ptr(false)
	}
	if s.StorageCapacity == nil {
		s.StorageCapacity = ptr(false)
	}
	if s.FSGroupPolicy == nil {
		s.FSGroupPolicy = ptr("ReadWriteOnceWithFSType")
	}
	if len(s.VolumeLifecycleModes) == 0 {
		s.VolumeLifecycleModes = []string{"Persistent"}
	}
	if s.RequiresRepublish == nil {
		s.RequiresRepublish = ptr(false)
	}
	if s.SELinuxMount == nil {
		s.SELinuxMount = ptr(false)
	}
}

// validateCSIDriver checks a CSIDriver on create: its name is a CSI driver
// name, and the defaulted fields are set and supported.
func validateCSIDriver(d *api.CSIDriver) apierrors.FieldErrors {
	errs := validateObjectMeta(nil, &d.Metadata, csiDriverMeta, metadataPath)
	s, p := &d.Spec, pathAt("spec")
	for _, f := range []struct {
		name string
		v    *bool
	}{{"attachedRequired", s.AttachRequired}, {"podInfoOnMount", s.PodInfoOnMount}, {"storageCapacity", s.StorageCapacity}, {"requiresRepublish", s.RequiresRepublish}, {"seLinuxMount", s.SELinuxMount}} {
		if f.v == nil {
			errs = append(errs, Required(p.child(f.name).path(), ""))
		}
	}
	if s.FSGroupPolicy != nil && !slices.Contains(supportedFSGroupPolicy, *s.FSGroupPolicy) {
		errs = append(errs, NotSupported(p.child("fsGroupPolicy").path(), s.FSGroupPolicy, supportedFSGroupPolicy...))
	}
	for _, m := range s.VolumeLifecycleModes {
		if !slices.Contains(supportedLifecycle, m) {
			errs = append(errs, NotSupported(p.child("volumeLifecycleModes").path(), m, supportedLifecycle...))
		}
	}
	return errs
}

// validateCSIDriverUpdate checks an update: attachRequired may not change.
func validateCSIDriverUpdate(d, old *api.CSIDriver) apierrors.FieldErrors {
	errs := validateCSIDriver(d)
	errs = validateObjectMetaUpdate(errs, &d.Metadata, &old.Metadata, metadataPath)
	if !reflect.DeepEqual(d.Spec.AttachRequired, old.Spec.AttachRequired) {
		errs = append(errs, Invalid(NewPath("spec", "attachedRequired"), d.Spec.AttachRequired, msgImmutable))
	}
	return errs
}

func defaultCSIStorageCapacity(*api.CSIStorageCapacity) {}

// validateCSIStorageCapacity checks a capacity on create: a valid node
// topology selector, a storage class name, valid quantities.
func validateCSIStorageCapacity(c *api.CSIStorageCapacity) apierrors.FieldErrors {
	errs := validateObjectMeta(nil, &c.Metadata, csiStorageCapacityMeta, metadataPath)
	errs = validateLabelSelector(errs, c.NodeTopology, pathAt("nodeTopology"))
	if c.StorageClassName == "" {
		errs = append(errs, Required(NewPath("storageClassName"), ""))
	} else {
		errs = invalidEach(errs, pathAt("storageClassName"), c.StorageClassName, nameIsDNSSubdomain(c.StorageClassName, false))
	}
	if c.Capacity != nil {
		errs, _, _ = validateQuantity(errs, string(*c.Capacity), pathAt("capacity"))
	}
	if c.MaximumVolumeSize != nil {
		errs, _, _ = validateQuantity(errs, string(*c.MaximumVolumeSize), pathAt("maximumVolumeSize"))
	}
	return errs
}

// validateCSIStorageCapacityUpdate checks an update: node topology and
// storage class name may not change.
func validateCSIStorageCapacityUpdate(c, old *api.CSIStorageCapacity) apierrors.FieldErrors {
	errs := validateCSIStorageCapacity(c)
	errs = validateObjectMetaUpdate(errs, &c.Metadata, &old.Metadata, metadataPath)
	if !reflect.DeepEqual(c.NodeTopology, old.NodeTopology) {
		errs = append(errs, Invalid(NewPath("nodeTopology"), c.NodeTopology, msgImmutable))
	}
	if c.StorageClassName != old.StorageClassName {
		errs = append(errs, Invalid(NewPath("storageClassName"), c.StorageClassName, msgImmutable))
	}
	return errs
}

func defaultVolumeAttachment(*api.VolumeAttachment) {}

// validateVolumeAttachment checks an attachment on create: an attacher
// that is a CSI driver name, exactly one source, a node name.
func validateVolumeAttachment(va *api.VolumeAttachment) apierrors.FieldErrors {
	errs := validateObjectMeta(nil, &va.Metadata, storageMeta, metadataPath)
	p := pathAt("spec")
	if va.Spec.Attacher == "" {
		errs = append(errs, Required(p.child("attacher").path(), va.Spec.Attacher))
	}
	src, sp := &va.Spec.Source, p.child("source")
	switch {
	case src.PersistentVolumeName == nil && src.InlineVolumeSpec == nil:
		errs = append(errs, Required(sp.path(), "must specify exactly one of inlineVolumeSpec and persistentVolumeName"))
	case src.PersistentVolumeName != nil && src.InlineVolumeSpec != nil:
		errs = append(errs, Forbidden(sp.path(), "must specify exactly one of inlineVolumeSpec and persistentVolumeName"))
	case src.PersistentVolumeName != nil:
		if *src.PersistentVolumeName == "" {
			errs = append(errs, Required(sp.child("persistentVolumeName").path(), "must specify non empty persistentVolumeName"))
		}
	default:
		errs = validatePersistentVolumeSpec(errs, src.InlineVolumeSpec, true, sp.child("inlineVolumeSpec"))
	}
	errs = invalidEach(errs, p.child("nodeName"), va.Spec.NodeName, nameIsDNSSubdomain(va.Spec.NodeName, false))
	if va.Spec.Attacher != "" {
		errs = validateCSIDriverName(errs, va.Spec.Attacher, pathAt("spec.attacher"))
	}
	if pv := src.PersistentVolumeName; pv != nil && *pv != "" {
		errs = invalidEach(errs, pathAt("spec.source.persistentVolumeName"), *pv, nameIsDNSSubdomain(*pv, false))
	}
	return errs
}

// validateVolumeAttachmentUpdate checks an update: the spec may not change.
func validateVolumeAttachmentUpdate(va, old *api.VolumeAttachment) apierrors.FieldErrors {
	errs := validateVolumeAttachment(va)
	errs = validateObjectMetaUpdate(errs, &va.Metadata, &old.Metadata, metadataPath)
	if !reflect.DeepEqual(va.Spec, old.Spec) {
		errs = append(errs, Invalid(NewPath("spec"), va.Spec, msgImmutable))
	}
	return errs
}
