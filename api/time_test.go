package api

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTimeMarshalJSON(t *testing.T) {
	plusTwo := time.FixedZone("UTC+2", 2*60*60)
	tests := []struct {
		name string
		in   Time
		want string
	}{
		{"zero is null", Time{}, `null`},
		{"UTC, seconds only", NewTime(time.Date(2024, 5, 14, 9, 21, 7, 0, time.UTC)), `"2024-05-14T09:21:07Z"`},
		{"other zone converted to UTC", Time{time.Date(2024, 5, 14, 11, 21, 7, 0, plusTwo)}, `"2024-05-14T09:21:07Z"`},
		{"sub-second part dropped", Time{time.Date(2024, 5, 14, 9, 21, 7, 999_999_999, time.UTC)}, `"2024-05-14T09:21:07Z"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := json.Marshal(tt.in)
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(got))
		})
	}
}

func TestTimeUnmarshalJSON(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    Time
		wantErr string
	}{
		{"null", `null`, Time{}, ""},
		{"empty string", `""`, Time{}, ""},
		{"UTC", `"2024-05-14T09:21:07Z"`, NewTime(time.Date(2024, 5, 14, 9, 21, 7, 0, time.UTC)), ""},
		{"offset converted to UTC", `"2024-05-14T11:21:07+02:00"`, NewTime(time.Date(2024, 5, 14, 9, 21, 7, 0, time.UTC)), ""},
		{"fraction truncated", `"2024-05-14T09:21:07.75Z"`, NewTime(time.Date(2024, 5, 14, 9, 21, 7, 0, time.UTC)), ""},
		{"not a string", `1715678467`, Time{}, "api.Time: expected an RFC 3339 string or null, got 1715678467"},
		{"not RFC 3339", `"14 May 2024"`, Time{}, `api.Time: parsing time "14 May 2024"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got Time
			err := json.Unmarshal([]byte(tt.in), &got)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestNewTimeEqualsItsRoundTrip(t *testing.T) {
	in := NewTime(time.Date(2024, 5, 14, 11, 21, 7, 123_456_789, time.FixedZone("X", 7200)))
	data, err := json.Marshal(in)
	require.NoError(t, err)
	var out Time
	require.NoError(t, json.Unmarshal(data, &out))
	assert.Equal(t, in, out)
	assert.Equal(t, time.UTC, in.Location())
}

func TestMicroTimeMarshalJSON(t *testing.T) {
	tests := []struct {
		name string
		in   MicroTime
		want string
	}{
		{"zero is null", MicroTime{}, `null`},
		{"six digits always", NewMicroTime(time.Date(2024, 5, 14, 9, 21, 7, 0, time.UTC)), `"2024-05-14T09:21:07.000000Z"`},
		{"microseconds kept", NewMicroTime(time.Date(2024, 5, 14, 9, 21, 7, 123_456_000, time.UTC)), `"2024-05-14T09:21:07.123456Z"`},
		{"nanoseconds dropped, UTC", MicroTime{time.Date(2024, 5, 14, 11, 21, 7, 123_456_789, time.FixedZone("X", 7200))}, `"2024-05-14T09:21:07.123456Z"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := json.Marshal(tt.in)
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(got))
		})
	}
}

func TestMicroTimeUnmarshalJSON(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    MicroTime
		wantErr string
	}{
		{"null", `null`, MicroTime{}, ""},
		{"empty string", `""`, MicroTime{}, ""},
		{"six digits", `"2024-05-14T09:21:07.123456Z"`, NewMicroTime(time.Date(2024, 5, 14, 9, 21, 7, 123_456_000, time.UTC)), ""},
		{"no fraction", `"2024-05-14T09:21:07Z"`, NewMicroTime(time.Date(2024, 5, 14, 9, 21, 7, 0, time.UTC)), ""},
		{"nine digits truncated", `"2024-05-14T09:21:07.123456789Z"`, NewMicroTime(time.Date(2024, 5, 14, 9, 21, 7, 123_456_000, time.UTC)), ""},
		{"garbage", `"yesterday"`, MicroTime{}, `api.MicroTime: parsing time "yesterday"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got MicroTime
			err := json.Unmarshal([]byte(tt.in), &got)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestTimePointerOmitted checks that a nil *Time field with omitempty is left out, while a
// Time value field is encoded as null: the difference between deletionTimestamp and
// creationTimestamp in Kubernetes' output.
func TestTimePointerOmitted(t *testing.T) {
	got, err := json.Marshal(ObjectMeta{Name: "x"})
	require.NoError(t, err)
	assert.JSONEq(t, `{"name":"x","creationTimestamp":null}`, string(got))
}
