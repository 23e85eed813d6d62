package httpapi

import (
	"context"
	"math/rand/v2"
	"net"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/events"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/apiserver/httpapi"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
)

// serveForEvents starts miniplane's HTTP API on a loopback port for the
// test and returns the server and a clientset for it.
func serveForEvents(t *testing.T) (*apiserver.Server, kubernetes.Interface) {
	t.Helper()
	srv, err := apiserver.New(apiserver.Config{Clock: clock.Real{}, Rand: rand.New(rand.NewPCG(3, 4))})
	require.NoError(t, err)
	h, err := httpapi.New(httpapi.Config{Server: srv, Clock: clock.Real{}})
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- httpapi.Serve(ctx, ln, h) }()
	t.Cleanup(func() {
		cancel()
		require.NoError(t, <-done)
	})
	cfg := &rest.Config{Host: "http://" + ln.Addr().String()} // stock: protobuf bodies
	cs, err := kubernetes.NewForConfig(cfg)
	require.NoError(t, err)
	return srv, cs
}

// TestEventsBroadcaster records events with client-go's tools/events, as
// controller-runtime v0.23+ and kube-scheduler do: through events.k8s.io/v1
// only, with the broadcaster's default settings. The event is seen through
// core/v1, by a client-go watch; recorded again, the broadcaster patches its
// series (a strategic merge patch through events.k8s.io), and core/v1 sees
// that too.
func TestEventsBroadcaster(t *testing.T) {
	srv, cs := serveForEvents(t)
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	pod, err := cs.CoreV1().Pods("default").Create(ctx, clientGoPod("web"), metav1.CreateOptions{})
	require.NoError(t, err)
	w, err := cs.CoreV1().Events("default").Watch(ctx, metav1.ListOptions{ResourceVersion: pod.ResourceVersion})
	require.NoError(t, err)
	defer w.Stop()

	broadcaster := events.NewBroadcaster(&events.EventSinkImpl{Interface: cs.EventsV1()})
	require.NoError(t, broadcaster.StartRecordingToSinkWithContext(ctx))
	defer broadcaster.Shutdown()
	recorder := broadcaster.NewRecorder(scheme.Scheme, "miniplane.dev/interop")

	next := func(wantType watch.EventType) *corev1.Event {
		t.Helper()
		select {
		case ev, ok := <-w.ResultChan():
			require.True(t, ok, "the watch ended")
			require.Equal(t, wantType, ev.Type, "%+v", ev.Object)
			return ev.Object.(*corev1.Event)
		case <-ctx.Done():
			require.FailNow(t, "no "+string(wantType)+" event through core/v1")
			return nil
		}
	}

	recorder.Eventf(pod, nil, corev1.EventTypeNormal, "Synced", "Sync", "synced %s", pod.Name)
	got := next(watch.Added)
	assert.Equal(t, "default", got.Namespace)
	assert.Equal(t, corev1.ObjectReference{Kind: "Pod", Namespace: "default", Name: "web", UID: pod.UID, APIVersion: "v1", ResourceVersion: pod.ResourceVersion}, got.InvolvedObject)
	assert.Equal(t, "synced web", got.Message)
	assert.Equal(t, "Synced", got.Reason)
	assert.Equal(t, "Sync", got.Action)
	assert.Equal(t, corev1.EventTypeNormal, got.Type)
	assert.Equal(t, "miniplane.dev/interop", got.ReportingController)
	assert.Contains(t, got.ReportingInstance, "miniplane.dev/interop-")
	assert.False(t, got.EventTime.IsZero(), "events.k8s.io events carry eventTime")
	assert.Equal(t, corev1.EventSource{}, got.Source, "and none of the older fields")
	assert.Nil(t, got.Series)

	recorder.Eventf(pod, nil, corev1.EventTypeNormal, "Synced", "Sync", "synced %s", pod.Name)
	again := next(watch.Modified)
	assert.Equal(t, got.Name, again.Name, "a repeat is the same event")
	require.NotNil(t, again.Series)
	assert.Equal(t, int32(2), again.Series.Count)

	// The in-process client sees the one stored event through both APIs.
	v1, err := client.For[*api.EventsV1Event](srv).Get(ctx, "default", got.Name)
	require.NoError(t, err)
	assert.Equal(t, "synced web", v1.Note)
	assert.Equal(t, again.ResourceVersion, v1.Metadata.ResourceVersion)
	viaClientGo, err := cs.EventsV1().Events("default").Get(ctx, got.Name, metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, int32(2), viaClientGo.Series.Count)
	assert.Equal(t, "web", viaClientGo.Regarding.Name)
}
