package uitest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/ui"
)

// TestTenThousandPodsRenderQuickly loads the page over a cluster of 3
// nodes and 10,000 pods (written straight to an in-process API server:
// starting 10,000 pods through the controllers would measure them, not
// the page) and measures the time to fetch and draw a snapshot.
func TestTenThousandPodsRenderQuickly(t *testing.T) {
	b := newBrowser(t)
	const pods = 10_000
	srv, err := apiserver.New(apiserver.Config{Clock: clock.Real{}, Rand: rand.New(rand.NewPCG(1, 2)), HistoryLimit: 2 * pods})
	require.NoError(t, err)
	ctx := client.WithFieldManager(context.Background(), "uitest")
	for i := range 3 {
		n := &api.Node{Metadata: api.ObjectMeta{Name: fmt.Sprintf("node-%d", i)}}
		_, err := srv.Create(ctx, n)
		require.NoError(t, err)
	}
	for i := range pods {
		p := &api.Pod{Metadata: api.ObjectMeta{Name: fmt.Sprintf("web-%05d", i), Namespace: "default"}}
		p.Spec.NodeName = fmt.Sprintf("node-%d", i%3)
		p.Spec.Containers = []api.Container{{Name: "web", Image: "nginx"}}
		_, err := srv.Create(ctx, p)
		require.NoError(t, err)
	}
	h, err := ui.New(ui.Config{Lister: srv, History: srv.Store(), Clock: clock.Real{}})
	require.NoError(t, err)
	ts := httptest.NewServer(h)
	runCtx, stop := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() { h.Run(runCtx); close(stopped) }()
	defer func() { stop(); <-stopped; ts.Close() }() // the page's live stream ends first

	start := time.Now()
	b.run(t, chromedp.Navigate(ts.URL+"/ui/"))
	b.waitFor(t, 30*time.Second, `document.body.dataset.ready === 'true'`)
	loaded := time.Since(start)
	assert.Equal(t, fmt.Sprint(pods), eval[string](t, b, `document.getElementById('pod-summary').dataset.total`))
	assert.Zero(t, eval[int64](t, b, `document.querySelectorAll('[data-pod]').length`), "10,000 pods are drawn on canvases, not listed")
	assert.Less(t, eval[int64](t, b, `document.getElementsByTagName('*').length`), int64(5000), "the page stays small")

	// Fetch and draw the snapshot again, as the page does after each write.
	ms := eval[float64](t, b, `(async () => {
		const { fetchSnapshot } = await import('./data.js');
		const { pageElements, renderCluster } = await import('./render.js');
		const page = pageElements(document);
		const times = [];
		for (let i = 0; i < 5; i++) {
			const t0 = performance.now();
			renderCluster(page, await fetchSnapshot(0));
			times.push(performance.now() - t0);
		}
		return times.sort((a, b) => a - b)[2];
	})()`)
	t.Logf("10,000 pods: page loaded and drawn in %v; a snapshot fetched and drawn in %.1f ms (median of 5)", loaded.Round(time.Millisecond), ms)
	assert.Less(t, ms, 1000.0, "a 10,000-pod snapshot is fetched and drawn within a second")
	b.screenshot(t, "6-ten-thousand-pods")
	b.noErrors(t)
}
