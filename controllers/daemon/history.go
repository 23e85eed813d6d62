package daemon

import (
	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/controllers/history"
)

// parent is ds as the history package sees it.
func parent(ds *api.DaemonSet) history.Parent {
	return history.Parent{
		Meta: &ds.Metadata, Ref: controllerRef(ds), Template: &ds.Spec.Template,
		CollisionCount: ds.Status.CollisionCount, HistoryLimit: ds.Spec.RevisionHistoryLimit,
	}
}

// Match reports whether revision records ds's current template.
// Kubernetes: Match.
func Match(ds *api.DaemonSet, revision *api.ControllerRevision) bool {
	return history.Match(&ds.Spec.Template, revision)
}

// RevisionHash is the controller-revision-hash of ds's current template,
// which names its revision "<ds>-<hash>" and labels its pods. Kubernetes:
// controller.ComputeHash of the template and the collision count.
func RevisionHash(ds *api.DaemonSet) string { return history.Hash(parent(ds)) }

// DecideHistory splits revisions (those ds controls) into the current and
// the old, and says which to create, renumber, label and fold.
// Kubernetes: constructHistory and dedupCurHistories.
func DecideHistory(ds *api.DaemonSet, revisions []*api.ControllerRevision) (history.History, error) {
	return history.Decide(parent(ds), revisions)
}

// RevisionsToDelete are the old revisions beyond ds's revisionHistoryLimit,
// oldest first, sparing those a live pod still runs (liveHashes).
// Kubernetes: cleanupHistory.
func RevisionsToDelete(ds *api.DaemonSet, old []*api.ControllerRevision, liveHashes map[string]bool) []*api.ControllerRevision {
	return history.ToDelete(parent(ds), old, func(r *api.ControllerRevision) bool {
		return liveHashes[r.Metadata.Labels[api.DaemonSetUniqueLabelKey]]
	})
}
