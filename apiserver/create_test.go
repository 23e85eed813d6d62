package apiserver_test

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/store"
)

func TestNewServerHasDefaultNamespaces(t *testing.T) {
	for _, tc := range []struct {
		name   string
		system bool
		want   []string
	}{
		{"without system namespaces", false, []string{"default", "kube-system"}},
		{"with system namespaces", true, []string{"default", "kube-node-lease", "kube-public", "kube-system"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := apiserver.New(apiserver.Config{
				Clock: clock.NewFake(epoch), Rand: rand.New(rand.NewPCG(1, 2)), SystemNamespaces: tc.system,
			})
			require.NoError(t, err)
			nss, _, err := client.For[*api.Namespace](s).List(ctx, "", client.ListOptions{})
			require.NoError(t, err)
			var names []string
			for _, ns := range nss {
				names = append(names, ns.Metadata.Name)
				assert.Equal(t, api.NamespaceActive, ns.Status.Phase)
			}
			assert.Equal(t, tc.want, names)
		})
	}
}

// TestCreateSetsServerOwnedMetadata sends every field the server owns with
// junk in it: the server ignores what the client sent and sets its own.
func TestCreateSetsServerOwnedMetadata(t *testing.T) {
	s, clk := newServer(t)
	clk.Step(1500) // nanoseconds: creationTimestamp keeps whole seconds only
	in := pod("default", "web-1", nil)
	in.Metadata.UID = "client-chosen"
	in.Metadata.Generation = 7
	in.Metadata.CreationTimestamp = api.NewTime(epoch.AddDate(-1, 0, 0))
	ts := api.NewTime(epoch)
	in.Metadata.DeletionTimestamp = &ts
	in.Metadata.DeletionGracePeriodSeconds = ptr(int64(5))
	in.Status.Phase = api.PodRunning // pods' status is reset on create
	before := s.Store().Rev()

	out, err := s.Create(ctx, in)
	require.NoError(t, err)
	p := out.(*api.Pod)
	assert.Equal(t, api.TypeMeta{APIVersion: "v1", Kind: "Pod"}, p.TypeMeta)
	assert.NotEqual(t, api.UID("client-chosen"), p.Metadata.UID)
	assert.Len(t, p.Metadata.UID, 36)
	assert.Equal(t, int64(1), p.Metadata.Generation)
	assert.Equal(t, epoch, p.Metadata.CreationTimestamp.Time)
	assert.Nil(t, p.Metadata.DeletionTimestamp)
	assert.Nil(t, p.Metadata.DeletionGracePeriodSeconds)
	assert.Equal(t, api.PodPending, p.Status.Phase, "the client's status is replaced: a new pod is Pending")
	assert.Equal(t, formatRev(before+1), p.Metadata.ResourceVersion)

	assert.Equal(t, api.UID("client-chosen"), in.Metadata.UID, "the caller's object is not changed")
}

func TestCreateIsReproducibleFromTheSeed(t *testing.T) {
	run := func() []string {
		clk := clock.NewFake(epoch)
		s, err := apiserver.New(apiserver.Config{Clock: clk, Rand: rand.New(rand.NewPCG(7, 7))})
		require.NoError(t, err)
		var out []string
		for range 3 {
			in := pod("default", "", nil)
			in.Metadata.GenerateName = "web-"
			p, err := s.Create(ctx, in)
			require.NoError(t, err)
			out = append(out, p.GetObjectMeta().Name, string(p.GetObjectMeta().UID))
		}
		return out
	}
	assert.Equal(t, run(), run())
}

func TestCreateErrors(t *testing.T) {
	tests := []struct {
		name       string
		obj        api.Object
		wantReason api.StatusReason
		wantCode   int32
		wantMsg    string
	}{
		{
			name:       "name taken",
			obj:        pod("default", "taken", nil),
			wantReason: api.StatusReasonAlreadyExists, wantCode: http.StatusConflict,
			wantMsg: `pods "taken" already exists`,
		},
		{
			name: "resourceVersion set",
			obj: func() api.Object {
				p := pod("default", "rv", nil)
				p.Metadata.ResourceVersion = "5"
				return p
			}(),
			wantReason: api.StatusReasonBadRequest, wantCode: http.StatusBadRequest,
			wantMsg: "resourceVersion should not be set on objects to be created",
		},
		{
			name:       "namespace missing",
			obj:        pod("nowhere", "p", nil),
			wantReason: api.StatusReasonNotFound, wantCode: http.StatusNotFound,
			wantMsg: `namespaces "nowhere" not found`,
		},
		{
			name: "kind disagrees with the type",
			obj: func() api.Object {
				p := pod("default", "p", nil)
				p.Kind = "Service"
				return p
			}(),
			wantReason: api.StatusReasonBadRequest, wantCode: http.StatusBadRequest,
			wantMsg: `the object's apiVersion "" and kind "Service" do not match the resource pods (v1, Pod)`,
		},
		{
			name:       "invalid object",
			obj:        rc("default", "web", -1),
			wantReason: api.StatusReasonInvalid, wantCode: http.StatusUnprocessableEntity,
			wantMsg: `ReplicationController "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newServer(t)
			_, err := s.Create(ctx, pod("default", "taken", nil))
			require.NoError(t, err)
			before, err := s.Store().List("", store.ListOptions{})
			require.NoError(t, err)

			_, err = s.Create(ctx, tt.obj)
			require.Error(t, err)
			st := apierrors.StatusOf(err)
			assert.Equal(t, tt.wantReason, st.Reason)
			assert.Equal(t, tt.wantCode, st.Code)
			assert.Equal(t, tt.wantMsg, st.Message)
			assert.Equal(t, "Failure", st.Status)

			after, err := s.Store().List("", store.ListOptions{})
			require.NoError(t, err)
			assert.Equal(t, before, after, "a rejected create changes nothing")
		})
	}
}

func TestCreateInTerminatingNamespaceIsForbidden(t *testing.T) {
	s, _ := newServer(t)
	_, err := s.Create(ctx, &api.Namespace{Metadata: api.ObjectMeta{Name: "doomed"}})
	require.NoError(t, err)
	_, err = s.Create(ctx, pod("doomed", "bound", nil))
	require.NoError(t, err)
	_, err = s.Bind(ctx, "doomed", "bound", "node-1") // keeps it in its grace period
	require.NoError(t, err)
	_, err = s.Delete(ctx, client.Namespaces, "", "doomed", api.DeleteOptions{})
	require.NoError(t, err)

	_, err = s.Create(ctx, pod("doomed", "late", nil))
	require.True(t, apierrors.IsForbidden(err), "got %v", err)
	assert.Equal(t, `pods "late" is forbidden: unable to create new content in namespace doomed because it is being terminated`, err.Error())
	assert.True(t, apierrors.HasStatusCause(err, api.NamespaceTerminatingCause), "carries the NamespaceTerminating cause")
}

// A create remembers the namespace it found open (openNamespaces); every
// step of the namespace's life after that must still be seen by the next
// create.
func TestCreateSeesEveryChangeOfANamespaceItFoundOpen(t *testing.T) {
	s, _ := newServer(t)
	create := func(name string) error {
		_, err := s.Create(ctx, pod("cycled", name, nil))
		return err
	}
	_, err := s.Create(ctx, &api.Namespace{Metadata: api.ObjectMeta{Name: "cycled"}})
	require.NoError(t, err)
	require.NoError(t, create("first"), "open")
	require.NoError(t, create("second"), "still open")

	_, err = s.Delete(ctx, client.Pods, "cycled", "first", api.DeleteOptions{})
	require.NoError(t, err)
	_, err = s.Delete(ctx, client.Pods, "cycled", "second", api.DeleteOptions{})
	require.NoError(t, err)
	_, err = s.Delete(ctx, client.Namespaces, "", "cycled", api.DeleteOptions{})
	require.NoError(t, err)
	err = create("terminating")
	assert.True(t, apierrors.IsForbidden(err), "terminating: got %v", err)

	s.Sweep()
	_, err = s.Get(ctx, client.Namespaces, "", "cycled", client.GetOptions{})
	require.True(t, apierrors.IsNotFound(err), "the empty namespace is removed: %v", err)
	err = create("gone")
	assert.True(t, apierrors.IsNotFound(err), "removed: got %v", err)

	_, err = s.Create(ctx, &api.Namespace{Metadata: api.ObjectMeta{Name: "cycled"}})
	require.NoError(t, err)
	assert.NoError(t, create("again"), "created again")
}

func TestGenerateName(t *testing.T) {
	s, _ := newServer(t)
	seen := map[string]bool{}
	for range 20 {
		in := pod("default", "", nil)
		in.Metadata.GenerateName = "web-"
		out, err := s.Create(ctx, in)
		require.NoError(t, err)
		name := out.GetObjectMeta().Name
		assert.Regexp(t, `^web-[bcdfghjklmnpqrstvwxz2456789]{5}$`, name)
		assert.False(t, seen[name], "name %s given twice", name)
		seen[name] = true
	}

	long := pod("default", "", nil)
	long.Metadata.GenerateName = "a-very-long-prefix-that-goes-on-and-on-past-fifty-eight-bytes-"
	out, err := s.Create(ctx, long)
	require.NoError(t, err)
	assert.Len(t, out.GetObjectMeta().Name, 63, "prefix truncated to 58 bytes, plus 5")
}

func TestServicesGetClusterIPs(t *testing.T) {
	s, _ := newServer(t)
	svc := func(name, clusterIP string) *api.Service {
		return &api.Service{
			Metadata: api.ObjectMeta{Namespace: "default", Name: name},
			Spec: api.ServiceSpec{
				Selector:  map[string]string{"app": name},
				ClusterIP: clusterIP,
				Ports:     []api.ServicePort{{Port: 80}},
			},
		}
	}
	a, err := client.For[*api.Service](s).Create(ctx, svc("a", ""))
	require.NoError(t, err)
	b, err := client.For[*api.Service](s).Create(ctx, svc("b", ""))
	require.NoError(t, err)
	assert.Equal(t, "10.96.0.1", a.Spec.ClusterIP)
	assert.Equal(t, []string{"10.96.0.1"}, a.Spec.ClusterIPs)
	assert.Equal(t, "10.96.0.2", b.Spec.ClusterIP)

	headless, err := client.For[*api.Service](s).Create(ctx, svc("h", api.ClusterIPNone))
	require.NoError(t, err)
	assert.Equal(t, api.ClusterIPNone, headless.Spec.ClusterIP)

	_, err = client.For[*api.Service](s).Create(ctx, svc("c", "10.96.0.2"))
	require.True(t, apierrors.IsInvalid(err), "got %v", err)
	assert.Contains(t, err.Error(), "provided IP is already allocated")
	_, err = client.For[*api.Service](s).Create(ctx, svc("d", "192.168.1.1"))
	assert.Contains(t, err.Error(), "provided IP is not in the valid range. The range of valid IPs is 10.96.0.0/12")

	// An update that leaves clusterIP empty keeps the allocated one.
	upd := a.DeepCopy()
	upd.Spec.ClusterIP, upd.Spec.ClusterIPs = "", nil
	upd.Metadata.Labels = map[string]string{"x": "y"}
	got, err := client.For[*api.Service](s).Update(ctx, upd)
	require.NoError(t, err)
	assert.Equal(t, "10.96.0.1", got.Spec.ClusterIP)

	// Deleting a service frees its address for the next one.
	_, err = s.Delete(ctx, client.Services, "default", "a", api.DeleteOptions{})
	require.NoError(t, err)
	again, err := client.For[*api.Service](s).Create(ctx, svc("again", "10.96.0.1"))
	require.NoError(t, err)
	assert.Equal(t, "10.96.0.1", again.Spec.ClusterIP)
}

func TestClusterScopedObjectsIgnoreNamespace(t *testing.T) {
	s, _ := newServer(t)
	n, err := client.For[*api.Node](s).Create(ctx, &api.Node{Metadata: api.ObjectMeta{Name: "node-1", Namespace: "default"}})
	require.NoError(t, err)
	assert.Empty(t, n.Metadata.Namespace)
	got, err := client.For[*api.Node](s).Get(ctx, "", "node-1")
	require.NoError(t, err)
	assert.Equal(t, n, got)
}

// TestServiceTypeChangeMovesItsClusterIP: a service that becomes
// ExternalName gives its address back; one that stops being ExternalName
// gets a new one.
func TestServiceTypeChangeMovesItsClusterIP(t *testing.T) {
	s, _ := newServer(t)
	svcs := client.For[*api.Service](s)
	svc, err := svcs.Create(ctx, &api.Service{
		Metadata: api.ObjectMeta{Namespace: "default", Name: "web"},
		Spec:     api.ServiceSpec{Selector: map[string]string{"app": "web"}, Ports: []api.ServicePort{{Port: 80}}},
	})
	require.NoError(t, err)
	require.Equal(t, "10.96.0.1", svc.Spec.ClusterIP)

	ext := svc.DeepCopy()
	ext.Spec = api.ServiceSpec{Type: api.ServiceTypeExternalName, ExternalName: "example.com"}
	ext, err = svcs.Update(ctx, ext)
	require.NoError(t, err)
	assert.Empty(t, ext.Spec.ClusterIP)

	other, err := svcs.Create(ctx, &api.Service{
		Metadata: api.ObjectMeta{Namespace: "default", Name: "other"},
		Spec:     api.ServiceSpec{ClusterIP: "10.96.0.1", Ports: []api.ServicePort{{Port: 80}}},
	})
	require.NoError(t, err, "the freed address can be taken")
	assert.Equal(t, "10.96.0.1", other.Spec.ClusterIP)

	back := ext.DeepCopy()
	back.Spec = api.ServiceSpec{Selector: map[string]string{"app": "web"}, Ports: []api.ServicePort{{Port: 80}}}
	back, err = svcs.Update(ctx, back)
	require.NoError(t, err)
	assert.Equal(t, "10.96.0.2", back.Spec.ClusterIP)
	assert.Equal(t, []string{"10.96.0.2"}, back.Spec.ClusterIPs)
}

// TestServiceBecomesExternalNameKeepingItsFields: an update that changes
// only type and externalName of a service read back whole (cluster IPs,
// families, policies and node ports as the server set them) is accepted,
// as kube-apiserver's dropTypeDependentFields clears them, and the address
// and node port are given back; a cluster IP the update changes is still
// refused.
func TestServiceBecomesExternalNameKeepingItsFields(t *testing.T) {
	s, _ := newServer(t)
	svcs := client.For[*api.Service](s)
	svc, err := svcs.Create(ctx, &api.Service{
		Metadata: api.ObjectMeta{Namespace: "default", Name: "web"},
		Spec: api.ServiceSpec{Type: api.ServiceTypeNodePort, Selector: map[string]string{"app": "web"}, Ports: []api.ServicePort{{Port: 80}},
			IPFamilies: []api.IPFamily{"IPv4"}, IPFamilyPolicy: ptr(api.IPFamilyPolicySingleStack)},
	})
	require.NoError(t, err)
	require.NotZero(t, svc.Spec.Ports[0].NodePort)

	bad := svc.DeepCopy()
	bad.Spec.Type, bad.Spec.ExternalName = api.ServiceTypeExternalName, "example.com"
	bad.Spec.ClusterIP, bad.Spec.ClusterIPs = "10.96.0.9", []string{"10.96.0.9"}
	_, err = svcs.Update(ctx, bad)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "spec.clusterIPs: Forbidden: may not be set for ExternalName services")

	ext := svc.DeepCopy()
	ext.Spec.Type, ext.Spec.ExternalName = api.ServiceTypeExternalName, "example.com"
	ext, err = svcs.Update(ctx, ext)
	require.NoError(t, err)
	assert.Empty(t, ext.Spec.ClusterIP)
	assert.Empty(t, ext.Spec.ClusterIPs)
	assert.Empty(t, ext.Spec.IPFamilies)
	assert.Nil(t, ext.Spec.IPFamilyPolicy)
	assert.Nil(t, ext.Spec.InternalTrafficPolicy)
	assert.Zero(t, ext.Spec.Ports[0].NodePort)

	other, err := svcs.Create(ctx, &api.Service{
		Metadata: api.ObjectMeta{Namespace: "default", Name: "other"},
		Spec: api.ServiceSpec{Type: api.ServiceTypeNodePort, ClusterIP: svc.Spec.ClusterIP,
			Ports: []api.ServicePort{{Port: 80, NodePort: svc.Spec.Ports[0].NodePort}}},
	})
	require.NoError(t, err, "the freed address and node port can be taken")
	assert.Equal(t, svc.Spec.ClusterIP, other.Spec.ClusterIP)
}

// TestSeededNamesIgnoreInterleaving: with Config.Names, the k-th name
// generated from a prefix depends only on the seed, the prefix and k, not
// on what else was created before or between (uids, other prefixes) — so
// a live control plane names the same pods on every run with one seed. A
// collision still moves on to the next name of the stream.
func TestSeededNamesIgnoreInterleaving(t *testing.T) {
	names := func(seed uint64, noise int) []string {
		s, err := apiserver.New(apiserver.Config{Clock: clock.NewFake(epoch), Rand: rand.New(rand.NewPCG(1, 2)), Names: apiserver.NewSeededNames(seed)})
		require.NoError(t, err)
		var out []string
		for i := range 6 {
			for j := range noise * (i + 1) { // other writes in between, more each time
				other := pod("default", "", nil)
				other.Metadata.GenerateName = fmt.Sprintf("other%d-", j)
				_, err := s.Create(ctx, other)
				require.NoError(t, err)
			}
			in := pod("default", "", nil)
			in.Metadata.GenerateName = "web-"
			got, err := s.Create(ctx, in)
			require.NoError(t, err)
			out = append(out, got.GetObjectMeta().Name)
		}
		return out
	}
	quiet := names(5, 0)
	for _, n := range quiet {
		assert.Regexp(t, `^web-[bcdfghjklmnpqrstvwxz2456789]{5}$`, n)
	}
	assert.Equal(t, quiet, names(5, 3), "the same names whatever comes between")
	assert.NotEqual(t, quiet, names(6, 0), "another seed, other names")

	s, err := apiserver.New(apiserver.Config{Clock: clock.NewFake(epoch), Rand: rand.New(rand.NewPCG(1, 2)), Names: apiserver.NewSeededNames(5)})
	require.NoError(t, err)
	_, err = s.Create(ctx, pod("default", quiet[0], nil)) // takes the first name of the stream
	require.NoError(t, err)
	in := pod("default", "", nil)
	in.Metadata.GenerateName = "web-"
	got, err := s.Create(ctx, in)
	require.NoError(t, err)
	assert.Equal(t, quiet[1], got.GetObjectMeta().Name, "a taken name moves on to the next")
}
