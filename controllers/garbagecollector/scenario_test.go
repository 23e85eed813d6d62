package garbagecollector

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver"
)

// webWithPods creates rc "web" and three pods it owns, and settles.
func (e *env) webWithPods(nodeName string) *api.ReplicationController {
	e.t.Helper()
	rc := e.createRC("web")
	for i := range 3 {
		e.createPod(fmt.Sprintf("web-%d", i), nodeName, ref(rc))
	}
	e.settle()
	return rc
}

func (e *env) podsLeft() []string {
	e.t.Helper()
	var out []string
	for i := range 3 {
		if _, ok := e.getPod(fmt.Sprintf("web-%d", i)); ok {
			out = append(out, fmt.Sprintf("web-%d", i))
		}
	}
	return out
}

func TestBackgroundDeletionDeletesDependents(t *testing.T) {
	e := newEnv(t)
	e.webWithPods("")

	e.deleteRC("web", policy(api.DeletePropagationBackground))
	_, ok := e.getRC("web")
	require.False(t, ok, "the server removes the owner at once")
	e.settle()

	assert.Empty(t, e.podsLeft(), "every pod of the deleted rc is deleted")
	assert.Equal(t, []string{"delete pods default/web-0", "delete pods default/web-1", "delete pods default/web-2"}, e.client.Writes())
}

func TestForegroundDeletionKeepsOwnerUntilDependentsGone(t *testing.T) {
	e := newEnv(t)
	e.webWithPods("")

	e.deleteRC("web", policy(api.DeletePropagationForeground))
	rc, ok := e.getRC("web")
	require.True(t, ok)
	require.NotNil(t, rc.Metadata.DeletionTimestamp)
	require.Contains(t, rc.Metadata.Finalizers, api.FinalizerDeleteDependents)

	// Step by step: the rc must still be there while any pod is.
	for e.gc.ProcessOne(e.ctx) || e.stepInformers() {
		if len(e.podsLeft()) > 0 {
			rc, ok := e.getRC("web")
			require.True(t, ok, "the rc goes only after its pods")
			assert.Contains(t, rc.Metadata.Finalizers, api.FinalizerDeleteDependents)
		}
	}
	e.settle()
	assert.Empty(t, e.podsLeft())
	_, ok = e.getRC("web")
	assert.False(t, ok, "the rc is removed once its pods are gone")
}

// stepInformers runs one round of informer steps and reports progress.
func (e *env) stepInformers() bool {
	progress := false
	for _, inf := range e.gc.informers {
		progress = inf.Reflector().Step(e.ctx) || progress
		progress = inf.ProcessOne() || progress
	}
	for _, r := range e.gc.registrations {
		progress = r.DispatchOne() || progress
	}
	return progress
}

func TestForegroundDeletionWaitsForPodsInGracePeriod(t *testing.T) {
	e := newEnv(t)
	e.webWithPods("node-1") // bound pods are deleted gracefully: 30 s

	e.deleteRC("web", policy(api.DeletePropagationForeground))
	e.settle()
	for i := range 3 {
		p, ok := e.getPod(fmt.Sprintf("web-%d", i))
		require.True(t, ok, "a pod in its grace period is still there")
		require.NotNil(t, p.Metadata.DeletionTimestamp, "the collector deleted it")
	}
	rc, ok := e.getRC("web")
	require.True(t, ok, "pods in their grace period still block the owner")
	assert.Contains(t, rc.Metadata.Finalizers, api.FinalizerDeleteDependents)

	e.clk.Step(apiserver.DefaultTerminationGracePeriodSeconds * time.Second)
	require.Equal(t, 3, e.srv.Sweep())
	e.settle()
	assert.Empty(t, e.podsLeft())
	_, ok = e.getRC("web")
	assert.False(t, ok, "the rc goes once the pods' grace period ended")
}

func TestOrphanDeletionReleasesDependents(t *testing.T) {
	for _, tc := range []struct {
		name   string
		policy *api.DeletionPropagation
	}{
		{"explicit Orphan", policy(api.DeletePropagationOrphan)},
		{"replication controllers' default", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			e.webWithPods("")

			e.deleteRC("web", tc.policy)
			rc, ok := e.getRC("web")
			require.True(t, ok)
			require.Contains(t, rc.Metadata.Finalizers, api.FinalizerOrphanDependents)
			e.settle()

			for i := range 3 {
				p, ok := e.getPod(fmt.Sprintf("web-%d", i))
				require.True(t, ok, "orphaned pods remain")
				assert.Nil(t, p.Metadata.DeletionTimestamp)
				assert.Empty(t, p.Metadata.OwnerReferences, "without the reference to the rc")
			}
			_, ok = e.getRC("web")
			assert.False(t, ok, "the rc goes after its pods are released")
		})
	}
}

func TestDeletingOneOfTwoOwnersRemovesOnlyItsReference(t *testing.T) {
	e := newEnv(t)
	a, b := e.createRC("a"), e.createRC("b")
	e.createPod("shared", "", ref(a), plainRef(b))
	e.settle()

	e.deleteRC("a", policy(api.DeletePropagationBackground))
	e.settle()

	p, ok := e.getPod("shared")
	require.True(t, ok, "the pod keeps an owner: it stays")
	assert.Nil(t, p.Metadata.DeletionTimestamp)
	assert.Equal(t, []api.OwnerReference{plainRef(b)}, p.Metadata.OwnerReferences)
}

func TestDanglingReferenceToOwnerThatNeverExisted(t *testing.T) {
	e := newEnv(t)
	rc := e.createRC("web")
	bogus := ref(rc)
	bogus.UID = "no-such-uid"
	e.createPod("stray", "", bogus)
	e.settle()

	_, ok := e.getPod("stray")
	assert.False(t, ok, "a pod whose only owner never existed is deleted")
	_, ok = e.getRC("web")
	assert.True(t, ok, "the object holding the owner's name is left alone")
}

func TestRecreatedOwnerIsAbsent(t *testing.T) {
	e := newEnv(t)
	old := e.createRC("web")
	e.createPod("web-0", "", ref(old))
	// The rc is deleted and recreated before the collector sees any of it.
	e.deleteRC("web", policy(api.DeletePropagationBackground))
	recreated := e.createRC("web")
	require.NotEqual(t, old.Metadata.UID, recreated.Metadata.UID)
	e.settle()

	_, ok := e.getPod("web-0")
	assert.False(t, ok, "an owner with the same name but another UID is not the owner")
	_, ok = e.getRC("web")
	assert.True(t, ok)
}

func TestSteadyStateWritesNothing(t *testing.T) {
	e := newEnv(t)
	// Pods created before their owner is seen make virtual nodes first.
	rc := e.createRC("web")
	for i := range 3 {
		e.createPod(fmt.Sprintf("web-%d", i), "", ref(rc))
	}
	other := e.createRC("other")
	e.createPod("both", "", ref(rc), plainRef(other))
	e.createPod("loose", "")
	e.settle()

	// Ordinary updates of owners and dependents change nothing either.
	p, _ := e.getPod("web-0")
	p = p.DeepCopy()
	p.Metadata.Labels = map[string]string{"touched": "yes"}
	_, err := e.srv.Update(e.ctx, p)
	require.NoError(t, err)
	e.settle()

	assert.Empty(t, e.client.Writes(), "no write at steady state")
	assert.Len(t, e.podsLeft(), 3)
}

func TestRunDeletesDependentsAndStops(t *testing.T) {
	e := newEnv(t)
	rc := e.createRC("web")
	e.createPod("web-0", "", ref(rc))
	e.settle()

	ctx, cancel := contextWithCancel(e)
	done := make(chan struct{})
	go func() {
		defer close(done)
		e.gc.Run(ctx, 2)
	}()
	e.deleteRC("web", policy(api.DeletePropagationBackground))
	// Informers are stepped here; Run's workers take the work.
	require.Eventually(t, func() bool {
		e.stepInformers()
		_, ok := e.getPod("web-0")
		return !ok
	}, 10*time.Second, time.Millisecond)
	cancel()
	<-done
	assert.True(t, e.gc.Queue().ShuttingDown(), "Run shut its queue down")
}
