package record

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/clock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEventNameIsClientGos checks eventName against client-go's own
// formatting of an event's name, fmt.Sprintf("%v.%x", name, nanos), for
// names that fit its stack buffer and names that do not.
func TestEventNameIsClientGos(t *testing.T) {
	tests := []struct {
		name   string
		object string
		nanos  int64
	}{
		{"a pod", "app-0001-x7k2q", time.Date(2026, 11, 28, 12, 0, 0, 1, time.UTC).UnixNano()},
		{"zero time", "web", 0},
		{"one past a shared nanosecond", "app-0001", 0x18b2f3a4c5d6e7f8 + 1},
		{"a name that just fits the buffer", strings.Repeat("n", 64-17), 0x18b2f3a4c5d6e7f8},
		{"a name one byte longer", strings.Repeat("n", 64-16), 0x18b2f3a4c5d6e7f8},
		{"a name longer than the buffer", strings.Repeat("n", 253), 0x7fffffffffffffff},
		{"an empty name", "", 42},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, fmt.Sprintf("%v.%x", tt.object, tt.nanos), eventName(tt.object, tt.nanos))
		})
	}
	assert.Equal(t, 1.0, testing.AllocsPerRun(100, func() { _ = eventName("app-0001-x7k2q", 0x18b2f3a4c5d6e7f8) }),
		"a pod's event name: one allocation")
}

// TestNewMemoriesAreFreshAndDistinct checks that the memories taken from
// slabs are each new, never handed out twice, and start as a memory made on
// its own would: a full spam bucket as of now, no groups, no events.
func TestNewMemoriesAreFreshAndDistinct(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	r := NewEventRecorder(nil, clock.NewFake(t0), "test", "host")
	seen := make(map[*objectMemory]bool)
	for i := range 2*memorySlab + 1 {
		now := t0.Add(time.Duration(i) * time.Second)
		om := r.newMemoryLocked(now)
		require.False(t, seen[om], "memory %d handed out twice", i)
		seen[om] = true
		assert.Equal(t, spamBucket{tokens: spamBurst, when: now}, om.bucket)
		assert.Empty(t, om.groups)
		assert.Empty(t, om.written)
		// Use it as the recorder would, so that a reuse would show.
		slot, _ := om.aggregate(api.EventTypeNormal, "Started", "Started containers", now)
		om.writtenFor(api.EventTypeNormal, "Started", slot).ev = &api.Event{}
		require.True(t, om.bucket.allow(now))
	}
}

// TestRecordBuildsTheEvent checks the event the recorder creates, field by
// field, against one built the plain way, and that a repeat bumps it.
func TestRecordBuildsTheEvent(t *testing.T) {
	t0 := time.Date(2026, 11, 28, 12, 0, 0, 500, time.UTC)
	c := &keepClient{keep: true}
	r := NewEventRecorder(c, clock.NewFake(t0), "kubelet", "nodesim")
	pod := &api.Pod{
		TypeMeta: api.TypeMeta{Kind: "Pod", APIVersion: "v1"},
		Metadata: api.ObjectMeta{Namespace: "prod", Name: "app-0001-x7k2q", UID: "u-1", ResourceVersion: "17"},
	}
	ctx := context.Background()
	require.NoError(t, r.AnnotatedEventf(ctx, pod, map[string]string{"k": "v"}, api.EventTypeNormal, "Started", "Started %s", "containers"))
	require.Len(t, c.created, 1)
	want := &api.Event{
		Metadata: api.ObjectMeta{
			Namespace: "prod", Name: fmt.Sprintf("%v.%x", pod.Metadata.Name, t0.UnixNano()),
			Annotations: map[string]string{"k": "v"},
		},
		InvolvedObject: api.ObjectReference{
			Kind: "Pod", APIVersion: "v1", Namespace: "prod", Name: "app-0001-x7k2q", UID: "u-1", ResourceVersion: "17",
		},
		Reason: "Started", Message: "Started containers", Type: api.EventTypeNormal,
		Source:         api.EventSource{Component: "kubelet", Host: "nodesim"},
		FirstTimestamp: api.NewTime(t0), LastTimestamp: api.NewTime(t0), Count: 1,
		ReportingController: "kubelet", ReportingInstance: "nodesim",
	}
	assert.Equal(t, want, c.created[0])

	require.NoError(t, r.Event(ctx, pod, api.EventTypeNormal, "Started", "Started containers"))
	assert.Len(t, c.created, 1, "a repeat bumps")
	assert.Equal(t, 1, c.updates)
}

// TestRecordCombinesThenDrops checks what a controller creating many pods
// writes: its first messages as themselves, from the tenth one combined
// event whose count goes up and whose message follows the latest, and
// nothing past the spam filter's burst.
func TestRecordCombinesThenDrops(t *testing.T) {
	t0 := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	c := &keepClient{keep: true}
	r := NewEventRecorder(c, clock.NewFake(t0), "replication-controller", "cm-0")
	rc := &api.ReplicationController{
		TypeMeta: api.TypeMeta{Kind: "ReplicationController", APIVersion: "v1"},
		Metadata: api.ObjectMeta{Namespace: "default", Name: "app", UID: "u-rc"},
	}
	ctx := context.Background()
	for i := range 100 {
		require.NoError(t, r.Eventf(ctx, rc, api.EventTypeNormal, "SuccessfulCreate", "Created pod: app-%d", i))
	}
	require.Len(t, c.created, aggregateMaxEvents)
	for i, ev := range c.created[:aggregateMaxEvents-1] {
		assert.Equal(t, fmt.Sprintf("Created pod: app-%d", i), ev.Message)
	}
	combined := c.created[aggregateMaxEvents-1]
	assert.Equal(t, combinedPrefix+fmt.Sprintf("Created pod: app-%d", aggregateMaxEvents-1), combined.Message)
	require.Len(t, c.updated, spamBurst-aggregateMaxEvents, "the rest of the burst bumps the combined event; then all is dropped")
	last := c.updated[len(c.updated)-1]
	assert.Equal(t, combined.Metadata.Name, last.Metadata.Name)
	assert.Equal(t, combinedPrefix+fmt.Sprintf("Created pod: app-%d", spamBurst-1), last.Message)
	assert.Equal(t, int32(1+spamBurst-aggregateMaxEvents), last.Count)
}
