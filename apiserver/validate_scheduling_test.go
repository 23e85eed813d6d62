package apiserver

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
)

// kindCase is one change to a valid object and the errors Kubernetes gives
// for it ("" for none).
type kindCase[T any] struct {
	name   string
	change func(T)
	want   string
	causes []cause
}

// runKindCases defaults and validates valid() after each case's change.
func runKindCases[T any](t *testing.T, valid func() T, defaults func(T), validate func(T) apierrors.FieldErrors, cases []kindCase[T]) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			obj := valid()
			tc.change(obj)
			defaults(obj)
			assertErrors(t, validate(obj), tc.want, tc.causes)
		})
	}
}

func validPV() *api.PersistentVolume {
	return &api.PersistentVolume{
		Metadata: api.ObjectMeta{Name: "pv0"},
		Spec: api.PersistentVolumeSpec{
			Capacity:               api.ResourceList{"storage": "10Gi"},
			AccessModes:            []api.PersistentVolumeAccessMode{api.ReadWriteOnce},
			PersistentVolumeSource: api.PersistentVolumeSource{HostPath: &api.HostPathVolumeSource{Path: "/data"}},
		},
	}
}

func TestValidatePersistentVolume(t *testing.T) {
	affinity := &api.VolumeNodeAffinity{Required: &api.NodeSelector{NodeSelectorTerms: []api.NodeSelectorTerm{{
		MatchExpressions: []api.NodeSelectorRequirement{{Key: "kubernetes.io/hostname", Operator: "In", Values: []string{"node-0"}}}}}}}
	runKindCases(t, validPV, defaultPersistentVolume, validatePersistentVolume, []kindCase[*api.PersistentVolume]{
		{name: "valid", change: func(*api.PersistentVolume) {}},
		{name: "no capacity", change: func(pv *api.PersistentVolume) { pv.Spec.Capacity = nil },
			want:   `[spec.capacity: Required value, spec.capacity: Unsupported value: api.ResourceList(nil): supported values: "storage"]`,
			causes: []cause{{required, "spec.capacity"}, {notSupported, "spec.capacity"}}},
		{name: "no access modes", change: func(pv *api.PersistentVolume) { pv.Spec.AccessModes = nil },
			want: "spec.accessModes: Required value", causes: []cause{{required, "spec.accessModes"}}},
		{name: "bad access mode", change: func(pv *api.PersistentVolume) {
			pv.Spec.AccessModes = []api.PersistentVolumeAccessMode{"ReadSometimes"}
		},
			want:   `spec.accessModes: Unsupported value: "ReadSometimes": supported values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"`,
			causes: []cause{{notSupported, "spec.accessModes"}}},
		{name: "ReadWriteOncePod with another", change: func(pv *api.PersistentVolume) {
			pv.Spec.AccessModes = []api.PersistentVolumeAccessMode{api.ReadWriteOncePod, api.ReadWriteOnce}
		}, want: "spec.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes", causes: []cause{{forbidden, "spec.accessModes"}}},
		{name: "no source", change: func(pv *api.PersistentVolume) { pv.Spec.HostPath = nil },
			want: "spec: Required value: must specify a volume type", causes: []cause{{required, "spec"}}},
		{name: "two sources", change: func(pv *api.PersistentVolume) { pv.Spec.NFS = &api.NFSVolumeSource{Server: "nfs", Path: "/x"} },
			want: "spec.nfs: Forbidden: may not specify more than 1 volume type", causes: []cause{{forbidden, "spec.nfs"}}},
		{name: "nfs path relative", change: func(pv *api.PersistentVolume) {
			pv.Spec.HostPath, pv.Spec.NFS = nil, &api.NFSVolumeSource{Server: "nfs", Path: "x"}
		}, want: `spec.nfs.path: Invalid value: "x": must be an absolute path`, causes: []cause{{invalid, "spec.nfs.path"}}},
		{name: "local without affinity", change: func(pv *api.PersistentVolume) {
			pv.Spec.HostPath, pv.Spec.Local = nil, &api.LocalVolumeSource{Path: "/mnt/disk"}
		}, want: "spec.nodeAffinity: Required value: Local volume requires node affinity", causes: []cause{{required, "spec.nodeAffinity"}}},
		{name: "local with affinity", change: func(pv *api.PersistentVolume) {
			pv.Spec.HostPath, pv.Spec.Local, pv.Spec.NodeAffinity = nil, &api.LocalVolumeSource{Path: "/mnt/disk"}, affinity
		}},
		{name: "csi without handle", change: func(pv *api.PersistentVolume) {
			pv.Spec.HostPath, pv.Spec.CSI = nil, &api.CSIPersistentVolumeSource{Driver: "ebs.csi.aws.com"}
		}, want: "spec.csi.volumeHandle: Required value", causes: []cause{{required, "spec.csi.volumeHandle"}}},
		{name: "bad reclaim policy", change: func(pv *api.PersistentVolume) { pv.Spec.PersistentVolumeReclaimPolicy = "Keep" },
			want:   `spec.persistentVolumeReclaimPolicy: Unsupported value: "Keep": supported values: "Delete", "Recycle", "Retain"`,
			causes: []cause{{notSupported, "spec.persistentVolumeReclaimPolicy"}}},
		{name: "bad volume mode", change: func(pv *api.PersistentVolume) { pv.Spec.VolumeMode = ptr(api.PersistentVolumeMode("Tape")) },
			want: `spec.volumeMode: Unsupported value: "Tape": supported values: "Block", "Filesystem"`, causes: []cause{{notSupported, "spec.volumeMode"}}},
		{name: "namespaced", change: func(pv *api.PersistentVolume) { pv.Metadata.Namespace = "default" },
			want: "metadata.namespace: Forbidden: not allowed on this type", causes: []cause{{forbidden, "metadata.namespace"}}},
	})
}

func validPVC() *api.PersistentVolumeClaim {
	return &api.PersistentVolumeClaim{
		Metadata: api.ObjectMeta{Name: "data", Namespace: "default"},
		Spec: api.PersistentVolumeClaimSpec{
			AccessModes: []api.PersistentVolumeAccessMode{api.ReadWriteOnce},
			Resources:   api.VolumeResourceRequirements{Requests: api.ResourceList{"storage": "1Gi"}},
		},
	}
}

func TestValidatePersistentVolumeClaim(t *testing.T) {
	runKindCases(t, validPVC, defaultPersistentVolumeClaim, validatePersistentVolumeClaim, []kindCase[*api.PersistentVolumeClaim]{
		{name: "valid", change: func(*api.PersistentVolumeClaim) {}},
		{name: "no access modes", change: func(c *api.PersistentVolumeClaim) { c.Spec.AccessModes = nil },
			want: "spec.accessModes: Required value: at least 1 access mode is required", causes: []cause{{required, "spec.accessModes"}}},
		{name: "no storage request", change: func(c *api.PersistentVolumeClaim) { c.Spec.Resources.Requests = nil },
			want: "spec.resources[storage]: Required value", causes: []cause{{required, "spec.resources[storage]"}}},
		{name: "zero storage", change: func(c *api.PersistentVolumeClaim) { c.Spec.Resources.Requests["storage"] = "0" },
			want: `spec.resources[storage]: Invalid value: "0": must be greater than zero`, causes: []cause{{invalid, "spec.resources[storage]"}}},
		{name: "bad selector operator", change: func(c *api.PersistentVolumeClaim) {
			c.Spec.Selector = &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: "tier", Operator: "Near"}}}
		}, want: `spec.selector.matchExpressions[0].operator: Invalid value: "Near": not a valid selector operator`,
			causes: []cause{{invalid, "spec.selector.matchExpressions[0].operator"}}},
		{name: "In without values", change: func(c *api.PersistentVolumeClaim) {
			c.Spec.Selector = &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: "tier", Operator: "In"}}}
		}, want: "spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
			causes: []cause{{required, "spec.selector.matchExpressions[0].values"}}},
	})
	t.Run("update: the spec is immutable", func(t *testing.T) {
		old := validPVC()
		defaultPersistentVolumeClaim(old)
		pvc := old.DeepCopy()
		pvc.Spec.AccessModes = []api.PersistentVolumeAccessMode{api.ReadWriteMany}
		assertErrors(t, validatePersistentVolumeClaimUpdate(pvc, old),
			"spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims",
			[]cause{{forbidden, "spec"}})
		pvc = old.DeepCopy()
		pvc.Spec.VolumeName = "pv0" // the binder sets it once
		assertErrors(t, validatePersistentVolumeClaimUpdate(pvc, old), "", nil)
	})
}

func TestValidateStorageKinds(t *testing.T) {
	validSC := func() *api.StorageClass {
		return &api.StorageClass{Metadata: api.ObjectMeta{Name: "fast"}, Provisioner: "ebs.csi.aws.com", Parameters: map[string]string{"type": "gp3"}}
	}
	runKindCases(t, validSC, defaultStorageClass, validateStorageClass, []kindCase[*api.StorageClass]{
		{name: "valid", change: func(*api.StorageClass) {}},
		{name: "no provisioner", change: func(sc *api.StorageClass) { sc.Provisioner = "" },
			want: "provisioner: Required value", causes: []cause{{required, "provisioner"}}},
		{name: "bad binding mode", change: func(sc *api.StorageClass) { sc.VolumeBindingMode = ptr(api.VolumeBindingMode("Later")) },
			want:   `volumeBindingMode: Unsupported value: "Later": supported values: "Immediate", "WaitForFirstConsumer"`,
			causes: []cause{{notSupported, "volumeBindingMode"}}},
		{name: "bad reclaim policy", change: func(sc *api.StorageClass) { sc.ReclaimPolicy = ptr(api.PersistentVolumeReclaimRecycle) },
			want:   `reclaimPolicy: Unsupported value: "Recycle": supported values: "Delete", "Retain"`,
			causes: []cause{{notSupported, "reclaimPolicy"}}},
	})
	t.Run("storage class update: provisioner and parameters are immutable", func(t *testing.T) {
		old := validSC()
		defaultStorageClass(old)
		sc := old.DeepCopy()
		sc.Provisioner, sc.Parameters = "other.csi", map[string]string{"type": "io2"}
		assertErrors(t, validateStorageClassUpdate(sc, old),
			"[parameters: Forbidden: updates to parameters are forbidden., provisioner: Forbidden: updates to provisioner are forbidden.]",
			[]cause{{forbidden, "parameters"}, {forbidden, "provisioner"}})
	})

	validCSINode := func() *api.CSINode {
		return &api.CSINode{Metadata: api.ObjectMeta{Name: "node-0"}, Spec: api.CSINodeSpec{Drivers: []api.CSINodeDriver{
			{Name: "ebs.csi.aws.com", NodeID: "i-0123", TopologyKeys: []string{"topology.ebs.csi.aws.com/zone"}}}}}
	}
	runKindCases(t, validCSINode, defaultCSINode, validateCSINode, []kindCase[*api.CSINode]{
		{name: "valid", change: func(*api.CSINode) {}},
		{name: "duplicate driver", change: func(n *api.CSINode) { n.Spec.Drivers = append(n.Spec.Drivers, n.Spec.Drivers[0]) },
			want: `spec.drivers[1].name: Duplicate value: "ebs.csi.aws.com"`, causes: []cause{{duplicate, "spec.drivers[1].name"}}},
		{name: "no node ID", change: func(n *api.CSINode) { n.Spec.Drivers[0].NodeID = "" },
			want: "spec.drivers[0].nodeID: Required value", causes: []cause{{required, "spec.drivers[0].nodeID"}}},
		{name: "negative count", change: func(n *api.CSINode) { n.Spec.Drivers[0].Allocatable = &api.VolumeNodeResources{Count: ptr(int32(-1))} },
			want: "spec.drivers[0].allocatable.count: Invalid value: -1: must be greater than or equal to 0", causes: []cause{{invalid, "spec.drivers[0].allocatable.count"}}},
	})

	validCSIDriver := func() *api.CSIDriver { return &api.CSIDriver{Metadata: api.ObjectMeta{Name: "ebs.csi.aws.com"}} }
	runKindCases(t, validCSIDriver, defaultCSIDriver, validateCSIDriver, []kindCase[*api.CSIDriver]{
		{name: "valid", change: func(*api.CSIDriver) {}},
		{name: "name not a DNS name", change: func(d *api.CSIDriver) { d.Metadata.Name = "EBS_driver" },
			want: `metadata.name: Invalid value: "EBS_driver": ` + msgDNS1123Subdomain, causes: []cause{{invalid, "metadata.name"}}},
		{name: "bad lifecycle mode", change: func(d *api.CSIDriver) { d.Spec.VolumeLifecycleModes = []string{"Forever"} },
			want:   `spec.volumeLifecycleModes: Unsupported value: "Forever": supported values: "Ephemeral", "Persistent"`,
			causes: []cause{{notSupported, "spec.volumeLifecycleModes"}}},
	})

	validCapacity := func() *api.CSIStorageCapacity {
		return &api.CSIStorageCapacity{Metadata: api.ObjectMeta{Name: "cap", Namespace: "kube-system"}, StorageClassName: "fast", Capacity: ptr(api.Quantity("100Gi"))}
	}
	runKindCases(t, validCapacity, defaultCSIStorageCapacity, validateCSIStorageCapacity, []kindCase[*api.CSIStorageCapacity]{
		{name: "valid", change: func(*api.CSIStorageCapacity) {}},
		{name: "no class", change: func(c *api.CSIStorageCapacity) { c.StorageClassName = "" },
			want: "storageClassName: Required value", causes: []cause{{required, "storageClassName"}}},
		{name: "bad quantity", change: func(c *api.CSIStorageCapacity) { c.Capacity = ptr(api.Quantity("lots")) },
			want: `capacity: Invalid value: "lots": ` + msgQuantityFormat, causes: []cause{{invalid, "capacity"}}},
	})

	validVA := func() *api.VolumeAttachment {
		return &api.VolumeAttachment{Metadata: api.ObjectMeta{Name: "csi-123"}, Spec: api.VolumeAttachmentSpec{
			Attacher: "ebs.csi.aws.com", NodeName: "node-0", Source: api.VolumeAttachmentSource{PersistentVolumeName: ptr("pv0")}}}
	}
	runKindCases(t, validVA, defaultVolumeAttachment, validateVolumeAttachment, []kindCase[*api.VolumeAttachment]{
		{name: "valid", change: func(*api.VolumeAttachment) {}},
		{name: "no attacher", change: func(va *api.VolumeAttachment) { va.Spec.Attacher = "" },
			want: "spec.attacher: Required value", causes: []cause{{required, "spec.attacher"}}},
		{name: "no source", change: func(va *api.VolumeAttachment) { va.Spec.Source = api.VolumeAttachmentSource{} },
			want: "spec.source: Required value: must specify exactly one of inlineVolumeSpec and persistentVolumeName", causes: []cause{{required, "spec.source"}}},
		{name: "two sources", change: func(va *api.VolumeAttachment) {
			va.Spec.Source.InlineVolumeSpec = &api.PersistentVolumeSpec{AccessModes: []api.PersistentVolumeAccessMode{api.ReadWriteOnce},
				PersistentVolumeSource: api.PersistentVolumeSource{CSI: &api.CSIPersistentVolumeSource{Driver: "ebs.csi.aws.com", VolumeHandle: "vol-1"}}}
		}, want: "spec.source: Forbidden: must specify exactly one of inlineVolumeSpec and persistentVolumeName", causes: []cause{{forbidden, "spec.source"}}},
		{name: "no node", change: func(va *api.VolumeAttachment) { va.Spec.NodeName = "" },
			want: `spec.nodeName: Invalid value: "": ` + msgDNS1123Subdomain, causes: []cause{{invalid, "spec.nodeName"}}},
	})
}

func TestValidatePodDisruptionBudget(t *testing.T) {
	valid := func() *api.PodDisruptionBudget {
		two := api.IntOrString{Type: api.Int, IntVal: 2}
		return &api.PodDisruptionBudget{Metadata: api.ObjectMeta{Name: "web", Namespace: "default"},
			Spec: api.PodDisruptionBudgetSpec{MinAvailable: &two, Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}}
	}
	runKindCases(t, valid, defaultPodDisruptionBudget, validatePodDisruptionBudget, []kindCase[*api.PodDisruptionBudget]{
		{name: "valid", change: func(*api.PodDisruptionBudget) {}},
		{name: "percent", change: func(p *api.PodDisruptionBudget) {
			p.Spec.MinAvailable = &api.IntOrString{Type: api.String, StrVal: "50%"}
		}},
		{name: "negative", change: func(p *api.PodDisruptionBudget) { p.Spec.MinAvailable.IntVal = -1 },
			want: "spec.minAvailable: Invalid value: -1: must be greater than or equal to 0", causes: []cause{{invalid, "spec.minAvailable"}}},
		{name: "over 100%", change: func(p *api.PodDisruptionBudget) {
			p.Spec.MinAvailable = &api.IntOrString{Type: api.String, StrVal: "150%"}
		},
			want: `spec.minAvailable: Invalid value: 150%: must not be greater than 100%`, causes: []cause{{invalid, "spec.minAvailable"}}},
		{name: "bad selector label", change: func(p *api.PodDisruptionBudget) { p.Spec.Selector.MatchLabels["app"] = "-web" },
			want: `spec.selector.matchLabels: Invalid value: "-web": ` + msgLabelValue, causes: []cause{{invalid, "spec.selector.matchLabels"}}},
	})
	t.Run("both minAvailable and maxUnavailable", func(t *testing.T) {
		pdb := valid()
		pdb.Spec.MaxUnavailable = &api.IntOrString{Type: api.Int, IntVal: 1}
		errs := validatePodDisruptionBudget(pdb)
		require.Len(t, errs, 1)
		assert.Equal(t, cause{invalid, "spec"}, cause{errs[0].Type, errs[0].Field})
		assert.Equal(t, "minAvailable and maxUnavailable cannot be both set", errs[0].Detail)
	})
}

func validTemplate() api.PodTemplateSpec {
	return api.PodTemplateSpec{
		Metadata: api.ObjectMeta{Labels: map[string]string{"app": "web"}},
		Spec:     api.PodSpec{Containers: []api.Container{{Name: "web", Image: "nginx:1.27"}}},
	}
}

func TestValidateReplicaSet(t *testing.T) {
	valid := func() *api.ReplicaSet {
		return &api.ReplicaSet{Metadata: api.ObjectMeta{Name: "web", Namespace: "default"}, Spec: api.ReplicaSetSpec{
			Replicas: ptr(int32(2)), Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}}, Template: validTemplate()}}
	}
	runKindCases(t, valid, defaultReplicaSet, validateReplicaSet, []kindCase[*api.ReplicaSet]{
		{name: "valid", change: func(*api.ReplicaSet) {}},
		{name: "no selector", change: func(rs *api.ReplicaSet) { rs.Spec.Selector = nil },
			want: "spec.selector: Required value", causes: []cause{{required, "spec.selector"}}},
		{name: "selector does not match", change: func(rs *api.ReplicaSet) { rs.Spec.Selector.MatchLabels["app"] = "db" },
			want:   "spec.template.metadata.labels: Invalid value: map[string]string{\"app\":\"web\"}: `selector` does not match template `labels`",
			causes: []cause{{invalid, "spec.template.metadata.labels"}}},
		{name: "negative replicas", change: func(rs *api.ReplicaSet) { rs.Spec.Replicas = ptr(int32(-1)) },
			want: "spec.replicas: Invalid value: -1: must be greater than or equal to 0", causes: []cause{{invalid, "spec.replicas"}}},
		{name: "template restarts Never", change: func(rs *api.ReplicaSet) { rs.Spec.Template.Spec.RestartPolicy = api.RestartPolicyNever },
			want: `spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"`, causes: []cause{{notSupported, "spec.template.spec.restartPolicy"}}},
		{name: "template without image", change: func(rs *api.ReplicaSet) { rs.Spec.Template.Spec.Containers[0].Image = "" },
			want: "spec.template.spec.containers[0].image: Required value", causes: []cause{{required, "spec.template.spec.containers[0].image"}}},
	})
	t.Run("update: the selector is immutable", func(t *testing.T) {
		old := valid()
		defaultReplicaSet(old)
		rs := old.DeepCopy()
		rs.Spec.Selector.MatchLabels["tier"] = "front"
		rs.Spec.Template.Metadata.Labels["tier"] = "front"
		assertErrors(t, validateReplicaSetUpdate(rs, old), "spec.selector: Invalid value: api.LabelSelector{MatchLabels:map[string]string{\"app\":\"web\", \"tier\":\"front\"}, MatchExpressions:[]api.LabelSelectorRequirement(nil)}: field is immutable", []cause{{invalid, "spec.selector"}})
	})
}

func TestValidateStatefulSet(t *testing.T) {
	valid := func() *api.StatefulSet {
		return &api.StatefulSet{Metadata: api.ObjectMeta{Name: "db", Namespace: "default"}, Spec: api.StatefulSetSpec{
			Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}}, Template: validTemplate(), ServiceName: "db"}}
	}
	runKindCases(t, valid, defaultStatefulSet, validateStatefulSet, []kindCase[*api.StatefulSet]{
		{name: "valid", change: func(*api.StatefulSet) {}},
		{name: "no service name is fine in 1.32", change: func(ss *api.StatefulSet) { ss.Spec.ServiceName = "" }},
		{name: "empty selector", change: func(ss *api.StatefulSet) { ss.Spec.Selector = &api.LabelSelector{} },
			want: "spec.selector: Invalid value: api.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]api.LabelSelectorRequirement(nil)}: empty selector is invalid for statefulset", causes: []cause{{invalid, "spec.selector"}}},
		{name: "bad pod management", change: func(ss *api.StatefulSet) { ss.Spec.PodManagementPolicy = "Random" },
			want: `spec.podManagementPolicy: Invalid value: "Random": must be 'OrderedReady' or 'Parallel'`, causes: []cause{{invalid, "spec.podManagementPolicy"}}},
		{name: "negative ordinal start", change: func(ss *api.StatefulSet) { ss.Spec.Ordinals = &api.StatefulSetOrdinals{Start: -1} },
			want: "spec.ordinals.start: Invalid value: -1: must be greater than or equal to 0", causes: []cause{{invalid, "spec.ordinals.start"}}},
		{name: "bad retention", change: func(ss *api.StatefulSet) {
			ss.Spec.PersistentVolumeClaimRetentionPolicy = &api.StatefulSetPersistentVolumeClaimRetentionPolicy{WhenDeleted: "Keep", WhenScaled: "Retain"}
		}, want: `spec.persistentVolumeClaimRetentionPolicy.whenDeleted: Unsupported value: "Keep": supported values: "Retain", "Delete"`,
			causes: []cause{{notSupported, "spec.persistentVolumeClaimRetentionPolicy.whenDeleted"}}},
	})
	t.Run("update: only some fields change", func(t *testing.T) {
		old := valid()
		defaultStatefulSet(old)
		ss := old.DeepCopy()
		ss.Spec.Replicas = ptr(int32(5))
		assertErrors(t, validateStatefulSetUpdate(ss, old), "", nil)
		ss.Spec.ServiceName = "other"
		assertErrors(t, validateStatefulSetUpdate(ss, old),
			"spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
			[]cause{{forbidden, "spec"}})
	})
}
