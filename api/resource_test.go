package api

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestResourceListUnmarshalJSON(t *testing.T) {
	tests := []struct {
		name     string
		json     string
		want     ResourceList
		wantJSON string
	}{
		{"strings", `{"cpu":"500m","memory":"128Mi"}`, ResourceList{"cpu": "500m", "memory": "128Mi"}, `{"cpu":"500m","memory":"128Mi"}`},
		{"numbers from YAML keep their text", `{"cpu":1,"memory":1.5e9}`, ResourceList{"cpu": "1", "memory": "1.5e9"}, `{"cpu":"1","memory":"1.5e9"}`},
		{"empty", `{}`, ResourceList{}, `{}`},
		{"null", `null`, nil, `null`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got ResourceList
			require.NoError(t, json.Unmarshal([]byte(tt.json), &got))
			assert.Equal(t, tt.want, got)
			encoded, err := json.Marshal(got)
			require.NoError(t, err)
			assert.JSONEq(t, tt.wantJSON, string(encoded))
		})
	}
}

func TestResourceListUnmarshalErrors(t *testing.T) {
	tests := []struct {
		name    string
		json    string
		wantErr string
	}{
		{"bool value", `{"cpu":true}`, "api.ResourceList: cpu: expected a quantity string or number, got true"},
		{"not an object", `["cpu"]`, "api.ResourceList: json: cannot unmarshal array"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got ResourceList
			err := json.Unmarshal([]byte(tt.json), &got)
			assert.ErrorContains(t, err, tt.wantErr)
		})
	}
}

func TestResourceRequirementsFromKubectlYAML(t *testing.T) {
	// What `kubectl apply` sends for "requests: {cpu: 1, memory: 64Mi}".
	var c Container
	require.NoError(t, json.Unmarshal([]byte(`{"name":"c","resources":{"requests":{"cpu":1,"memory":"64Mi"}}}`), &c))
	assert.Equal(t, ResourceList{ResourceCPU: "1", ResourceMemory: "64Mi"}, c.Resources.Requests)
}
