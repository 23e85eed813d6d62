package apiserver

// TEMPORARY: replaced by the per-kind validation files.

import "github.com/miniplane/miniplane/api"

func defaultNamespace(*api.Namespace)                         {}
func validateNamespace(*api.Namespace) FieldErrors            { return nil }
func validateNamespaceUpdate(_, _ *api.Namespace) FieldErrors { return nil }

func defaultPod(*api.Pod)                         {}
func validatePod(*api.Pod) FieldErrors            { return nil }
func validatePodUpdate(_, _ *api.Pod) FieldErrors { return nil }

func defaultReplicationController(*api.ReplicationController)                         {}
func validateReplicationController(*api.ReplicationController) FieldErrors            { return nil }
func validateReplicationControllerUpdate(_, _ *api.ReplicationController) FieldErrors { return nil }

func defaultService(*api.Service)                         {}
func validateService(*api.Service) FieldErrors            { return nil }
func validateServiceUpdate(_, _ *api.Service) FieldErrors { return nil }

func defaultEndpoints(*api.Endpoints)                         {}
func validateEndpoints(*api.Endpoints) FieldErrors            { return nil }
func validateEndpointsUpdate(_, _ *api.Endpoints) FieldErrors { return nil }

func defaultNode(*api.Node)                         {}
func validateNode(*api.Node) FieldErrors            { return nil }
func validateNodeUpdate(_, _ *api.Node) FieldErrors { return nil }

func defaultLease(*api.Lease)                         {}
func validateLease(*api.Lease) FieldErrors            { return nil }
func validateLeaseUpdate(_, _ *api.Lease) FieldErrors { return nil }

func defaultEvent(*api.Event)                         {}
func validateEvent(*api.Event) FieldErrors            { return nil }
func validateEventUpdate(_, _ *api.Event) FieldErrors { return nil }
