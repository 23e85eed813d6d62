package clientgo

// The smoke tests run in `go test ./...`: small versions of the benchmarks'
// scenarios, on both sides, checking the behaviour the benchmarks rely on.

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/informer"
)

// drain hands out everything queued to one worker, after ShutDown, and
// returns the items in the order it got them.
func drain(u queueUnderTest) []int {
	u.shutDown()
	var got []int
	for {
		k, shutdown := u.q.Get()
		if shutdown {
			return got
		}
		got = append(got, k)
		u.q.Done(k)
	}
}

func TestQueuesDedup(t *testing.T) {
	for _, side := range queueSides() {
		for _, metrics := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/metrics=%v", side.name, metrics), func(t *testing.T) {
				u := side.newQueue(metrics)
				// 1000 items, each added twice while it waits: one processing each,
				// in the order of the first adds.
				for range 2 {
					for k := range 1000 {
						u.q.Add(k)
					}
				}
				// An item added while in flight is handed out again once, after Done.
				k, shutdown := u.q.Get()
				require.False(t, shutdown)
				require.Equal(t, 0, k)
				u.q.Add(0)
				u.q.Add(0)
				u.q.Done(0)

				want := []int{}
				for k := 1; k < 1000; k++ {
					want = append(want, k)
				}
				assert.Equal(t, append(want, 0), drain(u))
				if u.checkMetrics != nil {
					assert.NoError(t, u.checkMetrics(1001))
				}
			})
		}
	}
}

func TestQueuesRetry(t *testing.T) {
	for _, side := range retrySides() {
		t.Run(side.name, func(t *testing.T) {
			q, shutDown := side.newQueue(0) // no backoff: retries are due at once
			for k := range 100 {
				q.Add(k)
			}
			// Each key fails once and is retried: 200 hand-outs in all.
			seen := map[int]int{}
			for range 200 {
				k, shutdown := q.Get()
				require.False(t, shutdown)
				seen[k]++
				if q.NumRequeues(k) == 0 {
					q.AddRateLimited(k)
				} else {
					q.Forget(k)
				}
				q.Done(k)
			}
			for k := range 100 {
				assert.Equal(t, 2, seen[k], "key %d", k)
				assert.Zero(t, q.NumRequeues(k), "key %d", k)
			}
			shutDown()
			_, shutdown := q.Get()
			assert.True(t, shutdown, "nothing left queued")
		})
	}
}

// TestInformersSync: both informers, fed 100 pods by a list and by a
// watch, hand every handler all 100 and cache them.
func TestInformersSync(t *testing.T) {
	const n = 100
	ps, err := newPodServer(n)
	require.NoError(t, err)
	pods := clientGoPods(n)
	for _, mode := range []string{"list", "watch"} {
		t.Run(mode+"/clientgo", func(t *testing.T) {
			lw := fakeListWatch(clientGoList(pods), watch.NewFake())
			if mode == "watch" {
				w := watch.NewFakeWithChanSize(n, false)
				for _, p := range pods {
					w.Add(p)
				}
				lw = fakeListWatch(&corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}}, w)
			}
			inf := newClientGoInformer(lw)
			r, err := startClientGo(inf, n, 3, inf.RunWithContext)
			require.NoError(t, err)
			defer r.stop()
			require.NoError(t, r.wait())
			require.NoError(t, r.check(n))
			obj, ok, err := inf.GetStore().GetByKey("ns-7/pod-7")
			require.NoError(t, err)
			require.True(t, ok)
			assert.Equal(t, "a7", obj.(*corev1.Pod).Labels["app"])
		})
		t.Run(mode+"/miniplane", func(t *testing.T) {
			var lw informer.ListerWatcher = informer.Source{Client: ps.s, Resource: client.Pods}
			if mode == "watch" {
				lw = replaySource{ps}
			}
			r := startMiniplane(lw, n, 3)
			defer r.stop()
			require.NoError(t, r.wait())
			require.NoError(t, r.check(n))
			obj, ok := r.inf.Indexer().Get("ns-7/pod-7")
			require.True(t, ok)
			assert.Equal(t, "a7", obj.(*api.Pod).Metadata.Labels["app"])
		})
	}
}

// TestCreatesSeen: 100 creates through client-go's fake clientset and
// through miniplane's API server each reach a running informer's handler.
func TestCreatesSeen(t *testing.T) {
	const n = 100
	t.Run("clientgo", func(t *testing.T) {
		cs := fake.NewSimpleClientset()
		watching := watchStarted(cs)
		factory := informers.NewSharedInformerFactory(cs, 0)
		inf := factory.Core().V1().Pods().Informer()
		r, err := startClientGo(inf, n, 1, func(ctx context.Context) { factory.Start(ctx.Done()); <-ctx.Done() })
		require.NoError(t, err)
		defer factory.Shutdown()
		defer r.stop()
		<-r.regs[0].HasSyncedChecker().Done()
		<-watching
		for i := range n {
			sent, err := createRecovering(t.Context(), cs.CoreV1().Pods(podNamespace(i)), ClientGoPod(i))
			require.NoError(t, err)
			require.True(t, sent, "a 100-event buffer holds 100 creates")
		}
		require.NoError(t, r.wait())
		require.NoError(t, r.check(n))
	})
	t.Run("miniplane", func(t *testing.T) {
		s, err := newServer(1000)
		require.NoError(t, err)
		r := startMiniplane(informer.Source{Client: s, Resource: client.Pods}, n, 1)
		defer r.stop()
		require.True(t, r.inf.WaitForHandlers(t.Context()))
		for i := range n {
			_, err := client.For[*api.Pod](s).Create(t.Context(), MiniplanePod(i))
			require.NoError(t, err)
		}
		require.NoError(t, r.wait())
		require.NoError(t, r.check(n))
	})
}
