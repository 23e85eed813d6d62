package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/controllers/deployment"
	"github.com/miniplane/miniplane/controllers/replication"
	"github.com/miniplane/miniplane/plane"
)

// TestDemoTellsEveryChapter runs the whole demo at full speed and checks
// that each chapter of the story happened, with the control plane's own
// reactions narrated, and that nothing was logged without -v.
func TestDemoTellsEveryChapter(t *testing.T) {
	if testing.Short() {
		t.Skip("the demo runs a live control plane for several seconds")
	}
	var stdout, stderr bytes.Buffer
	require.NoError(t, run([]string{"demo", "--pace=0", "--seed=7"}, &stdout, &stderr))
	out := stdout.String()
	for _, want := range []string{
		"1. Who runs the controllers?",
		"holds lease kube-controller-manager",
		"2. Declare what you want",
		"created replicationcontroller web",
		"replication-controller Created pod: web-",
		"expectations:",
		"scheduler              Successfully assigned default/web-",
		"is ready at 10.244.",
		"endpoints web: 3 ready",
		"3. Scale up to 5, then down to 2",
		"replication.PodsToDelete:",
		"replication-controller Deleted pod: web-",
		"endpoints web: 2 ready",
		"4. Things break",
		"crashed the container of pod web-",
		"is not ready (restarts: 1)",
		"pulled the plug on node-",
		"failed: NodeLost",
		"5. The leading controller manager dies",
		"killed controller manager cm-",
		"From the crash to the new leader's first write:",
		"6. Delete the ReplicationController",
		"deleted replicationcontroller web (cascade: background)",
		"7. Roll out a new version",
		"created deployment shop: 4 replicas of nginx:1.27",
		"deployment-controller  created replica set shop-",
		"deployment-controller  Scaled up replica set shop-",
		"from 0 to 4 (max surge 1 → at most 5 pods, 0 now; max unavailable 1 → at least 3 available, 0 now)",
		"replicaset-controller  Created pod: shop-",
		"deployment shop Progressing=True (NewReplicaSetCreated)",
		"deployment shop Available=True (MinimumReplicasAvailable)",
		"set image deployment/shop shop=nginx:1.28",
		"(revision 2, pod-template-hash ",
		"deployment-controller  Scaled down replica set shop-",
		"deployment shop Progressing=True (ReplicaSetUpdated)",
		"rollout undo deployment/shop: copied the pod template of replica set shop-",
		"is the new one again: revision 3 (was 1, revision-history 1)",
		"deployment shop is at revision 3",
		"combined from similar events",
		"deployment shop: ",
		"now revision 3",
		"Summary (",
		"store revision",
	} {
		assert.Contains(t, out, want)
	}
	assert.NotContains(t, out, "\x1b[", "no colour when stdout is not a terminal")
	assert.Empty(t, stderr.String(), "no log lines unless -v")
	assert.Equal(t, 2, strings.Count(out, "holds lease kube-controller-manager"), "one leader, then one after the failover")
	assert.Equal(t, 2, strings.Count(out, "holds lease"), "the kubelets' node Leases are heartbeats, not elections: not told")
	assert.Equal(t, 3, strings.Count(out, "deployment shop Progressing=True (NewReplicaSetAvailable)"), "created, rolled out, rolled back")
	assert.Equal(t, 2, strings.Count(out, "deployment-controller  created replica set shop-"), "the rollback makes no third set")
}

// TestDemoKeepRunningServesUntilSignalled: with --keep-running the demo
// prints a kubectl line after its story, answers on that address, and
// stops cleanly on SIGTERM.
func TestDemoKeepRunningServesUntilSignalled(t *testing.T) {
	if testing.Short() {
		t.Skip("the demo runs a live control plane for several seconds")
	}
	var stdout syncBuffer
	done := make(chan error, 1)
	go func() { done <- run([]string{"demo", "--pace=0", "--keep-running"}, &stdout, io.Discard) }()
	serving := regexp.MustCompile(`kubectl --server (http://127\.0\.0\.1:\d+) get pods`)
	eventually(t, "the demo says it is still serving", func() bool { return serving.MatchString(stdout.String()) })
	url := serving.FindStringSubmatch(stdout.String())[1]
	resp, err := http.Get(url + "/api/v1/namespaces/default/services")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)

	require.NoError(t, syscall.Kill(syscall.Getpid(), syscall.SIGTERM))
	select {
	case err := <-done:
		assert.NoError(t, err)
	case <-time.After(20 * time.Second):
		t.Fatal("the demo did not stop within 20s of SIGTERM")
	}
}

// demoRun is one demo at full speed: what it printed, and the replication
// controller's events as the store held them at the end of the story.
type demoRun struct {
	seed   uint64
	out    string
	err    error
	events map[string]map[string]string // message -> annotations, for SuccessfulCreate and SuccessfulDelete
	// scales are the deployment controller's ScalingReplicaSet events:
	// message (less the combined prefix) -> annotations. A combined event
	// holds its last bump only.
	scales map[string]map[string]string
}

// runDemos runs a demo per seed, parallel at a time (each waits seconds for
// a lease to expire, and uses little CPU meanwhile).
func runDemos(t *testing.T, seeds []uint64, parallel int) []demoRun {
	runs := make([]demoRun, len(seeds))
	var wg sync.WaitGroup
	slots := make(chan struct{}, parallel)
	for i, seed := range seeds {
		wg.Go(func() {
			slots <- struct{}{}
			defer func() { <-slots }()
			var out bytes.Buffer
			r := &runs[i]
			r.seed = seed
			r.events = map[string]map[string]string{}
			r.scales = map[string]map[string]string{}
			r.err = demo(context.Background(), demoOptions{seed: seed, inspect: func(p *plane.Plane) {
				evs, _, err := client.For[*api.Event](p.Server()).List(context.Background(), "default", client.ListOptions{})
				if err != nil {
					r.err = err
					return
				}
				for _, e := range evs {
					switch e.Reason {
					case replication.ReasonSuccessfulCreate, replication.ReasonSuccessfulDelete:
						r.events[e.Message] = e.Metadata.Annotations
					case deployment.ReasonScalingReplicaSet:
						r.scales[strings.TrimPrefix(e.Message, combinedPrefix)] = e.Metadata.Annotations
					}
				}
			}}, &out, io.Discard)
			r.out = out.String()
		})
	}
	wg.Wait()
	return runs
}

var (
	// narrated is one line of the narration: the time, the actor, the text.
	narrated = regexp.MustCompile(`(?m)^\s+\d+\.\ds  (.{22}) (.*)$`)
	// rcLine is a replication controller's create or delete, with figures.
	rcLine    = regexp.MustCompile(`^((?:Created|Deleted) pod: (\S+)) \(expectations: (\d+) creations, (\d+) deletions not yet observed\)$`)
	scheduled = regexp.MustCompile(`^Successfully assigned default/(\S+) to (\S+)$`)
	kubeletOn = regexp.MustCompile(`^(?:pod )?((?:web|shop)-[\w-]+)[: ]`)
	// scaleLine is a deployment controller's resize, with its figures.
	scaleLine = regexp.MustCompile(`^(Scaled (up|down) replica set (\S+) from (\d+) to (\d+)) \(max surge (\d+) → at most (\d+) pods, (\d+) now; max unavailable (\d+) → at least (\d+) available, (\d+) now\)$`)
)

// TestDemoNarratesWhatTheComponentsRecorded runs the demo at --pace 0 on
// many seeds, some more than once, and checks the narration against what
// the components wrote: each expectations figure is the one the replication
// controller put on its Event when it acted (and counts the pod the line
// names), each event is told once, a pod's story is told in order, a
// kubelet line names the pod's node, the kubelet of a node switched off
// says nothing and the node lifecycle marks its pod, only API writes are
// kubectl's, and one seed names the same pods every time.
func TestDemoNarratesWhatTheComponentsRecorded(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 24 live control planes for a few seconds each")
	}
	// 24 live demos, all at once; under the race detector, which slows each
	// several times, 8 of them four at a time, so that their timing stays
	// a demo's and not a starved machine's.
	n, extra, parallel := uint64(20), []uint64{3, 3, 7, 7}, 24
	if raceDetector {
		n, extra, parallel = 6, []uint64{3, 3}, 4
	}
	var seeds []uint64
	for s := range n {
		seeds = append(seeds, s+1)
	}
	seeds = append(seeds, extra...) // seeds run three times each: the same names every time
	runs := runDemos(t, seeds, parallel)
	createdBySeed := map[uint64][][]string{}
	for _, r := range runs {
		t.Run(fmt.Sprintf("seed %d", r.seed), func(t *testing.T) {
			require.NoError(t, r.err, r.out)
			var lines [][2]string // actor, text
			for _, m := range narrated.FindAllStringSubmatch(r.out, -1) {
				lines = append(lines, [2]string{strings.TrimSpace(m[1]), m[2]})
			}
			require.NotEmpty(t, lines)
			index := func(pred func(actor, text string) bool) int {
				return slices.IndexFunc(lines, func(l [2]string) bool { return pred(l[0], l[1]) })
			}

			var created []string
			told := 0
			nodeOf := map[string]string{}
			for i, l := range lines {
				actor, text := l[0], l[1]
				if m := rcLine.FindStringSubmatch(text); m != nil {
					told++
					facts, ok := r.events[m[1]]
					require.True(t, ok, "line %d %q: no such event in the store", i, text)
					assert.Equal(t, facts[replication.AnnotationExpectedCreations], m[3], "line %d %q: creations as recorded at the action", i, text)
					assert.Equal(t, facts[replication.AnnotationExpectedDeletions], m[4], "line %d %q: deletions as recorded at the action", i, text)
					if strings.HasPrefix(text, "Created") {
						created = append(created, m[2])
						assert.NotEqual(t, "0", m[3], "line %d %q: the pod it creates is not yet observed", i, text)
						assert.Equal(t, "0", m[4], "line %d %q", i, text)
					} else {
						assert.NotEqual(t, "0", m[4], "line %d %q: the pod it deletes is not yet observed", i, text)
						assert.Equal(t, "0", m[3], "line %d %q", i, text)
					}
				}
				if m := scheduled.FindStringSubmatch(text); m != nil {
					nodeOf[m[1]] = m[2]
				}
				if node, ok := strings.CutPrefix(actor, "kubelet "); ok {
					m := kubeletOn.FindStringSubmatch(text)
					if m == nil {
						continue // a node's own line
					}
					assert.Equal(t, nodeOf[m[1]], node, "line %d %q: the kubelet of the pod's node, told after its binding", i, text)
				}
				assert.NotEqual(t, "kubelet", actor, "line %d %q: a kubelet line names its node", i, text)
			}
			assert.Equal(t, len(r.events), told, "each event told once")
			var deleted []string
			for _, l := range lines {
				if name, ok := strings.CutPrefix(l[1], "Deleted pod: web-"); ok {
					deleted = append(deleted, "web-"+strings.Fields(name)[0])
				}
			}
			assert.Contains(t, r.out, "scale-down removed first, as the controller ranked them: "+strings.Join(deleted, ", ")+"\n")
			createdBySeed[r.seed] = append(createdBySeed[r.seed], created)

			for _, pod := range created {
				c := index(func(_, text string) bool { return strings.HasPrefix(text, "Created pod: "+pod+" ") })
				s := index(func(_, text string) bool { return strings.HasPrefix(text, "Successfully assigned default/"+pod+" ") })
				rd := index(func(_, text string) bool { return strings.HasPrefix(text, "pod "+pod+" is ready at") })
				assert.True(t, c < s && s < rd, "%s: created (line %d), then scheduled (%d), then ready (%d)", pod, c, s, rd)
			}

			plug := index(func(_, text string) bool { return strings.HasPrefix(text, "pulled the plug on ") })
			require.GreaterOrEqual(t, plug, 0)
			down := strings.TrimPrefix(lines[plug][1], "pulled the plug on ")
			back := index(func(_, text string) bool { return text == "brought "+down+" back" })
			require.Greater(t, back, plug)
			failed := 0
			for _, l := range lines[plug:back] {
				assert.NotEqual(t, "kubelet "+down, l[0], "%q: the node is off, its kubelet cannot speak", l[1])
				if m := regexp.MustCompile(`^pod (\S+) (is not ready|failed)`).FindStringSubmatch(l[1]); m != nil && nodeOf[m[1]] == down {
					assert.Equal(t, "node-lifecycle", l[0], l[1])
					if m[2] == "failed" {
						failed++
					}
				}
			}
			assert.Equal(t, 1, failed, "the pod on %s fails once (NodeLost), told by the node lifecycle", down)

			for _, l := range lines {
				if !strings.HasPrefix(l[0], "you") {
					continue
				}
				want := "you (kubectl)"
				switch {
				case strings.HasPrefix(l[1], "crashed the container"):
					want = "you (fault)"
				case strings.HasPrefix(l[1], "killed controller manager"):
					want = "you (kill -9)"
				case strings.HasPrefix(l[1], "pulled the plug"), strings.HasPrefix(l[1], "brought"):
					want = "you (power switch)"
				default:
					assert.Regexp(t, `^(created|scaled|deleted|set image|rollout undo) `, l[1], "kubectl only writes through the API")
				}
				assert.Equal(t, want, l[0], l[1])
			}
		})
	}
	for _, r := range runs {
		t.Run(fmt.Sprintf("seed %d rollout", r.seed), func(t *testing.T) {
			require.NoError(t, r.err)
			checkRollout(t, r)
		})
	}
	for seed, runs := range createdBySeed {
		for _, names := range runs[1:] {
			assert.Equal(t, runs[0], names, "seed %d names the same pods, in the same order, every run", seed)
		}
	}
	if len(createdBySeed[1]) > 0 && len(createdBySeed[2]) > 0 { // a seed whose run failed above has none
		assert.NotEqual(t, createdBySeed[1][0], createdBySeed[2][0], "another seed, other names")
	}
}

// checkRollout checks the rollout chapter's narration: every resize of a
// replica set is told with the figures the deployment controller recorded
// on its event (where the store still holds them: a combined event keeps
// its last bump only), and those figures explain it — a set grows within
// replicas + maxSurge, shrinks no further than replicas − maxUnavailable
// allows; a set is told made before it is scaled, and scaled before the
// replica set controller makes its pods.
func checkRollout(t *testing.T, r demoRun) {
	var lines []string
	for _, m := range narrated.FindAllStringSubmatch(r.out, -1) {
		lines = append(lines, m[2])
	}
	// index is the first line from line `from` on that starts with prefix.
	index := func(from int, prefix string) int {
		i := slices.IndexFunc(lines[from:], func(l string) bool { return strings.HasPrefix(l, prefix) })
		if i < 0 {
			return i
		}
		return from + i
	}
	scales, checked := 0, 0
	for i, l := range lines {
		if !strings.HasPrefix(l, "Scaled ") {
			continue
		}
		m := scaleLine.FindStringSubmatch(l)
		require.NotNil(t, m, "line %d %q: a rolling update's scale gives its figures", i, l)
		scales++
		n := func(i int) int {
			v, err := strconv.Atoi(m[i])
			require.NoError(t, err)
			return v
		}
		from, to, maxSurge, atMost, pods, maxUnavailable, atLeast, available := n(4), n(5), n(6), n(7), n(8), n(9), n(10), n(11)
		assert.Equal(t, shopReplicas+maxSurge, atMost, "line %d %q", i, l)
		assert.Equal(t, shopReplicas-maxUnavailable, atLeast, "line %d %q", i, l)
		if m[2] == "up" {
			assert.LessOrEqual(t, pods+to-from, atMost, "line %d %q: grown within the surge", i, l)
		} else {
			assert.LessOrEqual(t, from-to, pods-atLeast, "line %d %q: shrunk within the unavailability allowed", i, l)
		}
		if facts, ok := r.scales[m[1]]; ok {
			why, ok := deployment.FencepostsOf(facts)
			require.True(t, ok, "line %d %q: the event carries its figures", i, l)
			assert.Equal(t, []int{maxSurge, pods, maxUnavailable, available},
				[]int{int(why.MaxSurge), int(why.Pods), int(why.MaxUnavailable), int(why.Available)},
				"line %d %q: the figures the controller recorded when it acted", i, l)
			checked++
		}
		if from == 0 {
			assert.Greater(t, index(i, "Created pod: "+m[3]+"-"), i, "%s: scaled from 0, then its pods made", m[3])
		}
	}
	made := 0
	for i, l := range lines {
		if rs, ok := strings.CutPrefix(l, "created replica set "); ok {
			rs = strings.Fields(rs)[0]
			assert.Greater(t, index(0, "Scaled up replica set "+rs+" from 0 "), i, "%s: made, then scaled", rs)
			made++
		}
	}
	assert.Equal(t, 2, made, "two templates, two sets: the rollback reuses the first")
	assert.GreaterOrEqual(t, scales, 3*2, "a creation, then at least two scales each way per rollout")
	assert.GreaterOrEqual(t, checked, 9, "the nine events before the recorder combines them")
	assert.Contains(t, r.out, "is the new one again: revision 3 (was 1, revision-history 1)")
}
