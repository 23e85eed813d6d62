package job

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/controllers/replication"
)

// TestRecordingsHoldStaleJob replays the sync that made a second pod for a
// one-completion job (sim TestCronJobWithJobController, 00:15:01): the first
// pod succeeded, a sync wrote its uid into uncountedTerminatedPods and
// removed its finalizer, and the next sync read the pod without the
// finalizer but the job from before that write. Decide, trusting that job,
// creates a pod; the recordings must hold such a sync back.
func TestRecordingsHoldStaleJob(t *testing.T) {
	done := pods(api.PodSucceeded, 1, false) // finalizer already removed
	uid := done[0].Metadata.UID
	stale := newJob(1, 1, 6)
	stale.Status.Active = 1
	recordedJob := newJob(1, 1, 6)
	recordedJob.Status.UncountedTerminatedPods.Succeeded = []api.UID{uid}
	counted := newJob(1, 1, 6)
	counted.Status.Succeeded = 1

	// The decision that went wrong: on the stale job, Decide makes a pod.
	assert.Equal(t, 1, Decide(stale, done, now).Create, "Decide on the stale job")
	assert.Zero(t, Decide(recordedJob, done, now).Create, "Decide on the written job")

	for _, tc := range []struct {
		name    string
		expect  []api.UID
		job     *api.Job
		after   time.Duration
		want    bool
		wantMem bool // the record is still held after Seen
	}{
		{name: "nothing written", job: stale, want: true},
		{name: "job before the write waits", expect: []api.UID{uid}, job: stale, want: false, wantMem: true},
		{name: "job showing the write acts", expect: []api.UID{uid}, job: recordedJob, want: true},
		{name: "stale past the timeout acts", expect: []api.UID{uid}, job: stale, after: replication.ExpectationsTimeout + time.Second, want: true},
		{name: "one of two uids shown waits", expect: []api.UID{uid, "other"}, job: recordedJob, want: false, wantMem: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clk := clock.NewFake(now)
			r := newRecordings(clk)
			r.Expect("default/foobar", tc.expect)
			clk.Step(tc.after)
			assert.Equal(t, tc.want, r.Seen("default/foobar", &tc.job.Status))
			_, held := r.byKey["default/foobar"]
			assert.Equal(t, tc.wantMem, held)
		})
	}

	// Once seen, a later status that has counted the pod does not block.
	r := newRecordings(clock.NewFake(now))
	r.Expect("default/foobar", []api.UID{uid})
	assert.True(t, r.Seen("default/foobar", &recordedJob.Status))
	assert.True(t, r.Seen("default/foobar", &counted.Status))
}
