package etcdtest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/controllers/manager"
	"github.com/miniplane/miniplane/plane"
)

// runPlane starts a control plane over the etcd at url, as `serve
// --etcd-servers url` does, waits until it is ready and returns it with the
// func that stops it (the test stops it at its end too).
func runPlane(t *testing.T, url string, seed uint64) (*plane.Plane, func()) {
	t.Helper()
	return runPlaneWith(t, plane.Config{Seed: seed, Options: planeOptions(), EtcdServers: []string{url}, ReleaseOnCancel: true})
}

// runPlaneAs is runPlane for a plane whose instances are named identity.
func runPlaneAs(t *testing.T, url, identity string) (*plane.Plane, func()) {
	t.Helper()
	return runPlaneWith(t, plane.Config{Seed: 1, Options: planeOptions(), EtcdServers: []string{url}, Identity: identity, ReleaseOnCancel: true})
}

// planeOptions are the controller manager's defaults with one node.
func planeOptions() *manager.Options {
	opts := manager.DefaultOptions()
	opts.Nodes = 1
	return &opts
}

func runPlaneWith(t *testing.T, cfg plane.Config) (*plane.Plane, func()) {
	t.Helper()
	p, err := plane.New(cfg)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	select {
	case <-p.Ready():
	case err := <-done:
		cancel()
		require.FailNow(t, "the plane stopped before it was ready", "%v", err)
	}
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			cancel()
			assert.NoError(t, <-done)
		}
	}
	t.Cleanup(stop)
	return p, stop
}

// TestPlaneRestartKeepsEveryObject: the README's claim that `serve
// --etcd-servers` keeps the cluster across a restart. A plane over etcd is
// stopped and a new one started over the same etcd: every object the first
// wrote, and the users' objects, are there, at their resourceVersions.
func TestPlaneRestartKeepsEveryObject(t *testing.T) {
	ctx := context.Background()
	etcd := startEtcd(t, "")
	first, stop := runPlane(t, etcd.URL, 1)
	cm, err := first.Server().Create(ctx, configMap("default", "kept", "yes"))
	require.NoError(t, err)
	before := snapshot(t, first)
	stop()

	second, _ := runPlane(t, etcd.URL, 2)
	got, err := second.Server().Get(ctx, "configmaps", "default", "kept", client.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, cm.GetObjectMeta().ResourceVersion, got.GetObjectMeta().ResourceVersion)
	assert.Equal(t, "yes", got.(*api.ConfigMap).Data["k"])
	after := snapshot(t, second)
	for key := range before {
		assert.Contains(t, after, key, "lost in the restart")
	}
}

// snapshot lists the namespaces, nodes and config maps of a plane, by
// "resource/namespace/name", with their resourceVersions.
func snapshot(t *testing.T, p *plane.Plane) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, res := range []string{"namespaces", "nodes", "configmaps"} {
		list, err := p.Server().List(context.Background(), res, "", client.ListOptions{})
		require.NoError(t, err)
		for _, o := range list.Items {
			m := o.GetObjectMeta()
			out[res+"/"+m.Namespace+"/"+m.Name] = m.ResourceVersion
		}
	}
	return out
}

// TestTwoServersSeeEachOthersWrites: two API servers over one etcd, each
// with its own watch cache; a watch on one sees the other's writes, in
// order, at the same resourceVersions.
func TestTwoServersSeeEachOthersWrites(t *testing.T) {
	ctx := context.Background()
	etcd := startEtcd(t, "")
	one, two := newServer(t, etcd.URL), newServer(t, etcd.URL)
	w, err := one.Watch(ctx, "configmaps", "default", client.ListOptions{})
	require.NoError(t, err)
	defer w.Stop()
	created, err := two.Create(ctx, configMap("default", "from-two", "1"))
	require.NoError(t, err)
	// A consistent read on one waits for its cache to have two's write,
	// so the watch has it too.
	_, err = one.Get(ctx, "configmaps", "default", "from-two", client.GetOptions{})
	require.NoError(t, err)
	evs, err := w.Poll(nil, 0)
	require.NoError(t, err)
	require.Len(t, evs, 1)
	assert.Equal(t, api.WatchAdded, evs[0].Type)
	assert.Equal(t, created.GetObjectMeta().ResourceVersion, evs[0].Object.GetObjectMeta().ResourceVersion)
}

// TestControllerManagersElectOneLeaderAcrossPlanes: two planes over one
// etcd, as two serve processes, run their controller managers against one
// Lease; while the first leads, the Lease names it, and when it stops (and
// releases the Lease) the second's instance takes over: the second plane
// becomes ready only then, since readiness needs a leader of its own.
func TestControllerManagersElectOneLeaderAcrossPlanes(t *testing.T) {
	ctx := context.Background()
	etcd := startEtcd(t, "")
	first, stopFirst := runPlaneAs(t, etcd.URL, "first")
	require.Equal(t, "first_cm-1", first.Leader())

	second, err := plane.New(plane.Config{Seed: 2, Options: planeOptions(), EtcdServers: []string{etcd.URL}, Identity: "second", ReleaseOnCancel: true})
	require.NoError(t, err)
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- second.Run(runCtx) }()
	t.Cleanup(func() { cancel(); assert.NoError(t, <-done) })

	lease, err := second.Server().Get(ctx, "leases", "kube-system", "kube-controller-manager", client.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, "first_cm-1", *lease.(*api.Lease).Spec.HolderIdentity, "the second plane reads the first's Lease")

	stopFirst()
	<-second.Ready()
	assert.Equal(t, "second_cm-1", second.Leader())
	lease, err = second.Server().Get(ctx, "leases", "kube-system", "kube-controller-manager", client.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, "second_cm-1", *lease.(*api.Lease).Spec.HolderIdentity)
}
