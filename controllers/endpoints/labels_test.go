package endpoints

import (
	"maps"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestSameLabelsIsMapsEqual: the same map, equal maps, different maps,
// nil and empty ones give maps.Equal's answer.
func TestSameLabelsIsMapsEqual(t *testing.T) {
	a := map[string]string{"app": "web"}
	tests := []struct {
		name string
		x, y map[string]string
	}{
		{"same map", a, a},
		{"equal maps", a, map[string]string{"app": "web"}},
		{"different maps", a, map[string]string{"app": "api"}},
		{"nil and empty", nil, map[string]string{}},
		{"nil and a label", nil, a},
		{"both nil", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, maps.Equal(tt.x, tt.y), sameLabels(tt.x, tt.y))
			assert.Equal(t, maps.Equal(tt.y, tt.x), sameLabels(tt.y, tt.x))
		})
	}
}
