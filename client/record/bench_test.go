package record

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
)

// keepClient is the least a Client can be for the recorder: it keeps what
// it is handed and returns it, so that a benchmark measures the recorder
// alone.
type keepClient struct {
	client.Client
	creates, updates int
	// created and updated hold the events written, when keep is set.
	created, updated []*api.Event
	keep             bool
}

func (c *keepClient) Create(_ context.Context, obj api.Object, _ ...client.WriteOption) (api.Object, error) {
	c.creates++
	if c.keep {
		c.created = append(c.created, obj.(*api.Event))
	}
	return obj, nil
}

func (c *keepClient) Update(_ context.Context, obj api.Object, _ ...client.WriteOption) (api.Object, error) {
	c.updates++
	if c.keep {
		c.updated = append(c.updated, obj.(*api.Event))
	}
	return obj, nil
}

// BenchmarkRecord measures the recorder's own cost per event, with a client
// that only keeps what it is given: "pods" records a Scheduled and a Started
// event about each of many pods, the Started one startedLag pods behind (as
// nodesim's two events a pod come in the scale benchmark: more than
// maxRecordedEvents pods apart, so that each finds its object forgotten), "controller" a SuccessfulCreate per pod about one of 100 controllers
// (the replication controller's: aggregated, bumped, mostly dropped by the
// spam filter).
func BenchmarkRecord(b *testing.B) {
	ctx := context.Background()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	const startedLag = 5000
	pods := make([]*api.Pod, 20000)
	for i := range pods {
		name := "app-" + strconv.Itoa(1000+i%1000) + "-" + strconv.Itoa(10000+i)
		pods[i] = &api.Pod{
			TypeMeta: api.TypeMeta{Kind: "Pod", APIVersion: "v1"},
			Metadata: api.ObjectMeta{Namespace: "default", Name: name, UID: api.UID("00000000-0000-4000-8000-0000" + strconv.Itoa(10000000+i)), ResourceVersion: strconv.Itoa(100 + i)},
		}
	}
	b.Run("pods", func(b *testing.B) {
		clk := clock.NewFake(t0)
		c := &keepClient{}
		r := NewEventRecorder(c, clk, "kubelet", "nodesim")
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			if i%64 == 0 {
				clk.Step(time.Second / 8)
			}
			if i%2 == 0 {
				p := pods[i/2%len(pods)]
				_ = r.Event(ctx, p, api.EventTypeNormal, "Scheduled", "Successfully assigned default/"+p.Metadata.Name+" to node-1")
			} else {
				p := pods[(i/2+len(pods)-startedLag)%len(pods)]
				_ = r.Event(ctx, p, api.EventTypeNormal, "Started", "Started containers")
			}
		}
		b.ReportMetric(float64(c.creates+c.updates)/float64(b.N), "writes/event")
	})
	b.Run("controller", func(b *testing.B) {
		clk := clock.NewFake(t0)
		c := &keepClient{}
		r := NewEventRecorder(c, clk, "replication-controller", "cm-0")
		rcs := make([]*api.ReplicationController, 100)
		for i := range rcs {
			rcs[i] = &api.ReplicationController{
				TypeMeta: api.TypeMeta{Kind: "ReplicationController", APIVersion: "v1"},
				Metadata: api.ObjectMeta{Namespace: "default", Name: "app-" + strconv.Itoa(1000+i), UID: api.UID("10000000-0000-4000-8000-0000" + strconv.Itoa(10000000+i))},
			}
		}
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			if i%64 == 0 {
				clk.Step(time.Second / 8)
			}
			_ = r.Event(ctx, rcs[i%len(rcs)], api.EventTypeNormal, "SuccessfulCreate", "Created pod: "+pods[i%len(pods)].Metadata.Name)
		}
		b.ReportMetric(float64(c.creates+c.updates)/float64(b.N), "writes/event")
	})
}
