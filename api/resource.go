package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// Well-known resource names, the keys of a [ResourceList]. Kubernetes: corev1.ResourceName.
const (
	// ResourceCPU is CPU in cores: "2", "500m".
	ResourceCPU = "cpu"
	// ResourceMemory is memory in bytes: "128Mi", "1G".
	ResourceMemory = "memory"
	// ResourcePods is the number of pods a node can run.
	ResourcePods = "pods"
	// ResourceStorage is a volume's size in bytes: "10Gi".
	ResourceStorage = "storage"
)

// ResourceList maps a resource name ("cpu", "memory", "pods", ...) to a quantity in
// Kubernetes' quantity syntax ("500m", "128Mi", "110"). miniplane keeps quantities as the
// text the client sent and does not do arithmetic on them. Kubernetes: corev1.ResourceList,
// whose values are resource.Quantity.
type ResourceList map[string]string

// UnmarshalJSON decodes an object whose values are strings or numbers: YAML such as
// "cpu: 1" reaches the apiserver as the JSON number 1, which Kubernetes accepts as a
// quantity. A number is kept as its literal text, so it encodes back as the string "1",
// which is what Kubernetes does too.
func (l *ResourceList) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		*l = nil
		return nil
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return fmt.Errorf("api.ResourceList: %w", err)
	}
	out := make(ResourceList, len(raw))
	for name, value := range raw {
		value = bytes.TrimSpace(value)
		if len(value) > 0 && value[0] == '"' {
			var s string
			if err := json.Unmarshal(value, &s); err != nil {
				return fmt.Errorf("api.ResourceList: %s: %w", name, err)
			}
			out[name] = s
			continue
		}
		var n json.Number
		if err := json.Unmarshal(value, &n); err != nil {
			return fmt.Errorf("api.ResourceList: %s: expected a quantity string or number, got %s", name, value)
		}
		out[name] = n.String()
	}
	*l = out
	return nil
}

// Quantity is one amount in Kubernetes' quantity syntax ("10Gi", "500m"), kept as the text
// the client sent, as [ResourceList]'s values are. On the protobuf wire it is a Quantity
// message (string=1). Kubernetes: resource.Quantity.
type Quantity string

// UnmarshalJSON accepts a string or a number, as [ResourceList] does.
func (q *Quantity) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] != '"' {
		var n json.Number
		if err := json.Unmarshal(data, &n); err != nil {
			return fmt.Errorf("api.Quantity: %w", err)
		}
		*q = Quantity(n.String())
		return nil
	}
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return fmt.Errorf("api.Quantity: %w", err)
	}
	*q = Quantity(s)
	return nil
}

// QuantityScale returns the multiplier a quantity suffix stands for, as
// base**exp: "m" is 10**-3, "Ki" is 2**10, "e6" is 10**6. Kubernetes:
// resource.Quantity's suffixer. The API server's validation and the
// scheduler's arithmetic both read suffixes through it.
func QuantityScale(suffix string) (base, exp int64, ok bool) {
	switch suffix {
	case "":
		return 10, 0, true
	case "n":
		return 10, -9, true
	case "u":
		return 10, -6, true
	case "m":
		return 10, -3, true
	case "k":
		return 10, 3, true
	case "M":
		return 10, 6, true
	case "G":
		return 10, 9, true
	case "T":
		return 10, 12, true
	case "P":
		return 10, 15, true
	case "E":
		return 10, 18, true
	case "Ki":
		return 2, 10, true
	case "Mi":
		return 2, 20, true
	case "Gi":
		return 2, 30, true
	case "Ti":
		return 2, 40, true
	case "Pi":
		return 2, 50, true
	case "Ei":
		return 2, 60, true
	}
	if len(suffix) > 1 && (suffix[0] == 'e' || suffix[0] == 'E') {
		if e, err := strconv.ParseInt(suffix[1:], 10, 32); err == nil {
			return 10, e, true
		}
	}
	return 0, 0, false
}
