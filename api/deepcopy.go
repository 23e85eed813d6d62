package api

//go:generate go run ../internal/deepcopygen . deepcopy_generated.go

// The deep copies of this package's types are generated into deepcopy_generated.go by
// internal/deepcopygen: run `go generate ./api/` after adding or changing a type, and a test
// fails until the file is current. They are plain code, without reflection or JSON, because
// the store and informers copy objects on hot paths. The rule each DeepCopyInto follows: copy
// the struct by value, then replace every map, slice and pointer with a fresh copy, using the
// helpers below. A test fills every field of every type through reflection and checks that no
// copy shares memory with its original.
//
// Time and MicroTime are copied by value: the *time.Location inside a time.Time is never
// mutated, so sharing it is safe.
//
// A DeepCopyInto, DeepCopy or DeepCopyObject written by hand in this package wins over the
// generated one: the generator skips it and names it at the top of the generated file. None
// is written by hand today; that is the place for a copy that must differ from a plain one.

// clonePtr returns a pointer to a copy of *p, or nil. T must hold no maps, slices or
// pointers that need copying themselves.
func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// deepCopySlice returns a new slice holding deep copies of in's elements, made by
// copyInto, or nil if in is nil (an empty slice stays empty, not nil).
func deepCopySlice[T any](in []T, copyInto func(in, out *T)) []T {
	if in == nil {
		return nil
	}
	out := make([]T, len(in))
	for i := range in {
		copyInto(&in[i], &out[i])
	}
	return out
}

// deepCopyMap returns a new map holding in's keys and deep copies of its values, made by
// copyValue, or nil if in is nil (an empty map stays empty, not nil).
func deepCopyMap[M ~map[K]V, K comparable, V any](in M, copyValue func(V) V) M {
	if in == nil {
		return nil
	}
	out := make(M, len(in))
	for k, v := range in {
		out[k] = copyValue(v)
	}
	return out
}
