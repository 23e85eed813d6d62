// Package v1 is the example operator's API, example.miniplane.io/v1, laid
// out as kubebuilder lays out an API package: the types with their
// controller-gen markers (widget_types.go), the group's scheme builder
// (this file) and the deep copies (zz_generated.deepcopy.go, which
// `controller-gen object` writes; here it is written out by hand, as the
// tool is not run in this repository). The CRD that controller-gen's crd
// generator makes from the markers is config/crd/bases.
//
// +kubebuilder:object:generate=true
// +groupName=example.miniplane.io
package v1

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

var (
	// GroupVersion is the group and version of the API.
	GroupVersion = schema.GroupVersion{Group: "example.miniplane.io", Version: "v1"}
	// SchemeBuilder registers the API's types with a scheme. (kubebuilder
	// registers them from an init function in each types file; this
	// repository has none.)
	SchemeBuilder = (&scheme.Builder{GroupVersion: GroupVersion}).Register(&Widget{}, &WidgetList{})
	// AddToScheme adds the API's types to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)
