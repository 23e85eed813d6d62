package patch

import (
	"sort"
	"strconv"
)

// member returns the path of member name of the object at path, in the dotted form
// Kubernetes uses in field errors (".spec.replicas").
func member(path, name string) string { return path + "." + name }

// index returns the path of element i of the list at path.
func index(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }

// show renders a JSON value compactly for a message or a path.
func show(v any) string {
	b, err := encode(v)
	if err != nil {
		return describe(v)
	}
	return string(b)
}

// sortedKeys returns m's keys in order, so that the work done on a map (and which error
// is reported first) never depends on map iteration order.
func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
