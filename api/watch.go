package api

import "encoding/json"

// WatchEvent is one change on a watch stream, as the apiserver writes it: one JSON object
// per change, {"type":"ADDED","object":{...}}. Object is kept as raw JSON because its kind
// depends on the resource watched; for ERROR events it is a [Status]. Kubernetes:
// metav1.WatchEvent.
type WatchEvent struct {
	// Type is one of the watch event types (WatchAdded, ...).
	Type string `json:"type" protobuf:"bytes,1,opt,name=type"`
	// Object is the object after the change (for DELETED, its last state), a bookmark
	// carrying only a resourceVersion, or a Status for ERROR.
	Object json.RawMessage `json:"object" protobuf:"bytes,2,opt,name=object"`
}

// Watch event types, the values of WatchEvent.Type. Kubernetes: watch.EventType.
const (
	// WatchAdded: the object was created, or is listed at the start of the watch.
	WatchAdded = "ADDED"
	// WatchModified: the object was updated.
	WatchModified = "MODIFIED"
	// WatchDeleted: the object was deleted.
	WatchDeleted = "DELETED"
	// WatchBookmark: no change; the watch has seen everything up to the object's
	// resourceVersion.
	WatchBookmark = "BOOKMARK"
	// WatchError: the watch failed and ends; Object is a Status saying why.
	WatchError = "ERROR"
)
