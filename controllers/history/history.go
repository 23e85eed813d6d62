// Package history holds what the controllers that keep ControllerRevisions
// share — the daemon set and stateful set controllers: a revision records
// a pod template as the strategic merge patch `kubectl rollout undo` sends
// back, is named "<parent>-<hash>", and is numbered above every older one;
// going back to an old template renumbers its revision rather than making
// a new one, and old revisions beyond the parent's revisionHistoryLimit are
// deleted. The functions here are pure but Create: they decide, the controllers
// write.
//
// It mirrors kube-controller-manager's pkg/controller/history
// (controller_history.go: ControllerRevisionName, NewControllerRevision,
// FindEqualRevisions, SortControllerRevisions) and the getPatch, Match and
// cleanupHistory each of pkg/controller/daemon and
// pkg/controller/statefulset repeats (v1.32). Where it differs: the hash is
// deployment.ComputeHash of the template and the collision count (FNV over
// the template's JSON), not upstream's hash of the revision's data, so
// names differ from a real cluster's while following the same rule.
//
// It may import api, client and controllers/deployment (ComputeHash).
// It holds no state; Create is its one write.
package history

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/controllers/deployment"
)

// HashLabel labels each revision with its hash. Kubernetes:
// ControllerRevisionHashLabel.
const HashLabel = "controller-revision-hash"

// DefaultHistoryLimit is how many old revisions a parent keeps when its
// revisionHistoryLimit is unset.
const DefaultHistoryLimit = 10

// Parent is the object whose revisions these are: a daemon set or a
// stateful set, as the functions here need it.
type Parent struct {
	// Meta is the parent's metadata: its name, namespace and annotations
	// name and annotate the revisions.
	Meta *api.ObjectMeta
	// Ref is the controller reference each revision carries.
	Ref api.OwnerReference
	// Template is the pod template a revision records.
	Template *api.PodTemplateSpec
	// CollisionCount is the parent's status.collisionCount.
	CollisionCount *int32
	// HistoryLimit is the parent's revisionHistoryLimit; nil means
	// DefaultHistoryLimit.
	HistoryLimit *int32
}

// Patch is what a revision of template holds: a strategic merge patch that
// replaces spec.template, the keys in order, as kubectl rollout undo sends
// it back. Kubernetes: getPatch.
func Patch(template *api.PodTemplateSpec) ([]byte, error) {
	raw, err := json.Marshal(template)
	if err != nil {
		return nil, err
	}
	var t map[string]any
	if err := json.Unmarshal(raw, &t); err != nil {
		return nil, err
	}
	t["$patch"] = "replace"
	return json.Marshal(map[string]any{"spec": map[string]any{"template": t}})
}

// Match reports whether revision records template. Kubernetes: Match.
func Match(template *api.PodTemplateSpec, revision *api.ControllerRevision) bool {
	patch, err := Patch(template)
	return err == nil && bytes.Equal(patch, revision.Data)
}

// Hash is the hash of p's current template, which names its revision
// "<parent>-<hash>". Kubernetes: HashControllerRevision.
func Hash(p Parent) string { return deployment.ComputeHash(p.Template, p.CollisionCount) }

// Name is the name of a revision of parent's: the name cut to 223
// characters, a dash, the hash. Kubernetes: ControllerRevisionName.
func Name(parent, hash string) string {
	if len(parent) > 223 {
		parent = parent[:223]
	}
	return parent + "-" + hash
}

// Snapshot is the revision of p's current template numbered revision:
// named by Hash, labelled with the template's labels and the hash,
// annotated as the parent is, controlled by it. Kubernetes:
// NewControllerRevision.
func Snapshot(p Parent, revision int64) (*api.ControllerRevision, error) {
	patch, err := Patch(p.Template)
	if err != nil {
		return nil, err
	}
	hash := Hash(p)
	labels := make(map[string]string, len(p.Template.Metadata.Labels)+1)
	for k, v := range p.Template.Metadata.Labels {
		labels[k] = v
	}
	labels[HashLabel] = hash
	var annotations map[string]string
	if len(p.Meta.Annotations) > 0 {
		annotations = make(map[string]string, len(p.Meta.Annotations))
		for k, v := range p.Meta.Annotations {
			annotations[k] = v
		}
	}
	return &api.ControllerRevision{
		Metadata: api.ObjectMeta{
			Name: Name(p.Meta.Name, hash), Namespace: p.Meta.Namespace,
			Labels: labels, Annotations: annotations,
			OwnerReferences: []api.OwnerReference{p.Ref},
		},
		Data:     patch,
		Revision: revision,
	}, nil
}

// History is what a sync does with a parent's revisions before it touches
// pods. Kubernetes: the daemon set's constructHistory and
// dedupCurHistories, the stateful set's getStatefulSetRevisions.
type History struct {
	// Current is the revision of the current template, when one exists.
	Current *api.ControllerRevision
	// Old are the other revisions.
	Old []*api.ControllerRevision
	// Create is the revision to create when none is current (Current is
	// then nil).
	Create *api.ControllerRevision
	// Renumber is Current to update with its new number, when rolling back
	// made an old template current again.
	Renumber *api.ControllerRevision
	// Label are revisions to update with the hash label they lack.
	Label []*api.ControllerRevision
	// Duplicates are other revisions of the current template: the daemon
	// set folds them into Current.
	Duplicates []*api.ControllerRevision
}

// Decide splits revisions (those p controls) into the current and the old,
// and says which to create, renumber, label and fold: the current revision
// is numbered above every old one.
func Decide(p Parent, revisions []*api.ControllerRevision) (History, error) {
	var h History
	var current []*api.ControllerRevision
	for _, r := range revisions {
		if _, ok := r.Metadata.Labels[HashLabel]; !ok {
			labelled := r.DeepCopy()
			if labelled.Metadata.Labels == nil {
				labelled.Metadata.Labels = map[string]string{}
			}
			labelled.Metadata.Labels[HashLabel] = labelled.Metadata.Name
			h.Label = append(h.Label, labelled)
			r = labelled
		}
		if Match(p.Template, r) {
			current = append(current, r)
		} else {
			h.Old = append(h.Old, r)
		}
	}
	next := maxRevision(h.Old) + 1
	if len(current) == 0 {
		cr, err := Snapshot(p, next)
		if err != nil {
			return h, fmt.Errorf("%s: %w", api.KeyOf(p.Meta), err)
		}
		h.Create = cr
		return h, nil
	}
	// The highest-numbered current revision stays; the others go.
	keep := slices.MaxFunc(current, Compare)
	for _, r := range current {
		if r != keep {
			h.Duplicates = append(h.Duplicates, r)
		}
	}
	h.Current = keep
	if keep.Revision < next {
		renumbered := keep.DeepCopy()
		renumbered.Revision = next
		h.Renumber, h.Current = renumbered, renumbered
	}
	return h, nil
}

// Compare orders revisions by number, then name. Kubernetes:
// SortControllerRevisions.
func Compare(a, b *api.ControllerRevision) int {
	if a.Revision != b.Revision {
		if a.Revision < b.Revision {
			return -1
		}
		return 1
	}
	if a.Metadata.Name < b.Metadata.Name {
		return -1
	}
	if a.Metadata.Name > b.Metadata.Name {
		return 1
	}
	return 0
}

func maxRevision(revisions []*api.ControllerRevision) int64 {
	var m int64
	for _, r := range revisions {
		m = max(m, r.Revision)
	}
	return m
}

// ToDelete are the old revisions beyond p's history limit, oldest first,
// sparing those live names (a live pod still runs them; the caller says
// whether by hash or by name). Kubernetes: cleanupHistory.
func ToDelete(p Parent, old []*api.ControllerRevision, live func(*api.ControllerRevision) bool) []*api.ControllerRevision {
	keep := DefaultHistoryLimit
	if p.HistoryLimit != nil {
		keep = int(*p.HistoryLimit)
	}
	toKill := len(old) - keep
	if toKill <= 0 {
		return nil
	}
	sorted := slices.Clone(old)
	slices.SortFunc(sorted, Compare)
	var out []*api.ControllerRevision
	for _, r := range sorted {
		if toKill <= 0 {
			break
		}
		if live(r) {
			continue
		}
		out = append(out, r)
		toKill--
	}
	return out
}

// Writer is what Create writes through. client.Client and
// *apiserver.Server satisfy it.
type Writer interface {
	Get(ctx context.Context, resource, namespace, name string, opts client.GetOptions) (api.Object, error)
	Create(ctx context.Context, obj api.Object, opts ...client.WriteOption) (api.Object, error)
}

// Create creates the revision of p's current template numbered revision.
// A revision of that name recording another template is a hash collision:
// the collision count is raised, which renames the revision, until a name
// is free or records the template. It returns the revision and the
// collision count the parent's status should carry. Kubernetes:
// realHistory.CreateControllerRevision.
func Create(ctx context.Context, w Writer, p Parent, revision int64) (*api.ControllerRevision, *int32, error) {
	count := p.CollisionCount
	for {
		p.CollisionCount = count
		cr, err := Snapshot(p, revision)
		if err != nil {
			return nil, count, err
		}
		created, err := w.Create(ctx, cr)
		if err == nil {
			return created.(*api.ControllerRevision), count, nil
		}
		if !apierrors.IsAlreadyExists(err) {
			return nil, count, err
		}
		obj, err := w.Get(ctx, client.ControllerRevisions, cr.Metadata.Namespace, cr.Metadata.Name, client.GetOptions{})
		if err != nil {
			return nil, count, err
		}
		if existing := obj.(*api.ControllerRevision); bytes.Equal(existing.Data, cr.Data) {
			return existing, count, nil
		}
		n := int32(1)
		if count != nil {
			n = *count + 1
		}
		count = &n
	}
}
