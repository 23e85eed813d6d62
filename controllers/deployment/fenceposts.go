package deployment

import (
	"strconv"

	"github.com/miniplane/miniplane/api"
)

// Fenceposts are the figures one step of a rolling update was decided
// with: maxSurge and maxUnavailable resolved against the replicas
// (ResolveFenceposts: a percentage of surge rounds up, of unavailability
// down), and how many pods the deployment's sets asked for, and had
// available, when the controller decided. A new set grows while Pods is
// under MaxPods; old sets shrink while Available is above MinAvailable.
//
// They are not in Kubernetes: upstream decides with the same figures but
// keeps them to itself. Here the ScalingReplicaSet event carries them as
// annotations (Annotations, FencepostsOf), so that a reader — the demo's
// narrator — can say why the controller scaled a set, with the figures it
// had when it acted rather than ones read a moment later.
type Fenceposts struct {
	Replicas       int32 // the deployment's spec.replicas
	MaxSurge       int32 // pods allowed above Replicas
	MaxUnavailable int32 // pods allowed to be unavailable, at most Replicas
	Pods           int32 // the active sets' spec.replicas summed
	Available      int32 // the sets' available replicas summed (their status)
}

// MaxPods is the most pods the sets may ask for: replicas + maxSurge.
func (f Fenceposts) MaxPods() int32 { return f.Replicas + f.MaxSurge }

// MinAvailable is the fewest available pods a scale-down may leave:
// replicas − maxUnavailable.
func (f Fenceposts) MinAvailable() int32 { return f.Replicas - f.MaxUnavailable }

// RollingFenceposts returns the figures a rolling update of d decides
// with over allRSs (which may hold a nil new set).
func RollingFenceposts(d *api.Deployment, allRSs []*api.ReplicaSet) Fenceposts {
	return Fenceposts{
		Replicas: desiredReplicas(d), MaxSurge: MaxSurge(d), MaxUnavailable: MaxUnavailable(d),
		Pods: ReplicaCount(allRSs), Available: AvailableReplicaCount(allRSs),
	}
}

// ReasonScalingReplicaSet is the reason of the event the controller
// records at each resize of a set: "Scaled up replica set web-5d8f from 0
// to 1". Kubernetes: the same reason, from scaleReplicaSet.
const ReasonScalingReplicaSet = "ScalingReplicaSet"

// The annotations of a ScalingReplicaSet event that a rolling update
// decided: its Fenceposts. A scale no rolling-update rule decided (the
// proportional resize of a scaled or paused deployment, Recreate) carries
// none.
const (
	AnnotationReplicas       = "deployment.miniplane.io/replicas"
	AnnotationMaxSurge       = "deployment.miniplane.io/max-surge"
	AnnotationMaxUnavailable = "deployment.miniplane.io/max-unavailable"
	AnnotationPods           = "deployment.miniplane.io/pods"
	AnnotationAvailable      = "deployment.miniplane.io/available"
)

// Annotations returns f as a ScalingReplicaSet event's annotations.
func (f Fenceposts) Annotations() map[string]string {
	itoa := func(n int32) string { return strconv.FormatInt(int64(n), 10) }
	return map[string]string{
		AnnotationReplicas: itoa(f.Replicas), AnnotationMaxSurge: itoa(f.MaxSurge),
		AnnotationMaxUnavailable: itoa(f.MaxUnavailable), AnnotationPods: itoa(f.Pods),
		AnnotationAvailable: itoa(f.Available),
	}
}

// FencepostsOf reads the Fenceposts an event's annotations carry; false if
// they carry none, or not all.
func FencepostsOf(annotations map[string]string) (Fenceposts, bool) {
	var f Fenceposts
	for key, dst := range map[string]*int32{
		AnnotationReplicas: &f.Replicas, AnnotationMaxSurge: &f.MaxSurge,
		AnnotationMaxUnavailable: &f.MaxUnavailable, AnnotationPods: &f.Pods,
		AnnotationAvailable: &f.Available,
	} {
		n, err := strconv.ParseInt(annotations[key], 10, 32)
		if err != nil {
			return Fenceposts{}, false
		}
		*dst = int32(n)
	}
	return f, true
}
