// Package client is how miniplane's components talk to the API server: the
// Client interface (Create, Get, List, Watch, Update, UpdateStatus,
// Delete), the options those take (GetOptions, ListOptions, and WriteOption
// values such as DryRun()), the list and watch types, the resource names
// (Pods, Namespaces, ...), and For[T], a typed view of one resource.
// Kubernetes: client-go's kubernetes interfaces with metav1's option types,
// and controller-runtime's variadic write options.
//
// *apiserver.Server implements Client, and so do the wrappers around it (the
// election's write guard, the simulator's fault injector, test fakes);
// consumers declare the smaller interfaces they need. This package imports
// api only, never the server: informers, the election and the controllers
// import it instead of apiserver. Errors are api/apierrors' *StatusError.
// Its functions and types hold no state of their own and are safe for
// concurrent use; a Client's own contract says what it promises.
package client
