package apiserver_test

import (
	"context"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/clock"
)

// epoch is the fake clock's start in every test.
var epoch = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

var ctx = context.Background()

// newServer returns a server on a fake clock with a fixed seed.
func newServer(t testing.TB) (*apiserver.Server, *clock.Fake) {
	t.Helper()
	clk := clock.NewFake(epoch)
	s, err := apiserver.New(apiserver.Config{Clock: clk, Rand: rand.New(rand.NewPCG(1, 2))})
	require.NoError(t, err)
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
