// Package httpapi proves that stock client-go works against miniplane's
// HTTP API (apiserver/httpapi): its tests start the handler on a loopback
// port and drive it with client-go v0.37's clientset and shared informer,
// unmodified, as a controller running against a real cluster would.
package httpapi
