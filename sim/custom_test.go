package sim_test

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/controllers/manager"
	"github.com/miniplane/miniplane/sim"
)

// TestCustomResourcesInTheSimulator: with a CustomResourceDefinition
// installed and an operator in miniature reconciling its Gadgets, a
// simulated run traces the Gadgets' writes under their own kind, and its
// replay (the trace view's data) shows them in the timeline with their
// diffs, at every step (time travel) with their generation, and with the
// ConfigMaps they own. The same seed gives the same trace.
func TestCustomResourcesInTheSimulator(t *testing.T) {
	run := func() []byte {
		ctx := context.Background()
		var trace bytes.Buffer
		s, err := sim.New(ctx, sim.Config{Seed: 3, Controllers: []manager.Descriptor{sim.GadgetOperator()}, Trace: &trace})
		require.NoError(t, err)
		_, err = s.Server().Create(ctx, sim.GadgetDefinition())
		require.NoError(t, err)
		s.At(time.Second, func(ctx context.Context) {
			_, err := s.Client().Create(ctx, &api.Unstructured{
				TypeMeta: api.TypeMeta{APIVersion: "gadgets.example.com/v1", Kind: "Gadget"},
				Metadata: api.ObjectMeta{Namespace: "default", Name: "big"},
				Content:  api.JSONObject{"spec": map[string]any{"size": int64(1)}},
			})
			assert.NoError(t, err)
		})
		s.At(20*time.Second, func(ctx context.Context) {
			obj, err := s.Client().Get(ctx, sim.Gadgets, "default", "big", client.GetOptions{})
			if !assert.NoError(t, err) {
				return
			}
			g := obj.(*api.Unstructured).DeepCopy()
			g.Content["spec"] = map[string]any{"size": int64(3)}
			_, err = s.Client().Update(ctx, g)
			assert.NoError(t, err)
		})
		require.NoError(t, s.RunFor(ctx, time.Minute))
		require.NoError(t, s.RunUntilQuiet(ctx, time.Minute))
		cm, err := s.Client().Get(ctx, client.ConfigMaps, "default", "big-config", client.GetOptions{})
		require.NoError(t, err)
		assert.Equal(t, "3", cm.(*api.ConfigMap).Data["size"], "the operator followed the spec")
		return trace.Bytes()
	}
	trace := run()
	assert.Equal(t, trace, run(), "one seed, one trace")

	lines, err := sim.ReadTrace(bytes.NewReader(trace))
	require.NoError(t, err)
	rp := sim.ReplayTrace(lines)
	var rows []string
	var generations []int64
	for _, r := range rp.Rows {
		if r.Object == nil || r.Object.Kind != "Gadget" {
			continue
		}
		rows = append(rows, fmt.Sprintf("%s %s %v", r.Actor, r.Verb, r.Diff))
		for _, c := range rp.States[r.State].Custom {
			if c.Name == "big" {
				generations = append(generations, c.Generation)
			}
		}
	}
	require.NotEmpty(t, rows, "the Gadget's writes are timeline rows of kind Gadget")
	assert.Contains(t, rows, "user create [custom: true generation: 1]")
	assert.Contains(t, rows, "user update [generation: 1 → 2]")
	assert.True(t, slices.IsSorted(generations), "going through the rows, the Gadget's generation only rises: %v", generations)
	assert.Equal(t, int64(1), generations[0], "the state at its first row is generation 1")

	last := rp.States[len(rp.States)-1]
	require.Len(t, last.Custom, 1)
	assert.Equal(t, sim.CustomView{Kind: "Gadget", Namespace: "default", Name: "big", Generation: 2, Owns: []string{"ConfigMap default/big-config"}}, last.Custom[0])
}

// TestGadgetScenarioHoldsUnderFaults: the "gadgets" scenario (the
// definition, the operator and its GadgetsConverged invariant) runs with
// every fault and converges, for a few seeds.
func TestGadgetScenarioHoldsUnderFaults(t *testing.T) {
	sc, err := sim.ScenarioByName("gadgets")
	require.NoError(t, err)
	for seed := uint64(1); seed <= 3; seed++ {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			res, err := sim.RunScenario(context.Background(), sim.Config{Seed: seed, Faults: sim.AllFaults}, sc, 2*time.Minute)
			require.NoError(t, err)
			assert.Nil(t, res.Violation)
		})
	}
}

// TestGarbageCollectorFollowsCustomResources: in the "gadgets" scenario
// the user deletes Gadget small at one minute, and the simulated garbage
// collector, whose monitor of Gadgets the simulator started once the
// definition was established, deletes the ConfigMap it owned (the
// scenario's invariant finds no ConfigMap owned by a gone Gadget).
func TestGarbageCollectorFollowsCustomResources(t *testing.T) {
	sc, err := sim.ScenarioByName("gadgets")
	require.NoError(t, err)
	for seed := uint64(1); seed <= 2; seed++ {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			var trace bytes.Buffer
			res, err := sim.RunScenario(context.Background(), sim.Config{Seed: seed, Trace: &trace}, sc, 2*time.Minute)
			require.NoError(t, err)
			assert.Nil(t, res.Violation)
			lines, err := sim.ReadTrace(bytes.NewReader(trace.Bytes()))
			require.NoError(t, err)
			var monitors, collected []string
			for _, l := range lines {
				switch {
				case l.Kind == "monitors":
					monitors = append(monitors, l.Detail)
				case l.Kind == "delete" && strings.HasSuffix(l.Actor, "/garbagecollector"):
					collected = append(collected, l.Key)
				}
			}
			assert.Contains(t, monitors, "+garbagecollector/gadgets.gadgets.example.com")
			assert.Equal(t, []string{"ConfigMap default/small-config"}, collected)
		})
	}
}
