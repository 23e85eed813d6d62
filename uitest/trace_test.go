package uitest

import (
	"bytes"
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/sim"
	"github.com/miniplane/miniplane/ui"
)

// plantedTrace runs the simulator's planted bug (a replication controller
// without expectations) to its violation and returns the trace.
func plantedTrace(t *testing.T) []byte {
	t.Helper()
	sc, err := sim.ScenarioByName("default")
	require.NoError(t, err)
	var trace bytes.Buffer
	res, err := sim.RunScenario(context.Background(),
		sim.Config{Seed: 1, Faults: sim.AllFaults, ReplicationWithoutExpectations: true, Trace: &trace}, sc, 10*time.Minute)
	require.NoError(t, err)
	require.NotNil(t, res.Violation, "seed 1 finds the planted bug")
	return trace.Bytes()
}

// violationShown is the condition of a trace view that has loaded and shows
// its violation banner.
const violationShown = `document.body.dataset.loaded === "true" && document.querySelector("#violation")?.offsetParent != null`

// TestTraceWithPlantedViolationOpensAtTheViolation: the trace view of a
// run that violated an invariant opens at the violation line, names the
// invariant and the objects in its banner, marks the row, and outlines the
// objects in the cluster view. The screenshot is saved for a look.
func TestTraceWithPlantedViolationOpensAtTheViolation(t *testing.T) {
	b := newBrowser(t)
	h, err := ui.NewTraceHandler(plantedTrace(t))
	require.NoError(t, err)
	srv := httptest.NewServer(h) // 127.0.0.1, a free port
	defer srv.Close()

	b.run(t, chromedp.Navigate(srv.URL+ui.TracePage))
	b.waitFor(t, 30*time.Second, violationShown)
	banner := eval[string](t, b, `document.querySelector("#violation").textContent`)
	position := eval[string](t, b, `document.querySelector("#position").textContent`)
	currentRow := eval[string](t, b, `document.querySelector("#timeline tr.current").textContent`)
	slider := eval[string](t, b, `document.querySelector("#slider").value`)
	sliderMax := eval[string](t, b, `document.querySelector("#slider").max`)
	involved := eval[int](t, b, `document.querySelectorAll("#cluster .involved").length`)
	b.screenshot(t, "trace-violation")

	assert.Contains(t, banner, "Invariant rc-no-overshoot violated")
	assert.Contains(t, banner, "ReplicationController default/")
	assert.Contains(t, banner, "Pod default/")
	assert.Contains(t, currentRow, "violation")
	assert.Contains(t, currentRow, "rc-no-overshoot")
	assert.NotEqual(t, sliderMax, slider, "the violation is not the last line: its step's lines follow")
	assert.NotEqual(t, "0", slider)
	assert.True(t, strings.HasPrefix(position, "line "), position)
	assert.Equal(t, 2, involved, "the controller and the pod are outlined")

	// Stepping back and filtering by actor keep working.
	b.run(t, chromedp.Click(chromedp.CSS(`#prev`)), chromedp.SendKeys(chromedp.CSS(`#filter-actor`), "nodesim"))
	after := eval[string](t, b, `document.querySelector("#timeline tbody").textContent`)
	assert.NotContains(t, after, "m0/elector", "the actor filter hides other actors")
	b.noErrors(t)
}

// TestTraceFileOpensInThePage: the trace view of a page with no run of its
// own (as serve's /ui/trace/ is) opens a trace file chosen in its file
// input, and lands at the violation too.
func TestTraceFileOpensInThePage(t *testing.T) {
	b := newBrowser(t)
	path := filepath.Join(t.TempDir(), "planted.jsonl")
	require.NoError(t, os.WriteFile(path, plantedTrace(t), 0o644))
	h, err := ui.NewTraceHandler(nil)
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	defer srv.Close()

	b.run(t, chromedp.Navigate(srv.URL+ui.TracePage))
	b.waitFor(t, 30*time.Second, `document.getElementById("source")?.textContent !== ""`)
	assert.Equal(t, "no run: open a trace file", eval[string](t, b, `document.getElementById("source").textContent`))
	b.run(t, chromedp.SetUploadFiles(chromedp.CSS(`#file`), []string{path}))
	b.waitFor(t, 30*time.Second, violationShown)
	assert.Equal(t, "planted.jsonl", eval[string](t, b, `document.getElementById("source").textContent`))
	assert.Contains(t, eval[string](t, b, `document.querySelector("#violation").textContent`), "Invariant rc-no-overshoot violated")
	b.noErrors(t)
}
