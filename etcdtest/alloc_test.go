package etcdtest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
)

// TestTwoServersNeverHandOutOneClusterIPOrNodePort: two API servers over
// one etcd, as two serve processes, creating Services at once, give each
// its own cluster IP and node port, since both allocate by swapping
// kube-apiserver's RangeAllocation in etcd; of the creates asking for one
// chosen IP, exactly one per IP wins, the rest get kube-apiserver's 422.
func TestTwoServersNeverHandOutOneClusterIPOrNodePort(t *testing.T) {
	ctx := context.Background()
	etcd := startEtcd(t, "")
	servers := []*apiserver.Server{newServer(t, etcd.URL), newServer(t, etcd.URL)}
	chosen := []string{"10.96.100.1", "10.96.100.2", "10.96.100.3"}
	const workers, each = 3, 20 // per server

	var mu sync.Mutex
	var created []*api.Service
	refused := map[string]int{}
	var wg sync.WaitGroup
	for si, srv := range servers {
		for w := range workers {
			wg.Go(func() {
				for i := range each {
					svc := nodePortService(fmt.Sprintf("s%d-w%d-%d", si, w, i))
					if i < len(chosen) {
						svc.Spec.ClusterIP = chosen[i]
					}
					obj, err := srv.Create(ctx, svc)
					mu.Lock()
					switch {
					case err == nil:
						created = append(created, obj.(*api.Service))
					case svc.Spec.ClusterIP != "" && apierrors.IsInvalid(err):
						assert.Contains(t, err.Error(), "provided IP is already allocated")
						refused[svc.Spec.ClusterIP]++
					default:
						assert.NoError(t, err, svc.Metadata.Name)
					}
					mu.Unlock()
				}
			})
		}
	}
	wg.Wait()

	ips, ports := map[string]string{}, map[int32]string{}
	for _, svc := range created {
		name := svc.Metadata.Name
		assert.NotContains(t, ips, svc.Spec.ClusterIP, "%s and %s", ips[svc.Spec.ClusterIP], name)
		ips[svc.Spec.ClusterIP] = name
		p := svc.Spec.Ports[0].NodePort
		assert.NotContains(t, ports, p, "%s and %s", ports[p], name)
		ports[p] = name
	}
	for _, ip := range chosen {
		assert.Contains(t, ips, ip)
		assert.Equal(t, 2*workers-1, refused[ip], "refused %s", ip)
	}
	assert.Len(t, created, 2*workers*each-len(chosen)*(2*workers-1))
}

// TestRestartRemovesATerminatingPodAfterGrace: a pod a server marked for
// deletion with a grace period, before it stopped, is removed by the server
// started after it over the same etcd once the grace period ends, as it
// would have been by the first: its deadline is the stored
// deletionTimestamp.
func TestRestartRemovesATerminatingPodAfterGrace(t *testing.T) {
	ctx := context.Background()
	etcd := startEtcd(t, "")
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	first := newServerOn(t, etcd.URL, clock.NewFake(start))
	pod := &api.Pod{Metadata: api.ObjectMeta{Namespace: "default", Name: "web"},
		Spec: api.PodSpec{NodeName: "node-1", Containers: []api.Container{{Name: "c", Image: "nginx"}}}}
	_, err := first.Create(ctx, pod)
	require.NoError(t, err)
	grace := int64(30)
	_, err = first.Delete(ctx, "pods", "default", "web", api.DeleteOptions{GracePeriodSeconds: &grace})
	require.NoError(t, err)
	require.NoError(t, first.Close())

	clk := clock.NewFake(start.Add(10 * time.Second))
	second := newServerOn(t, etcd.URL, clk)
	next, ok := second.NextSweep()
	require.True(t, ok, "the restarted server knows the deadline")
	assert.Equal(t, start.Add(30*time.Second), next.UTC())
	assert.Zero(t, second.Sweep(), "not yet due")
	clk.Step(20 * time.Second)
	assert.Equal(t, 1, second.Sweep())
	_, err = second.Get(ctx, "pods", "default", "web", client.GetOptions{})
	assert.True(t, apierrors.IsNotFound(err), "%v", err)
}
