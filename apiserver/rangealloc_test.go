package apiserver

import (
	"context"
	"errors"
	"math/big"
	"math/rand/v2"
	"net/netip"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/etcdstore"
)

// fakeKV is etcd's key space as the shared allocators use it: values with
// ModRevisions from one revision counter, and a fault to inject.
type fakeKV struct {
	mu   sync.Mutex
	rev  int64
	vals map[string]fakeValue
	// fail, when set, is what the next CompareAndSwap returns, after
	// applying the write when applied: a reply lost either side of etcd.
	fail    error
	applied bool
	swaps   int // CompareAndSwap calls
}

type fakeValue struct {
	data []byte
	rev  int64
}

func newFakeKV() *fakeKV { return &fakeKV{vals: map[string]fakeValue{}} }

func (f *fakeKV) Get(_ context.Context, key string) ([]byte, int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	v := f.vals[key]
	return v.data, v.rev, nil
}

func (f *fakeKV) CompareAndSwap(_ context.Context, key string, value []byte, rev int64) (etcdstore.Swap, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.swaps++
	cur := f.vals[key]
	ok := cur.rev == rev
	if ok && (f.fail == nil || f.applied) {
		f.rev++
		f.vals[key] = fakeValue{data: value, rev: f.rev}
	}
	if err := f.fail; err != nil {
		f.fail = nil
		return etcdstore.Swap{}, err
	}
	if !ok {
		return etcdstore.Swap{Rev: cur.rev, Current: cur.data}, nil
	}
	return etcdstore.Swap{Swapped: true, Rev: f.rev}, nil
}

// stored is the snapshot under key, as offsets.
func (f *fakeKV) stored(t *testing.T, key string) []int {
	t.Helper()
	f.mu.Lock()
	data := f.vals[key].data
	f.mu.Unlock()
	_, bits, err := decodeRange(data)
	require.NoError(t, err)
	var b bitmap
	b.restore(bits)
	var out []int
	b.each(func(i int) { out = append(out, i) })
	return out
}

// sharedServer is an in-memory server whose allocators are kept in kv, as
// over etcd, after their first repair.
func sharedServer(t *testing.T, kv rangeKV, clk clock.Clock) *Server {
	t.Helper()
	s, err := New(Config{Clock: clk, Rand: rand.New(rand.NewPCG(1, 2))})
	require.NoError(t, err)
	s.shareRanges(kv)
	require.NoError(t, s.repairRanges())
	return s
}

func testClock() *clock.Fake { return clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)) }

func sharedService(name, clusterIP string, nodePort int32) *api.Service {
	return &api.Service{
		Metadata: api.ObjectMeta{Namespace: "default", Name: name},
		Spec: api.ServiceSpec{Type: api.ServiceTypeNodePort, ClusterIP: clusterIP, Selector: map[string]string{"app": name},
			Ports: []api.ServicePort{{Port: 80, Protocol: api.ProtocolTCP, NodePort: nodePort}}},
	}
}

// TestBitmapBytesAreKubeAPIServers: a snapshot's data is the big-endian
// bytes of the integer whose bit i is offset i, as kube-apiserver's
// AllocationBitmap stores its big.Int, and restores to the same set.
func TestBitmapBytesAreKubeAPIServers(t *testing.T) {
	tests := []struct {
		name string
		offs []int
	}{
		{"none", nil},
		{"the first", []int{0}},
		{"a word's last and the next's first", []int{63, 64}},
		{"sparse", []int{1, 9, 200, 1 << 20}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bitmap
			want := new(big.Int)
			for _, i := range tt.offs {
				b.set(i)
				want.SetBit(want, i, 1)
			}
			assert.Equal(t, want.Bytes(), b.bytes())
			var back bitmap
			back.restore(want.Bytes())
			var got []int
			back.each(func(i int) { got = append(got, i) })
			assert.Equal(t, tt.offs, got)
		})
	}
}

// TestSharedAllocatorsNeverHandOutOneValueTwice: two servers keeping their
// allocators in one etcd, creating Services in turn, each on a snapshot the
// other changed since, give every Service its own cluster IP and node port;
// a chosen IP or port the other server holds is refused with
// kube-apiserver's 422, in a dry run too, which swaps nothing; and what one
// releases the other may take.
func TestSharedAllocatorsNeverHandOutOneValueTwice(t *testing.T) {
	ctx := context.Background()
	kv := newFakeKV()
	servers := []*Server{sharedServer(t, kv, testClock()), sharedServer(t, kv, testClock())}
	ips, ports := map[string]bool{}, map[int32]bool{}
	var first *api.Service
	for i := range 20 {
		obj, err := servers[i%2].Create(ctx, sharedService("svc-"+string(rune('a'+i)), "", 0))
		require.NoError(t, err)
		svc := obj.(*api.Service)
		assert.False(t, ips[svc.Spec.ClusterIP], "cluster IP %s twice", svc.Spec.ClusterIP)
		assert.False(t, ports[svc.Spec.Ports[0].NodePort], "node port %d twice", svc.Spec.Ports[0].NodePort)
		ips[svc.Spec.ClusterIP], ports[svc.Spec.Ports[0].NodePort] = true, true
		if first == nil {
			first = svc
		}
	}
	assert.Len(t, kv.stored(t, serviceIPsKey), 20)
	assert.Len(t, kv.stored(t, serviceNodePortsKey), 20)

	// servers[0] made first: servers[1] is refused its IP, then its port.
	_, err := servers[1].Create(ctx, sharedService("taken-ip", first.Spec.ClusterIP, 0))
	require.Error(t, err)
	assert.True(t, apierrors.IsInvalid(err), "%v", err)
	assert.Contains(t, err.Error(), `spec.clusterIPs[0]: Invalid value: "`+first.Spec.ClusterIP+`": provided IP is already allocated`)
	_, err = servers[1].Create(ctx, sharedService("taken-port", "", first.Spec.Ports[0].NodePort))
	require.Error(t, err)
	assert.True(t, apierrors.IsInvalid(err), "%v", err)
	assert.Contains(t, err.Error(), "provided port is already allocated")

	// A dry run checks without swapping: refused as the real create, and
	// allowed without taking anything.
	swaps := kv.swaps
	_, err = servers[1].Create(ctx, sharedService("dry-taken", first.Spec.ClusterIP, 0), client.DryRun())
	assert.True(t, apierrors.IsInvalid(err), "%v", err)
	_, err = servers[1].Create(ctx, sharedService("dry", "", 0), client.DryRun())
	require.NoError(t, err)
	assert.Equal(t, swaps, kv.swaps, "a dry run swapped the allocations")

	// Deleted on servers[0], both are free on servers[1].
	_, err = servers[0].Delete(ctx, "services", "default", first.Metadata.Name, api.DeleteOptions{})
	require.NoError(t, err)
	_, err = servers[1].Create(ctx, sharedService("reuses", first.Spec.ClusterIP, first.Spec.Ports[0].NodePort))
	require.NoError(t, err)
}

// TestSharedAllocatorRecoversALostReply: a change whose reply from etcd
// was lost (applied or not) fails, and the next change starts from what
// etcd holds.
func TestSharedAllocatorRecoversALostReply(t *testing.T) {
	for _, applied := range []bool{false, true} {
		t.Run(map[bool]string{false: "not applied", true: "applied"}[applied], func(t *testing.T) {
			kv := newFakeKV()
			s := sharedServer(t, kv, testClock())
			kv.fail, kv.applied = errors.New("connection reset"), applied
			_, err := s.ips.allocate(false)
			require.Error(t, err)
			ip, err := s.ips.allocate(false)
			require.NoError(t, err)
			off, _ := s.ips.offset(netip.MustParseAddr(ip))
			want := []int{off}
			if applied {
				want = []int{0, off} // the lost one leaked: repair frees it
			}
			assert.Equal(t, want, kv.stored(t, serviceIPsKey), "got %s", ip)
		})
	}
}

// TestSharedAllocatorNeedsItsRange: before the range is made (by a
// server's first repair), a shared allocator refuses, as kube-apiserver's.
func TestSharedAllocatorNeedsItsRange(t *testing.T) {
	s, err := New(Config{Clock: testClock(), Rand: rand.New(rand.NewPCG(1, 2))})
	require.NoError(t, err)
	s.shareRanges(newFakeKV())
	_, err = s.ips.allocate(false)
	assert.EqualError(t, err, "cannot allocate resources of type serviceipallocations at this time")
}

// TestRepair: the repair controllers' cases: a value held in the snapshot
// by no Service is freed by the third repair that finds it (one may see an
// allocation before its Service); a Service's value missing from the
// snapshot is put back, with a ClusterIPNotAllocated Event; two Services
// with one IP get ClusterIPAlreadyAllocated, values out of the range
// ClusterIPOutOfRange and PortOutOfRange; the repairs run every
// RangeRepairInterval on the server's clock, and one with nothing to
// repair writes nothing.
func TestRepair(t *testing.T) {
	synctest.Test(t, testRepair)
}

func testRepair(t *testing.T) {
	ctx := context.Background()
	kv := newFakeKV()
	clk := testClock()
	s := sharedServer(t, kv, clk)
	// A leaked IP and port: allocated, no Service stored.
	leakedIP, err := s.ips.allocate(false)
	require.NoError(t, err)
	_, err = s.nodePorts.allocate(false)
	require.NoError(t, err)
	// Two Services with one IP, and ports not in the snapshot, written past
	// the allocators (as two servers allocating in memory did).
	ra := s.kinds[client.Services]
	for _, svc := range []*api.Service{sharedService("one", "10.96.0.50", 30050), sharedService("two", "10.96.0.50", 30051),
		sharedService("three", "10.200.0.1", 40000)} {
		svc.Spec.ClusterIPs = []string{svc.Spec.ClusterIP}
		_, err := s.store.Create(ra.key("default", svc.Metadata.Name), svc)
		require.NoError(t, err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { s.Run(runCtx); close(done) }()
	defer func() { cancel(); <-done }()
	repair := func() {
		synctest.Wait() // Run waits on its timers
		clk.Step(RangeRepairInterval)
		synctest.Wait()
	}

	repair()
	ip50, _ := s.ips.offset(netip.MustParseAddr("10.96.0.50"))
	assert.Equal(t, []int{0, ip50}, kv.stored(t, serviceIPsKey), "the leak is held, the Services' IP marked")
	assert.Equal(t, []int{0, 50, 51}, kv.stored(t, serviceNodePortsKey))
	evs, err := s.List(ctx, "events", "default", client.ListOptions{})
	require.NoError(t, err)
	var got []string
	for _, o := range evs.Items {
		e := o.(*api.Event)
		got = append(got, e.InvolvedObject.Name+" "+e.Type+" "+e.Reason+": "+e.Message)
	}
	assert.ElementsMatch(t, []string{
		"one Warning ClusterIPNotAllocated: Cluster IP [IPv4]:10.96.0.50 is not allocated; repairing",
		"one Warning PortNotAllocated: Port 30050 is not allocated; repairing",
		"two Warning ClusterIPAlreadyAllocated: Cluster IP [IPv4]:10.96.0.50 was assigned to multiple services; please recreate service",
		"two Warning PortNotAllocated: Port 30051 is not allocated; repairing",
		"three Warning ClusterIPOutOfRange: Cluster IP [IPv4]:10.200.0.1 is not within the service CIDR 10.96.0.0/12; please recreate service",
		"three Warning PortOutOfRange: Port 40000 is not within the port range 30000-32767; please recreate service",
	}, got)

	repair()
	assert.Equal(t, []int{0, ip50}, kv.stored(t, serviceIPsKey), "held for a second repair")
	repair()
	assert.Equal(t, []int{ip50}, kv.stored(t, serviceIPsKey), "freed by the third: %s", leakedIP)
	assert.Equal(t, []int{50, 51}, kv.stored(t, serviceNodePortsKey))
	swaps := kv.swaps
	repair()
	assert.Equal(t, swaps, kv.swaps, "a repair with nothing to repair writes nothing")
}

// FuzzDecodeRange: whatever etcd holds under a range key, reading it fails
// or gives a bitmap that stores back to the same bytes, less leading zeros.
func FuzzDecodeRange(f *testing.F) {
	f.Add(encodeRange("10.96.0.0/12", []byte{1, 0, 3}))
	f.Add(encodeRange("30000-32767", nil))
	f.Add([]byte("k8s\x00garbage"))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, data, err := decodeRange(b)
		if err != nil {
			return
		}
		var bm bitmap
		bm.restore(data)
		assert.Equal(t, new(big.Int).SetBytes(data).Bytes(), bm.bytes())
	})
}
