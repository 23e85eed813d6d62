package ctrlruntime

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-logr/logr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/apiserver/faults"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/interop/examples/internal/inproc"
	"github.com/miniplane/miniplane/plane/planetest"
)

// configMaps is how many ConfigMaps each run counts the keys of.
const configMaps = 5

// runReconciler is one run, with one seed, of a manager running
// KeyCounter against the plane with the faults fs: the test creates the
// ConfigMaps and adds a key to each every few seconds, then waits for
// every annotation to match. The whole run is in a synctest bubble.
//
// The manager runs with its defaults but three: no metrics server (it
// would listen on a socket, which a bubble cannot wait on and which 200
// managers in one process would fight over), no logger, and
// SkipNameValidation, since every seed builds a controller of the same
// name in one process. Leader election and the health probe are off by
// default; leader election would run in the bubble too (its Lease loop is
// timers and API calls), but a test has no rival to elect against.
func runReconciler(t *testing.T, seed int64, fs faults.Set, buggy bool) {
	synctest.Test(t, func(t *testing.T) {
		rt, host, srv := inproc.StartPlane(t, seed, fs)
		mgr, err := ctrl.NewManager(&rest.Config{Host: host, Transport: rt}, ctrl.Options{
			Metrics:    metricsserver.Options{BindAddress: "0"},
			Logger:     logr.Discard(),
			Controller: config.Controller{SkipNameValidation: ptr.To(true)},
		})
		require.NoError(t, err)
		require.NoError(t, (&KeyCounter{Client: mgr.GetClient(), DropOnConflict: buggy}).SetupWithManager(mgr))
		ctx, cancel := context.WithCancel(t.Context())
		stopped := make(chan error, 1)
		go func() { stopped <- mgr.Start(ctx) }()
		defer func() {
			cancel()
			assert.NoError(t, <-stopped, "the manager stopped cleanly")
		}()

		for i := range configMaps {
			_, err := srv.Create(ctx, &api.ConfigMap{
				Metadata: api.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("cm-%d", i), Labels: map[string]string{CountLabel: "true"}},
				Data:     map[string]string{"k0": "v"},
			})
			require.NoError(t, err)
		}
		for round := 1; round <= 4; round++ {
			time.Sleep(5 * time.Second)
			for i := range configMaps {
				addKey(t, srv, fmt.Sprintf("cm-%d", i), round)
			}
		}

		planetest.Eventually(t, func() error {
			for i := range configMaps {
				obj, err := srv.Get(ctx, client.ConfigMaps, "default", fmt.Sprintf("cm-%d", i), client.GetOptions{})
				if err != nil {
					return err
				}
				cm := obj.(*api.ConfigMap)
				if got, want := cm.Metadata.Annotations[KeysAnnotation], strconv.Itoa(len(cm.Data)); got != want {
					return fmt.Errorf("%s: annotation %s=%q, want %q", cm.Metadata.Name, KeysAnnotation, got, want)
				}
			}
			return nil
		}, 5*time.Minute)
	})
}

// addKey adds a data key to a ConfigMap, as its owner would: read,
// change, write, and again on a 409 (the reconciler annotates the same
// ConfigMap, so the two writers race), as client-go's RetryOnConflict does.
func addKey(t *testing.T, srv *apiserver.Server, name string, round int) {
	t.Helper()
	for {
		obj, err := srv.Get(t.Context(), client.ConfigMaps, "default", name, client.GetOptions{})
		require.NoError(t, err)
		cm := obj.(*api.ConfigMap).DeepCopy()
		cm.Data[fmt.Sprintf("k%d", round)] = "v"
		_, err = srv.Update(t.Context(), cm)
		if apierrors.IsConflict(err) {
			continue
		}
		require.NoError(t, err)
		return
	}
}

// TestBuggySweep sweeps the planted bug over 50 seeds. It fails (that is
// the point), so it runs only as TestSweepFindsTheBug's child, or to
// replay one seed.
func TestBuggySweep(t *testing.T) {
	inproc.RunBuggySweep(t, 50, func(t *testing.T, seed int64) { runReconciler(t, seed, faults.All, true) })
}

// TestSweepFindsTheBug runs TestBuggySweep in a child test process and
// checks that the sweep found the planted bug: some seed failed, its
// annotation never converged, and it printed the command that replays
// it. It then runs that command's test and checks the seed fails again.
func TestSweepFindsTheBug(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 50 seeds in a child process")
	}
	inproc.SweepFindsTheBug(t, "ctrlruntime", 50, "not true after 5m0s", "annotation "+KeysAnnotation)
}

// TestBugNeedsConflicts sweeps the planted bug with every fault but
// Conflict: it passes, although the test's own writes make real 409s,
// because each of those comes with the event that requeues the key.
func TestBugNeedsConflicts(t *testing.T) {
	noConflict := faults.All &^ faults.SetOf(faults.Conflict)
	planetest.Sweep(t, 50, func(t *testing.T, seed int64) { runReconciler(t, seed, noConflict, true) })
}

// TestFixedPasses200Seeds sweeps the fixed KeyCounter over 200 seeds
// with every fault on.
func TestFixedPasses200Seeds(t *testing.T) {
	inproc.RunFixedSweep(t, "fixed controller-runtime reconciler", func(t *testing.T, seed int64) { runReconciler(t, seed, faults.All, false) })
}
