package apiserver_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client"
)

func webTemplate() api.PodTemplateSpec {
	return api.PodTemplateSpec{
		Metadata: api.ObjectMeta{Labels: map[string]string{"app": "web"}},
		Spec:     api.PodSpec{Containers: []api.Container{{Name: "web", Image: "nginx:1.27"}}},
	}
}

// TestSchedulingKindsServerRules checks the server-owned rules on the kinds
// kube-scheduler reads: defaults applied, status reset on create and kept
// by main updates, generation bumped only by spec changes, a refusal that
// stores nothing, and the scale subresource of replica and stateful sets.
func TestSchedulingKindsServerRules(t *testing.T) {
	s, _ := newServer(t)
	web := &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}}

	t.Run("a refused create stores nothing", func(t *testing.T) {
		for _, obj := range []api.Object{
			&api.PersistentVolume{Metadata: api.ObjectMeta{Name: "pv0"}},
			&api.PersistentVolumeClaim{Metadata: api.ObjectMeta{Name: "c", Namespace: "default"}},
			&api.StorageClass{Metadata: api.ObjectMeta{Name: "sc"}},
			&api.VolumeAttachment{Metadata: api.ObjectMeta{Name: "va"}},
			&api.ReplicaSet{Metadata: api.ObjectMeta{Name: "rs", Namespace: "default"}, Spec: api.ReplicaSetSpec{Template: webTemplate()}},
			&api.StatefulSet{Metadata: api.ObjectMeta{Name: "ss", Namespace: "default"}, Spec: api.StatefulSetSpec{Template: webTemplate()}},
		} {
			rev := s.Store().Rev()
			_, err := s.Create(ctx, obj)
			require.Error(t, err, "%T", obj)
			assert.True(t, apierrors.IsInvalid(err), "%T: %v", obj, err)
			assert.Equal(t, rev, s.Store().Rev(), "%T: stored nothing", obj)
		}
	})

	t.Run("pv: defaults, status reset, status subresource", func(t *testing.T) {
		pv := &api.PersistentVolume{Metadata: api.ObjectMeta{Name: "pv0"},
			Spec: api.PersistentVolumeSpec{Capacity: api.ResourceList{"storage": "10Gi"}, AccessModes: []api.PersistentVolumeAccessMode{api.ReadWriteOnce},
				PersistentVolumeSource: api.PersistentVolumeSource{HostPath: &api.HostPathVolumeSource{Path: "/data"}}},
			Status: api.PersistentVolumeStatus{Phase: api.VolumeBound}}
		created, err := client.For[*api.PersistentVolume](s).Create(ctx, pv)
		require.NoError(t, err)
		assert.Equal(t, api.VolumePending, created.Status.Phase, "the client's status is ignored")
		assert.Equal(t, api.PersistentVolumeReclaimRetain, created.Spec.PersistentVolumeReclaimPolicy)
		assert.NotEmpty(t, created.Metadata.UID)
		assert.Equal(t, int64(1), created.Metadata.Generation)

		st := created.DeepCopy()
		st.Status.Phase = api.VolumeAvailable
		updated, err := s.UpdateStatus(ctx, st)
		require.NoError(t, err)
		assert.Equal(t, api.VolumeAvailable, updated.(*api.PersistentVolume).Status.Phase)
		assert.Equal(t, int64(1), updated.GetObjectMeta().Generation, "a status write is not a spec change")

		main := updated.(*api.PersistentVolume).DeepCopy()
		main.Status.Phase = api.VolumeFailed
		main.Spec.PersistentVolumeReclaimPolicy = api.PersistentVolumeReclaimDelete
		after, err := s.Update(ctx, main)
		require.NoError(t, err)
		assert.Equal(t, api.VolumeAvailable, after.(*api.PersistentVolume).Status.Phase, "a main update keeps the status")
		assert.Equal(t, int64(2), after.GetObjectMeta().Generation)

		src := after.(*api.PersistentVolume).DeepCopy()
		src.Spec.HostPath.Path = "/other"
		rev := s.Store().Rev()
		_, err = s.Update(ctx, src)
		require.True(t, apierrors.IsInvalid(err), "%v", err)
		assert.Contains(t, err.Error(), "spec.persistentvolumesource is immutable after creation")
		assert.Equal(t, rev, s.Store().Rev())
	})

	t.Run("storage class: immutable provisioner", func(t *testing.T) {
		sc, err := client.For[*api.StorageClass](s).Create(ctx, &api.StorageClass{Metadata: api.ObjectMeta{Name: "fast"}, Provisioner: "ebs.csi.aws.com"})
		require.NoError(t, err)
		assert.Equal(t, api.VolumeBindingImmediate, *sc.VolumeBindingMode)
		changed := sc.DeepCopy()
		changed.Provisioner = "other.example.com"
		rev := s.Store().Rev()
		_, err = s.Update(ctx, changed)
		require.True(t, apierrors.IsInvalid(err), "%v", err)
		assert.Contains(t, err.Error(), "provisioner: Forbidden: updates to provisioner are forbidden.")
		assert.Equal(t, rev, s.Store().Rev())
	})

	for _, tc := range []struct {
		resource string
		obj      api.Object
	}{
		{client.ReplicaSets, &api.ReplicaSet{Metadata: api.ObjectMeta{Name: "web", Namespace: "default"},
			Spec: api.ReplicaSetSpec{Replicas: ptr(int32(2)), Selector: web, Template: webTemplate()}}},
		{client.StatefulSets, &api.StatefulSet{Metadata: api.ObjectMeta{Name: "web", Namespace: "default"},
			Spec: api.StatefulSetSpec{Replicas: ptr(int32(2)), Selector: web, Template: webTemplate(), ServiceName: "web"}}},
	} {
		t.Run(tc.resource+": scale subresource", func(t *testing.T) {
			_, err := s.Create(ctx, tc.obj)
			require.NoError(t, err)
			sc, err := s.GetScale(ctx, tc.resource, "default", "web")
			require.NoError(t, err)
			assert.Equal(t, int32(2), sc.Spec.Replicas)
			assert.Equal(t, "app=web", sc.Status.Selector)
			sc.Spec.Replicas = 5
			_, err = s.UpdateScale(ctx, tc.resource, "default", sc, client.WriteOptions{})
			require.NoError(t, err)
			got, err := s.Get(ctx, tc.resource, "default", "web", client.GetOptions{})
			require.NoError(t, err)
			assert.Equal(t, int64(2), got.GetObjectMeta().Generation, "scaling changes the spec")
			sc.Spec.Replicas, sc.Metadata.ResourceVersion = -1, ""
			_, err = s.UpdateScale(ctx, tc.resource, "default", sc, client.WriteOptions{})
			assert.True(t, apierrors.IsInvalid(err), "%v", err)
		})
	}
	t.Run("no scale subresource on a pdb", func(t *testing.T) {
		_, err := s.GetScale(ctx, client.PodDisruptionBudgets, "default", "web")
		assert.True(t, apierrors.IsNotFound(err), "%v", err)
	})
	t.Run("list with a label selector", func(t *testing.T) {
		for _, name := range []string{"a", "b"} {
			_, err := s.Create(ctx, &api.PodDisruptionBudget{Metadata: api.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"pdb": name}},
				Spec: api.PodDisruptionBudgetSpec{Selector: web}})
			require.NoError(t, err)
		}
		l, err := s.List(ctx, client.PodDisruptionBudgets, "default", client.ListOptions{LabelSelector: "pdb=b"})
		require.NoError(t, err)
		require.Len(t, l.Items, 1)
		assert.Equal(t, "b", l.Items[0].GetObjectMeta().Name)
	})
}

// TestStatusUpdateAnnotations checks which kinds' status updates store the
// client's annotations: a Deployment's do, as kube-apiserver's status
// strategy resets only spec and labels there (KCM's deployment controller
// writes its revision annotation with UpdateStatus, and kubectl rollout
// undo reads it back), and a Namespace's, a Service's, a Job's and a
// CronJob's, whose strategies reset only the spec; a ReplicaSet's keep the
// stored ones. Labels and
// spec stay as stored either way, and the generation does not move.
func TestStatusUpdateAnnotations(t *testing.T) {
	const rev = "deployment.kubernetes.io/revision"
	web := &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	three := int32(3)
	for _, tc := range []struct {
		name      string
		obj       api.Object
		setStatus func(api.Object) // changes the status, or not
		want      map[string]string
	}{
		{
			name:      "deployment: annotation and status",
			obj:       &api.Deployment{Metadata: api.ObjectMeta{Name: "d1", Namespace: "default"}, Spec: api.DeploymentSpec{Replicas: &three, Selector: web, Template: webTemplate()}},
			setStatus: func(o api.Object) { o.(*api.Deployment).Status.ObservedGeneration = 1 },
			want:      map[string]string{rev: "1"},
		},
		{
			name:      "deployment: annotation alone",
			obj:       &api.Deployment{Metadata: api.ObjectMeta{Name: "d2", Namespace: "default"}, Spec: api.DeploymentSpec{Replicas: &three, Selector: web, Template: webTemplate()}},
			setStatus: func(api.Object) {},
			want:      map[string]string{rev: "1"},
		},
		{
			name: "namespace: annotation and status",
			obj:  &api.Namespace{Metadata: api.ObjectMeta{Name: "ns1"}},
			setStatus: func(o api.Object) {
				o.(*api.Namespace).Status.Conditions = []api.NamespaceCondition{{Type: "StatusPatch", Status: api.ConditionTrue, Reason: "E2E"}}
			},
			want: map[string]string{rev: "1"},
		},
		{
			name: "service: annotation and status",
			obj:  &api.Service{Metadata: api.ObjectMeta{Name: "svc1", Namespace: "default"}, Spec: api.ServiceSpec{Ports: []api.ServicePort{{Port: 80}}}},
			setStatus: func(o api.Object) {
				o.(*api.Service).Status.LoadBalancer.Ingress = []api.LoadBalancerIngress{{IP: "203.0.113.1"}}
				o.(*api.Service).Status.Conditions = []api.Condition{{Type: "StatusUpdate", Status: api.ConditionTrue, Reason: "E2E", Message: "Set from e2e test"}}
			},
			want: map[string]string{rev: "1"},
		},
		{
			name: "cronjob: annotation and status",
			obj: func() api.Object {
				tmpl := webTemplate()
				tmpl.Spec.RestartPolicy = api.RestartPolicyNever
				return &api.CronJob{Metadata: api.ObjectMeta{Name: "cj1", Namespace: "default"}, Spec: api.CronJobSpec{Schedule: "*/1 * * * *", JobTemplate: api.JobTemplateSpec{Spec: api.JobSpec{Template: tmpl}}}}
			}(),
			setStatus: func(o api.Object) { o.(*api.CronJob).Status.LastScheduleTime = ptr(api.NewTime(epoch)) },
			want:      map[string]string{rev: "1"},
		},
		{
			name:      "replicaset: the stored annotations stay",
			obj:       &api.ReplicaSet{Metadata: api.ObjectMeta{Name: "rs1", Namespace: "default"}, Spec: api.ReplicaSetSpec{Replicas: &three, Selector: web, Template: webTemplate()}},
			setStatus: func(o api.Object) { o.(*api.ReplicaSet).Status.ObservedGeneration = 1 },
			want:      nil,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := newServer(t)
			created, err := s.Create(ctx, tc.obj)
			require.NoError(t, err)
			in := created.DeepCopyObject()
			m := in.GetObjectMeta()
			m.Annotations = map[string]string{rev: "1"}
			m.Labels = map[string]string{"changed": "by-status"}
			tc.setStatus(in)

			updated, err := s.UpdateStatus(ctx, in)
			require.NoError(t, err)
			um := updated.GetObjectMeta()
			assert.Equal(t, tc.want, um.Annotations)
			if svc, ok := updated.(*api.Service); ok {
				assert.Len(t, svc.Status.Conditions, 1, "a service's status conditions are stored")
			}
			assert.Empty(t, um.Labels["changed"], "a status update keeps the stored labels")
			assert.Equal(t, created.GetObjectMeta().Generation, um.Generation, "a status update is not a spec change")
			if tc.want != nil {
				assert.NotEqual(t, created.GetObjectMeta().ResourceVersion, um.ResourceVersion, "the annotation was written")
			}
		})
	}
}
