package sim_test

import (
	"context"
	"testing"
	"time"

	"github.com/miniplane/miniplane/sim"
)

// benchScenario runs one seed per iteration of the default scenario with
// every fault on for d of virtual time, and reports virtual seconds
// simulated per wall second.
func benchScenario(b *testing.B, d time.Duration) {
	sc, err := sim.ScenarioByName("default")
	if err != nil {
		b.Fatal(err)
	}
	var virtual time.Duration
	var steps int
	seed := uint64(0)
	b.ReportAllocs()
	for b.Loop() {
		seed++
		res, err := sim.RunScenario(context.Background(), sim.Config{Seed: seed, Faults: sim.AllFaults}, sc, d)
		if err != nil {
			b.Fatal(err)
		}
		if res.Violation != nil {
			b.Fatalf("seed %d:\n%s", seed, res.Violation.Report())
		}
		virtual += res.Virtual
		steps += res.Steps
	}
	b.ReportMetric(virtual.Seconds()/b.Elapsed().Seconds(), "virtual-s/wall-s")
	b.ReportMetric(float64(steps)/float64(b.N), "steps/op")
}

// BenchmarkDefaultScenario is `miniplane sim`'s default run: ten virtual
// minutes, three instances, all faults.
func BenchmarkDefaultScenario(b *testing.B) { benchScenario(b, 10*time.Minute) }

// BenchmarkVirtualHour is the speed target: one virtual hour of the
// default scenario with all faults, in under 5 s of wall time.
func BenchmarkVirtualHour(b *testing.B) { benchScenario(b, time.Hour) }
