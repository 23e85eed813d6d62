package api

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestIsPodReady(t *testing.T) {
	cond := func(typ PodConditionType, status ConditionStatus) PodCondition {
		return PodCondition{Type: typ, Status: status}
	}
	tests := []struct {
		name       string
		conditions []PodCondition
		want       bool
	}{
		{"no conditions", nil, false},
		{"ready true", []PodCondition{cond(PodScheduled, ConditionTrue), cond(PodReady, ConditionTrue)}, true},
		{"ready false", []PodCondition{cond(PodReady, ConditionFalse)}, false},
		{"ready unknown", []PodCondition{cond(PodReady, ConditionUnknown)}, false},
		{"only containers ready", []PodCondition{cond(ContainersReady, ConditionTrue)}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod := &Pod{Status: PodStatus{Conditions: tt.conditions}}
			assert.Equal(t, tt.want, IsPodReady(pod))
		})
	}
}

func TestIsPodActive(t *testing.T) {
	deleted := NewTime(time.Date(2024, 5, 14, 9, 0, 0, 0, time.UTC))
	tests := []struct {
		name    string
		phase   PodPhase
		deleted *Time
		want    bool
	}{
		{"pending", PodPending, nil, true},
		{"running", PodRunning, nil, true},
		{"unknown", PodUnknown, nil, true},
		{"no phase yet", "", nil, true},
		{"succeeded", PodSucceeded, nil, false},
		{"failed", PodFailed, nil, false},
		{"running but being deleted", PodRunning, &deleted, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod := &Pod{Metadata: ObjectMeta{DeletionTimestamp: tt.deleted}, Status: PodStatus{Phase: tt.phase}}
			assert.Equal(t, tt.want, IsPodActive(pod))
		})
	}
}
