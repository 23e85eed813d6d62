package ttlafterfinished

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/informer"
	"github.com/miniplane/miniplane/internal/testenv"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func finishedJob(complete, failed time.Time, ttl *int32) *api.Job {
	j := &api.Job{Metadata: api.ObjectMeta{Namespace: "default", Name: "foobar"}}
	j.Spec.TTLSecondsAfterFinished = ttl
	if !complete.IsZero() {
		j.Status.Conditions = append(j.Status.Conditions, api.JobCondition{Type: api.JobComplete, Status: api.ConditionTrue, LastTransitionTime: api.NewTime(complete)})
	}
	if !failed.IsZero() {
		j.Status.Conditions = append(j.Status.Conditions, api.JobCondition{Type: api.JobFailed, Status: api.ConditionTrue, LastTransitionTime: api.NewTime(failed)})
	}
	return j
}

func ptr[T any](v T) *T { return &v }

// TestExpiry is Kubernetes' TestTimeLeft: how long a finished job with a
// TTL has left, whether it completed or failed.
func TestExpiry(t *testing.T) {
	now := t0
	for _, tt := range []struct {
		name             string
		complete, failed time.Time
		ttl              *int32
		wantErr          string
		wantLeft         time.Duration
	}{
		{name: "unfinished", ttl: ptr[int32](100), wantErr: "should not be cleaned up"},
		{name: "completed now, no TTL", complete: now, wantErr: "should not be cleaned up"},
		{name: "completed now, 0s TTL", complete: now, ttl: ptr[int32](0), wantLeft: 0},
		{name: "completed now, 10s TTL", complete: now, ttl: ptr[int32](10), wantLeft: 10 * time.Second},
		{name: "completed 10s ago, 15s TTL", complete: now.Add(-10 * time.Second), ttl: ptr[int32](15), wantLeft: 5 * time.Second},
		{name: "failed now, no TTL", failed: now, wantErr: "should not be cleaned up"},
		{name: "failed now, 0s TTL", failed: now, ttl: ptr[int32](0), wantLeft: 0},
		{name: "failed now, 10s TTL", failed: now, ttl: ptr[int32](10), wantLeft: 10 * time.Second},
		{name: "failed 10s ago, 15s TTL", failed: now.Add(-10 * time.Second), ttl: ptr[int32](15), wantLeft: 5 * time.Second},
		{name: "finished 30s in the future (clock skew)", complete: now.Add(30 * time.Second), ttl: ptr[int32](10), wantLeft: 40 * time.Second},
	} {
		t.Run(tt.name, func(t *testing.T) {
			left, finishedAt, err := expiry(finishedJob(tt.complete, tt.failed, tt.ttl), now)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.wantLeft, left)
			want := tt.complete
			if want.IsZero() {
				want = tt.failed
			}
			assert.Equal(t, want, finishedAt)
		})
	}
}

// TestFinishTimeMustBeKnown: a finished job whose condition has no
// transition time cannot be timed (Kubernetes' jobFinishTime).
func TestFinishTimeMustBeKnown(t *testing.T) {
	j := finishedJob(t0, time.Time{}, ptr[int32](1))
	j.Status.Conditions[0].LastTransitionTime = api.Time{}
	_, _, err := expiry(j, t0)
	assert.EqualError(t, err, "unable to find the time when the Job default/foobar finished")
}

// harness is the controller over a real API server on a fake clock,
// stepped from the test's goroutine.
type harness struct {
	t   *testing.T
	ctx context.Context
	clk *clock.Fake
	srv *apiserver.Server
	f   *informer.Factory
	c   *Controller
}

func newHarness(t *testing.T) *harness {
	clk := clock.NewFake(t0)
	srv, err := apiserver.New(apiserver.Config{Clock: clk, Rand: rand.New(rand.NewPCG(1, 2))})
	require.NoError(t, err)
	log := zaptest.NewLogger(t)
	f := informer.NewFactory(srv, "", clk, log)
	c, err := New(Config{Client: srv, Factory: f, Clock: clk, Logger: log})
	require.NoError(t, err)
	h := &harness{t: t, ctx: t.Context(), clk: clk, srv: srv, f: f, c: c}
	h.settle()
	require.True(t, c.HasSynced())
	return h
}

// settle runs informer, handler and sync steps until none has work.
func (h *harness) settle() {
	testenv.SettleController(h.t, h.ctx, h.f, h.c)
}

func (h *harness) advance(d time.Duration) {
	h.clk.Step(d)
	h.settle()
}

// createFinished creates a job with ttl and marks it complete now.
func (h *harness) createFinished(name string, ttl *int32) *api.Job {
	h.t.Helper()
	labels := map[string]string{"job": name}
	j := &api.Job{
		Metadata: api.ObjectMeta{Namespace: "default", Name: name},
		Spec: api.JobSpec{
			TTLSecondsAfterFinished: ttl, ManualSelector: ptr(true),
			Selector: &api.LabelSelector{MatchLabels: labels},
			Template: api.PodTemplateSpec{Metadata: api.ObjectMeta{Labels: labels}, Spec: api.PodSpec{
				RestartPolicy: api.RestartPolicyNever, Containers: []api.Container{{Name: "c", Image: "busybox"}},
			}},
		},
	}
	obj, err := h.srv.Create(h.ctx, j)
	require.NoError(h.t, err)
	done := obj.(*api.Job).DeepCopy()
	now := api.NewTime(h.clk.Now())
	done.Status.StartTime, done.Status.CompletionTime, done.Status.Succeeded = &now, &now, 1
	done.Status.Conditions = []api.JobCondition{
		{Type: api.JobSuccessCriteriaMet, Status: api.ConditionTrue, LastTransitionTime: now},
		{Type: api.JobComplete, Status: api.ConditionTrue, LastTransitionTime: now},
	}
	obj, err = h.srv.UpdateStatus(h.ctx, done)
	require.NoError(h.t, err)
	return obj.(*api.Job)
}

func (h *harness) job(name string) *api.Job {
	obj, err := h.srv.Get(h.ctx, client.Jobs, "default", name, client.GetOptions{})
	require.NoError(h.t, err)
	return obj.(*api.Job)
}

// TestFinishedJobDeletedWhenItsTTLRunsOut: a job that completed is kept
// for its TTL, then deleted in the foreground (its pods first); one
// without a TTL is kept.
func TestFinishedJobDeletedWhenItsTTLRunsOut(t *testing.T) {
	h := newHarness(t)
	h.createFinished("short", ptr[int32](30))
	h.createFinished("forever", nil)
	h.settle()

	h.advance(29 * time.Second)
	assert.Nil(t, h.job("short").Metadata.DeletionTimestamp, "kept for its TTL")

	h.advance(time.Second)
	short := h.job("short")
	require.NotNil(t, short.Metadata.DeletionTimestamp, "deleted once the TTL ran out")
	assert.Contains(t, short.Metadata.Finalizers, api.FinalizerDeleteDependents, "foreground: the garbage collector deletes its pods first")
	assert.Nil(t, h.job("forever").Metadata.DeletionTimestamp, "no TTL: kept")
}

// TestLongerTTLDefersTheDeletion: a TTL made longer after the job
// finished counts: the fresh read before deleting sees it.
func TestLongerTTLDefersTheDeletion(t *testing.T) {
	h := newHarness(t)
	h.createFinished("web", ptr[int32](10))
	h.settle()
	longer := h.job("web").DeepCopy()
	longer.Spec.TTLSecondsAfterFinished = ptr[int32](60)
	_, err := h.srv.Update(h.ctx, longer)
	require.NoError(t, err)

	h.advance(10 * time.Second)
	assert.Nil(t, h.job("web").Metadata.DeletionTimestamp, "the TTL is now 60s")
	h.advance(50 * time.Second)
	assert.NotNil(t, h.job("web").Metadata.DeletionTimestamp)
}
