package api

import (
	"encoding/json"
	"fmt"
	"time"
)

// RFC3339Micro is the layout of a [MicroTime] on the wire: RFC 3339 in UTC with exactly six
// fractional digits.
const RFC3339Micro = "2006-01-02T15:04:05.000000Z07:00"

// Time is a timestamp with one-second precision, the precision of most timestamps in the API
// (creationTimestamp, conditions' transition times, ...). It encodes as an RFC 3339 string in
// UTC, e.g. "2024-05-14T09:21:07Z", and the zero Time encodes as null. Kubernetes:
// metav1.Time.
//
// Build Times with [NewTime] so that the value in memory equals the value after a JSON round
// trip; a Time built directly from a time.Time with a sub-second part loses that part when
// encoded.
type Time struct {
	time.Time
}

// NewTime returns t in UTC, truncated to the second: exactly what its JSON form holds.
func NewTime(t time.Time) Time {
	return Time{t.UTC().Truncate(time.Second)}
}

// MarshalJSON encodes t as an RFC 3339 string in UTC, or null when t is zero.
func (t Time) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte("null"), nil
	}
	return json.Marshal(t.UTC().Format(time.RFC3339))
}

// UnmarshalJSON decodes an RFC 3339 string (null or "" decode to the zero Time). The result
// is in UTC, truncated to the second.
func (t *Time) UnmarshalJSON(data []byte) error {
	parsed, err := unmarshalTime(data, "Time")
	if err != nil {
		return err
	}
	*t = NewTime(parsed)
	return nil
}

// MicroTime is a timestamp with microsecond precision, used where ordering within a second
// matters: a Lease's acquireTime and renewTime, an Event's eventTime. It encodes as RFC 3339
// in UTC with six fractional digits, e.g. "2024-05-14T09:21:07.123456Z", and the zero
// MicroTime encodes as null. Kubernetes: metav1.MicroTime.
type MicroTime struct {
	time.Time
}

// NewMicroTime returns t in UTC, truncated to the microsecond: exactly what its JSON form
// holds.
func NewMicroTime(t time.Time) MicroTime {
	return MicroTime{t.UTC().Truncate(time.Microsecond)}
}

// MarshalJSON encodes t in [RFC3339Micro] layout in UTC, or null when t is zero.
func (t MicroTime) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte("null"), nil
	}
	return json.Marshal(t.UTC().Format(RFC3339Micro))
}

// UnmarshalJSON decodes an RFC 3339 string with any number of fractional digits (null or ""
// decode to the zero MicroTime). The result is in UTC, truncated to the microsecond.
// Kubernetes accepts exactly six digits; accepting more or fewer costs nothing and loses
// nothing the type can hold.
func (t *MicroTime) UnmarshalJSON(data []byte) error {
	parsed, err := unmarshalTime(data, "MicroTime")
	if err != nil {
		return err
	}
	*t = NewMicroTime(parsed)
	return nil
}

// unmarshalTime decodes a JSON null or string holding an RFC 3339 timestamp; null and ""
// give the zero time.Time.
func unmarshalTime(data []byte, typeName string) (time.Time, error) {
	if string(data) == "null" {
		return time.Time{}, nil
	}
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return time.Time{}, fmt.Errorf("api.%s: expected an RFC 3339 string or null, got %s", typeName, data)
	}
	if s == "" {
		return time.Time{}, nil
	}
	// time.RFC3339 accepts an optional fractional second of any length when parsing.
	parsed, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("api.%s: %w", typeName, err)
	}
	return parsed, nil
}
