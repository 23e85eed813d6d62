package uitest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
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

// gadgetShown is the Gadget named name's row on the page, as a selector.
func gadgetShown(name string) string {
	return fmt.Sprintf(`document.querySelector('#custom [data-kind="Gadget"] [data-object="%s"]')`, name)
}

// TestCustomResourcesOnThePage serves a CustomResourceDefinition with
// `serve --crds` and follows a Gadget through the page as kubectl changes
// it: listed under its kind (learned from discovery), the ConfigMap it
// owns linked from it, its spec change a timeline row with its diff, a
// trip back to before the ConfigMap, and the garbage collector deleting
// the ConfigMap through its ownerReference when the Gadget goes.
func TestCustomResourcesOnThePage(t *testing.T) {
	b := newBrowser(t)
	// The simulator's Gadgets: a kind the page knows only from discovery.
	crd, err := json.Marshal(sim.GadgetDefinition())
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "gadgets.json"), crd, 0o600))
	url, kc := serve(t, "--crds", dir)

	b.run(t, chromedp.Navigate(url+"/ui/"))
	b.waitFor(t, 10*time.Second, `document.body.dataset.ready === 'true'`)
	b.waitFor(t, 5*time.Second, `document.querySelector('#custom [data-kind="Gadget"]')?.innerText.includes('no objects')`)

	kubectlOut(t, kc, "apiVersion: gadgets.example.com/v1\nkind: Gadget\nmetadata:\n  name: big\n  namespace: default\nspec:\n  size: 1\n", "apply", "-f", "-")
	b.waitFor(t, 5*time.Second, gadgetShown("big")+`?.dataset.owns === '0'`)
	alone := eval[int64](t, b, `Number(document.body.dataset.revision)`)

	uid := kubectlOut(t, kc, "", "get", "gadget", "big", "-o", "jsonpath={.metadata.uid}")
	kubectlOut(t, kc, fmt.Sprintf(`apiVersion: v1
kind: ConfigMap
metadata:
  name: big-config
  namespace: default
  ownerReferences:
  - apiVersion: gadgets.example.com/v1
    kind: Gadget
    name: big
    uid: %s
    controller: true
data:
  size: "1"
`, uid), "apply", "-f", "-")
	b.waitFor(t, 5*time.Second, gadgetShown("big")+`?.dataset.owns === '1'`)
	assert.Contains(t, eval[string](t, b, gadgetShown("big")+`.innerText`), "ConfigMap big-config ★")

	kubectlOut(t, kc, "", "patch", "gadget", "big", "--type=merge", "-p", `{"spec":{"size":3}}`)
	b.waitFor(t, 5*time.Second, `document.querySelector('#timeline tr.v-MODIFIED[data-kind="Gadget"][data-name="big"]') !== null`)
	assert.Contains(t, eval[string](t, b, `document.querySelector('#timeline tr.v-MODIFIED[data-kind="Gadget"][data-name="big"]').innerText`), "spec.size 1 → 3")
	b.waitFor(t, 5*time.Second, gadgetShown("big")+`?.innerText.includes('generation 2')`)
	b.noErrors(t)
	b.screenshot(t, "custom-1-gadget-owns-configmap")

	// Back in time, to before the ConfigMap: the Gadget owns nothing yet.
	b.travel(t, alone)
	b.waitFor(t, 5*time.Second, fmt.Sprintf(`document.body.dataset.revision === '%d' && `+gadgetShown("big")+`?.dataset.owns === '0'`, alone))
	assert.Contains(t, eval[string](t, b, gadgetShown("big")+`.innerText`), "generation 1")
	b.screenshot(t, "custom-2-back-in-time")

	// Live again; the Gadget deleted, the garbage collector deletes what
	// it owned.
	b.run(t, chromedp.Click(chromedp.CSS(`#live`)))
	kubectlOut(t, kc, "", "delete", "gadget", "big")
	b.waitFor(t, 15*time.Second, `document.querySelector('#timeline tr.v-DELETED[data-kind="ConfigMap"][data-name="big-config"]') !== null`)
	b.waitFor(t, 5*time.Second, gadgetShown("big")+` === null`)
	assert.Empty(t, strings.TrimSpace(kubectlOut(t, kc, "", "get", "configmaps", "big-config", "--ignore-not-found")), "kubectl finds it gone too")
	b.noErrors(t)
	b.screenshot(t, "custom-3-collected")
}

// TestTraceShowsCustomResources opens the trace of the simulator's
// "gadgets" scenario (a CustomResourceDefinition and an operator in
// miniature) in the trace view: at its last line the cluster lists each
// Gadget with its generation and the ConfigMap it owns, and the timeline
// filtered to a Gadget shows its writes with their diffs; stepping back to
// the line that created it shows it at generation 1, owning nothing yet.
func TestTraceShowsCustomResources(t *testing.T) {
	b := newBrowser(t)
	sc, err := sim.ScenarioByName("gadgets")
	require.NoError(t, err)
	var trace bytes.Buffer
	_, err = sim.RunScenario(context.Background(), sim.Config{Seed: 1, Trace: &trace}, sc, time.Minute)
	require.NoError(t, err)
	h, err := ui.NewTraceHandler(trace.Bytes())
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	defer srv.Close()

	b.run(t, chromedp.Navigate(srv.URL+ui.TracePage))
	b.waitFor(t, 30*time.Second, `document.body.dataset.loaded === "true"`)
	b.run(t, chromedp.Click(chromedp.CSS(`#last`)))
	big := `document.querySelector('#cluster [data-custom="Gadget big"]')`
	b.waitFor(t, 5*time.Second, big+` !== null`)
	assert.Equal(t, "Gadget default/big: generation 2 — owns [ConfigMap default/big-config]", eval[string](t, b, big+`.textContent`))
	b.run(t, chromedp.SendKeys(chromedp.CSS(`#filter-key`), "Gadget default/big"))
	rows := eval[string](t, b, `document.querySelector("#timeline tbody").textContent`)
	assert.Contains(t, rows, "generation: 1 → 2", "the resize's diff")
	b.screenshot(t, "custom-4-trace")

	created := eval[int](t, b, `Number([...document.querySelectorAll("#timeline tbody tr")].find((r) => r.textContent.includes("custom: true"))?.dataset.index ?? -1)`)
	require.GreaterOrEqual(t, created, 0, "the create's row")
	b.run(t, chromedp.Click(chromedp.CSS(fmt.Sprintf(`#timeline tr[data-index="%d"]`, created))))
	b.waitFor(t, 5*time.Second, big+`?.textContent === "Gadget default/big: generation 1"`)
	b.noErrors(t)
}
