package sim

import (
	"context"
	"fmt"
	"time"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/controllers/persistentvolume"
	"github.com/miniplane/miniplane/controllers/statefulset"
)

// The stateful set controller's invariant.
//
// statefulset-ordered, checked at each pod creation: under OrderedReady, a
// stateful set's pod at ordinal N+1 is created only while its pods at
// ordinals start..N exist, as stored, and are Ready.

// checkStatefulSetCreate checks statefulset-ordered after pod was created.
func (s *Sim) checkStatefulSetCreate(pod *api.Pod) {
	ref := api.GetControllerOf(&pod.Metadata)
	if ref == nil || ref.Kind != "StatefulSet" {
		return
	}
	obj, err := s.srv.Get(context.Background(), client.StatefulSets, pod.Metadata.Namespace, ref.Name, client.GetOptions{})
	if err != nil {
		return
	}
	set := obj.(*api.StatefulSet)
	if set.Metadata.UID != ref.UID || set.Spec.PodManagementPolicy == statefulset.Parallel {
		return
	}
	ready := map[string]bool{}
	for _, p := range s.pods(pod.Metadata.Namespace) {
		ready[p.Metadata.Name] = api.IsPodReady(p) && p.Metadata.DeletionTimestamp == nil
	}
	for o := statefulset.StartOrdinal(set); o < statefulset.Ordinal(pod); o++ {
		if below := statefulset.PodName(set, o); !ready[below] {
			s.violate("statefulset-ordered", fmt.Sprintf("%s was created while %s was not ready", pod.Metadata.Name, below),
				"StatefulSet "+api.KeyOf(&set.Metadata), "Pod "+api.KeyOf(&pod.Metadata))
			return
		}
	}
}

// statefulSetScenario creates the default storage class, whose
// provisioner the persistentvolume-binder simulates, and stateful set web
// of 3 (nginx:1, a claim template www, so that each pod waits for its
// claim to be bound), sets image nginx:2 at 20s, scales it to 2 at 40s and
// rolls back to nginx:1 at 50s: at the end web-0 and web-1 run the first
// template.
func statefulSetScenario(s *Sim, d time.Duration) {
	s.userAction(0, d, "create the default storage class and stateful set web of 3 on nginx:1", func(ctx context.Context) error {
		return s.createAll(ctx, NewDefaultStorageClass(), NewStatefulSet("default", "web", "nginx:1", 3))
	})
	image := func(img string) func(*api.StatefulSet) {
		return func(set *api.StatefulSet) { set.Spec.Template.Spec.Containers[0].Image = img }
	}
	s.userAction(20*time.Second, d, "set web's image to nginx:2", func(ctx context.Context) error {
		return s.changeStatefulSet(ctx, "default", "web", image("nginx:2"))
	})
	s.userAction(40*time.Second, d, "scale web to 2", func(ctx context.Context) error {
		return s.changeStatefulSet(ctx, "default", "web", func(set *api.StatefulSet) { set.Spec.Replicas = ptrTo(int32(2)) })
	})
	s.userAction(50*time.Second, d, "roll web back to nginx:1", func(ctx context.Context) error {
		return s.changeStatefulSet(ctx, "default", "web", image("nginx:1"))
	})
}

func ptrTo[T any](v T) *T { return &v }

// changeStatefulSet changes a stateful set as its user would: read,
// change, write, again on a conflict.
func (s *Sim) changeStatefulSet(ctx context.Context, namespace, name string, change func(*api.StatefulSet)) error {
	for {
		obj, err := s.user.Get(ctx, client.StatefulSets, namespace, name, client.GetOptions{})
		if err != nil {
			return err
		}
		set := obj.(*api.StatefulSet).DeepCopy()
		change(set)
		_, err = s.user.Update(ctx, set)
		if !apierrors.IsConflict(err) {
			return err
		}
	}
}

// NewStatefulSet returns an OrderedReady, RollingUpdate stateful set of
// replicas pods labelled app=<name>, one container running image, and a
// claim template www of 1Gi.
func NewStatefulSet(namespace, name, image string, replicas int32) *api.StatefulSet {
	labels := map[string]string{"app": name}
	return &api.StatefulSet{
		TypeMeta: api.TypeMeta{APIVersion: "apps/v1", Kind: "StatefulSet"},
		Metadata: api.ObjectMeta{Namespace: namespace, Name: name},
		Spec: api.StatefulSetSpec{
			Replicas: &replicas, ServiceName: name,
			Selector: &api.LabelSelector{MatchLabels: labels},
			Template: api.PodTemplateSpec{
				Metadata: api.ObjectMeta{Labels: labels},
				Spec:     api.PodSpec{Containers: []api.Container{{Name: name, Image: image}}},
			},
			VolumeClaimTemplates: []api.PersistentVolumeClaim{{
				Metadata: api.ObjectMeta{Name: "www"},
				Spec: api.PersistentVolumeClaimSpec{
					AccessModes: []api.PersistentVolumeAccessMode{api.ReadWriteOnce},
					Resources:   api.VolumeResourceRequirements{Requests: api.ResourceList{"storage": "1Gi"}},
				},
			}},
		},
	}
}

// NewDefaultStorageClass returns the storage class a cluster's installer
// makes the default: "standard", of the simulated provisioner.
func NewDefaultStorageClass() *api.StorageClass {
	return &api.StorageClass{
		TypeMeta:    api.TypeMeta{APIVersion: "storage.k8s.io/v1", Kind: "StorageClass"},
		Metadata:    api.ObjectMeta{Name: "standard", Annotations: map[string]string{"storageclass.kubernetes.io/is-default-class": "true"}},
		Provisioner: persistentvolume.Provisioner,
	}
}
