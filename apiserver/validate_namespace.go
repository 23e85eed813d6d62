package apiserver

// Namespaces: defaulting and validation. Kubernetes: SetDefaults_Namespace in
// pkg/apis/core/v1, the namespace strategy's finalizer, and
// ValidateNamespace{,Update} in pkg/apis/core/validation.

import (
	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
)

// namespaceMeta is how namespaces' metadata is checked: namespaces are
// cluster-scoped, and their names become DNS labels.
var namespaceMeta = metaRules{namespaced: false, name: nameIsDNSLabel, kubeFinalizers: true}

// LabelMetadataName is the label every namespace carries with its own name,
// so that selectors can pick namespaces by name. Kubernetes:
// corev1.LabelMetadataName.
const LabelMetadataName = "kubernetes.io/metadata.name"

// defaultNamespace labels a namespace with its name and gives it the
// "kubernetes" finalizer when it has none, so that deleting it waits until
// its contents are gone. Only the finalize path may remove the finalizer
// later, and it must not default the namespace again.
func defaultNamespace(n *api.Namespace) {
	if name := n.Metadata.Name; name != "" && n.Metadata.Labels[LabelMetadataName] != name {
		if n.Metadata.Labels == nil {
			n.Metadata.Labels = make(map[string]string, 1)
		}
		n.Metadata.Labels[LabelMetadataName] = name
	}
	if len(n.Spec.Finalizers) == 0 {
		n.Spec.Finalizers = []string{api.FinalizerKubernetes}
	}
}

// validateNamespace checks a namespace on create.
func validateNamespace(n *api.Namespace) apierrors.FieldErrors {
	errs := validateObjectMeta(nil, &n.Metadata, namespaceMeta, metadataPath)
	p := pathAt("spec").child("finalizers")
	for _, f := range n.Spec.Finalizers {
		errs = validateQualifiedNameField(errs, f, p)
		errs = validateKubeFinalizerName(errs, f, p)
	}
	return errs
}

// validateNamespaceUpdate checks an update: a namespace keeps its identity.
func validateNamespaceUpdate(n, old *api.Namespace) apierrors.FieldErrors {
	errs := validateNamespace(n)
	return validateObjectMetaUpdate(errs, &n.Metadata, &old.Metadata, metadataPath)
}
