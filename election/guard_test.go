package election_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/election/electiontest"
)

// TestReleaseWaitsForGuardedWriteInFlight: closing the guard waits for a
// write that passed the check, so the lease is released only after the
// old leader's last write has landed.
func TestReleaseWaitsForGuardedWriteInFlight(t *testing.T) {
	e := newEnv(t)
	a := e.elector(t, "a")
	a.Step(context.Background())
	require.True(t, a.IsLeader())

	entered, unblock := make(chan struct{}), make(chan struct{})
	var order []string
	e.client.SetFault(func(op electiontest.Op) error {
		switch {
		case op.Resource == client.Pods && op.Verb == "create":
			close(entered)
			<-unblock
			order = append(order, "pod written")
		case op.Resource == client.Leases && op.IsWrite():
			order = append(order, "lease released")
		}
		return nil
	})
	writeDone := make(chan error, 1)
	go func() {
		_, err := a.Guard().Client(e.client).Create(context.Background(), &api.Pod{
			Metadata: api.ObjectMeta{Namespace: "default", Name: "p"},
			Spec:     api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx"}}},
		})
		writeDone <- err
	}()
	<-entered // the write passed the guard and is in flight

	var released atomic.Bool
	releaseDone := make(chan error, 1)
	go func() {
		err := a.Release(context.Background())
		released.Store(true)
		releaseDone <- err
	}()
	require.Never(t, released.Load, 50*time.Millisecond, time.Millisecond, "Release returned while a guarded write was in flight")
	close(unblock)
	require.NoError(t, <-writeDone)
	require.NoError(t, <-releaseDone)
	assert.Equal(t, []string{"pod written", "lease released"}, order)
}
