package httpapi

import (
	"context"
	"math/rand/v2"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/apiserver/httpapi"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
)

// bound limits every wait, so a lost event fails the test instead of
// hanging it.
const bound = 30 * time.Second

// serve starts miniplane's HTTP API on a loopback port for the test and
// returns a client-go clientset for it.
func serve(t *testing.T) (*apiserver.Server, kubernetes.Interface) {
	t.Helper()
	srv, err := apiserver.New(apiserver.Config{Clock: clock.Real{}, Rand: rand.New(rand.NewPCG(1, 2))})
	require.NoError(t, err)
	h, err := httpapi.New(httpapi.Config{Server: srv, Clock: clock.Real{}})
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- httpapi.Serve(ctx, ln, h) }()
	t.Cleanup(func() {
		cancel()
		require.NoError(t, <-done)
	})
	// Only the address: client-go's defaults (protobuf bodies for the
	// built-in kinds since 1.32, protobuf first in Accept) are what a
	// program written for a real cluster gets.
	cfg := &rest.Config{Host: "http://" + ln.Addr().String()}
	cs, err := kubernetes.NewForConfig(cfg)
	require.NoError(t, err)
	return srv, cs
}

func clientGoPod(name string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"app": "web"}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "nginx:1.27"}}},
	}
}

// recorder is an informer event handler that keeps what it saw.
type recorder struct {
	mu      sync.Mutex
	changed chan struct{} // receives after every notification, without blocking
	adds    []string
	updates []string // "name label=value" of the new object
	deletes []string
}

func newRecorder() *recorder { return &recorder{changed: make(chan struct{}, 1)} }

func (r *recorder) note(f func()) {
	r.mu.Lock()
	f()
	r.mu.Unlock()
	select {
	case r.changed <- struct{}{}:
	default:
	}
}

func (r *recorder) handler() cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) { r.note(func() { r.adds = append(r.adds, obj.(*corev1.Pod).Name) }) },
		UpdateFunc: func(_, obj any) {
			p := obj.(*corev1.Pod)
			r.note(func() { r.updates = append(r.updates, p.Name+" env="+p.Labels["env"]) })
		},
		DeleteFunc: func(obj any) {
			if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = d.Obj
			}
			r.note(func() { r.deletes = append(r.deletes, obj.(*corev1.Pod).Name) })
		},
	}
}

// waitFor waits until cond holds on what the recorder saw.
func (r *recorder) waitFor(t *testing.T, ctx context.Context, what string, cond func(r *recorder) bool) {
	t.Helper()
	for {
		r.mu.Lock()
		ok := cond(r)
		r.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-r.changed:
		case <-ctx.Done():
			r.mu.Lock()
			defer r.mu.Unlock()
			t.Fatalf("timed out waiting for %s: adds %v, updates %v, deletes %v", what, r.adds, r.updates, r.deletes)
		}
	}
}

// TestSharedInformer runs a stock client-go shared informer against the
// HTTP API: it syncs (client-go v0.37 lists with a streaming watch,
// sendInitialEvents, by default), then sees a create, an update and a
// delete made through the clientset.
func TestSharedInformer(t *testing.T) {
	srv, cs := serve(t)
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	_, err := cs.CoreV1().Pods("default").Create(ctx, clientGoPod("before"), metav1.CreateOptions{})
	require.NoError(t, err)

	factory := informers.NewSharedInformerFactory(cs, 0)
	pods := factory.Core().V1().Pods()
	rec := newRecorder()
	_, err = pods.Informer().AddEventHandler(rec.handler())
	require.NoError(t, err)
	stop := make(chan struct{})
	factory.Start(stop)
	defer func() {
		close(stop)
		factory.Shutdown()
	}()
	for typ, ok := range factory.WaitForCacheSync(ctx.Done()) {
		require.True(t, ok, "%v did not sync", typ)
	}
	rec.waitFor(t, ctx, "the initial pod", func(r *recorder) bool { return len(r.adds) == 1 })
	assert.Equal(t, []string{"before"}, rec.adds)

	created, err := cs.CoreV1().Pods("default").Create(ctx, clientGoPod("after"), metav1.CreateOptions{})
	require.NoError(t, err)
	rec.waitFor(t, ctx, "the create", func(r *recorder) bool { return len(r.adds) == 2 })

	created.Labels["env"] = "prod"
	_, err = cs.CoreV1().Pods("default").Update(ctx, created, metav1.UpdateOptions{})
	require.NoError(t, err)
	rec.waitFor(t, ctx, "the update", func(r *recorder) bool { return len(r.updates) > 0 })
	assert.Equal(t, []string{"after env=prod"}, rec.updates)

	require.NoError(t, cs.CoreV1().Pods("default").Delete(ctx, "before", metav1.DeleteOptions{}))
	rec.waitFor(t, ctx, "the delete", func(r *recorder) bool { return len(r.deletes) == 1 })
	assert.Equal(t, []string{"before"}, rec.deletes)

	cached, err := pods.Lister().Pods("default").Get("after")
	require.NoError(t, err)
	assert.Equal(t, "prod", cached.Labels["env"])
	assert.Equal(t, 1, srv.Count(client.Pods))

	// The informer synced with a streaming list: a watch, and no list.
	metrics, err := cs.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	require.NoError(t, err)
	assert.Contains(t, string(metrics), `apiserver_longrunning_requests{verb="watch",resource="pods"} 1`)
	assert.NotContains(t, string(metrics), `apiserver_request_total{verb="list",resource="pods"`)
}

// TestClientsetErrors checks that client-go reads the server's Status
// errors as the typed errors controllers switch on.
func TestClientsetErrors(t *testing.T) {
	_, cs := serve(t)
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	_, err := cs.CoreV1().Pods("default").Get(ctx, "nope", metav1.GetOptions{})
	assert.True(t, apierrors.IsNotFound(err), "%v", err)

	p, err := cs.CoreV1().Pods("default").Create(ctx, clientGoPod("web"), metav1.CreateOptions{})
	require.NoError(t, err)
	_, err = cs.CoreV1().Pods("default").Create(ctx, clientGoPod("web"), metav1.CreateOptions{})
	assert.True(t, apierrors.IsAlreadyExists(err), "%v", err)

	stale := p.DeepCopy()
	stale.ResourceVersion = "1"
	stale.Labels["x"] = "y"
	_, err = cs.CoreV1().Pods("default").Update(ctx, stale, metav1.UpdateOptions{})
	assert.True(t, apierrors.IsConflict(err), "%v", err)

	bad := clientGoPod("bad")
	bad.Spec.Containers = nil
	_, err = cs.CoreV1().Pods("default").Create(ctx, bad, metav1.CreateOptions{})
	require.True(t, apierrors.IsInvalid(err), "%v", err)
	var se *apierrors.StatusError
	require.ErrorAs(t, err, &se)
	require.NotNil(t, se.ErrStatus.Details)
	require.NotEmpty(t, se.ErrStatus.Details.Causes)
	assert.Equal(t, "spec.containers", se.ErrStatus.Details.Causes[0].Field)

	_, err = cs.CoreV1().Pods("default").Create(ctx, clientGoPod("dry"), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	require.NoError(t, err)
	_, err = cs.CoreV1().Pods("default").Get(ctx, "dry", metav1.GetOptions{})
	assert.True(t, apierrors.IsNotFound(err), "a dry-run create stores nothing")

	scale, err := cs.CoreV1().ReplicationControllers("default").GetScale(ctx, "nope", metav1.GetOptions{})
	assert.True(t, apierrors.IsNotFound(err), "%v %v", scale, err)
}

// TestClientsetPatchAndApply checks client-go's Patch (merge and
// strategic) and server-side Apply with apply configurations.
func TestClientsetPatchAndApply(t *testing.T) {
	_, cs := serve(t)
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	pods := cs.CoreV1().Pods("default")
	_, err := pods.Create(ctx, clientGoPod("web"), metav1.CreateOptions{})
	require.NoError(t, err)

	p, err := pods.Patch(ctx, "web", types.MergePatchType, []byte(`{"metadata":{"labels":{"env":"prod"}}}`), metav1.PatchOptions{FieldManager: "labeler"})
	require.NoError(t, err)
	assert.Equal(t, "prod", p.Labels["env"])

	p, err = pods.Patch(ctx, "web", types.StrategicMergePatchType, []byte(`{"spec":{"containers":[{"name":"app","image":"nginx:1.28"}]}}`), metav1.PatchOptions{})
	require.NoError(t, err)
	assert.Equal(t, "nginx:1.28", p.Spec.Containers[0].Image)

	applied, err := pods.Apply(ctx,
		corev1ac.Pod("applied", "default").WithLabels(map[string]string{"app": "applied"}).
			WithSpec(corev1ac.PodSpec().WithContainers(corev1ac.Container().WithName("c").WithImage("busybox"))),
		metav1.ApplyOptions{FieldManager: "my-controller"})
	require.NoError(t, err)
	assert.Equal(t, "busybox", applied.Spec.Containers[0].Image)
	var managers []string
	for _, e := range applied.ManagedFields {
		managers = append(managers, e.Manager+":"+string(e.Operation))
	}
	assert.Equal(t, []string{"my-controller:Apply"}, managers)
}
