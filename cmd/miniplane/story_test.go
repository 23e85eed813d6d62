package main

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/client/record"
	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/controllers/manager"
	"github.com/miniplane/miniplane/controllers/replication"
	"github.com/miniplane/miniplane/plane"
)

// TestCompareRankingExplainsALaterRanking: the controller ranked the pods
// 1.3s after the story predicted, when two pods' ages had fallen in one
// log2 bucket; the story reads that from the controller's events and says
// why it chose another pod, instead of failing.
func TestCompareRankingExplainsALaterRanking(t *testing.T) {
	base := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	readyAt := func(name, uid string, at time.Time) *api.Pod {
		p := webPod(name, "node-"+name, running("10.0.0.1"))
		p.Status.Conditions[0].LastTransitionTime = api.NewTime(at)
		p.Metadata.CreationTimestamp = api.NewTime(at)
		p.Metadata.UID = api.UID(uid)
		return p
	}
	x := readyAt("x", "f", base.Add(time.Second))
	y := readyAt("y", "1", base)
	z := readyAt("z", "8", base)
	pods := []*api.Pod{x, y, z}
	predictedAt, rankedAt := base.Add(1900*time.Millisecond), base.Add(3200*time.Millisecond)
	require.Equal(t, []*api.Pod{x}, replication.PodsToDelete(pods, nil, 1, predictedAt), "x was ready more recently")
	require.Equal(t, []*api.Pod{y}, replication.PodsToDelete(pods, nil, 1, rankedAt), "by then x and y are in one bucket")

	opts := manager.DefaultOptions()
	p, err := plane.New(plane.Config{Options: &opts, Seed: 1})
	require.NoError(t, err)
	rec := record.NewEventRecorder(p.Server(), clock.Real{}, "replication-controller", "cm-1")
	rc := &api.ReplicationController{TypeMeta: api.TypeMeta{APIVersion: "v1", Kind: "ReplicationController"},
		Metadata: api.ObjectMeta{Namespace: demoNS, Name: demoName, UID: "rc-uid"}}
	require.NoError(t, rec.AnnotatedEventf(context.Background(), rc, map[string]string{
		replication.AnnotationRankedAt: rankedAt.Format(time.RFC3339Nano),
	}, api.EventTypeNormal, replication.ReasonSuccessfulDelete, "Deleted pod: %s", "y"))

	var out bytes.Buffer
	n := newNarrator(&out, false, base)
	n.next = p.Server().Store().Rev() + 1
	s := &story{p: p, n: n, c: p.Server(), wait: time.Second}
	require.NoError(t, s.compareRanking(context.Background(), pods, []string{"x"}, predictedAt))
	assert.Equal(t, "  The controller ranked them at 12:00:03.20 UTC, 1.3s after the prediction, and deleted y.\n"+
		"  Ranked at that time, y goes before x: ready at different times but in the same log2 bucket of time since: the lower uid goes first.\n",
		out.String())
	assert.Equal(t, []string{"y"}, s.stats.deletedFirst)
}
