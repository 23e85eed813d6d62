package stock

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/miniplane/miniplane/interop/internal/planetest"
)

// bound limits every wait, so that a lost event or a stuck call fails the
// test instead of hanging it.
const bound = 20 * time.Second

// start serves a fresh API for t and returns it with a stock clientset.
func start(t *testing.T) (*planetest.Plane, kubernetes.Interface) {
	t.Helper()
	p := planetest.Start(t)
	return p, clientset(t, p)
}

// clientset returns a new stock clientset of p. Parallel subtests take one
// each: client-go limits every clientset to 5 requests a second (burst 10)
// by default, which one shared between them would make the bottleneck.
func clientset(t *testing.T, p *planetest.Plane) kubernetes.Interface {
	t.Helper()
	cfg := p.Config()
	planetest.RequireStock(t, cfg)
	cs, err := kubernetes.NewForConfig(cfg)
	require.NoError(t, err)
	return cs
}

// boundedContext returns a context that ends after bound or with t.
func boundedContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), bound)
	t.Cleanup(cancel)
	return ctx
}

// served is what the server's discovery lists: each resource with its
// verbs, and each subresource ("pods/status") with its verbs.
type served map[string][]string

// key names a resource or subresource of a group version in a served map:
// "v1 pods", "v1 pods/status", "events.k8s.io/v1 events".
func key(gvr schema.GroupVersionResource) string {
	return gvr.GroupVersion().String() + " " + gvr.Resource
}

// discover asks the server, through the clientset's discovery client, what
// it serves.
func discover(t *testing.T, cs kubernetes.Interface) served {
	t.Helper()
	_, lists, err := cs.Discovery().ServerGroupsAndResources()
	require.NoError(t, err)
	out := served{}
	for _, l := range lists {
		for _, r := range l.APIResources {
			out[l.GroupVersion+" "+r.Name] = r.Verbs
		}
	}
	require.NotEmpty(t, out, "discovery lists no resources")
	return out
}

// recorder is an informer event handler that keeps, for the objects whose
// names start with its prefix, what it saw: "add NAME", "update NAME
// step=STEP" (the new object's "step" label), "delete NAME".
type recorder struct {
	prefix string
	// mu guards seen.
	mu      sync.Mutex
	seen    []string
	changed chan struct{} // receives after every note, without blocking
}

func newRecorder(prefix string) *recorder {
	return &recorder{prefix: prefix, changed: make(chan struct{}, 1)}
}

func (r *recorder) note(obj any, format string, args ...any) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	m, err := meta.Accessor(obj)
	if err != nil || !strings.HasPrefix(m.GetName(), r.prefix) {
		return
	}
	r.mu.Lock()
	r.seen = append(r.seen, fmt.Sprintf(format, append([]any{m.GetName()}, args...)...))
	r.mu.Unlock()
	select {
	case r.changed <- struct{}{}:
	default:
	}
}

func (r *recorder) handler() cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) { r.note(obj, "add %s") },
		UpdateFunc: func(_, obj any) {
			m, err := meta.Accessor(obj)
			if err == nil {
				r.note(obj, "update %s step=%s", m.GetLabels()["step"])
			}
		},
		DeleteFunc: func(obj any) { r.note(obj, "delete %s") },
	}
}

// waitFor waits until the recorder has seen want, or fails t once ctx ends.
func (r *recorder) waitFor(t *testing.T, ctx context.Context, want string) {
	t.Helper()
	for {
		r.mu.Lock()
		ok := slices.Contains(r.seen, want)
		r.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-r.changed:
		case <-ctx.Done():
			r.mu.Lock()
			defer r.mu.Unlock()
			t.Fatalf("the informer never saw %q; it saw %q", want, r.seen)
		}
	}
}
