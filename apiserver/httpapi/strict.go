package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// strictErrors walks a JSON body against the Go type t it decodes into and
// returns kube-apiserver's strict decoding errors, in the body's order:
// `unknown field "spec.bogus"` for a key no field of its object takes, and
// `duplicate field "spec.replicas"` for a key given twice in one object
// (Kubernetes: sigs.k8s.io/json's UnmarshalStrict, which kube-apiserver's
// JSON serializer runs). Paths name fields by their JSON names and list
// items by index (`spec.containers[0].bogus`); the value of an unknown field
// is not looked into. A value of a type that decodes itself (a quantity, a
// time, an int-or-string), of an interface type, or that does not match its
// field's type is passed over: the decode proper reports the last. It
// returns nil for a body that is not well-formed JSON.
func strictErrors(body []byte, t reflect.Type) []string {
	w := strictWalker{dec: json.NewDecoder(bytes.NewReader(body))}
	w.dec.UseNumber()
	if err := w.value(t, ""); err != nil {
		return nil
	}
	return w.errs
}

type strictWalker struct {
	dec  *json.Decoder
	errs []string
}

// value reads one value of type t at path.
func (w *strictWalker) value(t reflect.Type, path string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() == reflect.Interface || reflect.PointerTo(t).Implements(unmarshalerType) {
		return w.skip()
	}
	tok, err := w.dec.Token()
	if err != nil {
		return err
	}
	switch tok {
	case json.Delim('{'):
		switch t.Kind() {
		case reflect.Struct:
			return w.object(path, func(key string) (reflect.Type, bool) {
				ft, ok := jsonFields(t)[key]
				return ft, ok
			})
		case reflect.Map:
			return w.object(path, func(string) (reflect.Type, bool) { return t.Elem(), true })
		}
		return w.rest(1)
	case json.Delim('['):
		if t.Kind() != reflect.Slice && t.Kind() != reflect.Array {
			return w.rest(1)
		}
		for i := 0; w.dec.More(); i++ {
			if err := w.value(t.Elem(), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		_, err := w.dec.Token() // ]
		return err
	}
	return nil
}

// object reads the members of an object whose '{' was read, field giving
// the type of each key's value.
func (w *strictWalker) object(path string, field func(string) (reflect.Type, bool)) error {
	seen := map[string]bool{}
	for w.dec.More() {
		tok, err := w.dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		at := key
		if path != "" {
			at = path + "." + key
		}
		if seen[key] {
			w.errs = append(w.errs, fmt.Sprintf("duplicate field %q", at))
		}
		seen[key] = true
		ft, ok := field(key)
		if !ok {
			w.errs = append(w.errs, fmt.Sprintf("unknown field %q", at))
			err = w.skip()
		} else {
			err = w.value(ft, at)
		}
		if err != nil {
			return err
		}
	}
	_, err := w.dec.Token() // }
	return err
}

// skip reads one value without looking into it.
func (w *strictWalker) skip() error {
	tok, err := w.dec.Token()
	if err != nil {
		return err
	}
	if tok == json.Delim('{') || tok == json.Delim('[') {
		return w.rest(1)
	}
	return nil
}

// rest reads the tokens of depth open containers up to their closing
// delimiters.
func (w *strictWalker) rest(depth int) error {
	for depth > 0 {
		tok, err := w.dec.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
	}
	return nil
}

// jsonFields maps the JSON names encoding/json decodes a struct's fields by
// to their types: a field's tag name or, untagged, its Go name; a field
// tagged "-" or unexported is none; the fields of an embedded struct with no
// name in its tag (TypeMeta's `json:",inline"`) are the struct's own.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	m := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if name == "" && f.Anonymous && ft.Kind() == reflect.Struct {
			for k, v := range jsonFields(ft) {
				if _, ok := m[k]; !ok {
					m[k] = v
				}
			}
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		m[name] = f.Type
	}
	return m
}
