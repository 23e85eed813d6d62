package client

import "github.com/miniplane/miniplane/api"

// WriteOptions qualify a create or an update (of an object, its status or
// its scale). Kubernetes: the dryRun of metav1.CreateOptions, UpdateOptions
// and PatchOptions. Callers pass WriteOption values (DryRun(),
// WithManagedFields(...)), or a WriteOptions, which is one too;
// controller-runtime's client takes its options the same way.
type WriteOptions struct {
	// DryRun runs every step of the write (defaulting, validation,
	// preconditions) and returns the object as it would be stored, but
	// stores nothing and sends no watch event.
	DryRun bool
	// ManagedFields, when not nil, replace the object's
	// metadata.managedFields in a status or scale update, which otherwise
	// keeps all of the metadata: the HTTP front records there who wrote
	// through the subresource (Kubernetes' field manager does the same).
	ManagedFields []api.ManagedFieldsEntry
	// Handover gives the object to the server (see Handover).
	Handover bool
}

// WriteOption sets one or more of a write's WriteOptions.
type WriteOption interface {
	// ApplyToWrite sets the option in o.
	ApplyToWrite(o *WriteOptions)
}

// ApplyToWrite sets every option o sets in dst: a WriteOptions passed as an
// option stands for all of its fields that are set.
func (o WriteOptions) ApplyToWrite(dst *WriteOptions) {
	if o.DryRun {
		dst.DryRun = true
	}
	if o.ManagedFields != nil {
		dst.ManagedFields = o.ManagedFields
	}
	if o.Handover {
		dst.Handover = true
	}
}

// NewWriteOptions returns the WriteOptions that opts set, applied in order.
// It allocates nothing for this package's options: the write paths call it
// for every write.
func NewWriteOptions(opts ...WriteOption) WriteOptions {
	var o WriteOptions
	for _, opt := range opts {
		switch opt := opt.(type) {
		case WriteOptions:
			opt.ApplyToWrite(&o)
		case handoverOption:
			opt.ApplyToWrite(&o)
		case dryRunOption:
			opt.ApplyToWrite(&o)
		default:
			o = applyOption(o, opt)
		}
	}
	return o
}

// applyOption applies an option of a type NewWriteOptions does not know,
// whose ApplyToWrite may keep its argument: o moves to the heap here only.
func applyOption(o WriteOptions, opt WriteOption) WriteOptions {
	opt.ApplyToWrite(&o)
	return o
}

type writeOptionFunc func(*WriteOptions)

func (f writeOptionFunc) ApplyToWrite(o *WriteOptions) { f(o) }

// DryRun makes a write run every check and return what it would store,
// storing nothing. Kubernetes: dryRun=All; controller-runtime's DryRunAll.
func DryRun() WriteOption { return dryRunOption{} }

type dryRunOption struct{}

func (dryRunOption) ApplyToWrite(o *WriteOptions) { o.DryRun = true }

// Handover gives the object of a write to the server, which may then keep
// it, or anything it refers to, as what it stores, instead of copying it:
// after the call the caller must neither change nor reuse any of it (not
// the object, nor its maps, slices or pointers), whether the write
// succeeded or not. A writer that builds a fresh object for each write (an
// event recorder, a controller creating from a template) saves the
// server's copy of it. A server that cannot keep the caller's memory (one
// over HTTP) ignores it. A status update keeps only the status: the rest of
// the object stays the caller's. The server changes a handed-over object
// only in its top-level struct, its metadata's single-valued fields and
// what its kind's defaults fill in (a pod's spec, say), never its labels
// or annotations: those may be shared with objects nobody changes, such as
// the stored template a pod is made from.
func Handover() WriteOption { return handoverOption{} }

type handoverOption struct{}

func (handoverOption) ApplyToWrite(o *WriteOptions) { o.Handover = true }

// WithManagedFields sets the metadata.managedFields a status or scale update
// stores (see WriteOptions.ManagedFields).
func WithManagedFields(entries []api.ManagedFieldsEntry) WriteOption {
	return writeOptionFunc(func(o *WriteOptions) { o.ManagedFields = entries })
}
