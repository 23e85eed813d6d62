// Package schema applies a CustomResourceDefinition's structural schema to a custom
// resource: pruning of the fields the schema does not name, defaulting, and value
// validation with kube-apiserver's messages and field paths. Kubernetes:
// k8s.io/apiextensions-apiserver/pkg/apiserver/schema (pruning, defaulting, the structural
// checks) and the value validation of k8s.io/kube-openapi/pkg/validation/validate as
// apiextensions-apiserver runs it.
//
// It works on decoded JSON (api.JSONObject's Go types) and a schema as written
// (*api.JSONSchemaProps), which the server's CRD validation has checked to be structural,
// compiled once (Compile) into the *Schema every walk takes.
// It imports only api, api/apierrors and the standard library, and holds no state: every
// function is safe for concurrent use and changes only the value it is given.
package schema
