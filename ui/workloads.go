package ui

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/miniplane/miniplane/api"
)

// revisionAnnotation is the Deployment controller's revision of a
// ReplicaSet (and of the Deployment: its newest ReplicaSet's). Kubernetes:
// deploymentutil.RevisionAnnotation.
const revisionAnnotation = "deployment.kubernetes.io/revision"

// progressDeadlineExceeded is the Progressing condition's reason once a
// rollout has made no progress for progressDeadlineSeconds. Kubernetes:
// deploymentutil.TimedOutReason.
const progressDeadlineExceeded = "ProgressDeadlineExceeded"

// DeploymentView is one Deployment, its ReplicaSets and their pods.
type DeploymentView struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// Desired is spec.replicas; the rest are the status's counts, as
	// `kubectl get deployments` prints them (READY is Ready/Desired,
	// UP-TO-DATE Updated, AVAILABLE Available).
	Desired   int32 `json:"desired"`
	Current   int32 `json:"current"`
	Updated   int32 `json:"updated"`
	Ready     int32 `json:"ready"`
	Available int32 `json:"available"`
	// Generation and Observed say whether the controller has seen the
	// latest spec.
	Generation int64 `json:"generation"`
	Observed   int64 `json:"observed"`
	// Revision is the deployment's revision annotation: its newest
	// ReplicaSet's.
	Revision int64    `json:"revision,omitempty"`
	Images   []string `json:"images"`
	Strategy string   `json:"strategy"`
	Paused   bool     `json:"paused,omitempty"`
	// Conditions are Available, Progressing and ReplicaFailure, with
	// their reasons (NewReplicaSetAvailable, ReplicaSetUpdated, ...).
	Conditions []ConditionView `json:"conditions"`
	// Rollout is what `kubectl rollout status` would print, and
	// RolledOut whether it would exit.
	Rollout   string `json:"rollout"`
	RolledOut bool   `json:"rolledOut"`
	// ReplicaSets are the ReplicaSets it controls, newest revision first.
	ReplicaSets []ReplicaSetView `json:"replicaSets"`
}

// ConditionView is one condition of a workload.
type ConditionView struct {
	Type    string `json:"type"`
	Status  string `json:"status"`
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
}

// ReplicaSetView is one ReplicaSet and its pods.
type ReplicaSetView struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// Revision is the revision annotation its Deployment gave it; 0
	// when it has none.
	Revision int64 `json:"revision,omitempty"`
	// Desired is spec.replicas; Current, Ready and Available the
	// status's counts (kubectl's DESIRED, CURRENT, READY).
	Desired    int32     `json:"desired"`
	Current    int32     `json:"current"`
	Ready      int32     `json:"ready"`
	Available  int32     `json:"available"`
	Generation int64     `json:"generation"`
	Observed   int64     `json:"observed"`
	Images     []string  `json:"images"`
	Created    time.Time `json:"created,omitzero"`
	Pods       PodGroup  `json:"pods"`
}

// workloadViews groups pods under the ReplicaSet or replication
// controller that controls them, and ReplicaSets under the Deployment that
// controls them, by the controller ownerReference's uid (a reference to a
// deleted owner whose name was reused matches nothing). Objects come in
// key order and keep it, but for a Deployment's ReplicaSets: newest
// revision first.
func workloadViews(deployments, replicaSets, rcs []api.Object, pods []podInfo) ([]DeploymentView, []ReplicaSetView, []RCView) {
	owners := make(map[api.UID]*groupBuilder, len(replicaSets)+len(rcs))
	for _, o := range replicaSets {
		owners[o.GetObjectMeta().UID] = newGroup()
	}
	for _, o := range rcs {
		owners[o.GetObjectMeta().UID] = newGroup()
	}
	for i := range pods {
		if ref := controllerOf(&pods[i].pod.Metadata); ref != nil && (ref.Kind == "ReplicaSet" || ref.Kind == "ReplicationController") {
			if g := owners[ref.UID]; g != nil {
				g.add(&pods[i])
			}
		}
	}

	deps := make([]DeploymentView, len(deployments))
	byUID := make(map[api.UID]int, len(deployments))
	for i, o := range deployments {
		d := o.(*api.Deployment)
		deps[i] = deploymentView(d)
		byUID[d.Metadata.UID] = i
	}
	bare := []ReplicaSetView{}
	for _, o := range replicaSets {
		rs := o.(*api.ReplicaSet)
		v := replicaSetView(rs, owners[rs.Metadata.UID].done())
		if ref := controllerOf(&rs.Metadata); ref != nil && ref.Kind == "Deployment" {
			if i, ok := byUID[ref.UID]; ok {
				deps[i].ReplicaSets = append(deps[i].ReplicaSets, v)
				continue
			}
		}
		bare = append(bare, v)
	}
	for i := range deps {
		slices.SortStableFunc(deps[i].ReplicaSets, newestFirst)
	}

	rcViews := make([]RCView, 0, len(rcs))
	for _, o := range rcs {
		rc := o.(*api.ReplicationController)
		v := RCView{
			Namespace: rc.Metadata.Namespace, Name: rc.Metadata.Name, Desired: replicas(rc.Spec.Replicas),
			Current: rc.Status.Replicas, Ready: rc.Status.ReadyReplicas,
			Generation: rc.Metadata.Generation, Observed: rc.Status.ObservedGeneration,
			Images: []string{}, Pods: owners[rc.Metadata.UID].done(),
		}
		if rc.Spec.Template != nil {
			v.Images = images(&rc.Spec.Template.Spec)
		}
		rcViews = append(rcViews, v)
	}
	return deps, bare, rcViews
}

// newestFirst orders ReplicaSets by revision, then creation, newest
// first, then by name.
func newestFirst(a, b ReplicaSetView) int {
	if c := cmp.Compare(b.Revision, a.Revision); c != 0 {
		return c
	}
	if c := b.Created.Compare(a.Created); c != 0 {
		return c
	}
	return cmp.Compare(a.Name, b.Name)
}

func deploymentView(d *api.Deployment) DeploymentView {
	v := DeploymentView{
		Namespace: d.Metadata.Namespace, Name: d.Metadata.Name, Desired: replicas(d.Spec.Replicas),
		Current: d.Status.Replicas, Updated: d.Status.UpdatedReplicas, Ready: d.Status.ReadyReplicas,
		Available: d.Status.AvailableReplicas, Generation: d.Metadata.Generation, Observed: d.Status.ObservedGeneration,
		Revision: revisionOf(&d.Metadata), Images: images(&d.Spec.Template.Spec), Strategy: d.Spec.Strategy.Type,
		Paused: d.Spec.Paused, Conditions: []ConditionView{}, ReplicaSets: []ReplicaSetView{},
	}
	if v.Strategy == "" {
		v.Strategy = api.RollingUpdateDeploymentStrategyType
	}
	for _, c := range d.Status.Conditions {
		v.Conditions = append(v.Conditions, ConditionView{Type: c.Type, Status: string(c.Status), Reason: c.Reason, Message: c.Message})
	}
	v.Rollout, v.RolledOut = rolloutStatus(d)
	return v
}

// rolloutStatus is what `kubectl rollout status` prints of d, and whether
// it would be done. Kubernetes: kubectl's DeploymentStatusViewer.
func rolloutStatus(d *api.Deployment) (string, bool) {
	if d.Metadata.Generation > d.Status.ObservedGeneration {
		return "Waiting for deployment spec update to be observed...", false
	}
	for _, c := range d.Status.Conditions {
		if c.Type == api.DeploymentProgressing && c.Reason == progressDeadlineExceeded {
			return fmt.Sprintf("deployment %q exceeded its progress deadline", d.Metadata.Name), false
		}
	}
	st, want := d.Status, replicas(d.Spec.Replicas)
	switch {
	case st.UpdatedReplicas < want:
		return fmt.Sprintf("Waiting for deployment %q rollout to finish: %d out of %d new replicas have been updated...", d.Metadata.Name, st.UpdatedReplicas, want), false
	case st.Replicas > st.UpdatedReplicas:
		return fmt.Sprintf("Waiting for deployment %q rollout to finish: %d old replicas are pending termination...", d.Metadata.Name, st.Replicas-st.UpdatedReplicas), false
	case st.AvailableReplicas < st.UpdatedReplicas:
		return fmt.Sprintf("Waiting for deployment %q rollout to finish: %d of %d updated replicas are available...", d.Metadata.Name, st.AvailableReplicas, st.UpdatedReplicas), false
	}
	return fmt.Sprintf("deployment %q successfully rolled out", d.Metadata.Name), true
}

func replicaSetView(rs *api.ReplicaSet, pods PodGroup) ReplicaSetView {
	return ReplicaSetView{
		Namespace: rs.Metadata.Namespace, Name: rs.Metadata.Name, Revision: revisionOf(&rs.Metadata),
		Desired: replicas(rs.Spec.Replicas), Current: rs.Status.Replicas, Ready: rs.Status.ReadyReplicas,
		Available: rs.Status.AvailableReplicas, Generation: rs.Metadata.Generation, Observed: rs.Status.ObservedGeneration,
		Images: images(&rs.Spec.Template.Spec), Created: rs.Metadata.CreationTimestamp.Time, Pods: pods,
	}
}

// revisionOf reads the revision annotation; 0 when absent or not a number.
func revisionOf(m *api.ObjectMeta) int64 {
	n, _ := strconv.ParseInt(m.Annotations[revisionAnnotation], 10, 64)
	return n
}

// replicas is spec.replicas, 1 when unset (the API server defaults it).
func replicas(r *int32) int32 {
	if r == nil {
		return 1
	}
	return *r
}

// images are a pod template's containers' images.
func images(spec *api.PodSpec) []string {
	out := make([]string, 0, len(spec.Containers))
	for _, c := range spec.Containers {
		out = append(out, c.Image)
	}
	return out
}
