package apiserver

import (
	"fmt"
	"strings"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
)

// schedulingKinds returns the kinds kube-scheduler v1.32's default plugins
// list and watch beyond the core ones the controllers need: volumes and
// claims, the storage.k8s.io kinds, disruption budgets, replica sets and
// stateful sets. They are served with their strategies (defaults,
// validation, status and scale subresources) but no controller acts on
// them; resource versions, generations, finalizers, owner references (the
// garbage collector graphs them) and selectors work as for every kind.
func schedulingKinds() []*kind {
	storage := func(resource string) apierrors.GroupResource {
		return apierrors.GroupResource{Group: "storage.k8s.io", Resource: resource}
	}
	return []*kind{
		typed(&kind{
			gr: apierrors.GroupResource{Resource: "persistentvolumes"}, kind: "PersistentVolume", apiVersion: "v1", shortNames: []string{"pv"},
			newObj: func() api.Object { return &api.PersistentVolume{} }, resetStatusOnCreate: true,
			status:  statusOf(func(o *api.PersistentVolume) *api.PersistentVolumeStatus { return &o.Status }),
			columns: persistentVolumeColumns,
		}, defaultPersistentVolume, validatePersistentVolume, validatePersistentVolumeUpdate),
		typed(&kind{
			gr: apierrors.GroupResource{Resource: "persistentvolumeclaims"}, kind: "PersistentVolumeClaim", apiVersion: "v1", namespaced: true, shortNames: []string{"pvc"},
			newObj: func() api.Object { return &api.PersistentVolumeClaim{} }, resetStatusOnCreate: true,
			status:  statusOf(func(o *api.PersistentVolumeClaim) *api.PersistentVolumeClaimStatus { return &o.Status }),
			columns: persistentVolumeClaimColumns,
		}, defaultPersistentVolumeClaim, validatePersistentVolumeClaim, validatePersistentVolumeClaimUpdate),
		typed(&kind{
			gr: storage("storageclasses"), kind: "StorageClass", apiVersion: "storage.k8s.io/v1", shortNames: []string{"sc"}, singular: "storageclass",
			newObj:  func() api.Object { return &api.StorageClass{} },
			columns: storageClassColumns,
		}, defaultStorageClass, validateStorageClass, validateStorageClassUpdate),
		typed(&kind{
			gr: storage("csinodes"), kind: "CSINode", apiVersion: "storage.k8s.io/v1",
			newObj: func() api.Object { return &api.CSINode{} },
			columns: []Column{nameColumn,
				{Name: "Drivers", Type: "integer", Description: "Drivers indicates the number of CSI drivers registered on the node",
					Cell: func(o api.Object) any { return int64(len(o.(*api.CSINode).Spec.Drivers)) }},
				ageColumn},
		}, defaultCSINode, validateCSINode, validateCSINodeUpdate),
		typed(&kind{
			gr: storage("csidrivers"), kind: "CSIDriver", apiVersion: "storage.k8s.io/v1",
			newObj:  func() api.Object { return &api.CSIDriver{} },
			columns: csiDriverColumns,
		}, defaultCSIDriver, validateCSIDriver, validateCSIDriverUpdate),
		typed(&kind{
			gr: storage("csistoragecapacities"), kind: "CSIStorageCapacity", apiVersion: "storage.k8s.io/v1", namespaced: true,
			singular: "csistoragecapacity",
			newObj:   func() api.Object { return &api.CSIStorageCapacity{} },
			columns: []Column{nameColumn,
				{Name: "StorageClassName", Type: "string", Description: "storageClassName represents the name of the StorageClass that the reported capacity applies to.",
					Cell: func(o api.Object) any { return o.(*api.CSIStorageCapacity).StorageClassName }},
				{Name: "Capacity", Type: "string", Description: "capacity is the value reported by the CSI driver in its GetCapacityResponse for a GetCapacityRequest with topology and parameters that match the previous fields.",
					Cell: func(o api.Object) any { return quantityOrUnset(o.(*api.CSIStorageCapacity).Capacity) }}},
		}, defaultCSIStorageCapacity, validateCSIStorageCapacity, validateCSIStorageCapacityUpdate),
		typed(&kind{
			gr: storage("volumeattachments"), kind: "VolumeAttachment", apiVersion: "storage.k8s.io/v1",
			newObj:  func() api.Object { return &api.VolumeAttachment{} },
			status:  statusOf(func(o *api.VolumeAttachment) *api.VolumeAttachmentStatus { return &o.Status }),
			columns: volumeAttachmentColumns,
		}, defaultVolumeAttachment, validateVolumeAttachment, validateVolumeAttachmentUpdate),
		typed(&kind{
			gr: apierrors.GroupResource{Group: "policy", Resource: "poddisruptionbudgets"}, kind: "PodDisruptionBudget", apiVersion: "policy/v1", namespaced: true,
			shortNames: []string{"pdb"},
			newObj:     func() api.Object { return &api.PodDisruptionBudget{} }, resetStatusOnCreate: true,
			status:  statusOf(func(o *api.PodDisruptionBudget) *api.PodDisruptionBudgetStatus { return &o.Status }),
			columns: podDisruptionBudgetColumns,
		}, defaultPodDisruptionBudget, validatePodDisruptionBudget, validatePodDisruptionBudgetUpdate),
		typed(&kind{
			gr: apierrors.GroupResource{Group: "apps", Resource: "replicasets"}, kind: "ReplicaSet", apiVersion: "apps/v1", namespaced: true,
			shortNames: []string{"rs"}, categories: []string{"all"},
			newObj: func() api.Object { return &api.ReplicaSet{} }, resetStatusOnCreate: true,
			status:  statusOf(func(o *api.ReplicaSet) *api.ReplicaSetStatus { return &o.Status }),
			columns: replicaSetColumns,
			scale: &scaleHooks{
				replicas: func(o api.Object) *int32 { return o.(*api.ReplicaSet).Spec.Replicas },
				set:      func(o api.Object, n int32) { o.(*api.ReplicaSet).Spec.Replicas = &n },
				status: func(o api.Object) (int32, string) {
					rs := o.(*api.ReplicaSet)
					return rs.Status.Replicas, selectorString(rs.Spec.Selector)
				},
			},
		}, defaultReplicaSet, validateReplicaSet, validateReplicaSetUpdate),
		typed(&kind{
			gr: apierrors.GroupResource{Group: "apps", Resource: "deployments"}, kind: "Deployment", apiVersion: "apps/v1", namespaced: true,
			shortNames: []string{"deploy"}, categories: []string{"all"},
			newObj: func() api.Object { return &api.Deployment{} }, resetStatusOnCreate: true,
			status: statusOf(func(o *api.Deployment) *api.DeploymentStatus { return &o.Status }), statusTakesAnnotations: true,
			columns: deploymentColumns,
			scale: &scaleHooks{
				replicas: func(o api.Object) *int32 { return o.(*api.Deployment).Spec.Replicas },
				set:      func(o api.Object, n int32) { o.(*api.Deployment).Spec.Replicas = &n },
				status: func(o api.Object) (int32, string) {
					d := o.(*api.Deployment)
					return d.Status.Replicas, selectorString(d.Spec.Selector)
				},
			},
		}, defaultDeployment, validateDeployment, validateDeploymentUpdate),
		typed(&kind{
			gr: apierrors.GroupResource{Group: "apps", Resource: "daemonsets"}, kind: "DaemonSet", apiVersion: "apps/v1", namespaced: true,
			shortNames: []string{"ds"}, categories: []string{"all"},
			newObj: func() api.Object { return &api.DaemonSet{} }, resetStatusOnCreate: true,
			status: statusOf(func(o *api.DaemonSet) *api.DaemonSetStatus { return &o.Status }), statusTakesAnnotations: true,
			columns: daemonSetColumns,
		}, defaultDaemonSet, validateDaemonSet, validateDaemonSetUpdate),
		typed(&kind{
			gr: apierrors.GroupResource{Group: "apps", Resource: "controllerrevisions"}, kind: "ControllerRevision", apiVersion: "apps/v1", namespaced: true,
			newObj:  func() api.Object { return &api.ControllerRevision{} },
			columns: controllerRevisionColumns,
		}, defaultControllerRevision, validateControllerRevision, validateControllerRevisionUpdate),
		typed(&kind{
			gr: apierrors.GroupResource{Group: "apps", Resource: "statefulsets"}, kind: "StatefulSet", apiVersion: "apps/v1", namespaced: true,
			shortNames: []string{"sts"}, categories: []string{"all"},
			newObj: func() api.Object { return &api.StatefulSet{} }, resetStatusOnCreate: true,
			status:  statusOf(func(o *api.StatefulSet) *api.StatefulSetStatus { return &o.Status }),
			columns: statefulSetColumns,
			scale: &scaleHooks{
				replicas: func(o api.Object) *int32 { return o.(*api.StatefulSet).Spec.Replicas },
				set:      func(o api.Object, n int32) { o.(*api.StatefulSet).Spec.Replicas = &n },
				status: func(o api.Object) (int32, string) {
					ss := o.(*api.StatefulSet)
					return ss.Status.Replicas, selectorString(ss.Spec.Selector)
				},
			},
		}, defaultStatefulSet, validateStatefulSet, validateStatefulSetUpdate),
	}
}

// selectorString is a label selector as a Scale's status.selector carries
// it: its string form, "" when it is nil or not valid.
func selectorString(ls *api.LabelSelector) string {
	sel, err := api.LabelSelectorAsSelector(ls)
	if err != nil {
		return ""
	}
	return sel.String()
}

// The columns of kubectl's tables for these kinds, as Kubernetes'
// pkg/printers/internalversion prints them.
var (
	persistentVolumeColumns = []Column{nameColumn,
		{Name: "Capacity", Type: "string", Description: "capacity is the description of the persistent volume's resources and capacity.",
			Cell: func(o api.Object) any { return o.(*api.PersistentVolume).Spec.Capacity[api.ResourceStorage] }},
		{Name: "Access Modes", Type: "string", Description: "accessModes contains all ways the volume can be mounted.",
			Cell: func(o api.Object) any { return accessModesString(o.(*api.PersistentVolume).Spec.AccessModes) }},
		{Name: "Reclaim Policy", Type: "string", Description: "persistentVolumeReclaimPolicy defines what happens to a persistent volume when released from its claim.",
			Cell: func(o api.Object) any { return string(o.(*api.PersistentVolume).Spec.PersistentVolumeReclaimPolicy) }},
		{Name: "Status", Type: "string", Description: "phase indicates if a volume is available, bound to a claim, or released by a claim.",
			Cell: func(o api.Object) any {
				pv := o.(*api.PersistentVolume)
				if pv.Metadata.DeletionTimestamp != nil {
					return "Terminating"
				}
				return string(pv.Status.Phase)
			}},
		{Name: "Claim", Type: "string", Description: "claimRef is part of a bi-directional binding between PersistentVolume and PersistentVolumeClaim.",
			Cell: func(o api.Object) any {
				if ref := o.(*api.PersistentVolume).Spec.ClaimRef; ref != nil {
					return ref.Namespace + "/" + ref.Name
				}
				return ""
			}},
		{Name: "StorageClass", Type: "string", Description: "StorageClass of the pv",
			Cell: func(o api.Object) any {
				pv := o.(*api.PersistentVolume)
				if c, ok := pv.Metadata.Annotations[betaStorageClassAnnotation]; ok {
					return c
				}
				return pv.Spec.StorageClassName
			}},
		{Name: "VolumeAttributesClass", Type: "string", Description: "VolumeAttributesClass of the pv",
			Cell: func(o api.Object) any { return stringOrUnset(o.(*api.PersistentVolume).Spec.VolumeAttributesClassName) }},
		{Name: "Reason", Type: "string", Description: "reason is a brief CamelCase string that describes any failure and is meant for machine parsing and tidy display in the CLI.",
			Cell: func(o api.Object) any { return o.(*api.PersistentVolume).Status.Reason }},
		ageColumn,
		{Name: "VolumeMode", Type: "string", Priority: 1, Description: "volumeMode defines if a volume is intended to be used with a formatted filesystem or to remain in raw block state.",
			Cell: func(o api.Object) any { return volumeModeString(o.(*api.PersistentVolume).Spec.VolumeMode) }},
	}

	persistentVolumeClaimColumns = []Column{nameColumn,
		{Name: "Status", Type: "string", Description: "phase represents the current phase of PersistentVolumeClaim.",
			Cell: func(o api.Object) any {
				pvc := o.(*api.PersistentVolumeClaim)
				if pvc.Metadata.DeletionTimestamp != nil {
					return "Terminating"
				}
				return string(pvc.Status.Phase)
			}},
		{Name: "Volume", Type: "string", Description: "volumeName is the binding reference to the PersistentVolume backing this claim.",
			Cell: func(o api.Object) any { return o.(*api.PersistentVolumeClaim).Spec.VolumeName }},
		{Name: "Capacity", Type: "string", Description: "capacity represents the actual resources of the underlying volume.",
			Cell: func(o api.Object) any {
				if pvc := o.(*api.PersistentVolumeClaim); pvc.Spec.VolumeName != "" {
					return pvc.Status.Capacity[api.ResourceStorage]
				}
				return ""
			}},
		{Name: "Access Modes", Type: "string", Description: "accessModes contains the actual access modes the volume backing the PVC has.",
			Cell: func(o api.Object) any {
				if pvc := o.(*api.PersistentVolumeClaim); pvc.Spec.VolumeName != "" {
					return accessModesString(pvc.Status.AccessModes)
				}
				return ""
			}},
		{Name: "StorageClass", Type: "string", Description: "StorageClass of the pvc",
			Cell: func(o api.Object) any {
				pvc := o.(*api.PersistentVolumeClaim)
				if c, ok := pvc.Metadata.Annotations[betaStorageClassAnnotation]; ok {
					return c
				}
				if pvc.Spec.StorageClassName != nil {
					return *pvc.Spec.StorageClassName
				}
				return ""
			}},
		{Name: "VolumeAttributesClass", Type: "string", Description: "VolumeAttributesClass of the pvc",
			Cell: func(o api.Object) any {
				return stringOrUnset(o.(*api.PersistentVolumeClaim).Spec.VolumeAttributesClassName)
			}},
		ageColumn,
		{Name: "VolumeMode", Type: "string", Priority: 1, Description: "volumeMode defines what type of volume is required by the claim.",
			Cell: func(o api.Object) any { return volumeModeString(o.(*api.PersistentVolumeClaim).Spec.VolumeMode) }},
	}

	storageClassColumns = []Column{
		{Name: "Name", Type: "string", Description: nameColumn.Description, Cell: func(o api.Object) any {
			sc := o.(*api.StorageClass)
			if isDefaultStorageClass(sc) {
				return sc.Metadata.Name + " (default)"
			}
			return sc.Metadata.Name
		}},
		{Name: "Provisioner", Type: "string", Description: "provisioner indicates the type of the provisioner.",
			Cell: func(o api.Object) any { return o.(*api.StorageClass).Provisioner }},
		{Name: "ReclaimPolicy", Type: "string", Description: "reclaimPolicy controls the reclaimPolicy for dynamically provisioned PersistentVolumes of this storage class. Defaults to Delete.",
			Cell: func(o api.Object) any {
				if rp := o.(*api.StorageClass).ReclaimPolicy; rp != nil {
					return string(*rp)
				}
				return string(api.PersistentVolumeReclaimDelete)
			}},
		{Name: "VolumeBindingMode", Type: "string", Description: "volumeBindingMode indicates how PersistentVolumeClaims should be provisioned and bound.  When unset, VolumeBindingImmediate is used.",
			Cell: func(o api.Object) any {
				if m := o.(*api.StorageClass).VolumeBindingMode; m != nil {
					return string(*m)
				}
				return string(api.VolumeBindingImmediate)
			}},
		{Name: "AllowVolumeExpansion", Type: "string", Description: "allowVolumeExpansion shows whether the storage class allow volume expand.",
			Cell: func(o api.Object) any { return deref(o.(*api.StorageClass).AllowVolumeExpansion) }},
		ageColumn,
	}

	csiDriverColumns = []Column{nameColumn,
		{Name: "AttachRequired", Type: "boolean", Description: "attachRequired indicates this CSI volume driver requires an attach operation.",
			Cell: func(o api.Object) any { return deref(o.(*api.CSIDriver).Spec.AttachRequired) }},
		{Name: "PodInfoOnMount", Type: "boolean", Description: "podInfoOnMount indicates this CSI volume driver requires additional pod information during mount operations.",
			Cell: func(o api.Object) any { return deref(o.(*api.CSIDriver).Spec.PodInfoOnMount) }},
		{Name: "StorageCapacity", Type: "boolean", Description: "storageCapacity indicates that the CSI volume driver wants pod scheduling to consider the storage capacity that the driver deployment will report.",
			Cell: func(o api.Object) any { return deref(o.(*api.CSIDriver).Spec.StorageCapacity) }},
		{Name: "TokenRequests", Type: "string", Description: "tokenRequests indicates the CSI driver needs pods' service account tokens it is mounting volume for to do necessary authentication.",
			Cell: func(api.Object) any { return "<unset>" }},
		{Name: "RequiresRepublish", Type: "boolean", Description: "requiresRepublish indicates the CSI driver wants `NodePublishVolume` being periodically called to reflect any possible change in the mounted volume.",
			Cell: func(o api.Object) any { return deref(o.(*api.CSIDriver).Spec.RequiresRepublish) }},
		{Name: "Modes", Type: "string", Description: "volumeLifecycleModes defines what kind of volumes this CSI volume driver supports.",
			Cell: func(o api.Object) any {
				if m := o.(*api.CSIDriver).Spec.VolumeLifecycleModes; len(m) > 0 {
					return strings.Join(m, ",")
				}
				return "<none>"
			}},
		ageColumn,
	}

	volumeAttachmentColumns = []Column{nameColumn,
		{Name: "Attacher", Type: "string", Description: "attacher indicates the name of the volume driver that MUST handle this request.",
			Cell: func(o api.Object) any { return o.(*api.VolumeAttachment).Spec.Attacher }},
		{Name: "PV", Type: "string", Description: "persistentVolumeName represents the name of the persistent volume to attach.",
			Cell: func(o api.Object) any { return deref(o.(*api.VolumeAttachment).Spec.Source.PersistentVolumeName) }},
		{Name: "Node", Type: "string", Description: "nodeName represents the node that the volume should be attached to.",
			Cell: func(o api.Object) any { return o.(*api.VolumeAttachment).Spec.NodeName }},
		{Name: "Attached", Type: "boolean", Description: "attached indicates the volume is successfully attached.",
			Cell: func(o api.Object) any { return o.(*api.VolumeAttachment).Status.Attached }},
		ageColumn,
	}

	podDisruptionBudgetColumns = []Column{nameColumn,
		{Name: "Min Available", Type: "string", Description: "The minimum number of pods that must be available.",
			Cell: func(o api.Object) any { return intOrStringOrNA(o.(*api.PodDisruptionBudget).Spec.MinAvailable) }},
		{Name: "Max Unavailable", Type: "string", Description: "The maximum number of pods that may be unavailable.",
			Cell: func(o api.Object) any { return intOrStringOrNA(o.(*api.PodDisruptionBudget).Spec.MaxUnavailable) }},
		{Name: "Allowed Disruptions", Type: "integer", Description: "Calculated number of pods that may be disrupted at this time.",
			Cell: func(o api.Object) any { return int64(o.(*api.PodDisruptionBudget).Status.DisruptionsAllowed) }},
		ageColumn,
	}

	deploymentColumns = []Column{nameColumn,
		{Name: "Ready", Type: "string", Description: "Number of the pod with ready state",
			Cell: func(o api.Object) any {
				d := o.(*api.Deployment)
				return fmt.Sprintf("%d/%d", d.Status.ReadyReplicas, deref(d.Spec.Replicas))
			}},
		{Name: "Up-to-date", Type: "string", Description: "Total number of non-terminated pods targeted by this deployment that have the desired template spec.",
			Cell: func(o api.Object) any { return int64(o.(*api.Deployment).Status.UpdatedReplicas) }},
		{Name: "Available", Type: "string", Description: "Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.",
			Cell: func(o api.Object) any { return int64(o.(*api.Deployment).Status.AvailableReplicas) }},
		ageColumn,
		containersColumn(func(o api.Object) *api.PodTemplateSpec { return &o.(*api.Deployment).Spec.Template }),
		imagesColumn(func(o api.Object) *api.PodTemplateSpec { return &o.(*api.Deployment).Spec.Template }),
		{Name: "Selector", Type: "string", Priority: 1, Description: "Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment. It must match the pod template's labels.",
			Cell: func(o api.Object) any { return api.FormatLabelSelector(o.(*api.Deployment).Spec.Selector) }},
	}

	daemonSetColumns = []Column{nameColumn,
		{Name: "Desired", Type: "integer", Description: "The total number of nodes that should be running the daemon pod (including nodes correctly running the daemon pod). More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/",
			Cell: func(o api.Object) any { return int64(o.(*api.DaemonSet).Status.DesiredNumberScheduled) }},
		{Name: "Current", Type: "integer", Description: "The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod. More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/",
			Cell: func(o api.Object) any { return int64(o.(*api.DaemonSet).Status.CurrentNumberScheduled) }},
		{Name: "Ready", Type: "integer", Description: "numberReady is the number of nodes that should be running the daemon pod and have one or more of the daemon pod running with a Ready Condition.",
			Cell: func(o api.Object) any { return int64(o.(*api.DaemonSet).Status.NumberReady) }},
		{Name: "Up-to-date", Type: "integer", Description: "The total number of nodes that are running updated daemon pod",
			Cell: func(o api.Object) any { return int64(o.(*api.DaemonSet).Status.UpdatedNumberScheduled) }},
		{Name: "Available", Type: "integer", Description: "The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available (ready for at least spec.minReadySeconds)",
			Cell: func(o api.Object) any { return int64(o.(*api.DaemonSet).Status.NumberAvailable) }},
		{Name: "Node Selector", Type: "string", Description: "NodeSelector is a selector which must be true for the pod to fit on a node. Selector which must match a node's labels for the pod to be scheduled on that node. More info: https://kubernetes.io/docs/concepts/configuration/assign-pod-node/",
			Cell: func(o api.Object) any { return formatLabels(o.(*api.DaemonSet).Spec.Template.Spec.NodeSelector) }},
		ageColumn,
		containersColumn(func(o api.Object) *api.PodTemplateSpec { return &o.(*api.DaemonSet).Spec.Template }),
		imagesColumn(func(o api.Object) *api.PodTemplateSpec { return &o.(*api.DaemonSet).Spec.Template }),
		{Name: "Selector", Type: "string", Priority: 1, Description: "A label query over pods that are managed by the daemon set. Must match in order to be controlled. It must match the pod template's labels. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors",
			Cell: func(o api.Object) any { return api.FormatLabelSelector(o.(*api.DaemonSet).Spec.Selector) }},
	}

	controllerRevisionColumns = []Column{nameColumn,
		{Name: "Controller", Type: "string", Description: "Controller of the object",
			Cell: func(o api.Object) any {
				ref := api.GetControllerOf(&o.(*api.ControllerRevision).Metadata)
				if ref == nil {
					return "<none>"
				}
				// kubectl's formatResourceName: the group kind, lower case.
				kind := ref.Kind
				if group, _, grouped := strings.Cut(ref.APIVersion, "/"); grouped {
					kind += "." + group
				}
				return strings.ToLower(kind) + "/" + ref.Name
			}},
		{Name: "Revision", Type: "string", Description: "Revision indicates the revision of the state represented by Data.",
			Cell: func(o api.Object) any { return o.(*api.ControllerRevision).Revision }},
		ageColumn,
	}

	replicaSetColumns = []Column{nameColumn,
		{Name: "Desired", Type: "integer", Description: "Replicas is the number of desired replicas. This is a pointer to distinguish between explicit zero and unspecified. Defaults to 1. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller/#what-is-a-replicationcontroller",
			Cell: func(o api.Object) any { return int64(deref(o.(*api.ReplicaSet).Spec.Replicas)) }},
		{Name: "Current", Type: "integer", Description: "Replicas is the most recently observed number of replicas. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller/#what-is-a-replicationcontroller",
			Cell: func(o api.Object) any { return int64(o.(*api.ReplicaSet).Status.Replicas) }},
		{Name: "Ready", Type: "integer", Description: "The number of ready replicas for this replica set.",
			Cell: func(o api.Object) any { return int64(o.(*api.ReplicaSet).Status.ReadyReplicas) }},
		ageColumn,
		containersColumn(func(o api.Object) *api.PodTemplateSpec { return &o.(*api.ReplicaSet).Spec.Template }),
		imagesColumn(func(o api.Object) *api.PodTemplateSpec { return &o.(*api.ReplicaSet).Spec.Template }),
		{Name: "Selector", Type: "string", Priority: 1, Description: "Selector is a label query over pods that should match the replica count. If the selector is empty, it is defaulted to the labels present on the pod template. Label keys and values that must match in order to be controlled by this replica set. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors",
			Cell: func(o api.Object) any { return api.FormatLabelSelector(o.(*api.ReplicaSet).Spec.Selector) }},
	}

	statefulSetColumns = []Column{nameColumn,
		{Name: "Ready", Type: "string", Description: "Number of the pod with ready state",
			Cell: func(o api.Object) any {
				ss := o.(*api.StatefulSet)
				return fmt.Sprintf("%d/%d", ss.Status.ReadyReplicas, deref(ss.Spec.Replicas))
			}},
		ageColumn,
		containersColumn(func(o api.Object) *api.PodTemplateSpec { return &o.(*api.StatefulSet).Spec.Template }),
		imagesColumn(func(o api.Object) *api.PodTemplateSpec { return &o.(*api.StatefulSet).Spec.Template }),
	}
)

// betaStorageClassAnnotation is the annotation that named a volume's or
// claim's class before spec.storageClassName; kubectl still prefers it.
const betaStorageClassAnnotation = "volume.beta.kubernetes.io/storage-class"

// isDefaultStorageClassAnnotation marks the cluster's default class.
const isDefaultStorageClassAnnotation = "storageclass.kubernetes.io/is-default-class"

// isDefaultStorageClass reports whether sc is annotated as the default
// class (or with the beta annotation), as kubectl marks it.
func isDefaultStorageClass(sc *api.StorageClass) bool {
	a := sc.Metadata.Annotations
	return a[isDefaultStorageClassAnnotation] == "true" || a["storageclass.beta.kubernetes.io/is-default-class"] == "true"
}

// containersColumn and imagesColumn are the wide columns of a pod
// template's container names and images, comma-separated.
func containersColumn(template func(api.Object) *api.PodTemplateSpec) Column {
	return Column{Name: "Containers", Type: "string", Priority: 1, Description: "Names of each container in the template.",
		Cell: func(o api.Object) any {
			var names []string
			for _, c := range template(o).Spec.Containers {
				names = append(names, c.Name)
			}
			return strings.Join(names, ",")
		}}
}

func imagesColumn(template func(api.Object) *api.PodTemplateSpec) Column {
	return Column{Name: "Images", Type: "string", Priority: 1, Description: "Images referenced by each container in the template.",
		Cell: func(o api.Object) any {
			var images []string
			for _, c := range template(o).Spec.Containers {
				images = append(images, c.Image)
			}
			return strings.Join(images, ",")
		}}
}

// accessModesString is access modes as kubectl abbreviates them, in its
// fixed order and without repeats: "RWO,ROX,RWX,RWOP".
func accessModesString(modes []api.PersistentVolumeAccessMode) string {
	var out []string
	for _, m := range []struct {
		mode api.PersistentVolumeAccessMode
		abbr string
	}{{api.ReadWriteOnce, "RWO"}, {api.ReadOnlyMany, "ROX"}, {api.ReadWriteMany, "RWX"}, {api.ReadWriteOncePod, "RWOP"}} {
		for _, have := range modes {
			if have == m.mode {
				out = append(out, m.abbr)
				break
			}
		}
	}
	return strings.Join(out, ",")
}

func volumeModeString(m *api.PersistentVolumeMode) string {
	if m == nil {
		return "<unset>"
	}
	return string(*m)
}

func stringOrUnset(s *string) string {
	if s == nil {
		return "<unset>"
	}
	return *s
}

func quantityOrUnset(q *api.Quantity) string {
	if q == nil {
		return "<unset>"
	}
	return string(*q)
}

func intOrStringOrNA(v *api.IntOrString) string {
	if v == nil {
		return "N/A"
	}
	if v.Type == api.String {
		return v.StrVal
	}
	return fmt.Sprint(v.IntVal)
}

// formatLabels is a label set as kubectl prints it: "k=v,..." in key
// order, "<none>" when empty. Kubernetes: labels.FormatLabels.
func formatLabels(set map[string]string) string {
	if len(set) == 0 {
		return "<none>"
	}
	return api.SelectorFromSet(set).String()
}
