package httpapi

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/apiserver/faults"
	"github.com/miniplane/miniplane/apiserver/httpapi/inmem"
	"github.com/miniplane/miniplane/clock"
)

// lockedTrace collects the Injector's trace.
type lockedTrace struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedTrace) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// TestSharedInformerConvergesUnderFaults runs a stock shared informer
// through the fault injector, every kind on, while pods are created,
// updated and deleted on the server: whatever the faults (watches closed
// or answered 410, 429s, 500s, slow answers, stale lists, lagging
// watches), client-go's reflector retries, relists and resumes until its
// cache holds exactly what the server holds. All of it runs in a synctest
// bubble, on virtual time.
func TestSharedInformerConvergesUnderFaults(t *testing.T) {
	struck := map[faults.Kind]int64{}
	for _, seed := range []uint64{1, 2, 3} {
		t.Run(fmt.Sprintf("seed %d", seed), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv, h := newHandler(t)
				trace := &lockedTrace{}
				inj, err := faults.New(faults.Config{Handler: h, Clock: clock.Real{}, Rand: rand.New(rand.NewPCG(seed, 0)),
					Faults: faults.All, Rate: 0.3, Trace: trace})
				require.NoError(t, err)
				cs, err := kubernetes.NewForConfig(&rest.Config{Host: inmem.Host, Transport: inmem.NewTransport(inj)})
				require.NoError(t, err)
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()

				factory := informers.NewSharedInformerFactory(cs, 0)
				lister := factory.Core().V1().Pods().Lister()
				factory.Core().V1().Pods().Informer()
				stop := make(chan struct{})
				factory.Start(stop)
				defer func() {
					close(stop)
					factory.Shutdown()
				}()

				// The writes, straight to the server, spread over an hour,
				// so that the informer's watches time out (after 5 to 10
				// minutes, as client-go asks) and start again a few times.
				rng := rand.New(rand.NewPCG(seed, 1))
				live := map[string]bool{}
				for i := range 60 {
					time.Sleep(time.Minute)
					name := fmt.Sprintf("p%d", rng.IntN(12))
					switch {
					case !live[name]:
						_, err = srv.Create(ctx, podOf(name))
						live[name] = true
					case rng.IntN(2) == 0:
						_, err = srv.Delete(ctx, "pods", "default", name, apiDeleteNow())
						delete(live, name)
					default:
						err = relabel(ctx, srv, name, fmt.Sprint(i))
					}
					require.NoError(t, err)
				}

				// The cache converges to the server's state.
				want := podsOn(t, srv)
				deadline := time.Now().Add(10 * time.Minute)
				var got []string
				for time.Now().Before(deadline) {
					cached, err := lister.List(everything())
					require.NoError(t, err)
					got = got[:0]
					for _, p := range cached {
						got = append(got, p.Name+" "+p.ResourceVersion)
					}
					slices.Sort(got)
					if slices.Equal(got, want) {
						break
					}
					time.Sleep(time.Second)
				}
				require.Equal(t, want, got, "the informer's cache converged; the trace:\n%s", trace.b.String())

				for _, k := range faults.Kinds() {
					struck[k] += inj.Count(k)
				}
				t.Logf("converged %v after the last write; faults: %s", 10*time.Minute-time.Until(deadline), counts(inj))
			})
		})
	}
	// An informer makes no updates: Conflict has nothing to strike.
	for _, k := range []faults.Kind{faults.WatchClose, faults.Gone, faults.Throttle, faults.Error, faults.Latency, faults.Stale, faults.Lag} {
		assert.Positive(t, struck[k], "%s struck", k)
	}
}

func counts(inj *faults.Injector) string {
	var parts []string
	for _, k := range faults.Kinds() {
		parts = append(parts, fmt.Sprintf("%s=%d", k, inj.Count(k)))
	}
	return strings.Join(parts, " ")
}

func podOf(name string) *api.Pod {
	return &api.Pod{
		Metadata: api.ObjectMeta{Namespace: "default", Name: name, Labels: map[string]string{"app": "web"}},
		Spec:     api.PodSpec{Containers: []api.Container{{Name: "app", Image: "nginx"}}},
	}
}

func apiDeleteNow() api.DeleteOptions {
	zero := int64(0)
	return api.DeleteOptions{GracePeriodSeconds: &zero}
}

// relabel sets the pod's label "round".
func relabel(ctx context.Context, srv *apiserver.Server, name, round string) error {
	obj, err := srv.Get(ctx, "pods", "default", name, apiserver.GetOptions{})
	if err != nil {
		return err
	}
	pod := obj.(*api.Pod).DeepCopy()
	pod.Metadata.Labels["round"] = round
	_, err = srv.Update(ctx, pod)
	return err
}

// podsOn lists the server's pods as "name resourceVersion", sorted.
func podsOn(t *testing.T, srv *apiserver.Server) []string {
	t.Helper()
	l, err := srv.List(t.Context(), "pods", "default", apiserver.ListOptions{})
	require.NoError(t, err)
	var out []string
	for _, o := range l.Items {
		m := o.GetObjectMeta()
		out = append(out, m.Name+" "+m.ResourceVersion)
	}
	slices.Sort(out)
	return out
}

func everything() labels.Selector { return labels.Everything() }
