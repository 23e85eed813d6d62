// Package protowire proves that miniplane's protobuf codec (api/protobuf, driven by the
// protobuf tags on the api types) speaks the same wire format as k8s.io/api's generated
// code, which is what client-go and kube-apiserver use. It has tests only.
//
// For every served kind, its list and the special shapes (Time, MicroTime, IntOrString,
// ResourceList quantities, FieldsV1, RawExtension), each case checks three things:
//
//   - ours → our bytes → k8s.io/api's Unmarshal gives an object whose JSON is ours;
//   - theirs (the k8s.io/api object with the same JSON) → their bytes → our Unmarshal gives
//     ours back;
//   - our bytes equal their bytes, once the fields miniplane does not model are taken out
//     of theirs. gogo's generated code writes every non-pointer field of a message, even
//     zero, so their bytes hold, for example, an empty metadata.selfLink that miniplane
//     has no field for; every such field must be zero, and it is the only difference
//     allowed.
//
// The envelope tests decode our MarshalObject output with apimachinery's own protobuf
// serializer and client-go's scheme. Cases are hand-written (every modeled field set) and
// fuzzed (FuzzRoundTrip builds objects from the fuzz input).
package protowire
