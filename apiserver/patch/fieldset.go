package patch

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// fieldSet is a set of field paths, stored as the trie that FieldsV1 encodes: each child
// is named by one path element in FieldsV1's spelling, and self marks a path that is a
// member itself rather than only a prefix of members. The path elements are
//
//	f:<name>           a member of an object            f:spec, f:replicas
//	k:<json object>    the element of a keyed list      k:{"name":"web"}
//	v:<json value>     the element of a set             v:"example.com/finalizer"
//	i:<index>          the element of a list by index   i:0
//
// A member is a leaf the manager set (a scalar, an atomic list, an empty object) or a
// keyed or set element it put into a list. Kubernetes: sigs.k8s.io/structured-merge-diff's
// fieldpath.Set and its FieldsV1 serialization.
type fieldSet struct {
	self     bool
	children map[string]*fieldSet
}

func newFieldSet() *fieldSet { return &fieldSet{} }

// child returns the node of member el under s, adding an empty one when missing.
func (s *fieldSet) child(el string) *fieldSet {
	if s.children == nil {
		s.children = map[string]*fieldSet{}
	}
	c, ok := s.children[el]
	if !ok {
		c = &fieldSet{}
		s.children[el] = c
	}
	return c
}

// dropIfEmpty removes s's child el when it has no member (nor any below it).
func (s *fieldSet) dropIfEmpty(el string) {
	if c, ok := s.children[el]; ok && c.empty() {
		delete(s.children, el)
	}
}

// insert adds path to the set.
func (s *fieldSet) insert(path []string) {
	n := s
	for _, el := range path {
		if n.children == nil {
			n.children = map[string]*fieldSet{}
		}
		c, ok := n.children[el]
		if !ok {
			c = &fieldSet{}
			n.children[el] = c
		}
		n = c
	}
	n.self = true
}

// has reports whether path is a member.
func (s *fieldSet) has(path []string) bool {
	n := s
	for _, el := range path {
		if n = n.children[el]; n == nil {
			return false
		}
	}
	return n.self
}

// remove takes path out of the set, dropping nodes left with no member under them.
func (s *fieldSet) remove(path []string) {
	if len(path) == 0 {
		s.self = false
		return
	}
	c := s.children[path[0]]
	if c == nil {
		return
	}
	c.remove(path[1:])
	if c.empty() {
		delete(s.children, path[0])
	}
}

// equal reports whether s and o have the same members.
func (s *fieldSet) equal(o *fieldSet) bool {
	if s.self != o.self || len(s.children) != len(o.children) {
		return false
	}
	for k, c := range s.children {
		oc, ok := o.children[k]
		if !ok || !c.equal(oc) {
			return false
		}
	}
	return true
}

func (s *fieldSet) empty() bool { return !s.self && len(s.children) == 0 }

// members returns every member path in a stable order: parents before children,
// siblings sorted.
func (s *fieldSet) members() [][]string {
	var out [][]string
	var walk func(n *fieldSet, prefix []string)
	walk = func(n *fieldSet, prefix []string) {
		if n.self {
			out = append(out, append([]string(nil), prefix...))
		}
		for _, k := range sortedChildren(n) {
			walk(n.children[k], append(prefix, k))
		}
	}
	walk(s, nil)
	return out
}

// leaf reports whether path is a member with no member below it.
func (s *fieldSet) leaf(path []string) bool {
	n := s
	for _, el := range path {
		if n = n.children[el]; n == nil {
			return false
		}
	}
	return n.self && len(n.children) == 0
}

func sortedChildren(n *fieldSet) []string {
	keys := make([]string, 0, len(n.children))
	for k := range n.children {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// fieldsV1 renders the set as a FieldsV1 object: a member with children gets a "." key.
func (s *fieldSet) fieldsV1() map[string]any {
	out := make(map[string]any, len(s.children)+1)
	if s.self && len(s.children) > 0 {
		out["."] = map[string]any{}
	}
	for k, c := range s.children {
		out[k] = c.fieldsV1()
	}
	return out
}

// parseFieldsV1 reads a FieldsV1 object back into a set.
func parseFieldsV1(v any) (*fieldSet, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("fieldsV1 must be an object, not %s", describe(v))
	}
	s := &fieldSet{}
	if len(m) == 0 {
		s.self = true
		return s, nil
	}
	for k, cv := range m {
		if k == "." {
			s.self = true
			continue
		}
		if _, err := parseElement(k); err != nil {
			return nil, err
		}
		c, err := parseFieldsV1(cv)
		if err != nil {
			return nil, err
		}
		if s.children == nil {
			s.children = map[string]*fieldSet{}
		}
		s.children[k] = c
	}
	return s, nil
}

// element is one parsed path element.
type element struct {
	kind  byte           // 'f', 'k', 'v' or 'i'
	name  string         // f: the member's name
	key   map[string]any // k: the key fields and their values
	value any            // v: the element's value
	index int            // i: the element's position
}

func parseElement(s string) (element, error) {
	if len(s) < 2 || s[1] != ':' {
		return element{}, fmt.Errorf("%q is not a field path element (f:, k:, v: or i:)", s)
	}
	e := element{kind: s[0]}
	rest := s[2:]
	switch e.kind {
	case 'f':
		e.name = rest
	case 'k':
		v, err := decode([]byte(rest))
		m, ok := v.(map[string]any)
		if err != nil || !ok || len(m) == 0 {
			return element{}, fmt.Errorf("%q: a key element needs a non-empty JSON object", s)
		}
		e.key = m
	case 'v':
		v, err := decode([]byte(rest))
		if err != nil {
			return element{}, fmt.Errorf("%q: a value element needs a JSON value", s)
		}
		e.value = v
	case 'i':
		i, err := strconv.Atoi(rest)
		if err != nil || i < 0 {
			return element{}, fmt.Errorf("%q: an index element needs a non-negative integer", s)
		}
		e.index = i
	default:
		return element{}, fmt.Errorf("%q is not a field path element (f:, k:, v: or i:)", s)
	}
	return e, nil
}

// Path elements in FieldsV1 spelling.
func fieldElement(name string) string { return "f:" + name }

func keyElement(key string, value any) string {
	return "k:" + show(map[string]any{key: canonicalNumber(value)})
}

func valueElement(v any) string { return "v:" + show(canonicalNumber(v)) }

// canonicalNumber spells a whole number as an integer ("80.0" and "8e1" become "80"), so
// that one list element always gets one path element, however the client spelled its key.
func canonicalNumber(v any) any {
	n, ok := v.(json.Number)
	if !ok {
		return v
	}
	if _, err := strconv.ParseInt(string(n), 10, 64); err == nil {
		return n
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return n
	}
	return json.Number(strconv.FormatInt(int64(f), 10))
}

// lookup returns the value path names in obj, and whether it is there. For a keyed or
// set element it returns the element itself.
func lookup(obj any, path []string) (any, bool) {
	cur := obj
	for _, s := range path {
		e, err := parseElement(s)
		if err != nil {
			return nil, false
		}
		switch e.kind {
		case 'f':
			m, ok := cur.(map[string]any)
			if !ok {
				return nil, false
			}
			if cur, ok = m[e.name]; !ok {
				return nil, false
			}
		case 'k', 'v', 'i':
			list, ok := cur.([]any)
			if !ok {
				return nil, false
			}
			at := findElement(list, e)
			if at < 0 {
				return nil, false
			}
			cur = list[at]
		}
	}
	return cur, true
}

// findElement returns the index in list of the element e names, or -1.
func findElement(list []any, e element) int {
	switch e.kind {
	case 'k':
		for i, item := range list {
			m, ok := item.(map[string]any)
			if !ok {
				continue
			}
			match := true
			for k, want := range e.key {
				if got, ok := m[k]; !ok || !equal(got, want) {
					match = false
					break
				}
			}
			if match {
				return i
			}
		}
	case 'v':
		for i, item := range list {
			if equal(item, e.value) {
				return i
			}
		}
	case 'i':
		if e.index < len(list) {
			return e.index
		}
	}
	return -1
}

// removePath deletes the value path names from obj (an object member, or a list
// element), then removes object members that the deletion left empty, up to but not
// including obj itself (an emptied list element stays: it is removed by its own path).
// It reports whether something was deleted.
func removePath(obj map[string]any, path []string) bool {
	if len(path) == 0 {
		return false
	}
	parent, ok := lookup(obj, path[:len(path)-1])
	if !ok {
		return false
	}
	e, err := parseElement(path[len(path)-1])
	if err != nil {
		return false
	}
	switch p := parent.(type) {
	case map[string]any:
		if e.kind != 'f' {
			return false
		}
		if _, ok := p[e.name]; !ok {
			return false
		}
		delete(p, e.name)
		if len(p) == 0 && len(path) > 1 && path[len(path)-2][0] == 'f' {
			removePath(obj, path[:len(path)-1])
		}
		return true
	case []any:
		at := findElement(p, e)
		if at < 0 {
			return false
		}
		rest := append(append(make([]any, 0, len(p)-1), p[:at]...), p[at+1:]...)
		setPath(obj, path[:len(path)-1], rest)
		return true
	}
	return false
}

// setPath replaces the value at path, which exists, with v.
func setPath(obj map[string]any, path []string, v any) {
	parent, _ := lookup(obj, path[:len(path)-1])
	e, _ := parseElement(path[len(path)-1])
	switch p := parent.(type) {
	case map[string]any:
		p[e.name] = v
	case []any:
		if at := findElement(p, e); at >= 0 {
			p[at] = v
		}
	}
}

// prune removes from s every member whose path does not exist in obj, so that no manager
// owns a field that is gone.
func (s *fieldSet) prune(obj any) {
	for _, k := range sortedChildren(s) {
		c := s.children[k]
		v, ok := lookup(obj, []string{k})
		if ok {
			c.prune(v)
		}
		if !ok || c.empty() {
			delete(s.children, k)
		}
	}
}

// formatPath renders a path the way Kubernetes names a field in a conflict:
// .spec.containers[name="web"].image, .metadata.finalizers[="x"], .spec.args[0].
func formatPath(path []string) string {
	var b strings.Builder
	for _, s := range path {
		e, err := parseElement(s)
		if err != nil {
			b.WriteString("." + s)
			continue
		}
		switch e.kind {
		case 'f':
			b.WriteString("." + e.name)
		case 'k':
			keys := make([]string, 0, len(e.key))
			for k := range e.key {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			b.WriteByte('[')
			for i, k := range keys {
				if i > 0 {
					b.WriteByte(',')
				}
				b.WriteString(k + "=" + show(e.key[k]))
			}
			b.WriteByte(']')
		case 'v':
			b.WriteString("[=" + show(e.value) + "]")
		case 'i':
			b.WriteString("[" + strconv.Itoa(e.index) + "]")
		}
	}
	return b.String()
}
