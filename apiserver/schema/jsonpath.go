package schema

import "strings"

// Lookup returns the value at a simple JSON path (".spec.replicas") in obj, and whether it
// is there. Only field steps are understood, as in printer columns, scale paths and
// selectable fields; kube-apiserver's JSONPath does more.
func Lookup(obj map[string]any, path string) (any, bool) {
	steps := Steps(path)
	if steps == nil {
		return nil, false
	}
	var cur any = obj
	for _, s := range steps {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[s]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// Steps splits a simple JSON path (".spec.replicas", or "{.spec.replicas}") into its
// field names, or returns nil when it is not one.
func Steps(path string) []string {
	path = strings.TrimSuffix(strings.TrimPrefix(path, "{"), "}")
	if !strings.HasPrefix(path, ".") || len(path) < 2 {
		return nil
	}
	steps := strings.Split(path[1:], ".")
	for _, s := range steps {
		if s == "" || strings.ContainsAny(s, "[]*@$()?") {
			return nil
		}
	}
	return steps
}

// Set returns a copy of obj in which the value at steps is v, copying only the maps on the
// way (obj is shared and never changed), or false when a step is not an object.
func Set(obj map[string]any, steps []string, v any) (map[string]any, bool) {
	c := make(map[string]any, len(obj)+1)
	for k, e := range obj {
		c[k] = e
	}
	if len(steps) == 1 {
		c[steps[0]] = v
		return c, true
	}
	inner, ok := c[steps[0]].(map[string]any)
	if !ok {
		if c[steps[0]] != nil {
			return nil, false
		}
		inner = map[string]any{}
	}
	n, ok := Set(inner, steps[1:], v)
	if !ok {
		return nil, false
	}
	c[steps[0]] = n
	return c, true
}
