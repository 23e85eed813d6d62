package sim

import (
	"context"
	"testing"
	"time"
)

func TestQuick(t *testing.T) {
	bad := 0
	start := time.Now()
	for seed := uint64(1); seed <= 20; seed++ {
		res, err := RunScenario(context.Background(), Config{Seed: seed, Faults: AllFaults, ReplicationWithoutExpectations: true}, Scenarios()[0], 10*time.Minute)
		if err != nil || res.Violation != nil {
			bad++
			if bad < 3 {
				t.Log(res, err)
				if res.Violation != nil {
					t.Log(res.Violation.Report())
				}
			}
		}
	}
	t.Log("bad", bad, time.Since(start))
}
