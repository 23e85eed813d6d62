package apiserver

import (
	"context"
	"encoding/json"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver/patch"
)

// fieldManagerKey is the context key of WithFieldManager.
type fieldManagerKey struct{}

// WithFieldManager returns ctx naming the in-process writer that acts under
// it, as an HTTP client names itself by its fieldManager parameter or its
// User-Agent. Create, Update and UpdateStatus called with such a context
// record the write in the object's managedFields under that name, as
// kube-apiserver's field manager records every write that is not an apply.
// The controller manager runs each controller under its name (its clients
// are named so in kube-controller-manager); the live plane runs the
// simulated kubelets as "kubelet". Without a name nothing is recorded: the
// simulator's and the tests' in-process writes stay as they were.
func WithFieldManager(ctx context.Context, manager string) context.Context {
	return context.WithValue(ctx, fieldManagerKey{}, manager)
}

// FieldManager returns the writer's name WithFieldManager put in ctx, or "".
func FieldManager(ctx context.Context) string {
	m, _ := ctx.Value(fieldManagerKey{}).(string)
	return m
}

// trackCreateOrUpdate returns obj with manager's write recorded in its
// managedFields; old is the stored state an update replaces, nil for a
// create. Kinds served in another version than they are stored are left
// alone (only Events served as events.k8s.io are), as is obj when ctx names
// no manager.
func (s *Server) trackCreateOrUpdate(ctx context.Context, obj api.Object, update bool) (api.Object, error) {
	manager := FieldManager(ctx)
	if manager == "" {
		return obj, nil
	}
	k, err := s.kindOf(obj)
	if err != nil || k.toStored != nil {
		return obj, nil // the write itself reports a bad kind
	}
	var oldJSON []byte
	if update {
		old, ok := s.currentOf(k, obj)
		if !ok {
			return obj, nil // the update itself reports NotFound
		}
		if oldJSON, err = json.Marshal(old); err != nil {
			return nil, NewInternalError(err)
		}
	}
	newJSON, err := json.Marshal(obj)
	if err != nil {
		return nil, NewInternalError(err)
	}
	tracked, err := patch.TrackUpdate(k.kind, oldJSON, newJSON, manager, s.clock.Now())
	if err != nil {
		return nil, NewBadRequest("recording the field manager " + manager + ": " + err.Error())
	}
	out := k.newObj()
	if err := json.Unmarshal(tracked, out); err != nil {
		return nil, NewInternalError(err)
	}
	return out, nil
}

// trackStatus returns the managedFields a status update of obj by ctx's
// manager leaves, for WriteOptions.ManagedFields; nil without a manager.
func (s *Server) trackStatus(ctx context.Context, obj api.Object) ([]api.ManagedFieldsEntry, error) {
	manager := FieldManager(ctx)
	if manager == "" {
		return nil, nil
	}
	k, err := s.kindOf(obj)
	if err != nil || k.toStored != nil || !k.hasStatus {
		return nil, nil // the update itself reports it
	}
	old, ok := s.currentOf(k, obj)
	if !ok {
		return nil, nil
	}
	oldJSON, err := json.Marshal(old)
	if err != nil {
		return nil, NewInternalError(err)
	}
	newJSON, err := json.Marshal(withStatus(old, obj))
	if err != nil {
		return nil, NewInternalError(err)
	}
	tracked, err := patch.TrackSubresourceUpdate(k.kind, "status", oldJSON, newJSON, manager, s.clock.Now())
	if err != nil {
		return nil, NewBadRequest("recording the field manager " + manager + ": " + err.Error())
	}
	var out struct {
		Metadata struct {
			ManagedFields []api.ManagedFieldsEntry `json:"managedFields"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(tracked, &out); err != nil {
		return nil, NewInternalError(err)
	}
	if out.Metadata.ManagedFields == nil {
		return []api.ManagedFieldsEntry{}, nil
	}
	return out.Metadata.ManagedFields, nil
}

// currentOf returns the stored state of the object obj names.
func (s *Server) currentOf(k *kind, obj api.Object) (api.Object, bool) {
	m := obj.GetObjectMeta()
	ns := m.Namespace
	if !k.namespaced {
		ns = ""
	}
	cur, err := s.store.Get(k.key(ns, m.Name), 0)
	if err != nil {
		return nil, false
	}
	return cur.Value, true
}
