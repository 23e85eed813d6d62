package daemon

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/controllers/deployment"
)

// Patch is what a daemon set's ControllerRevision holds: a strategic merge
// patch that replaces spec.template with ds's, the keys in order, as
// kubectl rollout undo sends it back. Kubernetes: getPatch.
func Patch(ds *api.DaemonSet) ([]byte, error) {
	raw, err := json.Marshal(&ds.Spec.Template)
	if err != nil {
		return nil, err
	}
	var template map[string]any
	if err := json.Unmarshal(raw, &template); err != nil {
		return nil, err
	}
	template["$patch"] = "replace"
	return json.Marshal(map[string]any{"spec": map[string]any{"template": template}})
}

// Match reports whether revision records ds's current template.
// Kubernetes: Match.
func Match(ds *api.DaemonSet, revision *api.ControllerRevision) bool {
	patch, err := Patch(ds)
	return err == nil && bytes.Equal(patch, revision.Data)
}

// RevisionHash is the controller-revision-hash of ds's current template,
// which names its revision "<ds>-<hash>" and labels its pods. Kubernetes:
// controller.ComputeHash of the template and the collision count.
func RevisionHash(ds *api.DaemonSet) string {
	return deployment.ComputeHash(&ds.Spec.Template, ds.Status.CollisionCount)
}

// RevisionName is the name of a revision of ds's: the name cut to 223
// characters, a dash, the hash. Kubernetes: history.ControllerRevisionName.
func RevisionName(ds string, hash string) string {
	if len(ds) > 223 {
		ds = ds[:223]
	}
	return ds + "-" + hash
}

// Snapshot is the revision of ds's current template numbered revision:
// named by RevisionHash, labelled with the template's labels and the hash,
// annotated as ds is, controlled by ds. Kubernetes: snapshot.
func Snapshot(ds *api.DaemonSet, revision int64) (*api.ControllerRevision, error) {
	patch, err := Patch(ds)
	if err != nil {
		return nil, err
	}
	hash := RevisionHash(ds)
	labels := make(map[string]string, len(ds.Spec.Template.Metadata.Labels)+1)
	for k, v := range ds.Spec.Template.Metadata.Labels {
		labels[k] = v
	}
	labels[api.DaemonSetUniqueLabelKey] = hash
	var annotations map[string]string
	if len(ds.Metadata.Annotations) > 0 {
		annotations = make(map[string]string, len(ds.Metadata.Annotations))
		for k, v := range ds.Metadata.Annotations {
			annotations[k] = v
		}
	}
	return &api.ControllerRevision{
		Metadata: api.ObjectMeta{
			Name: RevisionName(ds.Metadata.Name, hash), Namespace: ds.Metadata.Namespace,
			Labels: labels, Annotations: annotations,
			OwnerReferences: []api.OwnerReference{controllerRef(ds)},
		},
		Data:     patch,
		Revision: revision,
	}, nil
}

// History is what a sync does with a daemon set's revisions before it
// touches pods. Kubernetes: constructHistory and dedupCurHistories.
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
	// Duplicates are other revisions of the current template, to delete
	// once their pods are relabelled with Current's hash.
	Duplicates []*api.ControllerRevision
}

// DecideHistory splits revisions (those ds controls) into the current and
// the old, and says which to create, renumber, label and fold: the
// current revision is numbered above every old one. Kubernetes:
// constructHistory and dedupCurHistories.
func DecideHistory(ds *api.DaemonSet, revisions []*api.ControllerRevision) (History, error) {
	var h History
	var current []*api.ControllerRevision
	for _, r := range revisions {
		if _, ok := r.Metadata.Labels[api.DaemonSetUniqueLabelKey]; !ok {
			labelled := r.DeepCopy()
			if labelled.Metadata.Labels == nil {
				labelled.Metadata.Labels = map[string]string{}
			}
			labelled.Metadata.Labels[api.DaemonSetUniqueLabelKey] = labelled.Metadata.Name
			h.Label = append(h.Label, labelled)
			r = labelled
		}
		if Match(ds, r) {
			current = append(current, r)
		} else {
			h.Old = append(h.Old, r)
		}
	}
	next := maxRevision(h.Old) + 1
	if len(current) == 0 {
		cr, err := Snapshot(ds, next)
		if err != nil {
			return h, fmt.Errorf("daemon set %s: %w", api.KeyOf(&ds.Metadata), err)
		}
		h.Create = cr
		return h, nil
	}
	// The highest-numbered current revision stays; the others go.
	keep := slices.MaxFunc(current, func(a, b *api.ControllerRevision) int { return cmpRevision(a, b) })
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

func cmpRevision(a, b *api.ControllerRevision) int {
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

// RevisionsToDelete are the old revisions beyond ds's revisionHistoryLimit,
// oldest first, sparing those a live pod still runs (liveHashes).
// Kubernetes: cleanupHistory.
func RevisionsToDelete(ds *api.DaemonSet, old []*api.ControllerRevision, liveHashes map[string]bool) []*api.ControllerRevision {
	keep := 10
	if ds.Spec.RevisionHistoryLimit != nil {
		keep = int(*ds.Spec.RevisionHistoryLimit)
	}
	toKill := len(old) - keep
	if toKill <= 0 {
		return nil
	}
	sorted := slices.Clone(old)
	slices.SortFunc(sorted, cmpRevision)
	var out []*api.ControllerRevision
	for _, r := range sorted {
		if toKill <= 0 {
			break
		}
		if liveHashes[r.Metadata.Labels[api.DaemonSetUniqueLabelKey]] {
			continue
		}
		out = append(out, r)
		toKill--
	}
	return out
}
