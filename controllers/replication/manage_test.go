package replication

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestDiff(t *testing.T) {
	tests := []struct {
		name            string
		active          int
		replicas        int32
		burst           int
		wantCreate, del int
	}{
		{"steady", 3, 3, 500, 0, 0},
		{"scale up", 1, 4, 500, 3, 0},
		{"scale up capped by burst", 0, 12, 5, 5, 0},
		{"scale down", 5, 2, 500, 0, 3},
		{"scale down capped by burst", 12, 0, 5, 0, 5},
		{"to zero", 2, 0, 500, 0, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, d := Diff(tt.active, tt.replicas, tt.burst)
			assert.Equal(t, tt.wantCreate, c, "create")
			assert.Equal(t, tt.del, d, "delete")
		})
	}
}

func TestSlowStartBatches(t *testing.T) {
	tests := []struct {
		name           string
		count, initial int
		want           []int
	}{
		{"none", 0, 1, nil},
		{"one", 1, 1, []int{1}},
		{"ten", 10, 1, []int{1, 2, 4, 3}},
		{"powers", 15, 1, []int{1, 2, 4, 8}},
		{"initial larger than count", 3, 5, []int{3}},
		{"initial two", 10, 2, []int{2, 4, 4}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, SlowStartBatches(tt.count, tt.initial))
		})
	}
}

func TestSlowStart(t *testing.T) {
	errBoom := errors.New("boom")
	tests := []struct {
		name          string
		count         int
		okCalls       int // calls that succeed before every later one fails
		wantCalls     int
		wantSuccesses int
		wantErr       bool
	}{
		// Kubernetes' TestSlowStartBatch cases.
		{name: "all fail: one call", count: 10, okCalls: 0, wantCalls: 1, wantSuccesses: 0, wantErr: true},
		{name: "all succeed: 1+2+4+3 calls", count: 10, okCalls: 10, wantCalls: 10, wantSuccesses: 10},
		{name: "limit 5: batches 1,2,4 then stop", count: 10, okCalls: 5, wantCalls: 7, wantSuccesses: 5, wantErr: true},
		{name: "nothing to do", count: 0, okCalls: 0, wantCalls: 0, wantSuccesses: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls := 0
			n, err := SlowStart(tt.count, SlowStartInitialBatchSize, func() error {
				calls++
				if calls > tt.okCalls {
					return errBoom
				}
				return nil
			})
			assert.Equal(t, tt.wantCalls, calls, "calls")
			assert.Equal(t, tt.wantSuccesses, n, "successes")
			if tt.wantErr {
				assert.ErrorIs(t, err, errBoom)
			} else {
				assert.NoError(t, err)
			}
		})
	}
}
