package api

// HorizontalPodAutoscaler scales a workload's /scale between minReplicas and
// maxReplicas by the metrics it names. It is stored in autoscaling/v2 and
// also served as autoscaling/v1 ([HorizontalPodAutoscalerV1]), converted at
// the edge. Kubernetes: autoscalingv2.HorizontalPodAutoscaler.
type HorizontalPodAutoscaler struct {
	TypeMeta `json:",inline"`
	// Metadata is the standard object metadata.
	Metadata ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is what the autoscaler should do.
	Spec HorizontalPodAutoscalerSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status is what the autoscaler last observed.
	Status HorizontalPodAutoscalerStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// GetObjectMeta returns the autoscaler's metadata.
func (h *HorizontalPodAutoscaler) GetObjectMeta() *ObjectMeta { return &h.Metadata }

// HorizontalPodAutoscalerList is a list of autoscalers.
type HorizontalPodAutoscalerList struct {
	TypeMeta `json:",inline"`
	// Metadata holds the revision the list was read at.
	Metadata ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the autoscalers.
	Items []HorizontalPodAutoscaler `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// HorizontalPodAutoscalerSpec describes the desired functionality of the
// HorizontalPodAutoscaler. Kubernetes: autoscalingv2.HorizontalPodAutoscalerSpec.
type HorizontalPodAutoscalerSpec struct {
	// ScaleTargetRef points to the target resource to scale, and is used to
	// the pods for which metrics should be collected, as well as to actually
	// change the replica count.
	ScaleTargetRef CrossVersionObjectReference `json:"scaleTargetRef" protobuf:"bytes,1,opt,name=scaleTargetRef"`
	// MinReplicas is the lower limit for the number of replicas to which the
	// autoscaler can scale down. It defaults to 1 pod.
	MinReplicas *int32 `json:"minReplicas,omitempty" protobuf:"varint,2,opt,name=minReplicas"`
	// MaxReplicas is the upper limit for the number of replicas to which the
	// autoscaler can scale up. It cannot be less that minReplicas.
	MaxReplicas int32 `json:"maxReplicas" protobuf:"varint,3,opt,name=maxReplicas"`
	// Metrics contains the specifications for which to use to calculate the
	// desired replica count; the default is 80% average CPU utilization.
	Metrics []MetricSpec `json:"metrics,omitempty" protobuf:"bytes,4,rep,name=metrics"`
	// Behavior configures the scaling behavior of the target in both Up and
	// Down directions.
	Behavior *HorizontalPodAutoscalerBehavior `json:"behavior,omitempty" protobuf:"bytes,5,opt,name=behavior"`
}

// CrossVersionObjectReference contains enough information to let you
// identify the referred resource. Kubernetes:
// autoscalingv2.CrossVersionObjectReference.
type CrossVersionObjectReference struct {
	// Kind is the kind of the referent.
	Kind string `json:"kind" protobuf:"bytes,1,opt,name=kind"`
	// Name is the name of the referent.
	Name string `json:"name" protobuf:"bytes,2,opt,name=name"`
	// APIVersion is the API version of the referent.
	APIVersion string `json:"apiVersion,omitempty" protobuf:"bytes,3,opt,name=apiVersion"`
}

// MetricSpec specifies how to scale based on a single metric: exactly one
// of its sources, the one Type names, is set.
type MetricSpec struct {
	// Type is the type of metric source: "ContainerResource", "External",
	// "Object", "Pods" or "Resource".
	Type string `json:"type" protobuf:"bytes,1,opt,name=type"`
	// Object refers to a metric describing a single kubernetes object.
	Object *ObjectMetricSource `json:"object,omitempty" protobuf:"bytes,2,opt,name=object"`
	// Pods refers to a metric describing each pod in the current scale target.
	Pods *PodsMetricSource `json:"pods,omitempty" protobuf:"bytes,3,opt,name=pods"`
	// Resource refers to a resource metric known to Kubernetes describing
	// each pod in the current scale target.
	Resource *ResourceMetricSource `json:"resource,omitempty" protobuf:"bytes,4,opt,name=resource"`
	// ContainerResource refers to a resource metric of a single container
	// in each pod of the current scale target.
	ContainerResource *ContainerResourceMetricSource `json:"containerResource,omitempty" protobuf:"bytes,7,opt,name=containerResource"`
	// External refers to a global metric that is not associated with any
	// Kubernetes object.
	External *ExternalMetricSource `json:"external,omitempty" protobuf:"bytes,5,opt,name=external"`
}

// HorizontalPodAutoscalerBehavior configures the scaling behavior of the
// target in both Up and Down directions.
type HorizontalPodAutoscalerBehavior struct {
	// ScaleUp is the scaling policy for scaling Up.
	ScaleUp *HPAScalingRules `json:"scaleUp,omitempty" protobuf:"bytes,1,opt,name=scaleUp"`
	// ScaleDown is the scaling policy for scaling Down.
	ScaleDown *HPAScalingRules `json:"scaleDown,omitempty" protobuf:"bytes,2,opt,name=scaleDown"`
}

// HPAScalingRules configures the scaling behavior for one direction.
type HPAScalingRules struct {
	// StabilizationWindowSeconds is the number of seconds for which past
	// recommendations should be considered while scaling up or down.
	StabilizationWindowSeconds *int32 `json:"stabilizationWindowSeconds,omitempty" protobuf:"varint,3,opt,name=stabilizationWindowSeconds"`
	// SelectPolicy is used to specify which policy should be used: Max, Min
	// or Disabled.
	SelectPolicy *string `json:"selectPolicy,omitempty" protobuf:"bytes,1,opt,name=selectPolicy"`
	// Policies is a list of potential scaling polices which can be used
	// during scaling.
	Policies []HPAScalingPolicy `json:"policies,omitempty" protobuf:"bytes,2,rep,name=policies"`
}

// HPAScalingPolicy is a single policy which must hold true for a specified
// past interval.
type HPAScalingPolicy struct {
	// Type is used to specify the scaling policy: Pods or Percent.
	Type string `json:"type" protobuf:"bytes,1,opt,name=type"`
	// Value contains the amount of change which is permitted by the policy.
	Value int32 `json:"value" protobuf:"varint,2,opt,name=value"`
	// PeriodSeconds specifies the window of time for which the policy
	// should hold true.
	PeriodSeconds int32 `json:"periodSeconds" protobuf:"varint,3,opt,name=periodSeconds"`
}

// ObjectMetricSource indicates how to scale on a metric describing a
// kubernetes object.
type ObjectMetricSource struct {
	// DescribedObject names the object the metric describes.
	DescribedObject CrossVersionObjectReference `json:"describedObject" protobuf:"bytes,1,opt,name=describedObject"`
	// Target specifies the target value for the given metric.
	Target MetricTarget `json:"target" protobuf:"bytes,2,opt,name=target"`
	// Metric identifies the target metric by name and selector.
	Metric MetricIdentifier `json:"metric" protobuf:"bytes,3,opt,name=metric"`
}

// PodsMetricSource indicates how to scale on a metric describing each pod
// in the current scale target.
type PodsMetricSource struct {
	// Metric identifies the target metric by name and selector.
	Metric MetricIdentifier `json:"metric" protobuf:"bytes,1,opt,name=metric"`
	// Target specifies the target value for the given metric.
	Target MetricTarget `json:"target" protobuf:"bytes,2,opt,name=target"`
}

// ResourceMetricSource indicates how to scale on a resource metric known to
// Kubernetes, as specified in requests and limits.
type ResourceMetricSource struct {
	// Name is the name of the resource in question.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// Target specifies the target value for the given metric.
	Target MetricTarget `json:"target" protobuf:"bytes,2,opt,name=target"`
}

// ContainerResourceMetricSource indicates how to scale on a resource metric
// of one container in each pod.
type ContainerResourceMetricSource struct {
	// Name is the name of the resource in question.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// Target specifies the target value for the given metric.
	Target MetricTarget `json:"target" protobuf:"bytes,2,opt,name=target"`
	// Container is the name of the container in the pods of the scaling target.
	Container string `json:"container" protobuf:"bytes,3,opt,name=container"`
}

// ExternalMetricSource indicates how to scale on a metric not associated
// with any Kubernetes object.
type ExternalMetricSource struct {
	// Metric identifies the target metric by name and selector.
	Metric MetricIdentifier `json:"metric" protobuf:"bytes,1,opt,name=metric"`
	// Target specifies the target value for the given metric.
	Target MetricTarget `json:"target" protobuf:"bytes,2,opt,name=target"`
}

// MetricIdentifier defines the name and optionally selector for a metric.
type MetricIdentifier struct {
	// Name is the name of the given metric.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// Selector is the string-encoded form of a standard kubernetes label
	// selector for the given metric.
	Selector *LabelSelector `json:"selector,omitempty" protobuf:"bytes,2,opt,name=selector"`
}

// MetricTarget defines the target value, average value, or average
// utilization of a specific metric.
type MetricTarget struct {
	// Type represents whether the metric type is Utilization, Value, or
	// AverageValue.
	Type string `json:"type" protobuf:"bytes,1,opt,name=type"`
	// Value is the target value of the metric (as a quantity).
	Value *Quantity `json:"value,omitempty" protobuf:"bytes,2,opt,name=value"`
	// AverageValue is the target value of the average of the metric across
	// all relevant pods (as a quantity).
	AverageValue *Quantity `json:"averageValue,omitempty" protobuf:"bytes,3,opt,name=averageValue"`
	// AverageUtilization is the target value of the average of the resource
	// metric across all relevant pods, represented as a percentage of the
	// requested value of the resource for the pods.
	AverageUtilization *int32 `json:"averageUtilization,omitempty" protobuf:"varint,4,opt,name=averageUtilization"`
}

// HorizontalPodAutoscalerStatus describes the current status of a
// horizontal pod autoscaler.
type HorizontalPodAutoscalerStatus struct {
	// ObservedGeneration is the most recent generation observed by this autoscaler.
	ObservedGeneration *int64 `json:"observedGeneration,omitempty" protobuf:"varint,1,opt,name=observedGeneration"`
	// LastScaleTime is the last time the HorizontalPodAutoscaler scaled the
	// number of pods, used by the autoscaler to control how often the
	// number of pods is changed.
	LastScaleTime *Time `json:"lastScaleTime,omitempty" protobuf:"bytes,2,opt,name=lastScaleTime"`
	// CurrentReplicas is current number of replicas of pods managed by this
	// autoscaler, as last seen by the autoscaler.
	CurrentReplicas int32 `json:"currentReplicas,omitempty" protobuf:"varint,3,opt,name=currentReplicas"`
	// DesiredReplicas is the desired number of replicas of pods managed by
	// this autoscaler, as last calculated by the autoscaler.
	DesiredReplicas int32 `json:"desiredReplicas" protobuf:"varint,4,opt,name=desiredReplicas"`
	// CurrentMetrics is the last read state of the metrics used by this autoscaler.
	CurrentMetrics []MetricStatus `json:"currentMetrics" protobuf:"bytes,5,rep,name=currentMetrics"`
	// Conditions is the set of conditions required for this autoscaler to
	// scale its target, and indicates whether or not those conditions are met.
	Conditions []HorizontalPodAutoscalerCondition `json:"conditions,omitempty" protobuf:"bytes,6,rep,name=conditions"`
}

// HorizontalPodAutoscalerCondition describes the state of a
// HorizontalPodAutoscaler at a certain point.
type HorizontalPodAutoscalerCondition struct {
	// Type describes the current condition: AbleToScale, ScalingActive or
	// ScalingLimited.
	Type string `json:"type" protobuf:"bytes,1,opt,name=type"`
	// Status is the status of the condition (True, False, Unknown).
	Status ConditionStatus `json:"status" protobuf:"bytes,2,opt,name=status"`
	// LastTransitionTime is the last time the condition transitioned from
	// one status to another.
	LastTransitionTime Time `json:"lastTransitionTime,omitempty" protobuf:"bytes,3,opt,name=lastTransitionTime"`
	// Reason is the reason for the condition's last transition.
	Reason string `json:"reason,omitempty" protobuf:"bytes,4,opt,name=reason"`
	// Message is a human-readable explanation containing details about the transition.
	Message string `json:"message,omitempty" protobuf:"bytes,5,opt,name=message"`
}

// MetricStatus describes the last-read state of a single metric.
type MetricStatus struct {
	// Type is the type of metric source.
	Type string `json:"type" protobuf:"bytes,1,opt,name=type"`
	// Object refers to a metric describing a single kubernetes object.
	Object *ObjectMetricStatus `json:"object,omitempty" protobuf:"bytes,2,opt,name=object"`
	// Pods refers to a metric describing each pod in the current scale target.
	Pods *PodsMetricStatus `json:"pods,omitempty" protobuf:"bytes,3,opt,name=pods"`
	// Resource refers to a resource metric known to Kubernetes.
	Resource *ResourceMetricStatus `json:"resource,omitempty" protobuf:"bytes,4,opt,name=resource"`
	// ContainerResource refers to a resource metric of a single container.
	ContainerResource *ContainerResourceMetricStatus `json:"containerResource,omitempty" protobuf:"bytes,7,opt,name=containerResource"`
	// External refers to a global metric that is not associated with any
	// Kubernetes object.
	External *ExternalMetricStatus `json:"external,omitempty" protobuf:"bytes,5,opt,name=external"`
}

// ObjectMetricStatus indicates the current value of a metric describing a
// kubernetes object.
type ObjectMetricStatus struct {
	// Metric identifies the target metric by name and selector.
	Metric MetricIdentifier `json:"metric" protobuf:"bytes,1,opt,name=metric"`
	// Current contains the current value for the given metric.
	Current MetricValueStatus `json:"current" protobuf:"bytes,2,opt,name=current"`
	// DescribedObject names the object the metric describes.
	DescribedObject CrossVersionObjectReference `json:"describedObject" protobuf:"bytes,3,opt,name=describedObject"`
}

// PodsMetricStatus indicates the current value of a metric describing each
// pod in the current scale target.
type PodsMetricStatus struct {
	// Metric identifies the target metric by name and selector.
	Metric MetricIdentifier `json:"metric" protobuf:"bytes,1,opt,name=metric"`
	// Current contains the current value for the given metric.
	Current MetricValueStatus `json:"current" protobuf:"bytes,2,opt,name=current"`
}

// ResourceMetricStatus indicates the current value of a resource metric.
type ResourceMetricStatus struct {
	// Name is the name of the resource in question.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// Current contains the current value for the given metric.
	Current MetricValueStatus `json:"current" protobuf:"bytes,2,opt,name=current"`
}

// ContainerResourceMetricStatus indicates the current value of a resource
// metric of one container.
type ContainerResourceMetricStatus struct {
	// Name is the name of the resource in question.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// Current contains the current value for the given metric.
	Current MetricValueStatus `json:"current" protobuf:"bytes,2,opt,name=current"`
	// Container is the name of the container in the pods of the scaling target.
	Container string `json:"container" protobuf:"bytes,3,opt,name=container"`
}

// ExternalMetricStatus indicates the current value of a global metric.
type ExternalMetricStatus struct {
	// Metric identifies the target metric by name and selector.
	Metric MetricIdentifier `json:"metric" protobuf:"bytes,1,opt,name=metric"`
	// Current contains the current value for the given metric.
	Current MetricValueStatus `json:"current" protobuf:"bytes,2,opt,name=current"`
}

// MetricValueStatus holds the current value for a metric.
type MetricValueStatus struct {
	// Value is the current value of the metric (as a quantity).
	Value *Quantity `json:"value,omitempty" protobuf:"bytes,1,opt,name=value"`
	// AverageValue is the current value of the average of the metric across
	// all relevant pods (as a quantity).
	AverageValue *Quantity `json:"averageValue,omitempty" protobuf:"bytes,2,opt,name=averageValue"`
	// AverageUtilization is the current value of the average of the resource
	// metric across all relevant pods, represented as a percentage of the
	// requested value of the resource for the pods.
	AverageUtilization *int32 `json:"averageUtilization,omitempty" protobuf:"varint,3,opt,name=averageUtilization"`
}

// HorizontalPodAutoscalerV1 is an autoscaler as autoscaling/v1 shows it:
// one CPU utilization target; what v1 cannot hold travels in
// autoscaling.alpha.kubernetes.io annotations (api.HPAToV1). Kubernetes:
// autoscalingv1.HorizontalPodAutoscaler.
type HorizontalPodAutoscalerV1 struct {
	TypeMeta `json:",inline"`
	// Metadata is the standard object metadata.
	Metadata ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is the behaviour of the autoscaler.
	Spec HorizontalPodAutoscalerSpecV1 `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status is the current information about the autoscaler.
	Status HorizontalPodAutoscalerStatusV1 `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// GetObjectMeta returns the autoscaler's metadata.
func (h *HorizontalPodAutoscalerV1) GetObjectMeta() *ObjectMeta { return &h.Metadata }

// HorizontalPodAutoscalerV1List is a list of autoscaling/v1 autoscalers.
type HorizontalPodAutoscalerV1List struct {
	TypeMeta `json:",inline"`
	// Metadata holds the revision the list was read at.
	Metadata ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the autoscalers.
	Items []HorizontalPodAutoscalerV1 `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// HorizontalPodAutoscalerSpecV1 is autoscaling/v1's spec. Kubernetes:
// autoscalingv1.HorizontalPodAutoscalerSpec.
type HorizontalPodAutoscalerSpecV1 struct {
	// ScaleTargetRef is the reference to the scaled resource.
	ScaleTargetRef CrossVersionObjectReference `json:"scaleTargetRef" protobuf:"bytes,1,opt,name=scaleTargetRef"`
	// MinReplicas is the lower limit for the number of replicas; it defaults to 1 pod.
	MinReplicas *int32 `json:"minReplicas,omitempty" protobuf:"varint,2,opt,name=minReplicas"`
	// MaxReplicas is the upper limit for the number of pods that can be set
	// by the autoscaler; cannot be smaller than MinReplicas.
	MaxReplicas int32 `json:"maxReplicas" protobuf:"varint,3,opt,name=maxReplicas"`
	// TargetCPUUtilizationPercentage is the target average CPU utilization
	// (represented as a percentage of requested CPU) over all the pods.
	TargetCPUUtilizationPercentage *int32 `json:"targetCPUUtilizationPercentage,omitempty" protobuf:"varint,4,opt,name=targetCPUUtilizationPercentage"`
}

// HorizontalPodAutoscalerStatusV1 is autoscaling/v1's status.
type HorizontalPodAutoscalerStatusV1 struct {
	// ObservedGeneration is the most recent generation observed by this autoscaler.
	ObservedGeneration *int64 `json:"observedGeneration,omitempty" protobuf:"varint,1,opt,name=observedGeneration"`
	// LastScaleTime is the last time the HorizontalPodAutoscaler scaled the number of pods.
	LastScaleTime *Time `json:"lastScaleTime,omitempty" protobuf:"bytes,2,opt,name=lastScaleTime"`
	// CurrentReplicas is the current number of replicas of pods managed by this autoscaler.
	CurrentReplicas int32 `json:"currentReplicas" protobuf:"varint,3,opt,name=currentReplicas"`
	// DesiredReplicas is the desired number of replicas of pods managed by this autoscaler.
	DesiredReplicas int32 `json:"desiredReplicas" protobuf:"varint,4,opt,name=desiredReplicas"`
	// CurrentCPUUtilizationPercentage is the current average CPU utilization
	// over all pods, represented as a percentage of requested CPU.
	CurrentCPUUtilizationPercentage *int32 `json:"currentCPUUtilizationPercentage,omitempty" protobuf:"varint,5,opt,name=currentCPUUtilizationPercentage"`
}
