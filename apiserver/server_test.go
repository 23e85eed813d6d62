package apiserver_test

import (
	"context"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/clock"
)

// epoch is the fake clock's start in every test.
var epoch = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

var ctx = context.Background()

// newServer returns a server on a fake clock with a fixed seed. A test's
// server checks that nothing changed a stored object (the server itself
// included), and fails the test at cleanup if something did; a benchmark's
// does not pay for the check.
func newServer(t testing.TB) (*apiserver.Server, *clock.Fake) {
	t.Helper()
	clk := clock.NewFake(epoch)
	_, test := t.(*testing.T)
	s, err := apiserver.New(apiserver.Config{Clock: clk, Rand: rand.New(rand.NewPCG(1, 2)), CheckMutations: test})
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, s.CheckMutations(), "a stored object was changed") })
	return s, clk
}

// pod returns a minimal valid pod.
func pod(ns, name string, labels map[string]string) *api.Pod {
	return &api.Pod{
		Metadata: api.ObjectMeta{Namespace: ns, Name: name, Labels: labels},
		Spec:     api.PodSpec{Containers: []api.Container{{Name: "app", Image: "nginx:1.27"}}},
	}
}

// rc returns a minimal valid replication controller.
func rc(ns, name string, replicas int32) *api.ReplicationController {
	labels := map[string]string{"app": name}
	return &api.ReplicationController{
		Metadata: api.ObjectMeta{Namespace: ns, Name: name},
		Spec: api.ReplicationControllerSpec{
			Replicas: &replicas,
			Selector: labels,
			Template: &api.PodTemplateSpec{
				Metadata: api.ObjectMeta{Labels: labels},
				Spec:     api.PodSpec{Containers: []api.Container{{Name: "app", Image: "nginx:1.27"}}},
			},
		},
	}
}

func ptr[T any](v T) *T { return &v }

func formatRev(rev int64) string { return strconv.FormatInt(rev, 10) }
