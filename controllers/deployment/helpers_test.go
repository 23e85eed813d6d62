package deployment

import (
	"time"

	"github.com/miniplane/miniplane/api"
)

// Upstream's test fixtures (sync_test.go's newDeployment and rs,
// newRSWithStatus), with times from fixed instants.
var (
	t0             = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	noTimestamp    = time.Time{}
	olderTimestamp = t0.Add(-2 * time.Minute)
	oldTimestamp   = t0.Add(-time.Minute)
	newTimestamp   = t0
)

func intOrStr(i int) *api.IntOrString { v := api.FromInt(i); return &v }

func pct(s string) *api.IntOrString { v := api.FromString(s); return &v }

func i32(i int32) *int32 { return &i }

// newDeployment is upstream's: a rolling update with maxSurge and
// maxUnavailable 0 unless given.
func newDeployment(name string, replicas int32, historyLimit *int32, maxSurge, maxUnavailable *api.IntOrString, selector map[string]string) *api.Deployment {
	d := &api.Deployment{
		Metadata: api.ObjectMeta{UID: api.UID("uid-" + name), Name: name, Namespace: "default", Annotations: map[string]string{}},
		Spec: api.DeploymentSpec{
			Strategy: api.DeploymentStrategy{
				Type:          api.RollingUpdateDeploymentStrategyType,
				RollingUpdate: &api.RollingUpdateDeployment{MaxUnavailable: intOrStr(0), MaxSurge: intOrStr(0)},
			},
			Replicas: &replicas,
			Selector: &api.LabelSelector{MatchLabels: selector},
			Template: api.PodTemplateSpec{
				Metadata: api.ObjectMeta{Labels: selector},
				Spec:     api.PodSpec{Containers: []api.Container{{Name: "nginx", Image: "nginx"}}},
			},
			RevisionHistoryLimit: historyLimit,
		},
	}
	if maxSurge != nil {
		d.Spec.Strategy.RollingUpdate.MaxSurge = maxSurge
	}
	if maxUnavailable != nil {
		d.Spec.Strategy.RollingUpdate.MaxUnavailable = maxUnavailable
	}
	return d
}

// rs is upstream's: a replica set of that size, its UID its name.
func rs(name string, replicas int32, selector map[string]string, created time.Time) *api.ReplicaSet {
	return &api.ReplicaSet{
		Metadata: api.ObjectMeta{
			Name: name, Namespace: "default", UID: api.UID(name),
			CreationTimestamp: api.NewTime(created), Labels: selector,
		},
		Spec: api.ReplicaSetSpec{
			Replicas: &replicas,
			Selector: &api.LabelSelector{MatchLabels: selector},
			Template: api.PodTemplateSpec{Metadata: api.ObjectMeta{Labels: selector}},
		},
	}
}

func newRSWithStatus(name string, specReplicas, statusReplicas int32, selector map[string]string) *api.ReplicaSet {
	out := rs(name, specReplicas, selector, noTimestamp)
	out.Status.Replicas = statusReplicas
	return out
}

// sizes returns the planned size of every set a plan touches, by name
// (the last plan for a set wins).
func sizes(plan []Scale) map[string]int32 {
	out := map[string]int32{}
	for _, s := range plan {
		out[s.RS.Metadata.Name] = s.To
	}
	return out
}
