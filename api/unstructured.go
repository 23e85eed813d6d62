package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
)

// Unstructured is a custom resource: an object of a kind a CustomResourceDefinition adds,
// which has no Go type. Its apiVersion and kind are in TypeMeta and its metadata is parsed
// into Metadata, so that the server's rules for metadata (uid, resourceVersion, generation,
// timestamps, finalizers, owner references, managed fields) and every label or field
// selector apply to it as to any kind; every other top-level field (spec, status, ...) is
// kept in Content as free JSON. Kubernetes: unstructured.Unstructured, which keeps the
// metadata in its map too.
//
// In JSON it is one object: apiVersion, kind, metadata and Content's fields, keys sorted
// (as kube-apiserver writes a custom resource). Numbers decode to int64 when they are
// integers and to float64 otherwise.
type Unstructured struct {
	TypeMeta `json:",inline"`
	// Metadata is the object's metadata.
	Metadata ObjectMeta `json:"metadata,omitempty"`
	// Content holds the top-level fields but apiVersion, kind and metadata.
	Content JSONObject `json:"-"`
}

// GetObjectMeta returns the object's metadata.
func (u *Unstructured) GetObjectMeta() *ObjectMeta { return &u.Metadata }

// JSONObject is a JSON object decoded into Go values: map[string]any, []any, string,
// int64, float64, bool and nil. Kubernetes: the map of unstructured.Unstructured.
type JSONObject map[string]any

// DeepCopy returns a copy of in that shares nothing with it. Written by hand: its values
// are free JSON, which internal/deepcopygen cannot name (runtime.DeepCopyJSONValue).
func (in JSONObject) DeepCopy() JSONObject {
	if in == nil {
		return nil
	}
	return DeepCopyJSONValue(map[string]any(in)).(map[string]any)
}

// DeepCopyInto copies in into out.
func (in JSONObject) DeepCopyInto(out *JSONObject) { *out = in.DeepCopy() }

// DeepCopyJSONValue returns a deep copy of a JSON value of JSONObject's Go types; it
// panics on any other type, a broken invariant.
func DeepCopyJSONValue(v any) any {
	switch v := v.(type) {
	case map[string]any:
		if v == nil {
			return v
		}
		c := make(map[string]any, len(v))
		for k, e := range v {
			c[k] = DeepCopyJSONValue(e)
		}
		return c
	case JSONObject:
		return v.DeepCopy()
	case []any:
		if v == nil {
			return v
		}
		c := make([]any, len(v))
		for i, e := range v {
			c[i] = DeepCopyJSONValue(e)
		}
		return c
	case string, int64, float64, bool, nil:
		return v
	}
	panic(fmt.Sprintf("api: %T is not a JSON value", v))
}

// MarshalJSON writes the object with its keys sorted.
func (u *Unstructured) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	first := true
	field := func(k string, v any) error {
		if !first {
			b.WriteByte(',')
		}
		first = false
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		vb, err := json.Marshal(v)
		if err != nil {
			return err
		}
		b.Write(vb)
		return nil
	}
	keys := slices.Sorted(maps.Keys(u.Content))
	done := false
	writeMeta := func() error {
		if done {
			return nil
		}
		done = true
		if u.APIVersion != "" {
			if err := field("apiVersion", u.APIVersion); err != nil {
				return err
			}
		}
		if u.Kind != "" {
			if err := field("kind", u.Kind); err != nil {
				return err
			}
		}
		return field("metadata", &u.Metadata)
	}
	for _, k := range keys {
		if k == "apiVersion" || k == "kind" || k == "metadata" {
			continue // never held; see UnmarshalJSON
		}
		if k > "metadata" {
			if err := writeMeta(); err != nil {
				return nil, err
			}
		}
		if err := field(k, u.Content[k]); err != nil {
			return nil, err
		}
	}
	if err := writeMeta(); err != nil {
		return nil, err
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads a JSON object: apiVersion and kind into TypeMeta, metadata into
// Metadata, and the rest into Content.
func (u *Unstructured) UnmarshalJSON(b []byte) error {
	v, err := DecodeJSONValue(b)
	if err != nil {
		return err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return errors.New("a custom resource must be a JSON object")
	}
	return u.SetContent(m, b)
}

// SetContent sets u from a decoded JSON object m, taking m's fields (m is u's after).
// raw, when not nil, is m's encoding, which spares encoding metadata again.
func (u *Unstructured) SetContent(m map[string]any, raw []byte) error {
	*u = Unstructured{}
	if v, ok := m["apiVersion"]; ok {
		s, ok := v.(string)
		if !ok && v != nil {
			return errors.New("apiVersion must be a string")
		}
		u.APIVersion = s
	}
	if v, ok := m["kind"]; ok {
		s, ok := v.(string)
		if !ok && v != nil {
			return errors.New("kind must be a string")
		}
		u.Kind = s
	}
	if md, ok := m["metadata"]; ok && md != nil {
		mb, err := json.Marshal(md)
		if err != nil {
			return err
		}
		if err := json.Unmarshal(mb, &u.Metadata); err != nil {
			return fmt.Errorf("metadata: %w", err)
		}
	}
	delete(m, "apiVersion")
	delete(m, "kind")
	delete(m, "metadata")
	u.Content = m
	return nil
}

// DecodeJSONValue decodes one JSON value into JSONObject's Go types: integers to int64,
// other numbers to float64.
func DecodeJSONValue(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("data after the JSON value")
	}
	return convertNumbers(v)
}

func convertNumbers(v any) (any, error) {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			c, err := convertNumbers(e)
			if err != nil {
				return nil, err
			}
			v[k] = c
		}
	case []any:
		for i, e := range v {
			c, err := convertNumbers(e)
			if err != nil {
				return nil, err
			}
			v[i] = c
		}
	case json.Number:
		if i, err := strconv.ParseInt(string(v), 10, 64); err == nil {
			return i, nil
		}
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil {
			return nil, fmt.Errorf("number %s: %w", v, err)
		}
		return f, nil
	}
	return v, nil
}

// NestedField returns the value at path in u's content (path[0] is a top-level field such as
// "spec"), and whether it is there.
func (u *Unstructured) NestedField(path ...string) (any, bool) {
	var cur any = map[string]any(u.Content)
	for _, p := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[p]; !ok {
			return nil, false
		}
	}
	return cur, true
}
