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

// browser returns a chromedp context on a headless chromium, or skips.
func browser(t *testing.T) context.Context {
	t.Helper()
	path := os.Getenv("CHROMIUM")
	if path == "" {
		path = "/usr/bin/chromium"
	}
	if _, err := os.Stat(path); err != nil {
		t.Skipf("no browser at %s: %v", path, err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path), chromedp.NoSandbox, chromedp.WindowSize(1400, 900))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 60*time.Second)
	t.Cleanup(func() { cancelTimeout(); cancelCtx(); cancelAlloc() })
	return ctx
}

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

// TestTraceWithPlantedViolationOpensAtTheViolation: the trace view of a
// run that violated an invariant opens at the violation line, names the
// invariant and the objects in its banner, marks the row, and outlines the
// objects in the cluster view. The screenshot is saved for a look.
func TestTraceWithPlantedViolationOpensAtTheViolation(t *testing.T) {
	ctx := browser(t)
	trace := plantedTrace(t)
	h, err := ui.NewTraceHandler(trace)
	require.NoError(t, err)
	srv := httptest.NewServer(h) // 127.0.0.1, a free port
	defer srv.Close()

	var banner, position, currentRow, slider, sliderMax string
	var involved int
	var png []byte
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Navigate(srv.URL+ui.TracePage),
		chromedp.WaitVisible(`body[data-loaded="true"] #violation`, chromedp.ByQuery),
		chromedp.Text(`#violation`, &banner, chromedp.ByQuery),
		chromedp.Text(`#position`, &position, chromedp.ByQuery),
		chromedp.Text(`#timeline tr.current`, &currentRow, chromedp.ByQuery),
		chromedp.Value(`#slider`, &slider, chromedp.ByQuery),
		chromedp.AttributeValue(`#slider`, "max", &sliderMax, nil, chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelectorAll("#cluster .involved").length`, &involved),
		chromedp.FullScreenshot(&png, 100), // 100: PNG,
	))
	assert.Contains(t, banner, "Invariant rc-no-overshoot violated")
	assert.Contains(t, banner, "ReplicationController default/")
	assert.Contains(t, banner, "Pod default/")
	assert.Contains(t, currentRow, "violation")
	assert.Contains(t, currentRow, "rc-no-overshoot")
	assert.NotEqual(t, sliderMax, slider, "the violation is not the last line: its step's lines follow")
	assert.NotEqual(t, "0", slider)
	assert.True(t, strings.HasPrefix(position, "line "), position)
	assert.Equal(t, 2, involved, "the controller and the pod are outlined")

	out := filepath.Join(os.TempDir(), "miniplane-trace-violation.png")
	if dir := os.Getenv("UITEST_SCREENSHOTS"); dir != "" {
		out = filepath.Join(dir, "trace-violation.png")
	}
	require.NoError(t, os.WriteFile(out, png, 0o644))
	t.Logf("screenshot: %s", out)

	// Stepping back and filtering by actor keep working.
	var after string
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Click(`#prev`, chromedp.ByQuery),
		chromedp.SendKeys(`#filter-actor`, "nodesim", chromedp.ByQuery),
		chromedp.Text(`#timeline tbody`, &after, chromedp.ByQuery),
	))
	assert.NotContains(t, after, "m0/elector", "the actor filter hides other actors")
}

// TestTraceFileOpensInThePage: a page served without a run opens a trace
// file chosen in its file input, and lands at the violation too.
func TestTraceFileOpensInThePage(t *testing.T) {
	ctx := browser(t)
	path := filepath.Join(t.TempDir(), "planted.jsonl")
	require.NoError(t, os.WriteFile(path, plantedTrace(t), 0o644))
	h, err := ui.NewTraceHandler(nil)
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	defer srv.Close()

	var before, source, banner string
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Navigate(srv.URL+ui.TracePage),
		chromedp.WaitVisible(`#file`, chromedp.ByQuery),
		chromedp.Poll(`document.getElementById("source").textContent !== ""`, nil),
		chromedp.Text(`#source`, &before, chromedp.ByQuery),
		chromedp.SetUploadFiles(`#file`, []string{path}, chromedp.ByQuery),
		chromedp.WaitVisible(`body[data-loaded="true"] #violation`, chromedp.ByQuery),
		chromedp.Text(`#source`, &source, chromedp.ByQuery),
		chromedp.Text(`#violation`, &banner, chromedp.ByQuery),
	))
	assert.Equal(t, "no run: open a trace file", before)
	assert.Equal(t, "planted.jsonl", source)
	assert.Contains(t, banner, "Invariant rc-no-overshoot violated")
}
