package controller

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-logr/logr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/miniplane/miniplane/apiserver/faults"
	"github.com/miniplane/miniplane/interop/examples/internal/inproc"
	examplev1 "github.com/miniplane/miniplane/interop/examples/operator/api/v1"
	"github.com/miniplane/miniplane/plane"
	"github.com/miniplane/miniplane/plane/planetest"
)

func TestMain(m *testing.M) { inproc.Main(m) }

// crdDir is the operator's CRDs, as envtest's CRDDirectoryPaths names
// them from a kubebuilder project's controller package.
const crdDir = "../../config/crd/bases"

// widgets is how many Widgets each run keeps.
const widgets = 4

func newScheme(t *testing.T) *runtime.Scheme {
	s := runtime.NewScheme()
	require.NoError(t, clientgoscheme.AddToScheme(s))
	require.NoError(t, examplev1.AddToScheme(s))
	return s
}

// startPlane starts a plane with the operator's CRDs installed, the
// faults fs drawn from seed on its Transport, and returns it with a client
// of the test's own that the faults never strike (DirectTransport).
func startPlane(t *testing.T, seed int64, fs faults.Set) (*plane.Plane, client.Client) {
	p := planetest.Start(t, plane.Config{Seed: uint64(seed), Faults: fs, FaultRate: inproc.Rate, CRDs: []string{crdDir}})
	c, err := client.New(&rest.Config{Host: p.Host(), Transport: p.DirectTransport()}, client.Options{Scheme: newScheme(t)})
	require.NoError(t, err)
	return p, c
}

// runOperator is one run, with one seed, of a manager running the
// WidgetReconciler against the plane with the faults fs, in a synctest
// bubble: the test creates the Widgets, changes each one's message every
// few seconds, deletes the first, and waits until every Widget left has
// its ConfigMap, owned by it and holding its spec, and a status that says
// so at its generation — and the deleted one's ConfigMap has been
// collected by the garbage collector through its ownerReference.
//
// The manager runs with its defaults but three, as the ctrlruntime
// example's does: no metrics server, no logger, SkipNameValidation. Its
// writes and the test's take turns through an inproc.Settler, so that one
// seed gives one run (the Settler says why). What is left to chance is
// client-go's: a reflector retrying a failed watch waits a backoff
// jittered from math/rand's global source (apimachinery's wait.Jitter),
// which moves the retry in virtual time; in five sweeps of the 50 seeds
// and ten replays of each failing one it never changed whether a seed
// fails.
func runOperator(t *testing.T, seed int64, fs faults.Set, buggy bool) {
	synctest.Test(t, func(t *testing.T) {
		p, c := startPlane(t, seed, fs)
		scheme := newScheme(t)
		turns := inproc.NewSettler()
		mgr, err := ctrl.NewManager(&rest.Config{Host: p.Host(), Transport: turns.Transport(p.Transport())}, ctrl.Options{
			Scheme:     scheme,
			Metrics:    metricsserver.Options{BindAddress: "0"},
			Logger:     logr.Discard(),
			Controller: config.Controller{SkipNameValidation: ptr.To(true)},
		})
		require.NoError(t, err)
		r := &WidgetReconciler{Client: mgr.GetClient(), Scheme: scheme, SwallowStatusErrors: buggy}
		require.NoError(t, r.SetupWithManager(mgr))
		ctx, cancel := context.WithCancel(t.Context())
		stopped := make(chan error, 1)
		go func() { stopped <- mgr.Start(ctx) }()
		defer func() {
			cancel()
			assert.NoError(t, <-stopped, "the manager stopped cleanly")
		}()

		// The first Widget alone, until the reconciler has made its
		// ConfigMap: by then the controller watches Widgets, so the others
		// reach its queue as events, in the order they are created. Created
		// before, they would reach it from the informer's cache when the
		// controller registers its handler, in the order of a Go map.
		create := func(i int) {
			turns.Do(func() {
				require.NoError(t, c.Create(ctx, &examplev1.Widget{
					ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("w-%d", i)},
					Spec:       examplev1.WidgetSpec{Message: "hello"},
				}))
			})
		}
		create(0)
		planetest.Eventually(t, func() error {
			return c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "w-0-config"}, &corev1.ConfigMap{})
		}, time.Minute)
		for i := 1; i < widgets; i++ {
			create(i)
		}
		for round := 1; round <= 3; round++ {
			time.Sleep(5 * time.Second)
			turns.Do(func() {
				for i := range widgets {
					setMessage(t, c, fmt.Sprintf("w-%d", i), fmt.Sprintf("hello %d", round))
				}
			})
		}
		turns.Do(func() {
			require.NoError(t, c.Delete(ctx, &examplev1.Widget{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "w-0"}}))
		})

		// Four minutes, not five: client-go's reflectors end each watch
		// after a timeout drawn from math/rand's global source between
		// five and ten minutes, and the relist that follows brings a
		// widget whose status write was dropped back to the reconciler.
		// Within five minutes of the start no watch ends of its own
		// accord, so whether a seed fails does not hang on that draw.
		planetest.Eventually(t, func() error { return converged(ctx, c) }, 4*time.Minute)
	})
}

// setMessage changes a Widget's message, as its owner would: read,
// change, write, again on a 409.
func setMessage(t *testing.T, c client.Client, name, message string) {
	t.Helper()
	require.NoError(t, retry.RetryOnConflict(retry.DefaultRetry, func() error {
		var w examplev1.Widget
		if err := c.Get(t.Context(), client.ObjectKey{Namespace: "default", Name: name}, &w); err != nil {
			return err
		}
		w.Spec.Message = message
		return c.Update(t.Context(), &w)
	}))
}

// converged says what is not yet as the run wants it: w-0 and its
// ConfigMap gone, every other Widget's ConfigMap owned by it and holding
// its spec, its status naming the ConfigMap at its generation.
func converged(ctx context.Context, c client.Client) error {
	var cm corev1.ConfigMap
	if err := c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "w-0-config"}, &cm); !apierrors.IsNotFound(err) {
		return fmt.Errorf("w-0-config: the deleted widget's ConfigMap is still there (err %v)", err)
	}
	for i := 1; i < widgets; i++ {
		var w examplev1.Widget
		name := fmt.Sprintf("w-%d", i)
		if err := c.Get(ctx, client.ObjectKey{Namespace: "default", Name: name}, &w); err != nil {
			return err
		}
		if w.Status.ObservedGeneration != w.Generation || w.Status.ConfigMap != ConfigMapName(&w) {
			return fmt.Errorf("%s: status %+v at generation %d", name, w.Status, w.Generation)
		}
		if err := c.Get(ctx, client.ObjectKey{Namespace: "default", Name: ConfigMapName(&w)}, &cm); err != nil {
			return err
		}
		if owner := metav1.GetControllerOf(&cm); owner == nil || owner.UID != w.UID {
			return fmt.Errorf("%s: controller %v, want widget %s", cm.Name, owner, w.UID)
		}
		if want := ConfigMapData(w.Spec); !equalData(cm.Data, want) {
			return fmt.Errorf("%s: data %v, want %v", cm.Name, cm.Data, want)
		}
	}
	return nil
}

func equalData(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestWidgetSchema: the CRD as controller-gen writes it is served as
// kube-apiserver serves it — its defaults filled in, its CEL rule
// refusing a large widget with too many replicas in the rule's words, its
// printer columns in a Table.
func TestWidgetSchema(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p, c := startPlane(t, 1, 0)
		w := &examplev1.Widget{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "plain"}, Spec: examplev1.WidgetSpec{Message: "hi"}}
		require.NoError(t, c.Create(t.Context(), w))
		assert.Equal(t, examplev1.WidgetSpec{Size: "small", Replicas: 1, Message: "hi"}, w.Spec, "defaulted by the schema")

		err := c.Create(t.Context(), &examplev1.Widget{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "big"},
			Spec: examplev1.WidgetSpec{Size: "large", Replicas: 5}})
		require.True(t, apierrors.IsInvalid(err), "refused as Invalid: %v", err)
		assert.Equal(t, `Widget.example.miniplane.io "big" is invalid: spec: Invalid value: "object": a large widget has at most 3 replicas`, err.Error())

		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, p.Host()+"/apis/example.miniplane.io/v1/namespaces/default/widgets", nil)
		require.NoError(t, err)
		req.Header.Set("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
		resp, err := (&http.Client{Transport: p.DirectTransport()}).Do(req)
		require.NoError(t, err)
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.NoError(t, err)
		var table metav1.Table
		require.NoError(t, json.Unmarshal(body, &table), string(body))
		var columns []string
		for _, col := range table.ColumnDefinitions {
			columns = append(columns, col.Name)
		}
		assert.Equal(t, []string{"Name", "Size", "ConfigMap", "Age"}, columns)
	})
}

// TestBuggySweep sweeps the planted bug over 50 seeds. It fails (that is
// the point), so it runs only as TestSweepFindsTheBug's child, or to
// replay one seed.
func TestBuggySweep(t *testing.T) {
	inproc.RunBuggySweep(t, 50, func(t *testing.T, seed int64) { runOperator(t, seed, faults.All, true) })
}

// TestSweepFindsTheBug runs TestBuggySweep in a child test process and
// checks that the sweep found the planted bug: some seed failed with a
// status left behind its generation, and it printed the command that
// replays it. It then runs that command's test and checks the seed fails
// again: the run's writes take turns (inproc.Settler) and it ends before
// any watch times out, so a seed decides the run.
func TestSweepFindsTheBug(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 50 seeds in a child process")
	}
	inproc.SweepFindsTheBug(t, "operator/internal/controller", 50, "not true after 4m0s", "status {ConfigMap:")
}

// TestFixedPasses200Seeds sweeps the fixed reconciler over 200 seeds with
// every fault on.
func TestFixedPasses200Seeds(t *testing.T) {
	inproc.RunFixedSweep(t, "fixed operator", func(t *testing.T, seed int64) { runOperator(t, seed, faults.All, false) })
}
