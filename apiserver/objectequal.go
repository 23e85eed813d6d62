package apiserver

// Typed equality of the whole objects an update compares most: the answer
// of reflect.DeepEqual, without reflection. An update that changes nothing
// writes nothing (update's no-op check), and for the kinds written most by
// plain updates — the endpoints controller's Endpoints and the event
// recorder's bumped Events — reflect.DeepEqual walked the whole object to
// say so, and allocated for every entry of every metadata map it walked
// (about one allocation per pod of a scale-up).
//
// Each function answers exactly what reflect.DeepEqual answers, by the
// rules statusequal.go lists, and these for the types met here:
//   - two maps are equal when both are nil, or both are non-nil with the
//     same entries (a nil map differs from an empty one);
//   - two byte slices as other slices: nil differs from empty, then bytes.
// TestEqualObjectsAreDeepEqual checks this on generated objects: its
// generator fills every field reflection finds, so a field added to one of
// these types and not compared here makes it fail.

import (
	"bytes"
	"maps"
	"reflect"

	"github.com/miniplane/miniplane/api"
)

// objectEqual returns the equality kind.equal uses for objects whose
// pointer type is T: a typed one for the kinds that have one,
// reflect.DeepEqual for the others.
func objectEqual[O any, T interface {
	*O
	api.Object
}]() func(a, b api.Object) bool {
	if eq, ok := any(equalEndpoints).(func(a, b T) bool); ok {
		return func(a, b api.Object) bool { return eq(a.(T), b.(T)) }
	}
	if eq, ok := any(equalEvent).(func(a, b T) bool); ok {
		return func(a, b api.Object) bool { return eq(a.(T), b.(T)) }
	}
	return func(a, b api.Object) bool { return reflect.DeepEqual(a, b) }
}

// equalEndpoints reports whether reflect.DeepEqual(a, b).
func equalEndpoints(a, b *api.Endpoints) bool {
	if a == b {
		return true
	}
	return a.TypeMeta == b.TypeMeta && equalObjectMeta(&a.Metadata, &b.Metadata) &&
		equalSlices(a.Subsets, b.Subsets, equalEndpointSubset)
}

func equalEndpointSubset(a, b *api.EndpointSubset) bool {
	return equalSlices(a.Addresses, b.Addresses, equalEndpointAddress) &&
		equalSlices(a.NotReadyAddresses, b.NotReadyAddresses, equalEndpointAddress) &&
		equalSlices(a.Ports, b.Ports, equalEndpointPort)
}

func equalEndpointAddress(a, b *api.EndpointAddress) bool {
	return a.IP == b.IP && a.Hostname == b.Hostname &&
		equalPointers(a.NodeName, b.NodeName, equalValues) &&
		equalPointers(a.TargetRef, b.TargetRef, equalValues)
}

func equalEndpointPort(a, b *api.EndpointPort) bool {
	return a.Name == b.Name && a.Port == b.Port && a.Protocol == b.Protocol &&
		equalPointers(a.AppProtocol, b.AppProtocol, equalValues)
}

// equalEvent reports whether reflect.DeepEqual(a, b).
func equalEvent(a, b *api.Event) bool {
	if a == b {
		return true
	}
	return a.TypeMeta == b.TypeMeta && a.InvolvedObject == b.InvolvedObject &&
		a.Reason == b.Reason && a.Message == b.Message && a.Source == b.Source &&
		a.Count == b.Count && a.Type == b.Type && a.Action == b.Action &&
		a.ReportingController == b.ReportingController && a.ReportingInstance == b.ReportingInstance &&
		equalTime(&a.FirstTimestamp, &b.FirstTimestamp) && equalTime(&a.LastTimestamp, &b.LastTimestamp) &&
		equalMicroTime(&a.EventTime, &b.EventTime) &&
		equalPointers(a.Series, b.Series, func(x, y *api.EventSeries) bool {
			return x.Count == y.Count && equalMicroTime(&x.LastObservedTime, &y.LastObservedTime)
		}) &&
		equalPointers(a.Related, b.Related, equalValues) &&
		equalObjectMeta(&a.Metadata, &b.Metadata)
}

// equalObjectMeta reports whether reflect.DeepEqual(a, b).
func equalObjectMeta(a, b *api.ObjectMeta) bool {
	return a.Name == b.Name && a.GenerateName == b.GenerateName && a.Namespace == b.Namespace &&
		a.UID == b.UID && a.ResourceVersion == b.ResourceVersion && a.Generation == b.Generation &&
		equalTime(&a.CreationTimestamp, &b.CreationTimestamp) &&
		equalPointers(a.DeletionTimestamp, b.DeletionTimestamp, equalTime) &&
		equalPointers(a.DeletionGracePeriodSeconds, b.DeletionGracePeriodSeconds, equalValues) &&
		equalMaps(a.Labels, b.Labels) && equalMaps(a.Annotations, b.Annotations) &&
		equalSlices(a.OwnerReferences, b.OwnerReferences, func(x, y *api.OwnerReference) bool {
			return x.APIVersion == y.APIVersion && x.Kind == y.Kind && x.Name == y.Name && x.UID == y.UID &&
				equalPointers(x.Controller, y.Controller, equalValues) &&
				equalPointers(x.BlockOwnerDeletion, y.BlockOwnerDeletion, equalValues)
		}) &&
		equalSlices(a.Finalizers, b.Finalizers, equalValues) &&
		equalSlices(a.ManagedFields, b.ManagedFields, func(x, y *api.ManagedFieldsEntry) bool {
			return x.Manager == y.Manager && x.Operation == y.Operation && x.APIVersion == y.APIVersion &&
				x.FieldsType == y.FieldsType && x.Subresource == y.Subresource &&
				equalPointers(x.Time, y.Time, equalTime) &&
				(x.FieldsV1 == nil) == (y.FieldsV1 == nil) && bytes.Equal(x.FieldsV1, y.FieldsV1)
		})
}

// equalMicroTime is reflect.DeepEqual of two times (see equalTime).
func equalMicroTime(a, b *api.MicroTime) bool {
	return a.Time == b.Time || reflect.DeepEqual(a, b)
}

// equalMaps is reflect.DeepEqual of two maps of comparable values.
func equalMaps[K, V comparable](a, b map[K]V) bool {
	return (a == nil) == (b == nil) && maps.Equal(a, b)
}

// equalValues is reflect.DeepEqual of two values of a type whose == answers
// as it does: strings, integers, bools and structs of them only (no
// pointers, slices, maps or times inside).
func equalValues[E comparable](a, b *E) bool { return *a == *b }
