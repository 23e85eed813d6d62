package rootcacertpublisher

import (
	"maps"

	"github.com/miniplane/miniplane/api"
)

// Names and values, as Kubernetes' publisher writes them.
const (
	// ConfigMapName is the ConfigMap kept in every namespace.
	ConfigMapName = "kube-root-ca.crt"
	// DataKey is its key holding the CA bundle.
	DataKey = "ca.crt"
	// DescriptionAnnotation and Description say what the ConfigMap is for.
	DescriptionAnnotation = "kubernetes.io/description"
	Description           = "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. " +
		"No other usage is guaranteed across distributions of Kubernetes clusters."
)

// PlaceholderCA is the CA published when the API server has none (plain
// HTTP): a self-signed P-256 certificate, CN miniplane-placeholder-ca, valid
// for a century, whose private key was thrown away when it was made. It
// verifies nothing; it is fixed so that every run publishes the same bytes.
const PlaceholderCA = `-----BEGIN CERTIFICATE-----
MIIBmTCCAUCgAwIBAgIBATAKBggqhkjOPQQDAjAjMSEwHwYDVQQDDBhtaW5pcGxh
bmUtcGxhY2Vob2xkZXItY2EwIBcNMjYxMTI5MDMxNzA1WhgPMjEyNjExMDUwMzE3
MDVaMCMxITAfBgNVBAMMGG1pbmlwbGFuZS1wbGFjZWhvbGRlci1jYTBZMBMGByqG
SM49AgEGCCqGSM49AwEHA0IABJiJKRNiPMdXBzbKmxGPpcfHhtDaGv9ddgj9EPwq
cOoe72eadkf9MnUu6CEuI2WbfZAxQDlnwE8VZ045JzuBePOjYzBhMB0GA1UdDgQW
BBSB+nlcJuG4YNxTCg/5rj6RBZwFSDAfBgNVHSMEGDAWgBSB+nlcJuG4YNxTCg/5
rj6RBZwFSDAPBgNVHRMBAf8EBTADAQH/MA4GA1UdDwEB/wQEAwICBDAKBggqhkjO
PQQDAgNHADBEAiBJqGtz2dExsOjBpdPKIv2zYKqNUnOt/QEquH1h+AaNjAIgd7ny
WcXFVBnspYgQuz3OM6pCEGHBwlQxUsWCb1KBgXQ=
-----END CERTIFICATE-----
`

// Desired returns what to write to namespace's kube-root-ca.crt given the
// one in the cache (nil: none): a ConfigMap to create, or an updated copy
// of current, or neither when current holds exactly rootCA under DataKey
// and carries the description annotation. Kubernetes: syncNamespace.
func Desired(namespace string, current *api.ConfigMap, rootCA string) (create, update *api.ConfigMap) {
	data := map[string]string{DataKey: rootCA}
	if current == nil {
		return &api.ConfigMap{
			Metadata: api.ObjectMeta{
				Namespace: namespace, Name: ConfigMapName,
				Annotations: map[string]string{DescriptionAnnotation: Description},
			},
			Data: data,
		}, nil
	}
	if maps.Equal(current.Data, data) && current.Metadata.Annotations[DescriptionAnnotation] != "" {
		return nil, nil
	}
	cm := current.DeepCopy() // the cache's object is shared
	cm.Data = data
	if cm.Metadata.Annotations == nil {
		cm.Metadata.Annotations = map[string]string{}
	}
	cm.Metadata.Annotations[DescriptionAnnotation] = Description
	return nil, cm
}
