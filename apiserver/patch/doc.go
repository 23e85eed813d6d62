// Package patch holds the algorithms behind PATCH and server-side apply: RFC 6902 JSON
// patch, RFC 7386 JSON merge patch, Kubernetes' strategic merge patch, and server-side
// apply with field ownership recorded in metadata.managedFields.
//
// It mirrors k8s.io/apimachinery/pkg/util/strategicpatch (the merge with patch metadata
// per list field), the JSON patch and merge patch that kube-apiserver applies through
// evanphx/json-patch, and, in a smaller but honest form, sigs.k8s.io/structured-merge-diff
// with k8s.io/apiserver's fieldmanager (field sets, managers, conflicts, force).
//
// Everything works on JSON bytes in and JSON bytes out, decoded into plain maps and slices
// with numbers kept as json.Number so that no digit is lost. Output is compact JSON with
// sorted keys, so equal objects give equal bytes. The patch metadata (which lists merge by
// which key) of every kind miniplane serves is in schema.go.
//
// Errors are *Error (a patch that is malformed or cannot be applied, with a Reason that
// maps to 400, 415 or 422) or *Conflict (a server-side apply that would take fields
// another manager owns; 409). Each has a Status method giving the Kubernetes Status to
// answer with, in kube-apiserver's words, so the HTTP layer need only wrap it. No input makes a function panic, and the input slices are
// never modified.
//
// # How the HTTP front uses it
//
// A PATCH of type JSONPatchType, MergePatchType or StrategicMergePatchType: read the
// stored object, Apply the patch to its JSON, decode the result as the kind, write it as
// an update (so validation and resourceVersion conflicts are the usual ones), and record
// the write with TrackUpdate (TrackSubresourceUpdate for status and scale). A PATCH of
// type ApplyPatchType: ServerSideApply with the stored object (nil when missing: create
// the result), the fieldManager and force query parameters; a *Conflict becomes 409. A
// POST or PUT: TrackUpdate(old or nil, new, fieldManager). Unmodeled fields the api
// types drop are dropped from managedFields by the next write, which prunes ownership of
// fields that no longer exist.
//
// The HTTP front records its creates and updates with a FieldTracker instead, which
// reads the field sets off the typed objects (api types, walked by reflection as
// encoding/json sees them) with the same result, to the byte, and no JSON round trip:
// that was most of a create's cost.
//
// The functions are pure: no shared state, safe for concurrent use; time is passed in. A
// FieldTracker's only state is its cache of per-type plans, built once per type and
// safe for concurrent use. The package imports the standard library and api only.
package patch
