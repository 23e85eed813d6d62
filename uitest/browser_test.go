package uitest

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// chromiumPath is Debian's chromium.
const chromiumPath = "/usr/bin/chromium"

// binary is the miniplane binary TestMain builds.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "uitest")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "miniplane")
	build := exec.Command("go", "build", "-o", binary, "./cmd/miniplane")
	build.Dir = ".." // the main module
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building miniplane:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// needChromium skips the test when Chromium is not installed.
func needChromium(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Skipf("no Chromium at %s, so the browser tests cannot run: install it with `apt-get install -y chromium`", chromiumPath)
	}
}

// serve starts `miniplane serve` on a free loopback port and returns its
// base URL and kubeconfig; the process is stopped (SIGINT, as Ctrl-C) when
// the test ends.
func serve(t *testing.T, args ...string) (url, kubeconfig string) {
	t.Helper()
	kubeconfig = filepath.Join(t.TempDir(), "kubeconfig")
	cmd := exec.Command(binary, append([]string{"serve", "--addr", "127.0.0.1:0", "--kubeconfig", kubeconfig}, args...)...)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = os.Stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
	})
	lines := bufio.NewScanner(out)
	uiLine := regexp.MustCompile(`open (http://127\.0\.0\.1:\d+)/ui/`)
	deadline := time.Now().Add(30 * time.Second)
	for lines.Scan() && time.Now().Before(deadline) {
		line := lines.Text()
		if m := uiLine.FindStringSubmatch(line); m != nil {
			url = m[1]
		}
		if strings.HasPrefix(line, "ready:") {
			go func() { // keep draining stdout
				for lines.Scan() {
				}
			}()
			require.NotEmpty(t, url, "serve printed no 'open .../ui/' line")
			return url, kubeconfig
		}
	}
	t.Fatalf("serve did not become ready")
	return "", ""
}

// kubectl runs the real kubectl against kubeconfig.
func kubectl(t *testing.T, kubeconfig string, args ...string) {
	t.Helper()
	cmd := exec.Command("kubectl", append([]string{"--kubeconfig", kubeconfig}, args...)...)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "kubectl %s: %s", strings.Join(args, " "), out)
}

// browser is a headless Chromium tab that records every console error,
// uncaught exception and browser log error, for noErrors.
type browser struct {
	ctx    context.Context
	mu     sync.Mutex
	errors []string
}

func newBrowser(t *testing.T) *browser {
	t.Helper()
	needChromium(t)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.WindowSize(1400, 1000))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	b := &browser{ctx: ctx}
	messages := chromedp.Console(ctx) // starts the browser; no timeout on ctx
	done := make(chan struct{})
	go func() {
		defer close(done)
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.IsException() {
				b.mu.Lock()
				b.errors = append(b.errors, m.String())
				b.mu.Unlock()
			}
		}
	}()
	t.Cleanup(func() { cancel(); <-done; cancelAlloc() })
	return b
}

// run runs actions in the tab, failing the test on an error.
func (b *browser) run(t *testing.T, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	require.NoError(t, chromedp.Do(ctx, actions...))
}

// noErrors fails the test if the page logged an error or threw.
func (b *browser) noErrors(t *testing.T) {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	assert.Empty(t, b.errors, "the page logged errors")
}

// waitFor polls a JavaScript condition until it holds, or fails the test
// after within; it returns how long the condition took.
func (b *browser) waitFor(t *testing.T, within time.Duration, cond string) time.Duration {
	t.Helper()
	start := time.Now()
	ctx, cancel := context.WithTimeout(b.ctx, within)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](cond, chromedp.WithPollingInterval(20*time.Millisecond), chromedp.WithPollingTimeout(within))); err != nil {
		shows, _ := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.querySelector('main').innerText.slice(0, 1500)`))
		t.Fatalf("waiting %v for %s: %v\nthe page shows:\n%s", within, cond, err, shows)
	}
	return time.Since(start)
}

// screenshot saves the page as name.png in $ARTIFACTS or testdata/screenshots.
func (b *browser) screenshot(t *testing.T, name string) {
	t.Helper()
	dir := os.Getenv("ARTIFACTS")
	if dir == "" {
		dir = filepath.Join("testdata", "screenshots")
	}
	require.NoError(t, os.MkdirAll(dir, 0o755))
	png, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644))
}

// travel moves the live page's revision slider to rev, as a user
// dragging it does; the page shows that revision once it has read it.
func (b *browser) travel(t *testing.T, rev int64) {
	t.Helper()
	eval[chromedp.Void](t, b, fmt.Sprintf(`{
		const s = document.getElementById('revision');
		s.value = %d;
		s.dispatchEvent(new Event('input'));
	}`, rev))
}

// eval evaluates a JavaScript expression in the page, awaiting it when
// it is a promise.
func eval[T any](t *testing.T, b *browser, expr string) T {
	t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	require.NoError(t, err, expr)
	return v
}
