package api

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestIntOrStringJSON(t *testing.T) {
	tests := []struct {
		name     string
		json     string
		want     IntOrString
		wantText string
	}{
		{"number", `8080`, FromInt(8080), "8080"},
		{"name", `"http"`, FromString("http"), "http"},
		{"digits in a string stay a string", `"8080"`, FromString("8080"), "8080"},
		{"zero", `0`, IntOrString{}, "0"},
		{"negative", `-1`, FromInt(-1), "-1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got IntOrString
			require.NoError(t, json.Unmarshal([]byte(tt.json), &got))
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.wantText, got.String())

			encoded, err := json.Marshal(got)
			require.NoError(t, err)
			assert.Equal(t, tt.json, string(encoded))
		})
	}
}

func TestIntOrStringUnmarshalErrors(t *testing.T) {
	tests := []struct {
		name    string
		json    string
		wantErr string
	}{
		{"fraction", `1.5`, "api.IntOrString: want an int32 or a string, got 1.5: json: cannot unmarshal number 1.5"},
		{"out of int32 range", `4294967296`, "api.IntOrString: want an int32 or a string, got 4294967296: json: cannot unmarshal number 4294967296"},
		{"bool", `true`, "api.IntOrString: want an int32 or a string, got true: json: cannot unmarshal bool"},
		{"object", `{}`, "api.IntOrString: want an int32 or a string, got {}: json: cannot unmarshal object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got IntOrString
			err := json.Unmarshal([]byte(tt.json), &got)
			assert.ErrorContains(t, err, tt.wantErr)
		})
	}
}

func TestIntOrStringMarshalInvalidType(t *testing.T) {
	_, err := json.Marshal(IntOrString{Type: 7})
	assert.ErrorContains(t, err, "api.IntOrString: impossible type 7")
}

func TestIntOrStringInStruct(t *testing.T) {
	var port ServicePort
	require.NoError(t, json.Unmarshal([]byte(`{"port":80,"targetPort":"web"}`), &port))
	assert.Equal(t, FromString("web"), port.TargetPort)
	require.NoError(t, json.Unmarshal([]byte(`{"port":80,"targetPort":8080}`), &port))
	assert.Equal(t, FromInt(8080), port.TargetPort)
}
