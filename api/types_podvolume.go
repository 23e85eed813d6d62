package api

// This file holds what a pod hands its containers besides their command:
// environment variables computed from other objects (valueFrom, envFrom)
// and volumes of ConfigMaps, Secrets, the downward API and projections,
// mounted into the containers. The simulated kubelet shows them to a
// container's `env`, `cat` and `ls` (controllers/nodesim/container).

// EnvVarSource says where an environment variable's value comes from; exactly one field is
// set. Kubernetes: corev1.EnvVarSource.
type EnvVarSource struct {
	// FieldRef selects a field of the pod: metadata.name, metadata.namespace, metadata.uid,
	// metadata.labels['<KEY>'], metadata.annotations['<KEY>'], spec.nodeName,
	// spec.serviceAccountName, status.hostIP(s), status.podIP(s).
	FieldRef *ObjectFieldSelector `json:"fieldRef,omitempty" protobuf:"bytes,1,opt,name=fieldRef"`
	// ResourceFieldRef selects a limit or request of a container: limits.cpu,
	// limits.memory, limits.ephemeral-storage, requests.cpu, requests.memory,
	// requests.ephemeral-storage.
	ResourceFieldRef *ResourceFieldSelector `json:"resourceFieldRef,omitempty" protobuf:"bytes,2,opt,name=resourceFieldRef"`
	// ConfigMapKeyRef selects a key of a ConfigMap in the pod's namespace.
	ConfigMapKeyRef *ConfigMapKeySelector `json:"configMapKeyRef,omitempty" protobuf:"bytes,3,opt,name=configMapKeyRef"`
	// SecretKeyRef selects a key of a Secret in the pod's namespace.
	SecretKeyRef *SecretKeySelector `json:"secretKeyRef,omitempty" protobuf:"bytes,4,opt,name=secretKeyRef"`
}

// ObjectFieldSelector selects a field of the pod. Kubernetes: corev1.ObjectFieldSelector.
type ObjectFieldSelector struct {
	// APIVersion is the version FieldPath is written in; default "v1".
	APIVersion string `json:"apiVersion,omitempty" protobuf:"bytes,1,opt,name=apiVersion"`
	// FieldPath is the path of the field.
	FieldPath string `json:"fieldPath" protobuf:"bytes,2,opt,name=fieldPath"`
}

// ResourceFieldSelector selects a container's limit or request, in units of Divisor.
// Kubernetes: corev1.ResourceFieldSelector.
type ResourceFieldSelector struct {
	// ContainerName is the container whose resources are read; required in volumes,
	// default the container itself in env.
	ContainerName string `json:"containerName,omitempty" protobuf:"bytes,1,opt,name=containerName"`
	// Resource is limits.cpu, requests.memory and the like.
	Resource string `json:"resource" protobuf:"bytes,2,opt,name=resource"`
	// Divisor is the unit the value is given in; default "1".
	Divisor Quantity `json:"divisor,omitempty" protobuf:"bytes,3,opt,name=divisor"`
}

// ConfigMapKeySelector selects a key of a ConfigMap. Kubernetes: corev1.ConfigMapKeySelector.
type ConfigMapKeySelector struct {
	// LocalObjectReference names the ConfigMap.
	LocalObjectReference `json:",inline" protobuf:"bytes,1,opt,name=localObjectReference"`
	// Key is the key to read.
	Key string `json:"key" protobuf:"bytes,2,opt,name=key"`
	// Optional says the ConfigMap or its key may be missing: the variable is then unset.
	Optional *bool `json:"optional,omitempty" protobuf:"varint,3,opt,name=optional"`
}

// SecretKeySelector selects a key of a Secret. Kubernetes: corev1.SecretKeySelector.
type SecretKeySelector struct {
	// LocalObjectReference names the Secret.
	LocalObjectReference `json:",inline" protobuf:"bytes,1,opt,name=localObjectReference"`
	// Key is the key to read.
	Key string `json:"key" protobuf:"bytes,2,opt,name=key"`
	// Optional says the Secret or its key may be missing: the variable is then unset.
	Optional *bool `json:"optional,omitempty" protobuf:"varint,3,opt,name=optional"`
}

// EnvFromSource sets a variable for each key of a ConfigMap or a Secret; exactly one of
// ConfigMapRef and SecretRef is set. Kubernetes: corev1.EnvFromSource.
type EnvFromSource struct {
	// Prefix is prepended to each key.
	Prefix string `json:"prefix,omitempty" protobuf:"bytes,1,opt,name=prefix"`
	// ConfigMapRef names the ConfigMap.
	ConfigMapRef *ConfigMapEnvSource `json:"configMapRef,omitempty" protobuf:"bytes,2,opt,name=configMapRef"`
	// SecretRef names the Secret.
	SecretRef *SecretEnvSource `json:"secretRef,omitempty" protobuf:"bytes,3,opt,name=secretRef"`
}

// ConfigMapEnvSource names a ConfigMap whose keys become variables. Kubernetes:
// corev1.ConfigMapEnvSource.
type ConfigMapEnvSource struct {
	// LocalObjectReference names the ConfigMap.
	LocalObjectReference `json:",inline" protobuf:"bytes,1,opt,name=localObjectReference"`
	// Optional says the ConfigMap may be missing.
	Optional *bool `json:"optional,omitempty" protobuf:"varint,2,opt,name=optional"`
}

// SecretEnvSource names a Secret whose keys become variables. Kubernetes:
// corev1.SecretEnvSource.
type SecretEnvSource struct {
	// LocalObjectReference names the Secret.
	LocalObjectReference `json:",inline" protobuf:"bytes,1,opt,name=localObjectReference"`
	// Optional says the Secret may be missing.
	Optional *bool `json:"optional,omitempty" protobuf:"varint,2,opt,name=optional"`
}

// VolumeMount mounts a volume of the pod into a container. Kubernetes: corev1.VolumeMount.
type VolumeMount struct {
	// Name is the volume's name.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// ReadOnly mounts the volume read-only.
	ReadOnly bool `json:"readOnly,omitempty" protobuf:"varint,2,opt,name=readOnly"`
	// MountPath is where, in the container, the volume appears; it may not contain ':'.
	MountPath string `json:"mountPath" protobuf:"bytes,3,opt,name=mountPath"`
	// SubPath, if set, mounts that path inside the volume instead of its root.
	SubPath string `json:"subPath,omitempty" protobuf:"bytes,4,opt,name=subPath"`
	// SubPathExpr is SubPath with $(VAR) references to the container's environment, which
	// the kubelet expands when it starts the container; it excludes SubPath.
	SubPathExpr string `json:"subPathExpr,omitempty" protobuf:"bytes,6,opt,name=subPathExpr"`
}

// Volume is a named volume of a pod, which its containers mount. Kubernetes: corev1.Volume
// (of the volume sources, the ones whose contents come from the API: configMap, secret,
// downwardAPI, projected, and emptyDir).
type Volume struct {
	// Name is unique in the pod; a VolumeMount refers to it.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// VolumeSource is where the volume's contents come from; exactly one field is set
	// (an emptyDir when none is).
	VolumeSource `json:",inline" protobuf:"bytes,2,opt,name=volumeSource"`
}

// VolumeSource is where a volume's contents come from. Kubernetes: corev1.VolumeSource.
type VolumeSource struct {
	// HostPath is a directory (or file) of the node the pod runs on, shared by every pod
	// there that mounts it.
	HostPath *HostPathVolumeSource `json:"hostPath,omitempty" protobuf:"bytes,1,opt,name=hostPath"`
	// EmptyDir is a directory that starts empty and lives as long as the pod.
	EmptyDir *EmptyDirVolumeSource `json:"emptyDir,omitempty" protobuf:"bytes,2,opt,name=emptyDir"`
	// Secret fills the volume with a Secret's keys.
	Secret *SecretVolumeSource `json:"secret,omitempty" protobuf:"bytes,6,opt,name=secret"`
	// DownwardAPI fills the volume with fields of the pod.
	DownwardAPI *DownwardAPIVolumeSource `json:"downwardAPI,omitempty" protobuf:"bytes,16,opt,name=downwardAPI"`
	// ConfigMap fills the volume with a ConfigMap's keys.
	ConfigMap *ConfigMapVolumeSource `json:"configMap,omitempty" protobuf:"bytes,19,opt,name=configMap"`
	// Projected fills the volume from several sources.
	Projected *ProjectedVolumeSource `json:"projected,omitempty" protobuf:"bytes,26,opt,name=projected"`
	// PersistentVolumeClaim mounts the volume bound to a claim of the pod's namespace
	// (simulated nodes mount an empty directory).
	PersistentVolumeClaim *PersistentVolumeClaimVolumeSource `json:"persistentVolumeClaim,omitempty" protobuf:"bytes,10,opt,name=persistentVolumeClaim"`
}

// PersistentVolumeClaimVolumeSource names a claim whose volume a pod mounts. Kubernetes:
// corev1.PersistentVolumeClaimVolumeSource.
type PersistentVolumeClaimVolumeSource struct {
	// ClaimName is the claim's name, in the pod's namespace.
	ClaimName string `json:"claimName" protobuf:"bytes,1,opt,name=claimName"`
	// ReadOnly mounts the volume read-only.
	ReadOnly bool `json:"readOnly,omitempty" protobuf:"varint,2,opt,name=readOnly"`
}

// EmptyDirVolumeSource is an empty directory. Kubernetes: corev1.EmptyDirVolumeSource.
type EmptyDirVolumeSource struct {
	// Medium is "" (the node's disk) or "Memory" (a tmpfs).
	Medium string `json:"medium,omitempty" protobuf:"bytes,1,opt,name=medium"`
	// SizeLimit caps the directory's size.
	SizeLimit *Quantity `json:"sizeLimit,omitempty" protobuf:"bytes,2,opt,name=sizeLimit"`
}

// KeyToPath puts one key of a ConfigMap or Secret at a path of the volume. Kubernetes:
// corev1.KeyToPath.
type KeyToPath struct {
	// Key is the key to project.
	Key string `json:"key" protobuf:"bytes,1,opt,name=key"`
	// Path is the file's path relative to the volume; no "..", not absolute.
	Path string `json:"path" protobuf:"bytes,2,opt,name=path"`
	// Mode is the file's permission bits (0 to 0777); default the volume's DefaultMode.
	Mode *int32 `json:"mode,omitempty" protobuf:"varint,3,opt,name=mode"`
}

// SecretVolumeSource fills a volume with a Secret's keys, one file each (or Items).
// Kubernetes: corev1.SecretVolumeSource.
type SecretVolumeSource struct {
	// SecretName names the Secret in the pod's namespace.
	SecretName string `json:"secretName,omitempty" protobuf:"bytes,1,opt,name=secretName"`
	// Items, if set, are the only keys projected, at their paths.
	Items []KeyToPath `json:"items,omitempty" protobuf:"bytes,2,rep,name=items"`
	// DefaultMode is the files' permission bits; default 0644.
	DefaultMode *int32 `json:"defaultMode,omitempty" protobuf:"varint,3,opt,name=defaultMode"`
	// Optional says the Secret or its keys may be missing.
	Optional *bool `json:"optional,omitempty" protobuf:"varint,4,opt,name=optional"`
}

// ConfigMapVolumeSource fills a volume with a ConfigMap's keys, one file each (or Items).
// Kubernetes: corev1.ConfigMapVolumeSource.
type ConfigMapVolumeSource struct {
	// LocalObjectReference names the ConfigMap.
	LocalObjectReference `json:",inline" protobuf:"bytes,1,opt,name=localObjectReference"`
	// Items, if set, are the only keys projected, at their paths.
	Items []KeyToPath `json:"items,omitempty" protobuf:"bytes,2,rep,name=items"`
	// DefaultMode is the files' permission bits; default 0644.
	DefaultMode *int32 `json:"defaultMode,omitempty" protobuf:"varint,3,opt,name=defaultMode"`
	// Optional says the ConfigMap or its keys may be missing.
	Optional *bool `json:"optional,omitempty" protobuf:"varint,4,opt,name=optional"`
}

// DownwardAPIVolumeSource fills a volume with fields of the pod. Kubernetes:
// corev1.DownwardAPIVolumeSource.
type DownwardAPIVolumeSource struct {
	// Items are the files.
	Items []DownwardAPIVolumeFile `json:"items,omitempty" protobuf:"bytes,1,rep,name=items"`
	// DefaultMode is the files' permission bits; default 0644.
	DefaultMode *int32 `json:"defaultMode,omitempty" protobuf:"varint,2,opt,name=defaultMode"`
}

// DownwardAPIVolumeFile is one file of a downward API volume: a field of the pod or a
// container's resource. Kubernetes: corev1.DownwardAPIVolumeFile.
type DownwardAPIVolumeFile struct {
	// Path is the file's path relative to the volume.
	Path string `json:"path" protobuf:"bytes,1,opt,name=path"`
	// FieldRef selects a field of the pod (metadata.labels and metadata.annotations
	// whole, too).
	FieldRef *ObjectFieldSelector `json:"fieldRef,omitempty" protobuf:"bytes,2,opt,name=fieldRef"`
	// ResourceFieldRef selects a container's limit or request.
	ResourceFieldRef *ResourceFieldSelector `json:"resourceFieldRef,omitempty" protobuf:"bytes,3,opt,name=resourceFieldRef"`
	// Mode is the file's permission bits; default the volume's DefaultMode.
	Mode *int32 `json:"mode,omitempty" protobuf:"varint,4,opt,name=mode"`
}

// ProjectedVolumeSource fills one volume from several sources. Kubernetes:
// corev1.ProjectedVolumeSource.
type ProjectedVolumeSource struct {
	// Sources are projected in order.
	Sources []VolumeProjection `json:"sources" protobuf:"bytes,1,rep,name=sources"`
	// DefaultMode is the files' permission bits; default 0644.
	DefaultMode *int32 `json:"defaultMode,omitempty" protobuf:"varint,2,opt,name=defaultMode"`
}

// VolumeProjection is one source of a projected volume; exactly one field is set.
// Kubernetes: corev1.VolumeProjection.
type VolumeProjection struct {
	// Secret projects a Secret's keys.
	Secret *SecretProjection `json:"secret,omitempty" protobuf:"bytes,1,opt,name=secret"`
	// DownwardAPI projects fields of the pod.
	DownwardAPI *DownwardAPIProjection `json:"downwardAPI,omitempty" protobuf:"bytes,2,opt,name=downwardAPI"`
	// ConfigMap projects a ConfigMap's keys.
	ConfigMap *ConfigMapProjection `json:"configMap,omitempty" protobuf:"bytes,3,opt,name=configMap"`
	// ServiceAccountToken projects a token of the pod's service account.
	ServiceAccountToken *ServiceAccountTokenProjection `json:"serviceAccountToken,omitempty" protobuf:"bytes,4,opt,name=serviceAccountToken"`
}

// SecretProjection projects a Secret's keys. Kubernetes: corev1.SecretProjection.
type SecretProjection struct {
	// LocalObjectReference names the Secret.
	LocalObjectReference `json:",inline" protobuf:"bytes,1,opt,name=localObjectReference"`
	// Items, if set, are the only keys projected, at their paths.
	Items []KeyToPath `json:"items,omitempty" protobuf:"bytes,2,rep,name=items"`
	// Optional says the Secret or its keys may be missing.
	Optional *bool `json:"optional,omitempty" protobuf:"varint,4,opt,name=optional"`
}

// ConfigMapProjection projects a ConfigMap's keys. Kubernetes: corev1.ConfigMapProjection.
type ConfigMapProjection struct {
	// LocalObjectReference names the ConfigMap.
	LocalObjectReference `json:",inline" protobuf:"bytes,1,opt,name=localObjectReference"`
	// Items, if set, are the only keys projected, at their paths.
	Items []KeyToPath `json:"items,omitempty" protobuf:"bytes,2,rep,name=items"`
	// Optional says the ConfigMap or its keys may be missing.
	Optional *bool `json:"optional,omitempty" protobuf:"varint,4,opt,name=optional"`
}

// DownwardAPIProjection projects fields of the pod. Kubernetes: corev1.DownwardAPIProjection.
type DownwardAPIProjection struct {
	// Items are the files.
	Items []DownwardAPIVolumeFile `json:"items,omitempty" protobuf:"bytes,1,rep,name=items"`
}

// ServiceAccountTokenProjection projects a token of the pod's service account.
// Kubernetes: corev1.ServiceAccountTokenProjection.
type ServiceAccountTokenProjection struct {
	// Audience is who the token is for; default the API server's.
	Audience string `json:"audience,omitempty" protobuf:"bytes,1,opt,name=audience"`
	// ExpirationSeconds is how long the token lives; default 3600.
	ExpirationSeconds *int64 `json:"expirationSeconds,omitempty" protobuf:"varint,2,opt,name=expirationSeconds"`
	// Path is the token file's path relative to the volume.
	Path string `json:"path" protobuf:"bytes,3,opt,name=path"`
}
