package api

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// IntOrStringType says which half of an [IntOrString] holds the value.
type IntOrStringType int

// The two kinds of value an IntOrString holds. The names mirror intstr.Int and intstr.String.
const (
	// Int means IntVal holds the value.
	Int IntOrStringType = iota
	// String means StrVal holds the value.
	String
)

// IntOrString holds either an int32 or a string, and encodes as a JSON number or a JSON
// string accordingly. A Service's targetPort and a probe's port use it: a number is a port
// number, a string names a container port. The zero value is the number 0.
// Kubernetes: k8s.io/apimachinery/pkg/util/intstr.IntOrString.
type IntOrString struct {
	// Type says whether IntVal or StrVal is the value; the other is ignored.
	Type IntOrStringType `protobuf:"varint,1,opt,name=type"`
	// IntVal is the value when Type is Int.
	IntVal int32 `protobuf:"varint,2,opt,name=intVal"`
	// StrVal is the value when Type is String.
	StrVal string `protobuf:"bytes,3,opt,name=strVal"`
}

// FromInt returns an IntOrString holding the number i. Like Kubernetes' intstr.FromInt it
// converts i to int32 without a range check; port numbers always fit.
func FromInt(i int) IntOrString {
	return IntOrString{Type: Int, IntVal: int32(i)}
}

// FromString returns an IntOrString holding the string s.
func FromString(s string) IntOrString {
	return IntOrString{Type: String, StrVal: s}
}

// String returns the value as text: the decimal number, or the string itself.
func (v IntOrString) String() string {
	if v.Type == String {
		return v.StrVal
	}
	return strconv.Itoa(int(v.IntVal))
}

// MarshalJSON encodes v as a JSON number or a JSON string.
func (v IntOrString) MarshalJSON() ([]byte, error) {
	switch v.Type {
	case Int:
		return json.Marshal(v.IntVal)
	case String:
		return json.Marshal(v.StrVal)
	default:
		return nil, fmt.Errorf("api.IntOrString: impossible type %d", v.Type)
	}
}

// UnmarshalJSON decodes a JSON string into a String value and anything else into an Int
// value (null decodes to the number 0, as in Kubernetes).
func (v *IntOrString) UnmarshalJSON(data []byte) error {
	if len(data) > 0 && data[0] == '"' {
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return fmt.Errorf("api.IntOrString: %w", err)
		}
		*v = FromString(s)
		return nil
	}
	var i int32
	if err := json.Unmarshal(data, &i); err != nil {
		return fmt.Errorf("api.IntOrString: want an int32 or a string, got %s: %w", data, err)
	}
	*v = IntOrString{Type: Int, IntVal: i}
	return nil
}
