package etcdtest

import (
	"context"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/etcdstore"
)

// newServer starts an API server over the etcd at url; the test closes it.
func newServer(t testing.TB, url string) *apiserver.Server {
	t.Helper()
	return newServerOn(t, url, clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)))
}

// newServerOn is newServer on clk: a server that must reconnect to etcd
// needs a clock that moves (clock.Real), since it retries on a timer.
func newServerOn(t testing.TB, url string, clk clock.Clock) *apiserver.Server {
	t.Helper()
	cli, err := etcdstore.Dial([]string{url})
	require.NoError(t, err)
	srv, err := apiserver.New(apiserver.Config{
		Clock: clk,
		Rand:  rand.New(rand.NewPCG(1, 2)),
		Etcd:  cli,
	})
	require.NoError(t, err)
	t.Cleanup(func() {
		assert.NoError(t, srv.Close())
		assert.NoError(t, cli.Close())
	})
	return srv
}

func configMap(ns, name, value string) *api.ConfigMap {
	return &api.ConfigMap{Metadata: api.ObjectMeta{Namespace: ns, Name: name}, Data: map[string]string{"k": value}}
}

// TestRestartKeepsEveryObject: a second server over the same etcd, as after
// a restart of serve, serves every object the first one wrote, at the same
// resourceVersions, and its namespaces are not made twice.
func TestRestartKeepsEveryObject(t *testing.T) {
	ctx := context.Background()
	etcd := startEtcd(t, "")
	first := newServer(t, etcd.URL)
	want := map[string]string{}
	for i := range 20 {
		obj, err := first.Create(ctx, configMap("default", "cm-"+strconv.Itoa(i), "v"+strconv.Itoa(i)))
		require.NoError(t, err)
		want[obj.GetObjectMeta().Name] = obj.GetObjectMeta().ResourceVersion
	}
	_, err := first.Delete(ctx, "configmaps", "default", "cm-0", api.DeleteOptions{})
	require.NoError(t, err)
	delete(want, "cm-0")
	require.NoError(t, first.Close())

	second := newServer(t, etcd.URL)
	list, err := second.List(ctx, "configmaps", "default", client.ListOptions{})
	require.NoError(t, err)
	got := map[string]string{}
	for _, o := range list.Items {
		got[o.GetObjectMeta().Name] = o.GetObjectMeta().ResourceVersion
	}
	assert.Equal(t, want, got)
	obj, err := second.Get(ctx, "configmaps", "default", "cm-7", client.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"k": "v7"}, obj.(*api.ConfigMap).Data)
	nss, err := second.List(ctx, "namespaces", "", client.ListOptions{})
	require.NoError(t, err)
	assert.Len(t, nss.Items, 2, "default and kube-system, once each")
}

// TestWatchFromBeforeRestart: a watch from a resourceVersion the first
// server handed out, opened on the restarted one, sees exactly the writes
// after it, in order.
func TestWatchFromBeforeRestart(t *testing.T) {
	ctx := context.Background()
	etcd := startEtcd(t, "")
	first := newServer(t, etcd.URL)
	start, err := first.Create(ctx, configMap("default", "a", "1"))
	require.NoError(t, err)
	rv := start.GetObjectMeta().ResourceVersion
	_, err = first.Create(ctx, configMap("default", "b", "1"))
	require.NoError(t, err)
	require.NoError(t, first.Close())

	second := newServer(t, etcd.URL)
	next := configMap("default", "a", "2")
	next.Metadata.ResourceVersion = rv
	_, err = second.Update(ctx, next)
	require.NoError(t, err)

	w, err := second.Watch(ctx, "configmaps", "default", client.ListOptions{ResourceVersion: rv})
	require.NoError(t, err)
	defer w.Stop()
	evs, err := w.Poll(nil, 0)
	require.NoError(t, err)
	var seen []string
	for _, ev := range evs {
		cm := ev.Object.(*api.ConfigMap)
		seen = append(seen, ev.Type+" "+cm.Metadata.Name+"="+cm.Data["k"])
	}
	assert.Equal(t, []string{"ADDED b=1", "MODIFIED a=2"}, seen)
}

// TestCompactedRevisionIsGone: after compaction, a watch and a list from a
// revision before it get 410 Gone; later ones still work.
func TestCompactedRevisionIsGone(t *testing.T) {
	ctx := context.Background()
	etcd := startEtcd(t, "")
	srv := newServer(t, etcd.URL)
	old, err := srv.Create(ctx, configMap("default", "a", "1"))
	require.NoError(t, err)
	oldRV := old.GetObjectMeta().ResourceVersion
	_, err = srv.Create(ctx, configMap("default", "b", "1"))
	require.NoError(t, err)
	cur, err := srv.Create(ctx, configMap("default", "c", "1"))
	require.NoError(t, err)
	rev, err := strconv.ParseInt(cur.GetObjectMeta().ResourceVersion, 10, 64)
	require.NoError(t, err)
	require.NoError(t, srv.Compact(rev))

	_, err = srv.Watch(ctx, "configmaps", "default", client.ListOptions{ResourceVersion: oldRV})
	assert.True(t, apierrors.IsGone(err), "watch from before compaction: %v", err)
	_, err = srv.List(ctx, "configmaps", "default", client.ListOptions{ResourceVersion: oldRV, ResourceVersionMatch: client.MatchExact})
	assert.True(t, apierrors.IsGone(err), "list at a compacted revision: %v", err)
	list, err := srv.List(ctx, "configmaps", "default", client.ListOptions{ResourceVersion: cur.GetObjectMeta().ResourceVersion, ResourceVersionMatch: client.MatchExact})
	require.NoError(t, err)
	assert.Len(t, list.Items, 3)

	// A restarted server starts its history at etcd's revision, and etcd
	// itself refuses the compacted one.
	require.NoError(t, srv.Close())
	again := newServer(t, etcd.URL)
	_, err = again.Watch(ctx, "configmaps", "default", client.ListOptions{ResourceVersion: oldRV})
	assert.True(t, apierrors.IsGone(err), "watch from before compaction after restart: %v", err)
}

// TestStaleUpdateIsConflict: an update at a resourceVersion another server
// over the same etcd has moved past is 409 Conflict, decided by etcd's
// compare-and-swap, and nothing changes.
func TestStaleUpdateIsConflict(t *testing.T) {
	ctx := context.Background()
	etcd := startEtcd(t, "")
	one, two := newServer(t, etcd.URL), newServer(t, etcd.URL)
	created, err := one.Create(ctx, configMap("default", "a", "1"))
	require.NoError(t, err)
	rv := created.GetObjectMeta().ResourceVersion

	winner := configMap("default", "a", "two")
	winner.Metadata.ResourceVersion = rv
	_, err = two.Update(ctx, winner)
	require.NoError(t, err)

	loser := configMap("default", "a", "one")
	loser.Metadata.ResourceVersion = rv
	_, err = one.Update(ctx, loser)
	require.True(t, apierrors.IsConflict(err), "a stale update: %v", err)
	assert.Equal(t, "Operation cannot be fulfilled on configmaps \"a\": the object has been modified; please apply your changes to the latest version and try again", err.Error())

	got, err := one.Get(ctx, "configmaps", "default", "a", client.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, "two", got.(*api.ConfigMap).Data["k"], "the consistent read sees the other server's write")
}

// TestCacheRelistsAfterCompactionOvertookIt: a server cut off from etcd
// while another writes and compacts past its cache relists once it is back,
// as kube-apiserver's cacher does: it serves the writes it missed, its
// watchers that had not seen them end with an ERROR event carrying 410
// Expired, a watch from before the relist is 410 Gone, and it goes on
// serving writes and watches.
func TestCacheRelistsAfterCompactionOvertookIt(t *testing.T) {
	ctx := context.Background()
	etcd := startEtcd(t, "")
	link := startProxy(t, etcd.URL)
	lagging, other := newServerOn(t, link.URL, clock.Real{}), newServer(t, etcd.URL)
	before, err := lagging.Create(ctx, configMap("default", "before", "1"))
	require.NoError(t, err)
	oldRV := before.GetObjectMeta().ResourceVersion
	w, err := lagging.Watch(ctx, "configmaps", "default", client.ListOptions{ResourceVersion: oldRV})
	require.NoError(t, err)
	defer w.Stop()

	link.Cut()
	_, err = other.Create(ctx, configMap("default", "missed", "1"))
	require.NoError(t, err)
	last, err := other.Create(ctx, configMap("default", "missed-too", "1"))
	require.NoError(t, err)
	rev, err := strconv.ParseInt(last.GetObjectMeta().ResourceVersion, 10, 64)
	require.NoError(t, err)
	require.NoError(t, other.Compact(rev))
	link.Heal()

	// A consistent read waits for the cache to reach etcd's revision,
	// which only the relist gets it to.
	got, err := lagging.Get(ctx, "configmaps", "default", "missed-too", client.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, last.GetObjectMeta().ResourceVersion, got.GetObjectMeta().ResourceVersion)
	list, err := lagging.List(ctx, "configmaps", "default", client.ListOptions{})
	require.NoError(t, err)
	var names []string
	for _, o := range list.Items {
		names = append(names, o.GetObjectMeta().Name)
	}
	assert.Equal(t, []string{"before", "missed", "missed-too"}, names)

	<-w.Ready()
	evs, err := w.Poll(nil, 0)
	require.NoError(t, err)
	require.NotEmpty(t, evs)
	end := evs[len(evs)-1]
	require.Equal(t, api.WatchError, end.Type, "the watch that missed writes ends")
	assert.Equal(t, int32(410), end.Status.Code)
	assert.Equal(t, api.StatusReasonExpired, end.Status.Reason)
	_, err = lagging.Watch(ctx, "configmaps", "default", client.ListOptions{ResourceVersion: oldRV})
	assert.True(t, apierrors.IsGone(err), "a watch from before the relist: %v", err)

	fresh, err := lagging.Watch(ctx, "configmaps", "default", client.ListOptions{ResourceVersion: list.Metadata.ResourceVersion})
	require.NoError(t, err)
	defer fresh.Stop()
	after, err := other.Create(ctx, configMap("default", "after", "1"))
	require.NoError(t, err)
	_, err = lagging.Get(ctx, "configmaps", "default", "after", client.GetOptions{})
	require.NoError(t, err)
	evs, err = fresh.Poll(nil, 0)
	require.NoError(t, err)
	require.Len(t, evs, 1)
	assert.Equal(t, after.GetObjectMeta().ResourceVersion, evs[0].Object.GetObjectMeta().ResourceVersion)
}

// TestRestartHandsOutNoAllocatedIPOrPort: a server restarted over the
// same etcd reads the cluster IPs and node ports in use from the
// allocations kept there, checked against the stored Services as
// kube-apiserver's repair controllers do, so the next Service gets neither
// an IP nor a node port another holds.
func TestRestartHandsOutNoAllocatedIPOrPort(t *testing.T) {
	ctx := context.Background()
	etcd := startEtcd(t, "")
	first := newServer(t, etcd.URL)
	ips, ports := map[string]string{}, map[int32]string{}
	hold := func(obj api.Object) {
		svc := obj.(*api.Service)
		require.NotContains(t, ips, svc.Spec.ClusterIP, "%s's cluster IP", svc.Metadata.Name)
		ips[svc.Spec.ClusterIP] = svc.Metadata.Name
		for _, p := range svc.Spec.Ports {
			require.NotContains(t, ports, p.NodePort, "%s's node port", svc.Metadata.Name)
			ports[p.NodePort] = svc.Metadata.Name
		}
	}
	for _, name := range []string{"a", "b", "c"} {
		svc, err := first.Create(ctx, nodePortService(name))
		require.NoError(t, err)
		hold(svc)
	}
	// A deleted Service's IP and port are free again.
	gone, err := first.Get(ctx, "services", "default", "b", client.GetOptions{})
	require.NoError(t, err)
	_, err = first.Delete(ctx, "services", "default", "b", api.DeleteOptions{})
	require.NoError(t, err)
	delete(ips, gone.(*api.Service).Spec.ClusterIP)
	delete(ports, gone.(*api.Service).Spec.Ports[0].NodePort)
	require.NoError(t, first.Close())

	second := newServer(t, etcd.URL)
	for _, name := range []string{"d", "e", "f"} {
		svc, err := second.Create(ctx, nodePortService(name))
		require.NoError(t, err)
		hold(svc)
	}
}

func nodePortService(name string) *api.Service {
	return &api.Service{
		Metadata: api.ObjectMeta{Namespace: "default", Name: name},
		Spec: api.ServiceSpec{Type: api.ServiceTypeNodePort, Selector: map[string]string{"app": name},
			Ports: []api.ServicePort{{Name: "http", Port: 80, Protocol: api.ProtocolTCP}}},
	}
}
