package plane_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/apiserver/faults"
	"github.com/miniplane/miniplane/apiserver/httpapi/inmem"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/controllers/manager"
	"github.com/miniplane/miniplane/controllers/nodesim"
	"github.com/miniplane/miniplane/election"
	"github.com/miniplane/miniplane/plane"
	"github.com/miniplane/miniplane/plane/planetest"
)

// fastElection is leader election in seconds, so that a failover takes
// little virtual time.
var fastElection = manager.LeaderElectionOptions{
	LeaderElect: true, LeaseDuration: 2 * time.Second, RenewDeadline: time.Second, RetryPeriod: 500 * time.Millisecond,
	ResourceName: election.DefaultName, ResourceNamespace: election.DefaultNamespace,
}

func options(mutate func(*manager.Options)) *manager.Options {
	o := manager.DefaultOptions()
	if mutate != nil {
		mutate(&o)
	}
	return &o
}

// waitFor polls cond every 10ms of the bubble's virtual time until it
// holds, failing the test after a virtual minute. Between polls every
// goroutine of the bubble has blocked (synctest.Wait), so a poll sees
// all the work the last step of the clock made possible.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for synctest.Wait(); !cond(); synctest.Wait() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		<-time.After(10 * time.Millisecond) // steps the virtual clock
	}
}

func rc(name string, replicas int32) *api.ReplicationController {
	labels := map[string]string{"app": name}
	return &api.ReplicationController{
		TypeMeta: api.TypeMeta{APIVersion: "v1", Kind: "ReplicationController"},
		Metadata: api.ObjectMeta{Namespace: "default", Name: name},
		Spec: api.ReplicationControllerSpec{Replicas: &replicas, Selector: labels, Template: &api.PodTemplateSpec{
			Metadata: api.ObjectMeta{Labels: labels},
			Spec:     api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx"}}},
		}},
	}
}

func readyPods(t *testing.T, srv *apiserver.Server, selector string) int {
	pods, _, err := client.For[*api.Pod](srv).List(context.Background(), "default", client.ListOptions{LabelSelector: selector})
	require.NoError(t, err)
	n := 0
	for _, p := range pods {
		if api.IsPodReady(p) && p.Metadata.DeletionTimestamp == nil {
			n++
		}
	}
	return n
}

// TestPlaneInSynctest runs a whole plane inside a synctest bubble, on its
// virtual clock and in memory: the replication controller, the scheduler
// and the kubelets bring an RC's pods to Ready, a watch over the
// in-memory transport streams, the controllers' events are written, and
// when the test ends the plane stops with no goroutine left (synctest.Test
// fails otherwise).
func TestPlaneInSynctest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := planetest.Start(t, plane.Config{Seed: 7, Instances: 2, Options: options(func(o *manager.Options) {
			o.Nodes = 2
			o.LeaderElection = fastElection
		})})
		assert.True(t, p.IsReady())
		assert.NotEmpty(t, p.Leader())
		assert.Empty(t, p.URL(), "no listener unless asked")

		c := &http.Client{Transport: p.Transport()}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.Host()+"/api/v1/namespaces/default/pods?watch=true", nil)
		require.NoError(t, err)
		watch, err := c.Do(req)
		require.NoError(t, err)
		defer watch.Body.Close()
		require.Equal(t, http.StatusOK, watch.StatusCode)

		_, err = client.For[*api.ReplicationController](p.Server()).Create(context.Background(), rc("web", 3))
		require.NoError(t, err)
		waitFor(t, "three ready pods", func() bool { return readyPods(t, p.Server(), "app=web") == 3 })

		line, err := readLine(watch.Body)
		require.NoError(t, err)
		assert.Contains(t, line, `"type":"ADDED"`)
		assert.Contains(t, line, `"web-`)

		evs, _, err := client.For[*api.Event](p.Server()).List(context.Background(), "default", client.ListOptions{})
		require.NoError(t, err)
		var reasons []string
		for _, e := range evs {
			reasons = append(reasons, e.Source.Component+"/"+e.Reason)
		}
		assert.Contains(t, reasons, "replication-controller/SuccessfulCreate")
	})
}

func readLine(r io.Reader) (string, error) {
	var b bytes.Buffer
	one := make([]byte, 1)
	for {
		if _, err := r.Read(one); err != nil {
			return b.String(), err
		}
		if one[0] == '\n' {
			return b.String(), nil
		}
		b.WriteByte(one[0])
	}
}

// TestKillLeaderFailsOver kills the leader as a crash would: another
// instance takes the lease once it expires, and its first write comes
// after the kill.
func TestKillLeaderFailsOver(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := planetest.Start(t, plane.Config{Seed: 3, Instances: 3, Options: options(func(o *manager.Options) {
			o.Nodes = 1
			o.LeaderElection = fastElection
		})})
		_, err := client.For[*api.ReplicationController](p.Server()).Create(context.Background(), rc("web", 1))
		require.NoError(t, err)
		waitFor(t, "a ready pod", func() bool { return readyPods(t, p.Server(), "app=web") == 1 })
		old := p.Leader()
		require.NotEmpty(t, old)
		writes := p.Writes()
		require.NotEmpty(t, writes)
		assert.Equal(t, old, writes[len(writes)-1].Identity)

		killedAt := time.Now()
		killed, err := p.KillLeader(context.Background())
		require.NoError(t, err)
		assert.Equal(t, old, killed)
		waitFor(t, "a new leader", func() bool { l := p.Leader(); return l != "" && l != old })
		assert.GreaterOrEqual(t, time.Since(killedAt), fastElection.LeaseDuration-fastElection.RetryPeriod, "the lease is waited out")

		// The new leader writes once it has work: scale the RC up.
		scale, err := p.Server().GetScale(context.Background(), client.ReplicationControllers, "default", "web")
		require.NoError(t, err)
		scale.Spec.Replicas = 2
		_, err = p.Server().UpdateScale(context.Background(), client.ReplicationControllers, "default", scale)
		require.NoError(t, err)
		waitFor(t, "the new leader's first write", func() bool { _, ok := p.FirstWriteAfter(killedAt); return ok })
		writes = p.Writes()
		assert.Equal(t, p.Leader(), writes[len(writes)-1].Identity)
		first, _ := p.FirstWriteAfter(killedAt)
		assert.Equal(t, writes[len(writes)-1].At, first)
	})
}

// TestKillLeaderKillsTheLeaseHolderWhileItsGuardIsClosed is the demo's
// failover on a starved machine: the leader's next renewal is late, so its
// guard has closed and no instance is Leading, yet it holds the lease, and
// KillLeader kills it. The clock jumps past the renew deadline while every
// goroutine of the bubble is blocked, as a starved process finds it when it
// runs again.
func TestKillLeaderKillsTheLeaseHolderWhileItsGuardIsClosed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := &starvedClock{Clock: clock.Real{}}
		p := planetest.Start(t, plane.Config{Seed: 3, Instances: 3, Clock: clk, Options: options(func(o *manager.Options) {
			o.Nodes = 1
			o.LeaderElection = fastElection
		})})
		waitFor(t, "a leader", func() bool { return p.Leader() != "" })
		old := p.Leader()

		synctest.Wait()
		clk.starve(fastElection.RenewDeadline + time.Millisecond)
		require.Empty(t, p.Leader(), "the leader's guard has closed: its renewal is late")
		killed, err := p.KillLeader(context.Background())
		require.NoError(t, err)
		assert.Equal(t, old, killed, "the lease's holder is killed")
		waitFor(t, "a new leader", func() bool { l := p.Leader(); return l != "" && l != old })
	})
}

// starvedClock is a clock whose time starve moves on without firing any
// timer: the time a process finds when it was not scheduled for a while.
type starvedClock struct {
	clock.Clock
	mu    sync.Mutex
	ahead time.Duration // guarded by mu
}

func (c *starvedClock) starve(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ahead += d
}

func (c *starvedClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.Clock.Now().Add(c.ahead)
}

func (c *starvedClock) Since(t time.Time) time.Duration { return c.Now().Sub(t) }

// TestReadyChecksSayWhatIsMissing checks the readiness checks of a plane
// that has not run: each names the part that is not ready.
func TestReadyChecksSayWhatIsMissing(t *testing.T) {
	tests := []struct {
		name    string
		cfg     plane.Config
		want    []string
		reasons []string
	}{
		{
			name:    "controllers on",
			cfg:     plane.Config{Options: options(func(o *manager.Options) { o.Nodes = 2 })},
			want:    []string{"informer-sync", "poststarthook/register-nodes", "controller-manager"},
			reasons: []string{"nodesim's informers of", "registering 2 simulated nodes", "no instance holds the lease kube-system/kube-controller-manager"},
		},
		{
			name: "every controller off",
			cfg: plane.Config{Instances: 3, Options: options(func(o *manager.Options) {
				o.Controllers = []string{"-replicationcontroller", "-endpoint", "-garbagecollector"}
			})},
			want:    []string{"informer-sync", "poststarthook/register-nodes"},
			reasons: []string{"nodesim's informers of", "registering 3 simulated nodes"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := plane.New(tt.cfg)
			require.NoError(t, err)
			var names []string
			for i, c := range p.ReadyChecks() {
				names = append(names, c.Name())
				err := c.Check()
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.reasons[i])
			}
			assert.Equal(t, tt.want, names)
			assert.False(t, p.IsReady())
			if len(tt.want) == 2 {
				assert.Empty(t, p.Instances())
			}
		})
	}
}

// TestNewRefusesABadConfig: every refusal says what was wrong.
func TestNewRefusesABadConfig(t *testing.T) {
	tests := []struct {
		name string
		cfg  plane.Config
		want string
	}{
		{"negative instances", plane.Config{Instances: -1}, "Instances must be at least 1, got -1"},
		{"unelected and several", plane.Config{Instances: 2, Options: options(func(o *manager.Options) { o.LeaderElection.LeaderElect = false })}, "run 1 instance, not 2"},
		{"unknown controller", plane.Config{Options: options(func(o *manager.Options) { o.Controllers = []string{"attachdetach"} })}, `"attachdetach" is not a known controller`},
		{"too many nodes", plane.Config{Options: options(func(o *manager.Options) { o.Nodes = 100000 })}, "--nodes must be between 0 and"},
		{"unknown scheduler", plane.Config{Options: options(func(o *manager.Options) { o.Scheduler = "volcano" })}, `--scheduler must be "builtin" or "none"`},
		{"fault rate", plane.Config{Faults: faults.All, FaultRate: 2}, "FaultRate must be in [0, 1], got 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := plane.New(tt.cfg)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

// TestHandleMountsBesideTheAPI mounts a handler at /ui/: its paths go to
// it, the API's to the API, through the transport and Handler alike; a
// path of the API's, or a second mount of one pattern, is refused.
func TestHandleMountsBesideTheAPI(t *testing.T) {
	p, err := plane.New(plane.Config{})
	require.NoError(t, err)
	ui := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ui:"+r.URL.Path) })
	require.NoError(t, p.Handle("/ui/", ui))
	for _, bad := range []string{"/ui/", "/api/v1/pods", "/apis/", "/", "ui", "/readyz"} {
		assert.Error(t, p.Handle(bad, ui), bad)
	}
	c := &http.Client{Transport: p.Transport()}
	get := func(path string) (int, string) {
		resp, err := c.Get(p.Host() + path)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp.StatusCode, string(b)
	}
	code, body := get("/ui/pods")
	assert.Equal(t, http.StatusOK, code)
	assert.Equal(t, "ui:/ui/pods", body)
	code, body = get("/api/v1/namespaces/default")
	assert.Equal(t, http.StatusOK, code)
	assert.Contains(t, body, `"kind":"Namespace"`)
	code, body = get("/uix")
	assert.Equal(t, http.StatusNotFound, code, body)
}

// TestFaultsStrikeHTTPNotTheServer: with faults configured, requests
// through the transport meet them; the in-process Server and the direct
// transport do not.
func TestFaultsStrikeHTTPNotTheServer(t *testing.T) {
	p, err := plane.New(plane.Config{Faults: faults.SetOf(faults.Error), FaultRate: 1})
	require.NoError(t, err)
	resp, err := (&http.Client{Transport: p.Transport()}).Get(p.Host() + "/api/v1/namespaces/default/pods")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusInternalServerError, resp.StatusCode)
	resp, err = (&http.Client{Transport: p.DirectTransport()}).Get(p.Host() + "/api/v1/namespaces/default/pods")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	_, _, err = client.For[*api.Pod](p.Server()).List(context.Background(), "default", client.ListOptions{})
	assert.NoError(t, err)
	var m strings.Builder
	p.WriteMetrics(&m)
	assert.Contains(t, m.String(), "leader_election_master_status")
}

// TestKubeconfigNamesWhereThePlaneIs: the listener's URL once bound, else
// the in-memory host.
func TestKubeconfigNamesWhereThePlaneIs(t *testing.T) {
	p, err := plane.New(plane.Config{Token: "s3cret"})
	require.NoError(t, err)
	assert.Contains(t, string(p.Kubeconfig()), `server: "`+inmem.Host+`"`)
	assert.Contains(t, string(p.Kubeconfig()), `token: "s3cret"`)
	assert.Error(t, p.Listen(), "no address to listen on")

	l := planetest.Start(t, plane.Config{Listen: "127.0.0.1:0", Options: options(func(o *manager.Options) { o.Nodes = 0 })})
	require.True(t, strings.HasPrefix(l.URL(), "http://127.0.0.1:"), l.URL())
	assert.Contains(t, string(l.Kubeconfig()), `server: "`+l.URL()+`"`)
	resp, err := http.Get(l.URL() + "/readyz")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
}

// TestSchedulerNoneLeavesBindingToAnother: with Scheduler none, a pod
// stays Pending and unbound until something binds it through the API;
// the simulated kubelet then runs it to Ready. Each node has its Lease.
func TestSchedulerNoneLeavesBindingToAnother(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := planetest.Start(t, plane.Config{Seed: 1, Options: options(func(o *manager.Options) {
			o.Nodes = 2
			o.Scheduler = "none"
		}), NodeSim: nodesim.Config{StartDelay: 100 * time.Millisecond, ReadyDelay: 100 * time.Millisecond}})
		waitFor(t, "a Lease per node", func() bool {
			leases, _, err := client.For[*api.Lease](p.Server()).List(context.Background(), api.NamespaceNodeLease, client.ListOptions{})
			require.NoError(t, err)
			return len(leases) == 2
		})

		pods := client.For[*api.Pod](p.Server())
		_, err := pods.Create(context.Background(), &api.Pod{
			TypeMeta: api.TypeMeta{APIVersion: "v1", Kind: "Pod"},
			Metadata: api.ObjectMeta{Namespace: "default", Name: "web"},
			Spec:     api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx"}}},
		})
		require.NoError(t, err)
		<-time.After(time.Minute)
		synctest.Wait()
		got, err := pods.Get(context.Background(), "default", "web")
		require.NoError(t, err)
		assert.Empty(t, got.Spec.NodeName, "no scheduler binds it")
		assert.Equal(t, api.PodPending, got.Status.Phase)

		_, err = p.Server().Bind(context.Background(), "default", "web", "node-1")
		require.NoError(t, err)
		waitFor(t, "the kubelet runs the bound pod", func() bool {
			got, err := pods.Get(context.Background(), "default", "web")
			require.NoError(t, err)
			return got.Status.Phase == api.PodRunning && api.IsPodReady(got)
		})
	})
}

// TestCreationSaysWhenNothingActs: creating an object whose Kubernetes
// controller does not run here answers with a Warning that says so and
// why (kubectl prints it); one whose controller runs answers without.
func TestCreationSaysWhenNothingActs(t *testing.T) {
	const pv = `{"apiVersion":"v1","kind":"PersistentVolume","metadata":{"name":"disk"},"spec":{"capacity":{"storage":"1Gi"},"accessModes":["ReadWriteOnce"],"hostPath":{"path":"/data"}}}`
	const deploy = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"nginx"}]}}}}`
	const cm = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cfg"}}`
	const pdb = `{"apiVersion":"policy/v1","kind":"PodDisruptionBudget","metadata":{"name":"web"},"spec":{"minAvailable":1,"selector":{"matchLabels":{"app":"web"}}}}`
	for _, tt := range []struct {
		name        string
		controllers []string
		path, body  string
		want        string
	}{
		{"a volume with the binder off", []string{"-persistentvolume-binder", "*"}, "/api/v1/persistentvolumes", pv,
			`299 - "nothing acts on this PersistentVolume: kube-controller-manager's \"persistentvolume-binder\" controller does not run here (it is switched off: serve --controllers)"`},
		{"a controller switched off", []string{"-deployment", "*"}, "/apis/apps/v1/namespaces/default/deployments", deploy,
			`299 - "nothing acts on this Deployment: kube-controller-manager's \"deployment\" controller does not run here (it is switched off: serve --controllers)"`},
		{"a controller that runs", nil, "/apis/apps/v1/namespaces/default/deployments", deploy, ""},
		{"a budget, which the disruption controller keeps", nil, "/apis/policy/v1/namespaces/default/poddisruptionbudgets", pdb, ""},
		{"a budget with the disruption controller off", []string{"-disruption", "*"}, "/apis/policy/v1/namespaces/default/poddisruptionbudgets", pdb,
			`299 - "nothing acts on this PodDisruptionBudget: kube-controller-manager's \"disruption\" controller does not run here (it is switched off: serve --controllers)"`},
		{"data, which no controller acts on", nil, "/api/v1/namespaces/default/configmaps", cm, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p, err := plane.New(plane.Config{Options: options(func(o *manager.Options) {
				if tt.controllers != nil {
					o.Controllers = tt.controllers
				}
			})})
			require.NoError(t, err)
			resp, err := (&http.Client{Transport: p.Transport()}).Post(p.Host()+tt.path, "application/json", strings.NewReader(tt.body))
			require.NoError(t, err)
			b, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			resp.Body.Close()
			require.Equal(t, http.StatusCreated, resp.StatusCode, string(b))
			assert.Equal(t, tt.want, resp.Header.Get("Warning"))
		})
	}
}
