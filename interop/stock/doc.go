// Package stock proves that an unmodified client-go v0.37.2 program works
// against miniplane's HTTP API. Its tests build their clients the way a
// program written for a real cluster does — kubernetes.NewForConfig and
// metadata.NewForConfig over a rest.Config holding only the server's
// address — so they get client-go's defaults: protobuf request and response
// bodies for the built-in kinds, protobuf watch frames, and informers that
// sync with a streaming list (WatchListClient, on by default since 1.35).
//
// The tests ask the server's discovery which resources and subresources it
// serves and fail when one has no case here; for each they drive every verb
// of its typed client (create, get, list, update, merge and strategic
// merge patch, watch, delete, deletecollection) while a shared informer
// watches, and the subresources (status, scale, binding, eviction) through
// the typed client's own methods. The package holds tests only.
package stock
