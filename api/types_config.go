package api

// ConfigMap holds configuration that pods read as environment variables or files: string
// values in Data and binary ones in BinaryData, under keys unique across both. Immutable set
// to true forbids any later change of Data, BinaryData or Immutable itself. Kubernetes:
// corev1.ConfigMap.
type ConfigMap struct {
	TypeMeta `json:",inline"`
	// Metadata is the config map's identity.
	Metadata ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Immutable, when true, freezes Data and BinaryData.
	Immutable *bool `json:"immutable,omitempty" protobuf:"varint,4,opt,name=immutable"`
	// Data holds UTF-8 values by key.
	Data map[string]string `json:"data,omitempty" protobuf:"bytes,2,rep,name=data" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"bytes,2,opt,name=value"`
	// BinaryData holds arbitrary bytes by key (base64 in JSON).
	BinaryData map[string][]byte `json:"binaryData,omitempty" protobuf:"bytes,3,rep,name=binaryData" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"bytes,2,opt,name=value"`
}

// GetObjectMeta returns the config map's metadata.
func (c *ConfigMap) GetObjectMeta() *ObjectMeta { return &c.Metadata }

// ConfigMapList is a list of config maps. Kubernetes: corev1.ConfigMapList.
type ConfigMapList struct {
	TypeMeta `json:",inline"`
	// Metadata holds the revision the list was read at.
	Metadata ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the config maps.
	Items []ConfigMap `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// SecretType tells what a Secret holds, and so which keys it must have.
// Kubernetes: corev1.SecretType.
type SecretType string

// The secret types Kubernetes defines, with the keys their validation requires.
const (
	// SecretTypeOpaque is the default: any keys.
	SecretTypeOpaque SecretType = "Opaque"
	// SecretTypeServiceAccountToken holds a service account's token; it needs the
	// annotation ServiceAccountNameKey.
	SecretTypeServiceAccountToken SecretType = "kubernetes.io/service-account-token"
	// SecretTypeDockercfg holds a legacy ~/.dockercfg under DockerConfigKey.
	SecretTypeDockercfg SecretType = "kubernetes.io/dockercfg"
	// SecretTypeDockerConfigJSON holds a ~/.docker/config.json under DockerConfigJSONKey.
	SecretTypeDockerConfigJSON SecretType = "kubernetes.io/dockerconfigjson"
	// SecretTypeBasicAuth holds BasicAuthUsernameKey or BasicAuthPasswordKey.
	SecretTypeBasicAuth SecretType = "kubernetes.io/basic-auth"
	// SecretTypeSSHAuth holds SSHAuthPrivateKey.
	SecretTypeSSHAuth SecretType = "kubernetes.io/ssh-auth"
	// SecretTypeTLS holds TLSCertKey and TLSPrivateKeyKey.
	SecretTypeTLS SecretType = "kubernetes.io/tls"
	// SecretTypeBootstrapToken holds a bootstrap token.
	SecretTypeBootstrapToken SecretType = "bootstrap.kubernetes.io/token"
)

// Keys and annotations the typed secrets use, as in Kubernetes.
const (
	// ServiceAccountNameKey is the annotation a service-account-token secret must have:
	// the name of its service account.
	ServiceAccountNameKey = "kubernetes.io/service-account.name"
	// ServiceAccountUIDKey is the annotation with the uid of a token's service account.
	ServiceAccountUIDKey = "kubernetes.io/service-account.uid"
	// DockerConfigKey is the key of a dockercfg secret.
	DockerConfigKey = ".dockercfg"
	// DockerConfigJSONKey is the key of a dockerconfigjson secret.
	DockerConfigJSONKey = ".dockerconfigjson"
	// BasicAuthUsernameKey is the user name of a basic-auth secret.
	BasicAuthUsernameKey = "username"
	// BasicAuthPasswordKey is the password of a basic-auth secret.
	BasicAuthPasswordKey = "password"
	// SSHAuthPrivateKey is the private key of an ssh-auth secret.
	SSHAuthPrivateKey = "ssh-privatekey"
	// TLSCertKey is the certificate of a tls secret.
	TLSCertKey = "tls.crt"
	// TLSPrivateKeyKey is the private key of a tls secret.
	TLSPrivateKeyKey = "tls.key"
)

// Secret holds sensitive values by key. Data's values are bytes (base64 in JSON);
// StringData is write-only: the server folds it into Data on every write and never stores
// or returns it. Kubernetes: corev1.Secret.
type Secret struct {
	TypeMeta `json:",inline"`
	// Metadata is the secret's identity.
	Metadata ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Immutable, when true, freezes Data.
	Immutable *bool `json:"immutable,omitempty" protobuf:"varint,5,opt,name=immutable"`
	// Data holds the values by key.
	Data map[string][]byte `json:"data,omitempty" protobuf:"bytes,2,rep,name=data" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"bytes,2,opt,name=value"`
	// StringData is a write-only convenience: its values replace Data's of the same key.
	StringData map[string]string `json:"stringData,omitempty" protobuf:"bytes,4,rep,name=stringData" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"bytes,2,opt,name=value"`
	// Type is what the secret holds; Opaque when empty on create.
	Type SecretType `json:"type,omitempty" protobuf:"bytes,3,opt,name=type"`
}

// GetObjectMeta returns the secret's metadata.
func (s *Secret) GetObjectMeta() *ObjectMeta { return &s.Metadata }

// SecretList is a list of secrets. Kubernetes: corev1.SecretList.
type SecretList struct {
	TypeMeta `json:",inline"`
	// Metadata holds the revision the list was read at.
	Metadata ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the secrets.
	Items []Secret `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// ServiceAccount is an identity for the processes of pods. Kubernetes:
// corev1.ServiceAccount.
type ServiceAccount struct {
	TypeMeta `json:",inline"`
	// Metadata is the service account's identity.
	Metadata ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Secrets are secrets of the account's namespace that pods running as it may use
	// (legacy token secrets).
	Secrets []ObjectReference `json:"secrets,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,2,rep,name=secrets"`
	// ImagePullSecrets name secrets of the namespace used to pull the images of pods
	// that run as the account.
	ImagePullSecrets []LocalObjectReference `json:"imagePullSecrets,omitempty" protobuf:"bytes,3,rep,name=imagePullSecrets"`
	// AutomountServiceAccountToken says whether pods running as the account get an API
	// token mounted; a pod's own setting wins.
	AutomountServiceAccountToken *bool `json:"automountServiceAccountToken,omitempty" protobuf:"varint,4,opt,name=automountServiceAccountToken"`
}

// GetObjectMeta returns the service account's metadata.
func (s *ServiceAccount) GetObjectMeta() *ObjectMeta { return &s.Metadata }

// ServiceAccountList is a list of service accounts. Kubernetes: corev1.ServiceAccountList.
type ServiceAccountList struct {
	TypeMeta `json:",inline"`
	// Metadata holds the revision the list was read at.
	Metadata ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the service accounts.
	Items []ServiceAccount `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// LocalObjectReference names an object in the referrer's namespace.
// Kubernetes: corev1.LocalObjectReference.
type LocalObjectReference struct {
	// Name of the referent.
	Name string `json:"name,omitempty" protobuf:"bytes,1,opt,name=name"`
}
