package uitest

import (
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// podsShown is the number of pods the page lists by name, and
// readyPodsShown those of them that are ready.
const (
	podsShown      = `document.querySelectorAll('[data-pod]').length`
	readyPodsShown = `document.querySelectorAll('[data-pod][data-ready="true"]').length`
)

// TestTheLoopOnThePage follows examples/web.yaml through the page: the
// apply, the scale, a trip back in time and the arrow from the scale to
// the pods it made.
func TestTheLoopOnThePage(t *testing.T) {
	b := newBrowser(t)
	url, kc := serve(t)

	b.run(t, chromedp.Navigate(url+"/ui/"))
	b.waitFor(t, 10*time.Second, `document.body.dataset.ready === 'true'`)
	b.waitFor(t, 5*time.Second, `document.querySelectorAll('.node').length === 3`)
	// The workqueue table has every controller's queue: the controller
	// managers', and those of the components run once per cluster.
	b.waitFor(t, 5*time.Second, `(() => {
		const names = [...document.querySelectorAll('#queues tbody tr td:nth-child(2)')].map(td => td.textContent);
		return ['replicationmanager', 'nodesim', 'scheduler', 'nodelifecycle'].every(n => names.includes(n));
	})()`)
	b.noErrors(t)
	b.screenshot(t, "1-empty")

	kubectl(t, kc, "apply", "-f", "../examples/web.yaml")
	b.waitFor(t, 15*time.Second, podsShown+` === 3 && `+readyPodsShown+` === 3 &&
		document.querySelector('[data-service="web"]')?.dataset.ready === '3'`)
	three := eval[int64](t, b, `Number(document.body.dataset.revision)`)
	b.screenshot(t, "2-three-pods")

	kubectl(t, kc, "scale", "rc/web", "--replicas=5")
	took := b.waitFor(t, 2*time.Second, podsShown+` === 5`)
	t.Logf("five pods on the page %v after kubectl scale returned", took)
	b.waitFor(t, 15*time.Second, readyPodsShown+` === 5 && document.querySelector('[data-service="web"]')?.dataset.ready === '5'`)
	// Beside the Endpoints, the service's EndpointSlice, kept by the
	// endpointslice controller, holds the same five.
	b.waitFor(t, 15*time.Second, `document.querySelector('[data-service="web"] [data-slice]')?.dataset.ready === '5'`)
	b.screenshot(t, "3-five-pods")

	// Back in time: the slider to the revision that showed three.
	b.travel(t, three)
	b.waitFor(t, 5*time.Second, fmt.Sprintf(`document.body.dataset.revision === '%d' && `+podsShown+` === 3`, three))
	assert.Equal(t, "false", eval[string](t, b, `document.getElementById('live').getAttribute('aria-pressed')`), "travelling pauses the live view")
	b.screenshot(t, "4-back-in-time")

	// The timeline's arrow: kubectl's scale write, then the two pods the
	// replication controller created because of it.
	scale := eval[int64](t, b, `Number(document.querySelector('#timeline tr[data-kind="ReplicationController"][data-actor="kubectl"]')?.dataset.revision ?? 0)`)
	require.NotZero(t, scale, "the timeline shows kubectl's scale write")
	assert.Contains(t, eval[string](t, b, fmt.Sprintf(`document.getElementById('rev-%d').innerText`, scale)), "spec.replicas 3 → 5")
	created := eval[int64](t, b, fmt.Sprintf(`document.querySelectorAll('#timeline tr.v-ADDED[data-kind="Pod"][data-actor="replicationcontroller"][data-trigger="%d"]').length`, scale))
	assert.Equal(t, int64(2), created, "two pods link to the scale write")
	// Following the arrow travels to the scale write.
	b.run(t, chromedp.Click(chromedp.CSS(fmt.Sprintf(`#timeline tr.v-ADDED[data-kind="Pod"] a.trigger[data-trigger="%d"]`, scale))))
	b.waitFor(t, 5*time.Second, fmt.Sprintf(`document.body.dataset.revision === '%d'`, scale))
	b.screenshot(t, "5-cause")

	// Back to live.
	b.run(t, chromedp.Click(chromedp.CSS(`#live`)))
	b.waitFor(t, 5*time.Second, podsShown+` === 5`)
	b.noErrors(t)
}
