package manager_test

import (
	"context"
	"flag"
	"fmt"
	"maps"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/controllers/manager"
	"github.com/miniplane/miniplane/informer"
)

func TestEnabled(t *testing.T) {
	tests := []struct {
		controllers []string
		name        string
		offDefault  bool
		want        bool
	}{
		{[]string{"*"}, "endpoint", false, true},
		{[]string{"*"}, "nodesim", true, false},
		{[]string{"*", "nodesim"}, "nodesim", true, false}, // "*" came first and decided
		{[]string{"nodesim", "*"}, "nodesim", true, true},
		{[]string{"-endpoint", "*"}, "endpoint", false, false},
		{[]string{"*", "-endpoint"}, "endpoint", false, true},
		{[]string{"endpoint"}, "garbagecollector", false, false},
		{nil, "endpoint", false, false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, manager.Enabled(tt.controllers, tt.name, tt.offDefault), "%v %s", tt.controllers, tt.name)
	}
}

func TestOptionsFlagsAndValidation(t *testing.T) {
	known := []string{"a", "b"}
	tests := []struct {
		name    string
		args    []string
		wantErr string
		want    func(o manager.Options) bool
	}{
		{name: "defaults", want: func(o manager.Options) bool {
			return len(o.Controllers) == 1 && o.Controllers[0] == "*" && o.ConcurrentRCSyncs == 5 && o.ConcurrentEndpointSyncs == 5 &&
				o.ConcurrentRSSyncs == 5
		}},
		{name: "replica set workers", args: []string{"--concurrent-replicaset-syncs=2"}, want: func(o manager.Options) bool { return o.ConcurrentRSSyncs == 2 }},
		{name: "zero replica set workers", args: []string{"--concurrent-replicaset-syncs=0"}, wantErr: "--concurrent-replicaset-syncs must be at least 1, got 0"},
		{name: "list", args: []string{"--controllers=a, -b"}, want: func(o manager.Options) bool {
			return len(o.Controllers) == 2 && o.Controllers[0] == "a" && o.Controllers[1] == "-b"
		}},
		{name: "unknown", args: []string{"--controllers=a,c"}, wantErr: `--controllers: "c" is not a known controller; known: a, b`},
		{name: "zero workers", args: []string{"--concurrent-rc-syncs=0"}, wantErr: "--concurrent-rc-syncs must be at least 1, got 0"},
		{name: "no simulated nodes", args: []string{"--nodes=0"}, want: func(o manager.Options) bool { return o.Nodes == 0 }},
		{name: "negative nodes", args: []string{"--nodes=-1"}, wantErr: "--nodes must be at least 0, got -1"},
		{name: "builtin scheduler by default", want: func(o manager.Options) bool { return o.Scheduler == "builtin" }},
		{name: "no scheduler", args: []string{"--scheduler=none"}, want: func(o manager.Options) bool { return o.Scheduler == "none" }},
		{name: "unknown scheduler", args: []string{"--scheduler=kube"}, wantErr: `--scheduler must be "builtin" or "none", got "kube"`},
		{name: "leader election defaults", want: func(o manager.Options) bool {
			le := o.LeaderElection
			return le.LeaderElect && le.LeaseDuration == 15*time.Second && le.RenewDeadline == 10*time.Second &&
				le.RetryPeriod == 2*time.Second && le.ResourceName == "kube-controller-manager" && le.ResourceNamespace == "kube-system"
		}},
		{name: "leader election flags", args: []string{"--leader-elect-lease-duration=4s", "--leader-elect-renew-deadline=3s",
			"--leader-elect-retry-period=1s", "--leader-elect-resource-name=my-cm", "--leader-elect-resource-namespace=default"},
			want: func(o manager.Options) bool {
				le := o.LeaderElection
				return le.LeaseDuration == 4*time.Second && le.RenewDeadline == 3*time.Second && le.RetryPeriod == time.Second &&
					le.ResourceName == "my-cm" && le.ResourceNamespace == "default"
			}},
		{name: "election off skips its checks", args: []string{"--leader-elect=false", "--leader-elect-lease-duration=1s"},
			want: func(o manager.Options) bool { return !o.LeaderElection.LeaderElect }},
		{name: "lease not longer than renew deadline", args: []string{"--leader-elect-lease-duration=10s"},
			wantErr: "--leader-elect-lease-duration (10s) must be greater than --leader-elect-renew-deadline (10s)"},
		{name: "renew deadline too close to retry period", args: []string{"--leader-elect-retry-period=9s"},
			wantErr: "--leader-elect-renew-deadline (10s) must be greater than 1.2 × --leader-elect-retry-period (9s)"},
		{name: "zero retry period", args: []string{"--leader-elect-retry-period=0s"},
			wantErr: "--leader-elect-retry-period must be greater than zero, got 0s"},
		{name: "negative lease duration", args: []string{"--leader-elect-lease-duration=-1s"},
			wantErr: "--leader-elect-lease-duration must be greater than zero, got -1s"},
		{name: "empty resource name", args: []string{"--leader-elect-resource-name="},
			wantErr: "--leader-elect-resource-name must not be empty"},
		{name: "empty resource namespace", args: []string{"--leader-elect-resource-namespace="},
			wantErr: "--leader-elect-resource-namespace must not be empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := manager.DefaultOptions()
			fs := flag.NewFlagSet("t", flag.ContinueOnError)
			o.AddFlags(fs)
			require.NoError(t, fs.Parse(tt.args))
			err := o.Validate(known)
			if tt.wantErr != "" {
				assert.EqualError(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.True(t, tt.want(o), "%+v", o)
		})
	}
}

// fakeController records how it was built and run, and registers a pod
// informer handler the way real controllers do.
type fakeController struct {
	reg     *informer.Registration
	mu      sync.Mutex
	workers int
	ran     bool
}

func (f *fakeController) Run(ctx context.Context, workers int) {
	f.mu.Lock()
	f.workers, f.ran = workers, true
	f.mu.Unlock()
	<-ctx.Done()
}

// ProcessOne has nothing to do: the manager never steps a controller.
func (f *fakeController) ProcessOne(context.Context) bool { return false }

func (f *fakeController) HasSynced() bool { return f.reg.HasSynced() }

// TestRunBuildsStartsAndStops: enabled controllers are built in order and
// register informers before the factory starts; Run waits for the caches,
// runs each with its workers, reports health, and returns after cancel.
func TestRunBuildsStartsAndStops(t *testing.T) {
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	srv, err := apiserver.New(apiserver.Config{Clock: clk, Rand: rand.New(rand.NewPCG(1, 2))})
	require.NoError(t, err)
	_, err = srv.Create(context.Background(), &api.Pod{
		Metadata: api.ObjectMeta{Namespace: "default", Name: "p"},
		Spec:     api.PodSpec{Containers: []api.Container{{Name: "c", Image: "i"}}},
	})
	require.NoError(t, err)
	factory := informer.NewFactory(srv, "", clk, nil)

	var order []string
	fakes := map[string]*fakeController{}
	desc := func(name string, workers int, offByDefault bool) manager.Descriptor {
		return manager.Descriptor{Name: name, DisabledByDefault: offByDefault, Init: func(ic manager.InitContext) (manager.Controller, int, error) {
			order = append(order, name)
			f := &fakeController{reg: ic.Factory.ForResource(client.Pods).AddEventHandler(informer.HandlerFuncs{}, 0)}
			fakes[name] = f
			return f, workers, nil
		}}
	}
	opts := manager.DefaultOptions()
	opts.Controllers = []string{"-b", "*"}
	m, err := manager.New(manager.InitContext{Client: srv, Factory: factory, Clock: clk, Options: opts},
		[]manager.Descriptor{desc("a", 3, false), desc("b", 1, false), desc("c", 2, false), desc("off", 1, true)})
	require.NoError(t, err)

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- m.Run(ctx) }()
	require.Eventually(t, func() bool {
		for _, h := range m.Health() {
			if h.Enabled && !(h.Running && h.Synced) {
				return false
			}
		}
		return true
	}, 10*time.Second, time.Millisecond)

	assert.Equal(t, []string{"a", "c"}, order, "enabled controllers, built in registration order")
	assert.Equal(t, []manager.Health{
		{Name: "a", Enabled: true, Running: true, Synced: true},
		{Name: "b"},
		{Name: "c", Enabled: true, Running: true, Synced: true},
		{Name: "off"},
	}, m.Health())
	fakes["a"].mu.Lock()
	assert.Equal(t, 3, fakes["a"].workers)
	fakes["a"].mu.Unlock()

	cancel()
	select {
	case err := <-done:
		assert.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after cancel")
	}
	for _, h := range m.Health() {
		assert.False(t, h.Running, "%s still running", h.Name)
	}
	assert.Error(t, m.Run(context.Background()), "Run may be called once")
}

func TestNewRejectsDuplicatesAndUnknownNames(t *testing.T) {
	d := manager.Descriptor{Name: "a", Init: func(manager.InitContext) (manager.Controller, int, error) { return nil, 1, nil }}
	_, err := manager.New(manager.InitContext{Options: manager.DefaultOptions()}, []manager.Descriptor{d, d})
	assert.EqualError(t, err, `manager: controller "a" registered twice`)

	opts := manager.DefaultOptions()
	opts.Controllers = []string{"zzz"}
	_, err = manager.New(manager.InitContext{Options: opts}, []manager.Descriptor{d})
	assert.ErrorContains(t, err, `"zzz" is not a known controller`)
}

// countingWrites is an client.Client that counts the creates it passes
// on, by kind.
type countingWrites struct {
	client.Client
	mu      sync.Mutex
	created map[string]int
}

func (c *countingWrites) Create(ctx context.Context, obj api.Object, opts ...client.WriteOption) (api.Object, error) {
	out, err := c.Client.Create(ctx, obj, opts...)
	if err == nil {
		c.mu.Lock()
		c.created[strings.TrimPrefix(fmt.Sprintf("%T", out), "*api.")]++
		c.mu.Unlock()
	}
	return out, err
}

// TestClientForGivesEachControllerItsOwnClient: with ClientFor set, each
// controller is built once with the client named after it, and both its
// writes and its events go through that client.
func TestClientForGivesEachControllerItsOwnClient(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := clock.Real{} // the bubble's virtual clock
		srv, err := apiserver.New(apiserver.Config{Clock: clk, Rand: rand.New(rand.NewPCG(1, 2))})
		require.NoError(t, err)
		var asked []string
		clients := map[string]*countingWrites{}
		m, err := manager.New(manager.InitContext{
			Factory: informer.NewFactory(srv, "", clk, nil), Clock: clk, Options: manager.DefaultOptions(), Instance: "cm-0",
			ClientFor: func(name string) client.Client {
				asked = append(asked, name)
				clients[name] = &countingWrites{Client: srv, created: map[string]int{}}
				return clients[name]
			},
		}, manager.DefaultDescriptors())
		require.NoError(t, err)
		_, err = m.Build()
		require.NoError(t, err)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- m.Run(ctx) }() // Build again: idempotent
		replicas := int32(1)
		_, err = client.For[*api.ReplicationController](srv).Create(ctx, &api.ReplicationController{
			TypeMeta: api.TypeMeta{APIVersion: "v1", Kind: "ReplicationController"},
			Metadata: api.ObjectMeta{Namespace: "default", Name: "web"},
			Spec: api.ReplicationControllerSpec{Replicas: &replicas, Selector: map[string]string{"app": "web"}, Template: &api.PodTemplateSpec{
				Metadata: api.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:     api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx"}}},
			}},
		})
		require.NoError(t, err)
		synctest.Wait() // every goroutine of the bubble has run until it blocked
		cancel()
		require.NoError(t, <-done)
		assert.Equal(t, []string{manager.ReplicationController, manager.ReplicaSet, manager.Deployment, manager.DaemonSet, manager.StatefulSet, manager.Job, manager.CronJob, manager.TTLAfterFinished, manager.PodGC, manager.TaintEviction, manager.PersistentVolumeBinder, manager.Disruption, manager.Endpoint, manager.EndpointSlice, manager.EndpointSliceMirroring, manager.GarbageCollector,
			manager.ServiceAccount, manager.RootCACertificatePublisher, manager.ResourceQuota, manager.ClusterRoleAggregation, manager.CSRCleaner, manager.HorizontalPodAutoscaling}, asked, "each built once")
		assert.Equal(t, map[string]int{"Pod": 1, "Event": 1}, clients[manager.ReplicationController].snapshot())
		assert.Empty(t, clients[manager.Endpoint].snapshot())
	})
}

func (c *countingWrites) snapshot() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.created)
}
