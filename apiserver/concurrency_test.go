package apiserver_test

// Concurrency tests, meant for go test -race: many goroutines write through
// one Server at once, and afterwards the results, and a watcher's record of
// every version, must show that no write was lost or applied twice. Nothing
// waits on time: goroutines start together on a closed channel and the test
// waits for them with a WaitGroup.

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
)

// counterAnnotation holds the counter the read-modify-write test bumps.
const counterAnnotation = "test.miniplane.io/counter"

// runTogether runs fn(g) for g in [0, n) in n goroutines released at once,
// and returns when all have returned.
func runTogether(n int, fn func(g int)) {
	start := make(chan struct{})
	var wg sync.WaitGroup
	for g := range n {
		wg.Go(func() {
			<-start
			fn(g)
		})
	}
	close(start)
	wg.Wait()
}

// increment bumps the counter of a pod with a read-modify-write loop, as a
// controller does: Get, deep-copy, change, Update with the resourceVersion
// read, and on Conflict read again. It returns how many conflicts it met.
func increment(t *testing.T, s *apiserver.Server, ns, name string) (conflicts int, ok bool) {
	for {
		cur, err := s.Get(ctx, client.Pods, ns, name, client.GetOptions{})
		if !assert.NoError(t, err) {
			return conflicts, false
		}
		next := cur.(*api.Pod).DeepCopy()
		n, err := strconv.Atoi(next.Metadata.Annotations[counterAnnotation])
		if !assert.NoError(t, err) {
			return conflicts, false
		}
		next.Metadata.Annotations[counterAnnotation] = strconv.Itoa(n + 1)
		_, err = s.Update(ctx, next)
		if apierrors.IsConflict(err) {
			conflicts++
			continue
		}
		return conflicts, assert.NoError(t, err)
	}
}

// TestConcurrentReadModifyWriteLosesNoUpdate checks optimistic concurrency
// under contention: N goroutines each increment a counter held in one
// object M times, retrying on Conflict. The counter ends at N*M, and a
// watcher sees exactly N*M MODIFIED events in increasing resourceVersion
// order whose counters run 1, 2, ..., N*M: every update was applied to the
// version it read, none lost, none twice.
func TestConcurrentReadModifyWriteLosesNoUpdate(t *testing.T) {
	tests := []struct {
		name                  string
		goroutines, increment int
	}{
		{"two goroutines", 2, 200},
		{"eight goroutines", 8, 50},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newServer(t)
			p := pod("default", "counter", nil)
			p.Metadata.Annotations = map[string]string{counterAnnotation: "0"}
			created := mustCreate(t, s, p)
			w := mustWatch(t, s, "default", client.ListOptions{ResourceVersion: created.Metadata.ResourceVersion})

			conflicts := make([]int, tt.goroutines)
			runTogether(tt.goroutines, func(g int) {
				for range tt.increment {
					c, ok := increment(t, s, "default", "counter")
					conflicts[g] += c
					if !ok {
						return
					}
				}
			})

			total := tt.goroutines * tt.increment
			final, err := s.Get(ctx, client.Pods, "default", "counter", client.GetOptions{})
			require.NoError(t, err)
			assert.Equal(t, strconv.Itoa(total), final.GetObjectMeta().Annotations[counterAnnotation], "no lost update")

			evs := pollAll(t, w)
			require.Len(t, evs, total, "one MODIFIED event per successful update")
			prev := rvOf(t, created)
			for i, e := range evs {
				require.Equal(t, api.WatchModified, e.Type)
				rv := rvOf(t, e.Object)
				require.Greater(t, rv, prev, "event %d: resourceVersions increase", i)
				prev = rv
				require.Equal(t, strconv.Itoa(i+1), e.Object.GetObjectMeta().Annotations[counterAnnotation],
					"event %d: each version is the previous one plus one", i)
			}
			assert.Equal(t, final.GetObjectMeta().ResourceVersion, rvString(prev))
			t.Logf("%d updates, %d conflicts retried", total, sumInts(conflicts))
		})
	}
}

func sumInts(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}

// TestConcurrentUnconditionalUpdatesAllLand checks that updates without a
// resourceVersion never fail with Conflict, even when racing: each one is
// applied (the server retries it on the newest version), returns its own
// version, and that version is one of the object's versions a watcher saw,
// with the content the update wrote.
func TestConcurrentUnconditionalUpdatesAllLand(t *testing.T) {
	const goroutines, updates = 6, 40
	s, _ := newServer(t)
	created := mustCreate(t, s, pod("default", "shared", map[string]string{"app": "web"}))
	w := mustWatch(t, s, "default", client.ListOptions{ResourceVersion: created.Metadata.ResourceVersion})

	type landed struct {
		rv, value string
	}
	results := make([][]landed, goroutines)
	runTogether(goroutines, func(g int) {
		mine := created.DeepCopy() // a stale base: the update is unconditional
		mine.Metadata.ResourceVersion = ""
		for i := range updates {
			value := fmt.Sprintf("g%d-%d", g, i)
			mine.Metadata.Annotations = map[string]string{"last-writer": value}
			got, err := s.Update(ctx, mine)
			if !assert.NoError(t, err, "an unconditional update does not conflict") {
				return
			}
			results[g] = append(results[g], landed{got.GetObjectMeta().ResourceVersion, got.GetObjectMeta().Annotations["last-writer"]})
		}
	})

	seen := map[string]string{} // resourceVersion -> last-writer, from the watch
	var order []int64
	for _, e := range pollAll(t, w) {
		require.Equal(t, api.WatchModified, e.Type)
		seen[e.Object.GetObjectMeta().ResourceVersion] = e.Object.GetObjectMeta().Annotations["last-writer"]
		order = append(order, rvOf(t, e.Object))
	}
	assert.Len(t, seen, goroutines*updates, "every update wrote one version")
	assert.True(t, slices.IsSorted(order), "versions arrive in resourceVersion order")
	for g, rs := range results {
		require.Len(t, rs, updates, "goroutine %d", g)
		for i, r := range rs {
			want := fmt.Sprintf("g%d-%d", g, i)
			assert.Equal(t, want, r.value, "the update returned its own version")
			assert.Equal(t, want, seen[r.rv], "the watcher saw version %s as written", r.rv)
		}
	}
}

// TestConcurrentGenerateNameCreatesAreDistinct checks that creates with
// generateName racing in one namespace all succeed, with distinct names of
// the prefix plus five random characters, and that a list then holds
// exactly them.
func TestConcurrentGenerateNameCreatesAreDistinct(t *testing.T) {
	const goroutines, creates = 8, 50
	s, _ := newServer(t)
	names := make([][]string, goroutines)
	runTogether(goroutines, func(g int) {
		for range creates {
			p := pod("default", "", map[string]string{"app": "web"})
			p.Metadata.GenerateName = "web-"
			got, err := s.Create(ctx, p)
			if !assert.NoError(t, err) {
				return
			}
			names[g] = append(names[g], got.GetObjectMeta().Name)
		}
	})

	var all []string
	for _, ns := range names {
		all = append(all, ns...)
	}
	require.Len(t, all, goroutines*creates)
	for _, n := range all {
		assert.True(t, strings.HasPrefix(n, "web-") && len(n) == len("web-")+5, "generated name %q", n)
	}
	slices.Sort(all)
	assert.Len(t, slices.Compact(slices.Clone(all)), len(all), "names are distinct")

	l, err := s.List(ctx, client.Pods, "default", client.ListOptions{LabelSelector: "app=web"})
	require.NoError(t, err)
	var listed []string
	for _, obj := range l.Items {
		listed = append(listed, obj.GetObjectMeta().Name)
	}
	assert.Equal(t, all, listed)
}
