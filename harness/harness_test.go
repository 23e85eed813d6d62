package harness

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/miniplane/miniplane/apiserver/faults"
	"github.com/miniplane/miniplane/plane"
	"github.com/miniplane/miniplane/plane/planetest"
)

// forgetful is the environment variable under which
// TestForgotEveryWorkaround's child runs its manager with
// controller-runtime's defaults.
const forgetful = "MINIPLANE_HARNESS_FORGETFUL"

// TestMain silences klog and controller-runtime's global logger: with
// faults, client-go logs every retry.
func TestMain(m *testing.M) {
	klog.SetOutput(io.Discard)
	klog.LogToStderr(false)
	ctrl.SetLogger(logr.Discard())
	os.Exit(m.Run())
}

// PortCounter annotates every Service with how many ports it has: a
// small controller-runtime reconciler to test the harness with.
type PortCounter struct{ Client client.Client }

const portsAnnotation = "example.miniplane.io/ports"

func (r *PortCounter) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var svc corev1.Service
	if err := r.Client.Get(ctx, req.NamespacedName, &svc); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	want := strconv.Itoa(len(svc.Spec.Ports))
	if svc.Annotations[portsAnnotation] == want {
		return ctrl.Result{}, nil
	}
	patch := client.MergeFrom(svc.DeepCopy())
	if svc.Annotations == nil {
		svc.Annotations = map[string]string{}
	}
	svc.Annotations[portsAnnotation] = want
	return ctrl.Result{}, r.Client.Patch(ctx, &svc, patch)
}

func (r *PortCounter) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).Named("port-counter").For(&corev1.Service{}).Complete(r)
}

// TestSweepWithCorev1 sweeps PortCounter over 10 seeds with every fault
// on, set up and judged in corev1 through Clientset: the test is Sweep,
// NewManager and StartManager, with no workaround of its own.
func TestSweepWithCorev1(t *testing.T) {
	res := Sweep(t, 10, plane.Config{Faults: faults.All, FaultRate: 0.1}, func(t *testing.T, p *Plane) {
		mgr, err := NewManager(p, ManagerOptions())
		require.NoError(t, err)
		require.NoError(t, (&PortCounter{Client: mgr.GetClient()}).SetupWithManager(mgr))
		StartManager(t, mgr)

		cs := p.Clientset()
		for i := range 3 {
			svc := &corev1.Service{
				ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("svc-%d", i)},
				Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "http", Port: 80}}},
			}
			_, err := cs.CoreV1().Services("default").Create(t.Context(), svc, metav1.CreateOptions{})
			require.NoError(t, err)
		}
		planetest.Eventually(t, func() error {
			for i := range 3 {
				svc, err := cs.CoreV1().Services("default").Get(t.Context(), fmt.Sprintf("svc-%d", i), metav1.GetOptions{})
				if err != nil {
					return err
				}
				if got := svc.Annotations[portsAnnotation]; got != "1" {
					return fmt.Errorf("%s: annotation %s=%q, want \"1\"", svc.Name, portsAnnotation, got)
				}
			}
			return nil
		}, time.Minute)
	})
	assert.Empty(t, res.Failed)
}

// TestDirectConfigIsNeverFaulted reads through Clientset with every fault
// at rate 1: nothing fails, and RESTConfig's client meets the faults.
func TestDirectConfigIsNeverFaulted(t *testing.T) {
	Test(t, plane.Config{Faults: faults.SetOf(faults.Error), FaultRate: 1}, func(t *testing.T, p *Plane) {
		_, err := p.Clientset().CoreV1().Namespaces().Get(t.Context(), "default", metav1.GetOptions{})
		require.NoError(t, err)
		cfg := p.RESTConfig()
		assert.Equal(t, ControllerUserAgent, cfg.UserAgent)
		cfg.QPS, cfg.Burst = -1, 0
		c, err := client.New(cfg, client.Options{})
		require.NoError(t, err)
		err = c.Get(t.Context(), client.ObjectKey{Name: "default"}, &corev1.Namespace{})
		assert.True(t, apierrors.IsInternalError(err), "a 500 from the faults: %v", err)
	})
}

// TestFixErrorHandlers: Start drops apimachinery's rate limiter and keeps
// the logging handler, once however many planes start.
func TestFixErrorHandlers(t *testing.T) {
	Test(t, plane.Config{}, func(t *testing.T, p *Plane) {})
	Test(t, plane.Config{}, func(t *testing.T, p *Plane) {})
	require.Len(t, utilruntime.ErrorHandlers, 1)
	assert.False(t, isRateLimiter(utilruntime.ErrorHandlers[0]))
}

// TestNewManagerRefusesWhatHangs: an option that would make the manager
// listen on a socket is refused, named; ManagerOptions passes.
func TestNewManagerRefusesWhatHangs(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*ctrl.Options)
		want   string
	}{
		{"ManagerOptions", func(*ctrl.Options) {}, ""},
		{"controller-runtime's defaults", func(o *ctrl.Options) { *o = ctrl.Options{} }, `Metrics.BindAddress is ""`},
		{"metrics on a port", func(o *ctrl.Options) { o.Metrics.BindAddress = ":8080" }, `Metrics.BindAddress is ":8080"`},
		{"health probes", func(o *ctrl.Options) { o.HealthProbeBindAddress = ":8081" }, `HealthProbeBindAddress is ":8081"`},
		{"pprof", func(o *ctrl.Options) { o.PprofBindAddress = ":6060" }, `PprofBindAddress is ":6060"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := ManagerOptions()
			tc.change(&opts)
			err := checkOptions(opts)
			if tc.want == "" {
				assert.NoError(t, err)
				return
			}
			assert.True(t, errors.Is(err, ErrNotInBubble))
			assert.ErrorContains(t, err, tc.want)
		})
	}
}

// TestStuckOn names why a bubble cannot move from the goroutine stacks:
// only a bubble's goroutine in IO wait counts, and a known server is named
// with the option to change.
func TestStuckOn(t *testing.T) {
	const metrics = "goroutine 7 [IO wait, synctest bubble 1]:\ninternal/poll.runtime_pollWait(...)\nnet.(*TCPListener).Accept(...)\nnet/http.(*Server).Serve(...)\nsigs.k8s.io/controller-runtime/pkg/metrics/server.(*defaultServer).Start(...)"
	const probes = "goroutine 9 [IO wait, synctest bubble 2]:\nnet.(*TCPListener).Accept(...)\nsigs.k8s.io/controller-runtime/pkg/manager.(*Server).Start(...)"
	const other = "goroutine 8 [IO wait, synctest bubble 1]:\nnet.(*conn).Read(...)\nmain.dial(...)"
	const outside = "goroutine 3 [IO wait]:\nnet.(*TCPListener).Accept(...)\nsigs.k8s.io/controller-runtime/pkg/metrics/server.(*defaultServer).Start(...)"
	const durable = "goroutine 5 [chan receive (durable), synctest bubble 1]:\nmain.wait(...)"
	for _, tc := range []struct {
		name, stacks, want string
	}{
		{"metrics server", durable + "\n\n" + metrics, `Metrics: metricsserver.Options{BindAddress: "0"}`},
		{"health probes", probes, `HealthProbeBindAddress: "0"`},
		{"another socket", other, "a goroutine waits on real I/O (a socket)"},
		{"outside any bubble", outside, ""},
		{"durably blocked", durable, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := stuckOn(tc.stacks)
			if tc.want == "" {
				assert.Empty(t, got)
				return
			}
			assert.Contains(t, got, tc.want)
		})
	}
}

// TestForgotEveryWorkaround runs, in a child process, a test that builds
// its manager with ctrl.NewManager and controller-runtime's default
// options inside Test (the metrics server on a port the kernel picks, so
// that it does not fight over :8080): it listens on a real socket, and
// the child ends with a message naming the option instead of hanging.
func TestForgotEveryWorkaround(t *testing.T) {
	if os.Getenv(forgetful) != "" {
		Test(t, plane.Config{}, func(t *testing.T, p *Plane) {
			mgr, err := ctrl.NewManager(p.RESTConfig(), ctrl.Options{Metrics: metricsserver.Options{BindAddress: "127.0.0.1:0"}})
			require.NoError(t, err)
			require.NoError(t, (&PortCounter{Client: mgr.GetClient()}).SetupWithManager(mgr))
			StartManager(t, mgr)
			planetest.Eventually(t, func() error { return errors.New("never") }, time.Hour)
		})
		return
	}
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestForgotEveryWorkaround$", "-test.timeout=2m")
	cmd.Env = append(os.Environ(), forgetful+"=1")
	out, err := cmd.CombinedOutput()
	require.Error(t, err, "the child ends with a panic:\n%s", out)
	assert.Contains(t, string(out), "harness: TestForgotEveryWorkaround is stuck")
	assert.Contains(t, string(out), `controller-runtime's metrics server waits on a real socket`)
	assert.NotContains(t, string(out), "test timed out", "ended by the watchdog, not -timeout")
}
