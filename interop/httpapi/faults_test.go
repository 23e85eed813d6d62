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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/apiserver/faults"
	"github.com/miniplane/miniplane/apiserver/httpapi/inmem"
	"github.com/miniplane/miniplane/client"
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
	// Few of an informer's requests may be served stale (a list at
	// resourceVersion "0"): 3 seeds in 30 strike one; 16 is one of them.
	for _, seed := range []uint64{1, 2, 16} {
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

				// Ten virtual minutes after the last write, the cache holds
				// the server's state, resourceVersions included.
				time.Sleep(10 * time.Minute)
				synctest.Wait()
				cached, err := lister.List(everything())
				require.NoError(t, err)
				var got []string
				for _, p := range cached {
					got = append(got, p.Name+" "+p.ResourceVersion)
				}
				slices.Sort(got)
				require.Equal(t, podsOn(t, srv), got, "the informer's cache converged; the trace:\n%s", trace.b.String())

				for _, k := range faults.Kinds() {
					struck[k] += inj.Count(k)
				}
				t.Logf("faults: %s", counts(inj))
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
	obj, err := srv.Get(ctx, "pods", "default", name, client.GetOptions{})
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
	l, err := srv.List(t.Context(), "pods", "default", client.ListOptions{})
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

// TestClientsetRetriesUnderFaults: client-go's clientset waits out a 429
// by itself (it honours Retry-After), and retry.RetryOnConflict gets an
// update through injected 409s; every attempt is in the trace.
func TestClientsetRetriesUnderFaults(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, h := newHandler(t)
		inj, err := faults.New(faults.Config{Handler: h, Clock: clock.Real{}, Rand: rand.New(rand.NewPCG(4, 0)),
			Faults: faults.SetOf(faults.Throttle, faults.Conflict), Rate: 0.5})
		require.NoError(t, err)
		cs, err := kubernetes.NewForConfig(&rest.Config{Host: inmem.Host, Transport: inmem.NewTransport(inj)})
		require.NoError(t, err)
		pods := cs.CoreV1().Pods("default")

		for i := range 10 {
			_, err := pods.Create(t.Context(), clientGoPod(fmt.Sprintf("p%d", i)), metav1.CreateOptions{})
			require.NoError(t, err, "429s are retried")
		}
		for i := range 10 {
			err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
				p, err := pods.Get(t.Context(), fmt.Sprintf("p%d", i), metav1.GetOptions{})
				if err != nil {
					return err
				}
				p.Labels["env"] = "prod"
				_, err = pods.Update(t.Context(), p, metav1.UpdateOptions{})
				return err
			})
			require.NoError(t, err, "409s are retried")
		}
		l, err := pods.List(t.Context(), metav1.ListOptions{LabelSelector: "env=prod"})
		require.NoError(t, err)
		assert.Len(t, l.Items, 10)
		assert.Positive(t, inj.Count(faults.Throttle))
		assert.Positive(t, inj.Count(faults.Conflict))
	})
}
