package apiserver_test

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
)

// createRC stores rc default/web with 3 replicas and returns it.
func createRC(t *testing.T, s *apiserver.Server) *api.ReplicationController {
	t.Helper()
	out, err := client.For[*api.ReplicationController](s).Create(ctx, rc("default", "web", 3))
	require.NoError(t, err)
	return out
}

func TestUpdateConcurrency(t *testing.T) {
	tests := []struct {
		name         string
		rv           func(stored string) string
		wantConflict bool
	}{
		{name: "current resourceVersion", rv: func(stored string) string { return stored }},
		{name: "stale resourceVersion", rv: func(string) string { return "2" }, wantConflict: true},
		{name: "no resourceVersion is unconditional", rv: func(string) string { return "" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newServer(t)
			cur := createRC(t, s)
			upd := cur.DeepCopy()
			upd.Metadata.ResourceVersion = tt.rv(cur.Metadata.ResourceVersion)
			upd.Metadata.Labels = map[string]string{"tier": "front"}
			before := s.Store().Rev()

			got, err := client.For[*api.ReplicationController](s).Update(ctx, upd)
			if tt.wantConflict {
				require.True(t, apierrors.IsConflict(err), "got %v", err)
				assert.Equal(t, `Operation cannot be fulfilled on replicationcontrollers "web": the object has been modified; please apply your changes to the latest version and try again`, err.Error())
				assert.Equal(t, int32(409), apierrors.StatusOf(err).Code)
				assert.Equal(t, before, s.Store().Rev(), "nothing written")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, map[string]string{"tier": "front"}, got.Metadata.Labels)
			assert.Equal(t, formatRev(before+1), got.Metadata.ResourceVersion)
		})
	}
}

func TestUpdateMissingObjectIsNotFound(t *testing.T) {
	s, _ := newServer(t)
	_, err := s.Update(ctx, rc("default", "ghost", 1))
	require.True(t, apierrors.IsNotFound(err), "got %v", err)
	assert.Equal(t, `replicationcontrollers "ghost" not found`, err.Error())
}

func TestUpdateWithChangedUIDIsAConflict(t *testing.T) {
	s, _ := newServer(t)
	cur := createRC(t, s)
	upd := cur.DeepCopy()
	upd.Metadata.UID = "someone-else"
	_, err := s.Update(ctx, upd)
	require.True(t, apierrors.IsConflict(err), "got %v", err)
	assert.Contains(t, err.Error(), "Precondition failed: UID in precondition: someone-else")
}

// TestGeneration checks that generation rises with spec changes only.
func TestGeneration(t *testing.T) {
	tests := []struct {
		name    string
		change  func(rc *api.ReplicationController)
		status  bool
		wantGen int64
	}{
		{name: "spec change", change: func(rc *api.ReplicationController) { rc.Spec.Replicas = ptr(int32(5)) }, wantGen: 2},
		{name: "template change", change: func(rc *api.ReplicationController) { rc.Spec.Template.Spec.Containers[0].Image = "nginx:1.28" }, wantGen: 2},
		{name: "label change", change: func(rc *api.ReplicationController) { rc.Metadata.Labels = map[string]string{"a": "b"} }, wantGen: 1},
		{name: "annotation change", change: func(rc *api.ReplicationController) { rc.Metadata.Annotations = map[string]string{"a": "b"} }, wantGen: 1},
		{name: "status change", change: func(rc *api.ReplicationController) { rc.Status.Replicas = 3 }, status: true, wantGen: 1},
		{name: "generation sent by the client is ignored", change: func(rc *api.ReplicationController) { rc.Metadata.Generation = 99 }, wantGen: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newServer(t)
			rcs := client.For[*api.ReplicationController](s)
			upd := createRC(t, s).DeepCopy()
			tt.change(upd)
			var got *api.ReplicationController
			var err error
			if tt.status {
				got, err = rcs.UpdateStatus(ctx, upd)
			} else {
				got, err = rcs.Update(ctx, upd)
			}
			require.NoError(t, err)
			assert.Equal(t, tt.wantGen, got.Metadata.Generation)
		})
	}
}

// TestNoOpUpdateWritesNothing: an update that changes nothing keeps the
// resourceVersion and makes no watch event.
func TestNoOpUpdateWritesNothing(t *testing.T) {
	s, _ := newServer(t)
	cur := createRC(t, s)
	w, err := s.Watch(ctx, client.ReplicationControllers, "default", client.ListOptions{ResourceVersion: cur.Metadata.ResourceVersion})
	require.NoError(t, err)
	defer w.Stop()
	before := s.Store().Rev()

	for _, status := range []bool{false, true} {
		var got api.Object
		if status {
			got, err = s.UpdateStatus(ctx, cur.DeepCopy())
		} else {
			got, err = s.Update(ctx, cur.DeepCopy())
		}
		require.NoError(t, err)
		assert.Equal(t, cur.Metadata.ResourceVersion, got.GetObjectMeta().ResourceVersion)
	}
	assert.Equal(t, before, s.Store().Rev())
	evs, err := w.Poll(nil, 0)
	require.NoError(t, err)
	assert.Empty(t, evs)
}

// TestStatusSubresourceIsolation: a main update never changes status, a
// status update changes nothing but status.
func TestStatusSubresourceIsolation(t *testing.T) {
	s, _ := newServer(t)
	rcs := client.For[*api.ReplicationController](s)
	cur := createRC(t, s)

	main := cur.DeepCopy()
	main.Spec.Replicas = ptr(int32(4))
	main.Status.Replicas = 42 // ignored
	afterMain, err := rcs.Update(ctx, main)
	require.NoError(t, err)
	assert.Equal(t, int32(4), *afterMain.Spec.Replicas)
	assert.Zero(t, afterMain.Status.Replicas, "main update kept the stored status")

	st := afterMain.DeepCopy()
	st.Status.Replicas = 4
	st.Status.ObservedGeneration = afterMain.Metadata.Generation
	st.Spec.Replicas = ptr(int32(9))                 // ignored
	st.Metadata.Labels = map[string]string{"x": "y"} // ignored
	afterStatus, err := rcs.UpdateStatus(ctx, st)
	require.NoError(t, err)
	assert.Equal(t, int32(4), afterStatus.Status.Replicas)
	assert.Equal(t, int64(2), afterStatus.Status.ObservedGeneration)
	assert.Equal(t, int32(4), *afterStatus.Spec.Replicas, "status update kept the spec")
	assert.Equal(t, afterMain.Metadata.Labels, afterStatus.Metadata.Labels, "status update kept the metadata")
	assert.Equal(t, afterMain.Metadata.Generation, afterStatus.Metadata.Generation)
}

func TestUpdateStatusOfKindWithoutStatusIsNotAllowed(t *testing.T) {
	s, _ := newServer(t)
	lease := &api.Lease{Metadata: api.ObjectMeta{Namespace: "kube-system", Name: "l"}}
	_, err := s.Create(ctx, lease)
	require.NoError(t, err)
	_, err = s.UpdateStatus(ctx, lease)
	require.True(t, apierrors.IsMethodNotSupported(err), "got %v", err)
	assert.Equal(t, int32(405), apierrors.StatusOf(err).Code)
}

// TestUpdateKeepsServerOwnedFields: uid, creationTimestamp and the deletion
// fields come from the stored object, whatever the client sends.
func TestUpdateKeepsServerOwnedFields(t *testing.T) {
	s, clk := newServer(t)
	cur := createRC(t, s)
	clk.Step(3600e9)
	upd := cur.DeepCopy()
	upd.Metadata.UID = ""
	upd.Metadata.CreationTimestamp = api.Time{}
	ts := api.NewTime(epoch)
	upd.Metadata.DeletionTimestamp = &ts
	upd.Metadata.Labels = map[string]string{"changed": "yes"}
	got, err := client.For[*api.ReplicationController](s).Update(ctx, upd)
	require.NoError(t, err)
	assert.Equal(t, cur.Metadata.UID, got.Metadata.UID)
	assert.Equal(t, cur.Metadata.CreationTimestamp, got.Metadata.CreationTimestamp)
	assert.Nil(t, got.Metadata.DeletionTimestamp)
}

// TestFinalizersHoldDeletion: an object with finalizers is only marked by a
// delete; no new finalizer may be added while it is deleting; removing the
// last one removes the object.
func TestFinalizersHoldDeletion(t *testing.T) {
	s, clk := newServer(t)
	rcs := client.For[*api.ReplicationController](s)
	in := rc("default", "held", 1)
	in.Metadata.Finalizers = []string{"example.com/a", "example.com/b"}
	_, err := rcs.Create(ctx, in)
	require.NoError(t, err)

	clk.Step(10e9)
	marked, err := rcs.Delete(ctx, "default", "held", api.DeleteOptions{PropagationPolicy: ptr(api.DeletePropagationBackground)})
	require.NoError(t, err)
	require.NotNil(t, marked.Metadata.DeletionTimestamp)
	assert.Equal(t, epoch.Add(10e9), marked.Metadata.DeletionTimestamp.Time)
	assert.Equal(t, int64(0), *marked.Metadata.DeletionGracePeriodSeconds)
	assert.Equal(t, int64(2), marked.Metadata.Generation, "marking bumps generation")

	add := marked.DeepCopy()
	add.Metadata.Finalizers = append(add.Metadata.Finalizers, "example.com/c")
	_, err = rcs.Update(ctx, add)
	require.True(t, apierrors.IsInvalid(err), "got %v", err)
	assert.Contains(t, err.Error(), "metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted")

	one := marked.DeepCopy()
	one.Metadata.Finalizers = []string{"example.com/b"}
	left, err := rcs.Update(ctx, one)
	require.NoError(t, err)
	assert.Equal(t, []string{"example.com/b"}, left.Metadata.Finalizers)
	_, err = rcs.Get(ctx, "default", "held")
	require.NoError(t, err, "still there with one finalizer")

	none := left.DeepCopy()
	none.Metadata.Finalizers = nil
	_, err = rcs.Update(ctx, none)
	require.NoError(t, err)
	_, err = rcs.Get(ctx, "default", "held")
	assert.True(t, apierrors.IsNotFound(err), "removing the last finalizer removed it, got %v", err)
}

// TestStatusUpdateWritesOnlyAChange: for each kind with a status, a status
// update that carries the stored status writes nothing, one that changes a
// field deep in it writes, and the server keeps nothing of the client's
// object: changing it afterwards changes nothing stored.
func TestStatusUpdateWritesOnlyAChange(t *testing.T) {
	tests := []struct {
		name   string
		create api.Object
		change func(api.Object) // changes a field deep in the status
		// scribble changes, in place, what change made: the server must
		// not have kept it.
		scribble func(api.Object)
	}{
		{"pod", pod("default", "p", nil), func(o api.Object) {
			p := o.(*api.Pod)
			p.Status.Conditions = append(p.Status.Conditions, api.PodCondition{Type: api.PodReady, Status: api.ConditionTrue})
		}, func(o api.Object) { o.(*api.Pod).Status.Conditions[0].Reason = "scribbled" }},
		{"replication controller", rc("default", "r", 1), func(o api.Object) {
			r := o.(*api.ReplicationController)
			r.Status.Conditions = append(r.Status.Conditions, api.ReplicationControllerCondition{Type: api.ReplicationControllerReplicaFailure, Status: api.ConditionTrue})
		}, func(o api.Object) { o.(*api.ReplicationController).Status.Conditions[0].Reason = "scribbled" }},
		{"node", &api.Node{Metadata: api.ObjectMeta{Name: "n"}}, func(o api.Object) {
			n := o.(*api.Node)
			n.Status.Conditions = append(n.Status.Conditions, api.NodeCondition{Type: api.NodeReady, Status: api.ConditionTrue})
		}, func(o api.Object) { o.(*api.Node).Status.Conditions[0].Reason = "scribbled" }},
		{"namespace", &api.Namespace{Metadata: api.ObjectMeta{Name: "ns"}}, func(o api.Object) {
			o.(*api.Namespace).Status.Phase = api.NamespaceTerminating
		}, func(o api.Object) { o.(*api.Namespace).Status.Phase = "scribbled" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newServer(t)
			cur, err := s.Create(ctx, tt.create)
			require.NoError(t, err)
			before := s.Store().Rev()

			same, err := s.UpdateStatus(ctx, cur.DeepCopyObject())
			require.NoError(t, err)
			assert.Same(t, cur, same, "the stored object, unchanged")
			assert.Equal(t, before, s.Store().Rev(), "nothing written")

			in := cur.DeepCopyObject()
			tt.change(in)
			written, err := s.UpdateStatus(ctx, in)
			require.NoError(t, err)
			assert.Equal(t, before+1, s.Store().Rev(), "written")
			stored := written.DeepCopyObject()
			tt.scribble(in)
			in.GetObjectMeta().Labels = map[string]string{"after": "the call"}
			got, err := s.Get(ctx, client.ResourceOf(cur), cur.GetObjectMeta().Namespace, cur.GetObjectMeta().Name, client.GetOptions{})
			require.NoError(t, err)
			assert.Equal(t, stored, got, "nothing of the client's object is kept")
		})
	}
}

// TestWritesShareTheStoredKey checks that a write over a stored object hands
// the store the key string it already holds, so that every version of an
// object shares one key string rather than each holding a copy of its own.
func TestWritesShareTheStoredKey(t *testing.T) {
	const key = "/registry/pods/default/p"
	tests := []struct {
		name  string
		write func(t *testing.T, s *apiserver.Server)
	}{
		{name: "bind", write: func(t *testing.T, s *apiserver.Server) {
			_, err := s.Bind(ctx, "default", "p", "node-1")
			require.NoError(t, err)
		}},
		{name: "update", write: func(t *testing.T, s *apiserver.Server) {
			_, err := s.Update(ctx, pod("default", "p", map[string]string{"tier": "front"}))
			require.NoError(t, err)
		}},
		{name: "status update", write: func(t *testing.T, s *apiserver.Server) {
			p := pod("default", "p", nil)
			p.Status.Phase = api.PodRunning
			_, err := s.UpdateStatus(ctx, p)
			require.NoError(t, err)
		}},
		{name: "graceful delete", write: func(t *testing.T, s *apiserver.Server) {
			_, err := s.Bind(ctx, "default", "p", "node-1")
			require.NoError(t, err)
			_, err = s.Delete(ctx, client.Pods, "default", "p", api.DeleteOptions{})
			require.NoError(t, err)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newServer(t)
			_, err := s.Create(ctx, pod("default", "p", nil))
			require.NoError(t, err)
			created, err := s.Store().Get(key, 0)
			require.NoError(t, err)

			tt.write(t, s)
			got, err := s.Store().Get(key, 0)
			require.NoError(t, err)
			require.Greater(t, got.ModRev, created.ModRev, "written")
			assert.Same(t, unsafe.StringData(created.Key), unsafe.StringData(got.Key), "the created record's key string")
		})
	}
}
