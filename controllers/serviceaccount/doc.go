// Package serviceaccount is miniplane's service account controller: it
// keeps a ServiceAccount named "default" in every active namespace, and puts
// it back when it is deleted, the way kube-controller-manager's
// ServiceAccountsController (pkg/controller/serviceaccount, controller name
// "serviceaccount") does. Pods name an account (the API server's
// ServiceAccount admission defaults it to "default" and refuses a pod whose
// account does not exist), so without this controller no pod could be
// created in a new namespace.
//
// Read it beside Kubernetes':
//
//	Kubernetes  serviceaccounts_controller.go     miniplane
//	namespaceAdded, namespaceUpdated              controller.go  New's namespace handler
//	serviceAccountDeleted                         controller.go  New's service account handler
//	syncNamespace                                 controller.go  sync, missing.go  Missing
//
// The queue holds namespace names. A sync reads the namespace and its
// accounts from the caches, asks Missing which accounts to create (none
// unless the namespace is Active), and creates them. An AlreadyExists
// answer means the cache was behind and is success; a refusal because the
// namespace is terminating is not retried, as in Kubernetes. Nothing else
// of the account is managed: the token controller that once filled its
// secrets is gone from Kubernetes too (tokens are projected, bound to pods).
//
// Kubernetes runs the controller with one worker; so does the manager.
//
// Imports: api, api/apierrors, client, clock, informer, controllers/loop,
// controllers/workqueue and zap, as the controllers' row of
// (DESIGN.md, "Packages and imports") allows.
// Concurrency: the handlers and ProcessOne are safe for concurrent use; a
// namespace is never synced twice at once (the queue's promise).
package serviceaccount
