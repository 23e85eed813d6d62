package clientgo

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/apiserver/faults"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/interop/examples/internal/inproc"
	"github.com/miniplane/miniplane/plane/planetest"
)

// configMaps is how many ConfigMaps ask for a runner in each run.
const configMaps = 5

// runController is one run, with one seed, of the Runner against the plane
// with the faults fs: it creates the ConfigMaps, touches each of them a
// few times (each touch is another sync, another list), and judges that
// each ended with exactly one runner pod. The whole run is in a synctest
// bubble: its minutes are virtual.
func runController(t *testing.T, seed int64, fs faults.Set, buggy bool) {
	synctest.Test(t, func(t *testing.T) {
		rt, host, srv := inproc.StartPlane(t, seed, fs)
		cs, err := kubernetes.NewForConfig(&rest.Config{Host: host, Transport: rt})
		require.NoError(t, err)
		r, err := New(Config{Client: cs, TrustCachedList: buggy})
		require.NoError(t, err)
		ctx, cancel := context.WithCancel(t.Context())
		var wg sync.WaitGroup
		wg.Go(func() { r.Run(ctx) })
		defer func() {
			cancel()
			wg.Wait()
		}()

		// The test's own writes go to the server, past the faults.
		for i := range configMaps {
			_, err := srv.Create(ctx, &api.ConfigMap{
				Metadata: api.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("job-%d", i), Labels: map[string]string{RunLabel: "true"}},
				Data:     map[string]string{"round": "0"},
			})
			require.NoError(t, err)
			time.Sleep(time.Second)
		}
		for round := 1; round <= 3; round++ {
			time.Sleep(10 * time.Second)
			for i := range configMaps {
				touch(t, srv, fmt.Sprintf("job-%d", i), round)
			}
		}

		planetest.Eventually(t, func() error {
			for i := range configMaps {
				if n := runners(t, srv, fmt.Sprintf("job-%d", i)); n == 0 {
					return fmt.Errorf("job-%d has no runner pod yet", i)
				}
			}
			return nil
		}, 5*time.Minute)
		time.Sleep(time.Minute) // time for a late duplicate to show
		j := planetest.NewJudge(t)
		for i := range configMaps {
			name := fmt.Sprintf("job-%d", i)
			if n := runners(t, srv, name); n != 1 {
				j.Violatef("one runner pod per ConfigMap", "%s has %d runner pods", name, n)
			}
		}
		j.Report()
	})
}

// touch changes a ConfigMap's data, as its owner would.
func touch(t *testing.T, srv *apiserver.Server, name string, round int) {
	t.Helper()
	obj, err := srv.Get(t.Context(), client.ConfigMaps, "default", name, client.GetOptions{})
	require.NoError(t, err)
	cm := obj.(*api.ConfigMap).DeepCopy()
	cm.Data["round"] = fmt.Sprint(round)
	_, err = srv.Update(t.Context(), cm)
	require.NoError(t, err)
}

// runners counts the runner pods of a ConfigMap, read from the server.
func runners(t *testing.T, srv *apiserver.Server, name string) int {
	t.Helper()
	l, err := srv.List(t.Context(), client.Pods, "default", client.ListOptions{LabelSelector: OwnerLabel + "=" + name})
	require.NoError(t, err)
	return len(l.Items)
}

// TestBuggySweep sweeps the planted bug over 50 seeds. It fails (that is
// the point), so it runs only as TestSweepFindsTheBug's child, or to
// replay one seed.
func TestBuggySweep(t *testing.T) {
	inproc.RunBuggySweep(t, 50, func(t *testing.T, seed int64) { runController(t, seed, faults.All, true) })
}

// TestSweepFindsTheBug runs TestBuggySweep in a child test process and
// checks that the sweep found the planted bug: some seed failed, judged
// "one runner pod per ConfigMap", and printed the command that replays it.
// It then runs that command's test (the same binary, the same -run and
// seed) and checks the seed fails again.
func TestSweepFindsTheBug(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 50 seeds in a child process")
	}
	inproc.SweepFindsTheBug(t, "clientgo", 50, "one runner pod per ConfigMap")
}

// TestFixedPasses200Seeds sweeps the fixed Runner (a quorum list) over 200
// seeds with every fault on: each seed ends with one runner pod per
// ConfigMap.
func TestFixedPasses200Seeds(t *testing.T) {
	inproc.RunFixedSweep(t, "fixed client-go controller", func(t *testing.T, seed int64) { runController(t, seed, faults.All, false) })
}

// TestBugNeedsStaleReads sweeps the planted bug with every fault but
// Stale: it passes, so the fault is what exposes it (a sweep without
// faults would pass it too).
func TestBugNeedsStaleReads(t *testing.T) {
	noStale := faults.All &^ faults.SetOf(faults.Stale)
	planetest.Sweep(t, 50, func(t *testing.T, seed int64) { runController(t, seed, noStale, true) })
}
