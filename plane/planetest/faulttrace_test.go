package planetest

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver/faults"
	"github.com/miniplane/miniplane/plane"
)

// TestTouched picks out the trace lines on the objects a failure names:
// by the name in the key, or a value the selector asks for, as whole
// words only.
func TestTouched(t *testing.T) {
	words := wordsOf("cm-1: annotation example.miniplane.io/keys=\"4\", want \"5\"\njob-0 has 2 runner pods.")
	for _, tc := range []struct {
		name string
		ev   faults.Event
		want []string
	}{
		{"key in a namespace", faults.Event{Resource: "configmaps", Key: "default/cm-1"}, []string{"cm-1"}},
		{"cluster-scoped key", faults.Event{Resource: "namespaces", Key: "job-0"}, []string{"job-0"}},
		{"a longer name", faults.Event{Resource: "configmaps", Key: "default/cm-10"}, nil},
		{"a generated name", faults.Event{Resource: "pods", Key: "default/job-0-x7k2p"}, nil},
		{"selector value", faults.Event{Resource: "pods", Key: "default/", Selector: "run-for=job-0"}, []string{"job-0"}},
		{"selector ==", faults.Event{Resource: "pods", Key: "default/", Selector: "a=b,run-for==job-0"}, []string{"job-0"}},
		{"field selector", faults.Event{Resource: "configmaps", Key: "", Selector: "fields: metadata.name=cm-1"}, []string{"cm-1"}},
		{"a collection", faults.Event{Resource: "configmaps", Key: "default/"}, nil},
		{"not on a resource", faults.Event{Key: "cm-1"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, touched(tc.ev, words))
		})
	}
}

// TestFailedSeedPrintsItsFaults starts a plane with conflicts on every
// update, updates one ConfigMap through the faults, and fails the test with
// Eventually naming it: the failure logs where the whole trace was kept
// and the trace's last lines on that ConfigMap, the conflicts among them.
// A passing test logs nothing of the trace.
func TestFailedSeedPrintsItsFaults(t *testing.T) {
	for _, fail := range []bool{false, true} {
		t.Run(fmt.Sprintf("fail=%v", fail), func(t *testing.T) {
			f := newFake("TestInner/seed=4")
			synctest.Test(t, func(t *testing.T) {
				f.run(func() {
					p := Start(f, plane.Config{Seed: 4, Faults: faults.SetOf(faults.Conflict), FaultRate: 1})
					_, err := p.Server().Create(t.Context(), configMap("cm-1"))
					require.NoError(t, err)
					_, err = p.Server().Create(t.Context(), configMap("cm-2"))
					require.NoError(t, err)
					for _, name := range []string{"cm-1", "cm-2"} {
						put(t, p, name)
					}
					if fail {
						EventuallyOn(f, p.Clock(), func() error { return fmt.Errorf("cm-1: annotation missing") }, time.Second)
					}
				})
			})
			logs := f.allLogs()
			if !fail {
				assert.NotContains(t, logs, "fault trace")
				return
			}
			m := regexp.MustCompile(`the whole fault trace \(one JSON line per request and per fault\): (\S+)`).FindStringSubmatch(logs)
			require.NotNil(t, m, logs)
			t.Cleanup(func() { os.Remove(m[1]) })
			assert.Equal(t, filepath.Join(os.TempDir(), "miniplane-faults", "TestInner_seed=4.seed4.jsonl"), m[1])
			b, err := os.ReadFile(m[1])
			require.NoError(t, err)
			assert.Contains(t, string(b), `"fault":"conflict"`)
			assert.Contains(t, logs, "its last lines on cm-1:")
			assert.Regexp(t, `update configmaps default/cm-1 rev \d+  FAULT conflict: Operation cannot be fulfilled`, logs)
			assert.NotContains(t, logs, "default/cm-2", "only the object the failure names")
		})
	}
}

// put sends an update of the ConfigMap name through the plane's faults.
func put(t *testing.T, p *plane.Plane, name string) {
	t.Helper()
	body := fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"namespace":"default","name":%q},"data":{"k":"v"}}`, name)
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPut, p.Host()+"/api/v1/namespaces/default/configmaps/"+name, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	resp, err := p.Transport().RoundTrip(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusConflict, resp.StatusCode)
}

func configMap(name string) *api.ConfigMap {
	return &api.ConfigMap{Metadata: api.ObjectMeta{Namespace: "default", Name: name}}
}
