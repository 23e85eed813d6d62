package api

// Event reports something that happened to an object (the involved object): a pod was
// scheduled, an image pulled, a replica could not be created. Events are what `kubectl
// describe` shows at the bottom. This is the core/v1 Event, with both the older fields
// (source, firstTimestamp, lastTimestamp, count) and the newer ones (eventTime, series,
// reportingComponent). Kubernetes: corev1.Event.
type Event struct {
	TypeMeta `json:",inline"`
	// Metadata is the event's identity; by convention its name is
	// "<involved object name>.<unique suffix>".
	Metadata ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// InvolvedObject is the object the event is about.
	InvolvedObject ObjectReference `json:"involvedObject" protobuf:"bytes,2,opt,name=involvedObject"`
	// Reason is a short CamelCase reason, e.g. "SuccessfulCreate".
	Reason string `json:"reason,omitempty" protobuf:"bytes,3,opt,name=reason"`
	// Message is a human-readable description.
	Message string `json:"message,omitempty" protobuf:"bytes,4,opt,name=message"`
	// Source is the component and host that reported the event (older API).
	Source EventSource `json:"source,omitempty" protobuf:"bytes,5,opt,name=source"`
	// FirstTimestamp is when the event was first recorded (older API).
	FirstTimestamp Time `json:"firstTimestamp,omitempty" protobuf:"bytes,6,opt,name=firstTimestamp"`
	// LastTimestamp is when the event most recently occurred (older API).
	LastTimestamp Time `json:"lastTimestamp,omitempty" protobuf:"bytes,7,opt,name=lastTimestamp"`
	// Count is how many times the event occurred (older API).
	Count int32 `json:"count,omitempty" protobuf:"varint,8,opt,name=count"`
	// Type is EventTypeNormal or EventTypeWarning.
	Type string `json:"type,omitempty" protobuf:"bytes,9,opt,name=type"`
	// EventTime is when the event was first observed (newer API).
	EventTime MicroTime `json:"eventTime,omitempty" protobuf:"bytes,10,opt,name=eventTime"`
	// Series is set when the event repeats (newer API).
	Series *EventSeries `json:"series,omitempty" protobuf:"bytes,11,opt,name=series"`
	// Action is what was done, or failed, e.g. "Binding".
	Action string `json:"action,omitempty" protobuf:"bytes,12,opt,name=action"`
	// Related is a second object involved, e.g. the node a pod was bound to.
	Related *ObjectReference `json:"related,omitempty" protobuf:"bytes,13,opt,name=related"`
	// ReportingController names the component that reported the event, e.g. "kubelet".
	// Its JSON name is reportingComponent, and it is always encoded, as in Kubernetes.
	ReportingController string `json:"reportingComponent" protobuf:"bytes,14,opt,name=reportingComponent"`
	// ReportingInstance names the instance of that component, e.g. the node name. Always
	// encoded, as in Kubernetes.
	ReportingInstance string `json:"reportingInstance" protobuf:"bytes,15,opt,name=reportingInstance"`
}

// GetObjectMeta returns the event's metadata.
func (e *Event) GetObjectMeta() *ObjectMeta { return &e.Metadata }

// EventList is a list of events. Kubernetes: corev1.EventList.
type EventList struct {
	TypeMeta `json:",inline"`
	// Metadata holds the revision the list was read at.
	Metadata ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the events.
	Items []Event `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// EventSource is the component that reported an event. Kubernetes: corev1.EventSource.
type EventSource struct {
	// Component that reported the event, e.g. "kubelet".
	Component string `json:"component,omitempty" protobuf:"bytes,1,opt,name=component"`
	// Host the component runs on.
	Host string `json:"host,omitempty" protobuf:"bytes,2,opt,name=host"`
}

// EventSeries summarizes a repeating event. Kubernetes: corev1.EventSeries. (Upstream's Go
// tags here lack the "opt" label; generated.proto has both fields optional.)
type EventSeries struct {
	// Count of occurrences so far.
	Count int32 `json:"count,omitempty" protobuf:"varint,1,opt,name=count"`
	// LastObservedTime is when the last occurrence was seen.
	LastObservedTime MicroTime `json:"lastObservedTime,omitempty" protobuf:"bytes,2,opt,name=lastObservedTime"`
}

// Event types, the values of Event.Type.
const (
	// EventTypeNormal reports something expected.
	EventTypeNormal = "Normal"
	// EventTypeWarning reports something that may need attention.
	EventTypeWarning = "Warning"
)
