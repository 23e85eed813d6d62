package api

// EventsV1Event is an Event as the events.k8s.io/v1 API shows it. It is not a second kind of
// object: kube-apiserver stores one Event and serves it both as core/v1 Event and as this,
// converting at the edge ([EventToEventsV1], [EventsV1ToEvent]), so a write through either
// API is read through both. The newer API renames the older fields (involvedObject is
// regarding, message is note) and marks those it keeps only for the older clients as
// deprecated (deprecatedSource, deprecatedCount, ...); client-go's tools/events and
// controller-runtime record events through it. Kubernetes: eventsv1.Event (apiVersion
// events.k8s.io/v1).
//
// The protobuf tags are k8s.io/api's; action and reason carry "opt", as generated.proto
// declares them optional, where the upstream Go tags leave it out.
type EventsV1Event struct {
	TypeMeta `json:",inline"`
	// Metadata is the event's identity: the same as the core/v1 Event's.
	Metadata ObjectMeta `json:"metadata" protobuf:"bytes,1,opt,name=metadata"`
	// EventTime is when the event was first observed; required on a create through this API.
	EventTime MicroTime `json:"eventTime" protobuf:"bytes,2,opt,name=eventTime"`
	// Series is set when the event repeats: how often and when last.
	Series *EventsV1EventSeries `json:"series,omitempty" protobuf:"bytes,3,opt,name=series"`
	// ReportingController names the component that reported the event, e.g.
	// "kubernetes.io/kubelet"; core/v1 calls it reportingComponent.
	ReportingController string `json:"reportingController,omitempty" protobuf:"bytes,4,opt,name=reportingController"`
	// ReportingInstance names the instance of that component, e.g. "kubelet-node-1".
	ReportingInstance string `json:"reportingInstance,omitempty" protobuf:"bytes,5,opt,name=reportingInstance"`
	// Action is what was done, or failed, about the regarding object, e.g. "Binding".
	Action string `json:"action,omitempty" protobuf:"bytes,6,opt,name=action"`
	// Reason is why the action was taken, e.g. "Scheduled".
	Reason string `json:"reason,omitempty" protobuf:"bytes,7,opt,name=reason"`
	// Regarding is the object the event is about; core/v1 calls it involvedObject.
	Regarding ObjectReference `json:"regarding,omitempty" protobuf:"bytes,8,opt,name=regarding"`
	// Related is a second object involved, e.g. the node a pod was bound to.
	Related *ObjectReference `json:"related,omitempty" protobuf:"bytes,9,opt,name=related"`
	// Note is a human-readable description; core/v1 calls it message.
	Note string `json:"note,omitempty" protobuf:"bytes,10,opt,name=note"`
	// Type is EventTypeNormal or EventTypeWarning.
	Type string `json:"type,omitempty" protobuf:"bytes,11,opt,name=type"`
	// DeprecatedSource is core/v1's source, kept for the older clients.
	DeprecatedSource EventSource `json:"deprecatedSource,omitempty" protobuf:"bytes,12,opt,name=deprecatedSource"`
	// DeprecatedFirstTimestamp is core/v1's firstTimestamp.
	DeprecatedFirstTimestamp Time `json:"deprecatedFirstTimestamp,omitempty" protobuf:"bytes,13,opt,name=deprecatedFirstTimestamp"`
	// DeprecatedLastTimestamp is core/v1's lastTimestamp.
	DeprecatedLastTimestamp Time `json:"deprecatedLastTimestamp,omitempty" protobuf:"bytes,14,opt,name=deprecatedLastTimestamp"`
	// DeprecatedCount is core/v1's count.
	DeprecatedCount int32 `json:"deprecatedCount,omitempty" protobuf:"varint,15,opt,name=deprecatedCount"`
}

// GetObjectMeta returns the event's metadata.
func (e *EventsV1Event) GetObjectMeta() *ObjectMeta { return &e.Metadata }

// EventsV1EventList is a list of events.k8s.io/v1 events. Kubernetes: eventsv1.EventList.
type EventsV1EventList struct {
	TypeMeta `json:",inline"`
	// Metadata holds the revision the list was read at.
	Metadata ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the events.
	Items []EventsV1Event `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// EventsV1EventSeries summarizes a repeating event. Unlike core/v1's [EventSeries], both
// fields are always encoded. Kubernetes: eventsv1.EventSeries.
type EventsV1EventSeries struct {
	// Count of occurrences so far; at least 2 once there is a series.
	Count int32 `json:"count" protobuf:"varint,1,opt,name=count"`
	// LastObservedTime is when the last occurrence was seen.
	LastObservedTime MicroTime `json:"lastObservedTime" protobuf:"bytes,2,opt,name=lastObservedTime"`
}
