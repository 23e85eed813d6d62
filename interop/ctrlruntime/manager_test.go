package ctrlruntime

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/zapr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/recorder"

	"github.com/miniplane/miniplane/interop/internal/planetest"
)

// bound limits every wait, so that a lost event fails the test instead of
// hanging it; tick is how often a wait looks again.
const (
	bound = 20 * time.Second
	tick  = 20 * time.Millisecond
)

// Names of what the reconcilers write.
const (
	annotation   = "stock.miniplane.io/reconciled-by"
	annotator    = "rc-annotator" // the controller, and its events' reporter
	reasonNew    = "Annotated"    // recorded through GetEventRecorder (events.k8s.io/v1)
	reasonLegacy = "AnnotatedV1"  // recorded through GetEventRecorderFor (core/v1)
)

// rcAnnotator annotates every replication controller once, and records
// that it did with both of the manager's event recorders.
type rcAnnotator struct {
	client client.Client
	events recorder.EventRecorder // events.k8s.io/v1
	legacy record.EventRecorder   // core/v1
}

func (a *rcAnnotator) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var rc corev1.ReplicationController
	if err := a.client.Get(ctx, req.NamespacedName, &rc); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if rc.Annotations[annotation] == annotator {
		return reconcile.Result{}, nil
	}
	before := rc.DeepCopy()
	if rc.Annotations == nil {
		rc.Annotations = map[string]string{}
	}
	rc.Annotations[annotation] = annotator
	if err := a.client.Patch(ctx, &rc, client.MergeFrom(before)); err != nil {
		return reconcile.Result{}, err
	}
	a.events.Eventf(&rc, nil, corev1.EventTypeNormal, reasonNew, "Annotate", "annotated %s", rc.Name)
	a.legacy.Eventf(&rc, corev1.EventTypeNormal, reasonLegacy, "annotated %s", rc.Name)
	return reconcile.Result{}, nil
}

// podMetadata reconciles pods from a metadata-only cache and keeps, for
// each pod name, the "step" label it last saw, or "deleted".
type podMetadata struct {
	client client.Client
	// mu guards seen.
	mu   sync.Mutex
	seen map[string]string
}

func (p *podMetadata) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	pm := &metav1.PartialObjectMetadata{}
	pm.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Pod"))
	err := p.client.Get(ctx, req.NamespacedName, pm)
	state := pm.Labels["step"]
	switch {
	case apierrors.IsNotFound(err):
		state = "deleted"
	case err != nil:
		return reconcile.Result{}, err
	}
	p.mu.Lock()
	p.seen[req.Name] = state
	p.mu.Unlock()
	return reconcile.Result{}, nil
}

func (p *podMetadata) saw(name string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.seen[name]
}

// TestManagerWithDefaultOptions runs a controller-runtime manager with its
// default options against miniplane and checks what its controllers did:
// the annotation, both Events (listed through core/v1, where Kubernetes
// shows events.k8s.io/v1 Events too), and a metadata-only watch of pods
// that sees an add, an update and a delete.
func TestManagerWithDefaultOptions(t *testing.T) {
	p := planetest.Start(t)
	cfg := p.Config()
	planetest.RequireStock(t, cfg)
	log := zaptest.NewLogger(t, zaptest.Level(zapcore.WarnLevel))
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Metrics: metricsserver.Options{BindAddress: "0"},
		Logger:  zapr.NewLogger(log),
	})
	require.NoError(t, err)

	rcs := &rcAnnotator{client: mgr.GetClient(), events: mgr.GetEventRecorder(annotator), legacy: mgr.GetEventRecorderFor(annotator)} //nolint:staticcheck // the core/v1 recorder is what most controllers still use
	require.NoError(t, ctrl.NewControllerManagedBy(mgr).Named(annotator).For(&corev1.ReplicationController{}).Complete(rcs))
	pods := &podMetadata{client: mgr.GetClient(), seen: map[string]string{}}
	require.NoError(t, ctrl.NewControllerManagedBy(mgr).Named("pod-metadata").For(&corev1.Pod{}, builder.OnlyMetadata).Complete(pods))

	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan error, 1)
	go func() { stopped <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		timer := time.NewTimer(bound)
		defer timer.Stop()
		select {
		case err := <-stopped:
			assert.NoError(t, err, "the manager stopped with an error")
		case <-timer.C:
			t.Errorf("the manager did not stop within %v", bound)
		}
	})
	require.True(t, mgr.GetCache().WaitForCacheSync(bounded(t)), "the manager's cache did not sync")

	cs, err := kubernetes.NewForConfig(cfg)
	require.NoError(t, err)

	t.Run("annotation", func(t *testing.T) {
		waitCtx := bounded(t)
		require.NoError(t, mgr.GetClient().Create(waitCtx, replicationController("frontend")))
		require.EventuallyWithT(t, func(c *assert.CollectT) {
			rc, err := cs.CoreV1().ReplicationControllers(metav1.NamespaceDefault).Get(waitCtx, "frontend", metav1.GetOptions{})
			require.NoError(c, err)
			assert.Equal(c, annotator, rc.Annotations[annotation])
		}, bound, tick, "the reconciler's annotation never appeared")
	})

	// Both recorders' Events are listed through core/v1, about the
	// controller they name.
	for _, tt := range []struct{ name, reason string }{
		{"core/v1 Event from GetEventRecorderFor", reasonLegacy},
		{"events.k8s.io/v1 Event from GetEventRecorder", reasonNew},
	} {
		t.Run(tt.name, func(t *testing.T) {
			waitCtx := bounded(t)
			if tt.reason == reasonNew {
				// Without the group the recorder's POSTs get 404 and are
				// dropped ("Server rejected event (will not retry!)").
				_, err := cs.Discovery().ServerResourcesForGroupVersion("events.k8s.io/v1")
				require.NoError(t, err, "the server does not serve events.k8s.io/v1, where GetEventRecorder writes")
			}
			var found corev1.Event
			require.EventuallyWithT(t, func(c *assert.CollectT) {
				list, err := cs.CoreV1().Events(metav1.NamespaceDefault).List(waitCtx, metav1.ListOptions{})
				require.NoError(c, err)
				var reasons []string
				for _, e := range list.Items {
					reasons = append(reasons, e.Reason+" "+e.InvolvedObject.Kind+"/"+e.InvolvedObject.Name)
					if e.Reason == tt.reason {
						found = e
					}
				}
				assert.Equal(c, tt.reason, found.Reason, "no core/v1 Event with reason %s; the events are %q", tt.reason, reasons)
			}, bound, tick)
			assert.Equal(t, "ReplicationController", found.InvolvedObject.Kind)
			assert.Equal(t, "frontend", found.InvolvedObject.Name)
			assert.Equal(t, "annotated frontend", found.Message)
			assert.Equal(t, corev1.EventTypeNormal, found.Type)
		})
	}

	t.Run("metadata-only pod watch", func(t *testing.T) {
		waitCtx := bounded(t)
		podClient := cs.CoreV1().Pods(metav1.NamespaceDefault)
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: "web", Labels: map[string]string{"step": "create"}},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "nginx:1.27"}}},
		}
		_, err := podClient.Create(waitCtx, pod, metav1.CreateOptions{})
		require.NoError(t, err)
		require.Eventually(t, func() bool { return pods.saw("web") == "create" }, bound, tick, "the pod's add never reached the reconciler")

		_, err = podClient.Patch(waitCtx, "web", "application/merge-patch+json", []byte(`{"metadata":{"labels":{"step":"update"}}}`), metav1.PatchOptions{})
		require.NoError(t, err)
		require.Eventually(t, func() bool { return pods.saw("web") == "update" }, bound, tick, "the pod's update never reached the reconciler")

		require.NoError(t, podClient.Delete(waitCtx, "web", metav1.DeleteOptions{}))
		require.Eventually(t, func() bool { return pods.saw("web") == "deleted" }, bound, tick, "the pod's delete never reached the reconciler")

		// The cache asked for metadata only, and its first stream carried
		// every change: a stream the client cannot decode makes the
		// reflector list and watch again, and the reconciler still gets
		// there, late.
		var requests []string
		for _, r := range p.Requests() {
			if r.Path == "/api/v1/pods" {
				assert.Contains(t, r.Accept, "as=PartialObjectMetadata", "the metadata-only cache asked for more: %+v", r)
				requests = append(requests, r.Query)
			}
		}
		assert.NotEmpty(t, requests, "the metadata-only cache sent no request for pods")
		assert.LessOrEqual(t, len(requests), 2, "the metadata-only cache listed or watched pods again: %q", requests)
	})

	t.Run("protobuf", func(t *testing.T) {
		// controller-runtime's client, like client-go's, writes the
		// built-in kinds as protobuf.
		var creates int
		for _, r := range p.Requests() {
			if r.Method == "POST" && r.Path == "/api/v1/namespaces/default/replicationcontrollers" {
				creates++
				assert.Equal(t, planetest.Protobuf, r.ContentType)
				assert.True(t, strings.HasPrefix(r.Answer, planetest.Protobuf), "answered with %q", r.Answer)
			}
		}
		assert.Equal(t, 1, creates, "the replication controller's creates")
	})
}

// bounded returns a context that ends after bound or with t.
func bounded(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), bound)
	t.Cleanup(cancel)
	return ctx
}

func replicationController(name string) *corev1.ReplicationController {
	labels := map[string]string{"app": name}
	return &corev1.ReplicationController{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: metav1.NamespaceDefault},
		Spec: corev1.ReplicationControllerSpec{
			Replicas: ptr.To[int32](1),
			Selector: labels,
			Template: &corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "nginx:1.27"}}},
			},
		},
	}
}
