package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/client"
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
		"Summary (",
		"store revision",
	} {
		assert.Contains(t, out, want)
	}
	assert.NotContains(t, out, "\x1b[", "no colour when stdout is not a terminal")
	assert.Empty(t, stderr.String(), "no log lines unless -v")
	assert.Equal(t, 2, strings.Count(out, "holds lease kube-controller-manager"), "one leader, then one after the failover")
	assert.Equal(t, 2, strings.Count(out, "holds lease"), "the kubelets' node Leases are heartbeats, not elections: not told")
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
			r.err = demo(context.Background(), demoOptions{seed: seed, inspect: func(p *plane.Plane) {
				evs, _, err := client.For[*api.Event](p.Server()).List(context.Background(), "default", client.ListOptions{})
				if err != nil {
					r.err = err
					return
				}
				for _, e := range evs {
					if e.Reason == replication.ReasonSuccessfulCreate || e.Reason == replication.ReasonSuccessfulDelete {
						r.events[e.Message] = e.Metadata.Annotations
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
	kubeletOn = regexp.MustCompile(`^(?:pod )?(web-\w+)[: ]`)
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
				if name, ok := strings.CutPrefix(l[1], "Deleted pod: "); ok {
					deleted = append(deleted, strings.Fields(name)[0])
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
					assert.Regexp(t, `^(created|scaled|deleted) `, l[1], "kubectl only writes through the API")
				}
				assert.Equal(t, want, l[0], l[1])
			}
		})
	}
	for seed, runs := range createdBySeed {
		for _, names := range runs[1:] {
			assert.Equal(t, runs[0], names, "seed %d names the same pods, in the same order, every run", seed)
		}
	}
	assert.NotEqual(t, createdBySeed[1][0], createdBySeed[2][0], "another seed, other names")
}
