package testenv

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
)

// Pods is a test's hand on the pods of namespace "default" on Srv, their
// nodes and their events, failing TB on any error it does not expect.
type Pods struct {
	TB  testing.TB
	Ctx context.Context
	Srv *apiserver.Server
}

// CreatePod creates a pod name of one nginx container labelled app=web,
// changed by mutate first.
func (p Pods) CreatePod(name string, mutate ...func(*api.Pod)) {
	p.TB.Helper()
	pod := &api.Pod{
		Metadata: api.ObjectMeta{Namespace: "default", Name: name, Labels: map[string]string{"app": "web"}},
		Spec:     api.PodSpec{Containers: []api.Container{{Name: "app", Image: "nginx:1.27"}}},
	}
	for _, m := range mutate {
		m(pod)
	}
	_, err := client.For[*api.Pod](p.Srv).Create(p.Ctx, pod)
	require.NoError(p.TB, err)
}

// Pod returns the pod name as the server holds it.
func (p Pods) Pod(name string) *api.Pod {
	p.TB.Helper()
	pod, err := client.For[*api.Pod](p.Srv).Get(p.Ctx, "default", name)
	require.NoError(p.TB, err)
	return pod
}

// PodGone reports whether the server holds no pod name.
func (p Pods) PodGone(name string) bool {
	_, err := client.For[*api.Pod](p.Srv).Get(p.Ctx, "default", name)
	return apierrors.IsNotFound(err)
}

// DeletePod deletes the pod name, with its default grace period.
func (p Pods) DeletePod(name string) {
	p.TB.Helper()
	_, err := client.For[*api.Pod](p.Srv).Delete(p.Ctx, "default", name, api.DeleteOptions{})
	require.NoError(p.TB, err)
}

// Node returns the node name as the server holds it.
func (p Pods) Node(name string) *api.Node {
	p.TB.Helper()
	n, err := client.For[*api.Node](p.Srv).Get(p.Ctx, "", name)
	require.NoError(p.TB, err)
	return n
}

// EventMessages returns the messages of the events of reason about the
// object named name, in the server's order.
func (p Pods) EventMessages(name, reason string) []string {
	p.TB.Helper()
	events, _, err := client.For[*api.Event](p.Srv).List(p.Ctx, "default", client.ListOptions{})
	require.NoError(p.TB, err)
	var out []string
	for _, ev := range events {
		if ev.InvolvedObject.Name == name && ev.Reason == reason {
			out = append(out, ev.Message)
		}
	}
	return out
}
