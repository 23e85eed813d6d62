// Package api holds miniplane's object types, in the same JSON shape as Kubernetes' API, so
// that the real kubectl and client-go can read and write them.
//
// # What it owns
//
//   - The object metadata every kind carries: [TypeMeta], [ObjectMeta], [ListMeta],
//     [OwnerReference], [ObjectReference], and the [Time] and [MicroTime] timestamps.
//   - The kinds miniplane serves: [Pod], [ReplicationController], [Service], [Endpoints],
//     [Node], [Lease], [Event], [Namespace], [ConfigMap], [Secret] and [ServiceAccount]; the
//     kinds kube-scheduler lists and watches, which no controller here acts on:
//     [PersistentVolume], [PersistentVolumeClaim], [StorageClass], [CSINode], [CSIDriver],
//     [CSIStorageCapacity], [VolumeAttachment], [PodDisruptionBudget], [ReplicaSet] and
//     [StatefulSet]; each with its XxxList, plus the [Scale]
//     and [Binding] subresource bodies, [Status] (the shape of every API error),
//     [DeleteOptions] and [WatchEvent].
//   - The [Object] interface that the store, informers and controllers handle kinds through.
//   - [EventsV1Event], an Event as events.k8s.io/v1 shows it, with the conversions both ways
//     ([EventToEventsV1], [EventsV1ToEvent]), and the policy/v1 [Eviction] that evicts a pod.
//   - Hand-written deep copies: DeepCopy and DeepCopyInto on every kind, list and nested type
//     that holds a map, slice or pointer.
//   - Label selectors ([ParseSelector], [SelectorFromSet]) and field selectors
//     ([ParseFieldSelector]), with Kubernetes' syntax, canonical form and matching rules.
//   - A few helpers every controller needs: [KeyOf], [SplitKey], [GetControllerOf],
//     [IsPodReady] and [IsPodActive].
//
// # What it mirrors
//
// The types follow k8s.io/api (core/v1, coordination/v1, autoscaling/v1, events/v1,
// policy/v1) and k8s.io/apimachinery (meta/v1, labels, fields): JSON names and omitempty behaviour
// match, so JSON produced by kubectl or the kube-apiserver decodes into these types and
// encodes back unchanged, for every field the types model. Fields miniplane does not model
// (volumes, affinity, securityContext, ...) are dropped on decode without error. Each type
// names its Kubernetes counterpart in its doc comment, so the two can be read side by side.
//
// # Protobuf
//
// Every field that is on the wire carries a `protobuf:"..."` tag in k8s.io/api's form, with
// the field number of the upstream field of the same JSON name, so package api/protobuf can
// read and write application/vnd.kubernetes.protobuf bodies. The numbers, wire types and
// labels come from k8s.io/api's and k8s.io/apimachinery's generated.proto (v0.37.2); where
// an upstream Go tag contradicts its generated.proto (eleven fields, each commented) the
// .proto wins. casttype= parts are dropped. TypeMeta has no tag: objects carry no TypeMeta
// inside the message. Maps carry protobuf_key and protobuf_val tags. A test requires a tag
// on every field reachable from the kinds.
//
// A few types differ in Go from their upstream message, and the codec knows them by Go type:
//
//   - [Time] and [MicroTime] embed time.Time; on the wire they are a Timestamp message
//     (seconds=1, nanos=2).
//   - [ResourceList] values are strings; on the wire each is a Quantity message (string=1).
//     Upstream writes a quantity's canonical form ("1" for "1000m"); miniplane writes the
//     text it holds.
//   - [ManagedFieldsEntry].FieldsV1 is a json.RawMessage; on the wire a FieldsV1 message
//     (Raw=1).
//   - [WatchEvent].Object is a json.RawMessage; on the wire a RawExtension message (raw=1).
//
// [IntOrString] is tagged like intstr.IntOrString (type=1, intVal=2, strVal=3), and Probe
// embeds [ProbeHandler] as field 1, as upstream does.
//
// # Imports
//
// The standard library only. Every other miniplane package imports api; api imports none
// of them.
//
// # Sharing and concurrency
//
// Objects are plain values with no locks and no hidden state. The store, the informer caches
// and the controllers hand the same object to many readers, so an object you did not create
// yourself is shared: treat it as immutable, and DeepCopy it before you change anything.
// A copy shares no map, slice or pointer with its original. Selectors are immutable once
// built and safe for concurrent use.
package api
