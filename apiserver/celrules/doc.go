// Package celrules compiles and evaluates the CEL validation rules of a
// CustomResourceDefinition's structural schema (x-kubernetes-validations),
// with github.com/google/cel-go, the evaluator Kubernetes uses. Kubernetes:
// k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel (compilation.go,
// validation.go), the schema-to-type mapping and values of
// k8s.io/apiserver/pkg/cel/common, and the library of k8s.io/apiserver/pkg/cel.
//
// Compile turns a schema into a Validator once per served definition, refusing
// with kube-apiserver's messages a rule that does not compile, names a field
// the schema does not have, or is over the estimated cost budget. A
// Validator's Validate evaluates every rule against a custom resource (and,
// on update, its old value for transition rules) within the runtime cost
// budget, and returns kube-apiserver's field errors.
//
// self is typed from the schema: an object with properties is a CEL object
// type with one field per property (names escaped as Kubernetes escapes them),
// additionalProperties a map, an array a list, int-or-string and untyped
// preserved values dyn, strings of format date-time/date, duration and byte a
// timestamp, duration and bytes. Values are wrapped lazily: a rule reads only
// the fields it names.
//
// It imports cel-go, api, api/apierrors, api/quota (quantities) and the
// standard library. A
// Compiler is safe for concurrent use (its CEL environment is built once,
// its recent results kept under a mutex); a Validator is immutable.
package celrules
