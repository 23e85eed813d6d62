package apiserver

import (
	"github.com/miniplane/miniplane/api"
)

// runtimeClassKind is node.k8s.io/v1 RuntimeClass, cluster-scoped: stored,
// validated, and read by the RuntimeClass admission step
// (admission_runtimeclass.go) at every pod create that names one. No
// container runtime reads its handler: nothing runs here.
func runtimeClassKind() *kind {
	return typed(&kind{
		gr: runtimeClassResource, kind: "RuntimeClass", apiVersion: "node.k8s.io/v1", singular: "runtimeclass",
		newObj: func() api.Object { return &api.RuntimeClass{} },
		columns: []Column{nameColumn,
			{Name: "Handler", Type: "string", Description: "handler specifies the underlying runtime and configuration that the CRI implementation will use to handle pods of this class.",
				Cell: func(o api.Object) any { return o.(*api.RuntimeClass).Handler }},
			ageColumn},
	}, defaultRuntimeClass, validateRuntimeClass, validateRuntimeClassUpdate)
}
