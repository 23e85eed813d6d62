package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// WidgetSpec is what a Widget's owner asks for: a ConfigMap carrying its
// message, sized.
// +kubebuilder:validation:XValidation:rule="self.size != 'large' || self.replicas <= 3",message="a large widget has at most 3 replicas"
type WidgetSpec struct {
	// Size is small or large.
	// +kubebuilder:validation:Enum=small;large
	// +kubebuilder:default=small
	Size string `json:"size,omitempty"`
	// Replicas is how many copies the widget wants.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:default=1
	Replicas int32 `json:"replicas,omitempty"`
	// Message is written into the widget's ConfigMap.
	Message string `json:"message,omitempty"`
}

// WidgetStatus is what the controller last did.
type WidgetStatus struct {
	// ConfigMap names the ConfigMap the widget owns.
	ConfigMap string `json:"configMap,omitempty"`
	// ObservedGeneration is the generation the ConfigMap was last made
	// from.
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}

// Widget is the Schema for the widgets API.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Size",type=string,JSONPath=`.spec.size`
// +kubebuilder:printcolumn:name="ConfigMap",type=string,JSONPath=`.status.configMap`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   WidgetSpec   `json:"spec,omitempty"`
	Status WidgetStatus `json:"status,omitempty"`
}

// WidgetList is a list of Widgets.
// +kubebuilder:object:root=true
type WidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Widget `json:"items"`
}
