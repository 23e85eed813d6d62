package api

// Status is the body of every API error (and of a few successful responses, such as some
// deletions): what failed, why in one machine-readable word (Reason), the HTTP code, and
// details such as the invalid fields. Kubernetes: metav1.Status.
type Status struct {
	TypeMeta `json:",inline"`
	// Metadata is always empty in practice, and always encoded ({}), as in Kubernetes.
	Metadata ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Status is StatusSuccess or StatusFailure.
	Status string `json:"status,omitempty" protobuf:"bytes,2,opt,name=status"`
	// Message is a human-readable description of the error.
	Message string `json:"message,omitempty" protobuf:"bytes,3,opt,name=message"`
	// Reason says why the operation failed, in one word clients can switch on. Empty means
	// unknown.
	Reason StatusReason `json:"reason,omitempty" protobuf:"bytes,4,opt,name=reason"`
	// Details identify the object and, for Invalid, the failing fields.
	Details *StatusDetails `json:"details,omitempty" protobuf:"bytes,5,opt,name=details"`
	// Code is the HTTP status code.
	Code int32 `json:"code,omitempty" protobuf:"varint,6,opt,name=code"`
}

// Values of Status.Status.
const (
	// StatusSuccess: the operation succeeded.
	StatusSuccess = "Success"
	// StatusFailure: the operation failed; Reason and Code say how.
	StatusFailure = "Failure"
)

// StatusDetails identify the object an error is about and carry its causes. Kubernetes:
// metav1.StatusDetails.
type StatusDetails struct {
	// Name of the object.
	Name string `json:"name,omitempty" protobuf:"bytes,1,opt,name=name"`
	// Group of the object's kind.
	Group string `json:"group,omitempty" protobuf:"bytes,2,opt,name=group"`
	// Kind of the object; the apiserver fills in the resource name, e.g. "pods".
	Kind string `json:"kind,omitempty" protobuf:"bytes,3,opt,name=kind"`
	// UID of the object.
	UID UID `json:"uid,omitempty" protobuf:"bytes,6,opt,name=uid"`
	// Causes list the individual problems, e.g. each invalid field.
	Causes []StatusCause `json:"causes,omitempty" protobuf:"bytes,4,rep,name=causes"`
	// RetryAfterSeconds suggests when to retry, for Timeout and TooManyRequests.
	RetryAfterSeconds int32 `json:"retryAfterSeconds,omitempty" protobuf:"varint,5,opt,name=retryAfterSeconds"`
}

// StatusCause is one problem behind an error. Kubernetes: metav1.StatusCause.
type StatusCause struct {
	// Type classifies the problem. Its JSON name is "reason".
	Type CauseType `json:"reason,omitempty" protobuf:"bytes,1,opt,name=reason"`
	// Message is a human-readable description of the problem.
	Message string `json:"message,omitempty" protobuf:"bytes,2,opt,name=message"`
	// Field is the path of the problem field, e.g. "spec.containers[0].image".
	Field string `json:"field,omitempty" protobuf:"bytes,3,opt,name=field"`
}

// StatusReason is the machine-readable reason of an error. Kubernetes: metav1.StatusReason.
type StatusReason string

// Status reasons, with the HTTP code each goes with.
const (
	// StatusReasonUnknown (500 or any code): no more specific reason is known.
	StatusReasonUnknown StatusReason = ""
	// StatusReasonBadRequest (400): the request itself is malformed, e.g. a bad selector.
	StatusReasonBadRequest StatusReason = "BadRequest"
	// StatusReasonUnauthorized (401): the client is not authenticated.
	StatusReasonUnauthorized StatusReason = "Unauthorized"
	// StatusReasonForbidden (403): the client may not perform the operation, or the
	// operation is not allowed in this state (e.g. creating in a terminating namespace).
	StatusReasonForbidden StatusReason = "Forbidden"
	// StatusReasonNotFound (404): the object does not exist.
	StatusReasonNotFound StatusReason = "NotFound"
	// StatusReasonMethodNotAllowed (405): the verb is not supported on the resource.
	StatusReasonMethodNotAllowed StatusReason = "MethodNotAllowed"
	// StatusReasonNotAcceptable (406): none of the media types the client accepts can be
	// served.
	StatusReasonNotAcceptable StatusReason = "NotAcceptable"
	// StatusReasonRequestEntityTooLarge (413): the request body is larger than the server
	// takes.
	StatusReasonRequestEntityTooLarge StatusReason = "RequestEntityTooLarge"
	// StatusReasonUnsupportedMediaType (415): the request body's content type is not
	// supported for the operation.
	StatusReasonUnsupportedMediaType StatusReason = "UnsupportedMediaType"
	// StatusReasonAlreadyExists (409): create found an object with the same name.
	StatusReasonAlreadyExists StatusReason = "AlreadyExists"
	// StatusReasonConflict (409): update carried a stale resourceVersion, or a precondition
	// failed; re-read and retry.
	StatusReasonConflict StatusReason = "Conflict"
	// StatusReasonGone (410): the requested resource version is no longer available.
	StatusReasonGone StatusReason = "Gone"
	// StatusReasonExpired (410): the resource version of a list or watch was compacted
	// away ("too old resource version"); relist.
	StatusReasonExpired StatusReason = "Expired"
	// StatusReasonInvalid (422): the object failed validation; Details.Causes list the
	// fields.
	StatusReasonInvalid StatusReason = "Invalid"
	// StatusReasonTooManyRequests (429): rate limited; retry after Details.RetryAfterSeconds.
	StatusReasonTooManyRequests StatusReason = "TooManyRequests"
	// StatusReasonInternalError (500): the server failed.
	StatusReasonInternalError StatusReason = "InternalError"
	// StatusReasonServiceUnavailable (503): the server cannot serve the request right now.
	StatusReasonServiceUnavailable StatusReason = "ServiceUnavailable"
	// StatusReasonTimeout (504): the operation did not finish in time; it may still happen.
	StatusReasonTimeout StatusReason = "Timeout"
	// StatusReasonServerTimeout (500): the server gave up on the operation; retry.
	StatusReasonServerTimeout StatusReason = "ServerTimeout"
)

// CauseType classifies one problem behind an error. Kubernetes: metav1.CauseType.
type CauseType string

// Cause types.
const (
	// CauseTypeFieldValueNotFound: the value refers to something that does not exist.
	CauseTypeFieldValueNotFound CauseType = "FieldValueNotFound"
	// CauseTypeFieldValueRequired: a required value is missing.
	CauseTypeFieldValueRequired CauseType = "FieldValueRequired"
	// CauseTypeFieldValueDuplicate: a value that must be unique is repeated.
	CauseTypeFieldValueDuplicate CauseType = "FieldValueDuplicate"
	// CauseTypeFieldValueInvalid: the value is malformed or out of range.
	CauseTypeFieldValueInvalid CauseType = "FieldValueInvalid"
	// CauseTypeFieldValueNotSupported: the value is not one of the supported values.
	CauseTypeFieldValueNotSupported CauseType = "FieldValueNotSupported"
	// CauseTypeFieldValueForbidden: the field may not be set, or not changed.
	CauseTypeFieldValueForbidden CauseType = "FieldValueForbidden"
	// CauseTypeFieldValueTooLong: the value is longer than allowed.
	CauseTypeFieldValueTooLong CauseType = "FieldValueTooLong"
	// CauseTypeFieldValueTooMany: the list has more items than allowed.
	CauseTypeFieldValueTooMany CauseType = "FieldValueTooMany"
	// CauseTypeInternal: the server failed while checking the value.
	CauseTypeInternal CauseType = "InternalError"
	// CauseTypeUnexpectedServerResponse: the server's response could not be understood.
	CauseTypeUnexpectedServerResponse CauseType = "UnexpectedServerResponse"
	// CauseTypeResourceVersionTooLarge: the requested resource version is newer than the
	// store's current revision.
	CauseTypeResourceVersionTooLarge CauseType = "ResourceVersionTooLarge"
	// NamespaceTerminatingCause: a create was refused because its namespace
	// is being deleted; controllers drop such work quietly. Kubernetes:
	// corev1.NamespaceTerminatingCause.
	NamespaceTerminatingCause CauseType = "NamespaceTerminating"
)
