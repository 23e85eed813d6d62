// Package protobuf is Kubernetes' protobuf wire format for miniplane's api types: the bodies
// that client-go sends and expects under Content-Type application/vnd.kubernetes.protobuf.
//
// # What it owns
//
//   - [Marshal], [Append] and [Unmarshal]: a bare message (no envelope) of any struct whose
//     fields carry k8s.io/api's struct tags, e.g. `protobuf:"bytes,1,opt,name=metadata"`.
//   - [MarshalObject], [AppendObject] and [UnmarshalEnvelope]: the envelope of every object
//     body, the magic "k8s\x00" followed by a runtime.Unknown holding the bare message.
//   - [AppendWatchEvent] and [UnmarshalWatchEvent]: one metav1.WatchEvent of a watch stream.
//     The 4-byte frame length around it belongs to the HTTP layer.
//
// # What it mirrors
//
// The bytes are those of the gogo-generated code in k8s.io/api and k8s.io/apimachinery
// (generated.pb.go, proto2): fields in ascending field number; non-pointer scalars, strings
// and nested messages always written, even when zero or empty; pointers only when non-nil;
// []byte only when non-nil; repeated fields one entry per element (unpacked; packed is
// accepted on decode); maps as repeated {key = 1, value = 2} entries sorted by key. A field
// without a protobuf tag is not on the wire: TypeMeta, embedded in every kind, has none, so
// objects carry no apiVersion or kind inside the message (the envelope names them). The
// wire type comes from the Go type (integers and bools varint, float64 fixed64 as a proto
// double, everything else bytes), as
// go-to-protobuf derives the .proto from Go types; upstream's tags misstate it in places
// (PodSpec.priority, an int32, is tagged "bytes"), so only the tag's number and name count.
//
// A few Go types have a hand-written wire form, recognised by type as upstream's are:
//
//   - [api.Time]: metav1.Time, a Timestamp {int64 seconds = 1; int32 nanos = 2} with nanos
//     always 0; the zero Time is an empty message.
//   - [api.MicroTime]: metav1.MicroTime, the same Timestamp with nanos truncated to the
//     microsecond.
//   - [api.IntOrString]: intstr.IntOrString {type = 1; intVal = 2; strVal = 3}, all three
//     always written.
//   - [api.ResourceList]: corev1.ResourceList, whose values are resource.Quantity messages
//     {string string = 1}. miniplane keeps a quantity as the text the client sent (see
//     [api.ResourceList]), so the text is written as it is, not canonicalised.
//   - json.RawMessage: metav1.FieldsV1 and runtime.RawExtension, both {bytes raw = 1}.
//     Upstream FieldsV1 is a pointer, written only when set, and a RawExtension is always
//     written; miniplane tells them apart by the json tag: with omitempty (FieldsV1) a nil
//     RawMessage is left out, without it (a watch event's object) it is an empty message.
//     On decode the raw bytes must be JSON, since that is what the field holds in miniplane
//     and what it serves; an empty raw decodes to nil. (A protobuf watch event's object is an
//     enveloped protobuf object, not JSON: read watch events with [UnmarshalWatchEvent], not
//     by decoding into api.WatchEvent.) apiextensions' JSON {bytes raw = 1}, the free JSON
//     values of a CustomResourceDefinition's schema, is the same message.
//
// Maps with message values (a schema's properties) are written as gogo writes them: one
// entry per key in key order, the value message always present.
//
// Decoding skips unknown fields, accepts invalid UTF-8 in strings (as Kubernetes does), and
// returns an error wrapping [ErrMalformed] for anything else it cannot read: a wrong wire
// type, a truncated or overlong value, nesting deeper than 100 messages, a timestamp outside
// years 0 to 9999 (what RFC 3339, and so the JSON form, can write), an IntOrString whose
// type is neither int nor string. It never panics on input.
//
// # Imports
//
// The standard library, package api (for the types above) and google.golang.org/protobuf's
// encoding/protowire for tags, varints and lengths.
//
// # Speed
//
// Each struct type gets a plan on first use (its tagged fields in wire order, with how to
// write and read each), so encoding is a walk over the value with no tag parsing. A nested
// message is written after one byte reserved for its length; a message of 128 bytes or
// more is moved up a byte or two once its length is known, which costs less than a size
// pass over the whole object. [Marshal] builds in a pooled buffer and allocates only its
// result; [Append] into a buffer with room allocates nothing.
//
// # Concurrency
//
// Every function is safe for concurrent use. The package keeps one piece of hidden state, as
// encoding/json does: a cache of how to encode each Go type, built on first use and never
// changed after, plus a pool of scratch space for encoding.
package protobuf
