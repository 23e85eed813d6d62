// Package rootcacertpublisher is miniplane's root CA certificate
// publisher: it keeps a ConfigMap named kube-root-ca.crt in every
// namespace, whose key ca.crt holds the CA bundle that verifies the API
// server, and puts it back when it is deleted or changed — the way
// kube-controller-manager's root-ca-certificate-publisher
// (pkg/controller/certificates/rootcacertpublisher) does. Pods read it
// through the projected kube-api-access volume to trust
// https://kubernetes.default.svc.
//
// Read it beside Kubernetes':
//
//	Kubernetes  publisher.go                      miniplane
//	namespaceAdded, namespaceUpdated              controller.go  New's namespace handler
//	configMapDeleted, configMapUpdated            controller.go  New's config map handler
//	syncNamespace                                 controller.go  sync, desired.go  Desired
//
// The queue holds namespace names. A sync reads the namespace's
// kube-root-ca.crt from the cache and asks Desired what to write: a new
// ConfigMap, an update that restores the data (ca.crt alone) and the description
// annotation, keeping labels and other annotations, or nothing.
// As in Kubernetes the publisher writes into any namespace, active or not,
// and does not retry a create the server refused because the namespace is
// gone or terminating.
//
// The CA is Config.RootCA, a PEM bundle: the serving CA when `miniplane
// serve` speaks TLS, else PlaceholderCA — a fixed certificate that signs
// nothing, there so that a pod or a test reading ca.crt finds a well-formed
// certificate, and fixed so that the simulator's runs stay a function of
// their seed (DESIGN.md, "Determinism", rule 2).
//
// Kubernetes runs the publisher with one worker; so does the manager.
//
// Imports: api, api/apierrors, client, clock, informer, controllers/loop,
// controllers/workqueue and zap, as the controllers' row of
// (DESIGN.md, "Packages and imports") allows.
// Concurrency: the handlers and ProcessOne are safe for concurrent use; a
// namespace is never synced twice at once (the queue's promise).
package rootcacertpublisher
