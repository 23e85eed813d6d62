// Package smpdiff checks miniplane's strategic merge patch against apimachinery's:
// its test feeds the same original and patch to apiserver/patch.Apply and to
// k8s.io/apimachinery/pkg/util/strategicpatch.StrategicMergePatch (with the k8s.io/api
// struct of the kind as patch metadata) and requires the same object, element order
// included. It holds no code outside its test.
package smpdiff
