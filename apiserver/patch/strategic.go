package patch

import (
	"strings"
)

// The directives a strategic merge patch may carry, as kubectl sends them.
const (
	// directiveKey holds "replace" (this object or list replaces the original instead of
	// merging into it) or "delete" (remove this object, or the list element with this
	// merge key).
	directiveKey = "$patch"
	// retainKeysKey lists the only fields an object may keep after the patch (used for
	// union types such as a volume's source).
	retainKeysKey = "$retainKeys"
	// setElementOrderPrefix + field lists the merge keys (or primitives) of a list in
	// the order the list should end up in.
	setElementOrderPrefix = "$setElementOrder/"
	// deleteFromPrimitiveListPrefix + field lists primitives to remove from a list
	// merged as a set.
	deleteFromPrimitiveListPrefix = "$deleteFromPrimitiveList/"
)

// kindSchemas is the patch metadata of every kind, built once and only read.
var kindSchemas = schemas()

// strategicMerge applies a strategic merge patch to original, with s describing
// original's kind. original may be modified; the result holds no directive.
func strategicMerge(original, patch map[string]any, s *schema) (map[string]any, *Error) {
	return mergeMap(original, patch, s, "")
}

// mergeMap merges patch into original: fields merge recursively, null deletes, lists
// with a merge strategy merge by key, everything else replaces; the directives in patch
// are carried out and dropped.
func mergeMap(original, patch map[string]any, s *schema, path string) (map[string]any, *Error) {
	if d, ok := patch[directiveKey]; ok {
		switch d {
		case "replace":
			rest := make(map[string]any, len(patch))
			for k, v := range patch {
				if k != directiveKey {
					rest[k] = v
				}
			}
			return mergeMap(map[string]any{}, rest, s, path)
		case "delete":
			return map[string]any{}, nil
		default:
			return nil, badRequest(member(path, directiveKey), `unknown directive %s: want "replace" or "delete"`, show(d))
		}
	}
	if original == nil {
		original = map[string]any{}
	}
	if rk, ok := patch[retainKeysKey]; ok {
		if err := retainKeys(original, patch, rk, path); err != nil {
			return nil, err
		}
	}
	// The live order of every list a $setElementOrder names, taken before the patch
	// changes the list: strategicpatch interleaves the server's own elements by it.
	orders := map[string]any{} // each a []any
	for k := range patch {
		if name, ok := strings.CutPrefix(k, setElementOrderPrefix); ok {
			live, _ := original[name].([]any)
			orders[k] = append([]any(nil), live...)
		}
	}
	for _, k := range sortedKeys(patch) {
		v := patch[k]
		switch {
		case k == retainKeysKey:
		case strings.HasPrefix(k, deleteFromPrimitiveListPrefix):
			name := k[len(deleteFromPrimitiveListPrefix):]
			if err := deleteFromPrimitiveList(original, name, v, s.lookup(name), member(path, k)); err != nil {
				return nil, err
			}
		case strings.HasPrefix(k, setElementOrderPrefix):
		case strings.HasPrefix(k, "$"):
			return nil, badRequest(member(path, k), "unknown directive %q", k)
		case v == nil:
			delete(original, k)
		default:
			merged, err := mergeValue(original[k], v, s, k, member(path, k))
			if err != nil {
				return nil, err
			}
			original[k] = merged
		}
	}
	for _, k := range sortedKeys(orders) {
		name := k[len(setElementOrderPrefix):]
		if err := setElementOrder(original, name, patch[k], patch[name], orders[k].([]any), s.lookup(name), member(path, k)); err != nil {
			return nil, err
		}
	}
	return original, nil
}

// mergeValue merges the patch value of field name into the original value.
func mergeValue(original, patch any, s *schema, name, path string) (any, *Error) {
	switch p := patch.(type) {
	case map[string]any:
		o, _ := original.(map[string]any)
		return mergeMap(o, p, s.child(name), path)
	case []any:
		f := s.lookup(name)
		if f == nil || !f.merge {
			return p, nil
		}
		o, _ := original.([]any)
		return mergeList(o, p, f, path)
	default:
		return patch, nil
	}
}

// mergeList merges a patch list into the original list of a field with the merge
// strategy.
func mergeList(original, patch []any, f *fieldMeta, path string) ([]any, *Error) {
	replace := false
	for i, item := range patch {
		m, ok := item.(map[string]any)
		if !ok {
			continue
		}
		d, ok := m[directiveKey]
		if !ok {
			continue
		}
		switch {
		case d == "replace":
			replace = true
		case d == "delete" && f.mergeKey == "":
			return nil, badRequest(index(path, i), `"$patch": "delete" needs a merge key; remove primitives with %s`, deleteFromPrimitiveListPrefix)
		case d != "delete":
			return nil, badRequest(index(path, i), `unknown directive %s: want "replace" or "delete"`, show(d))
		}
	}
	if replace {
		original = nil
	}
	keyOf := keyBy(f.mergeKey)
	if f.mergeKey == "" {
		var added []any
		for _, v := range patch {
			if m, ok := v.(map[string]any); !ok || m[directiveKey] == nil {
				added = append(added, v)
			}
		}
		return normalizeOrder(mergeSet(original, added), added, original, keyOf), nil
	}
	// Like strategicpatch's mergeSlice: first the deletions, then the merges, then the
	// order (see order.go), with the list left by the deletions as the live order.
	result := make([]any, 0, len(original)+len(patch))
	result = append(result, original...)
	var merges []any
	for i, item := range patch {
		m, ok := item.(map[string]any)
		if !ok {
			return nil, badRequest(index(path, i), "the list is merged by %q, so its elements must be objects, not %s", f.mergeKey, describe(item))
		}
		if m[directiveKey] == "replace" {
			continue
		}
		key, ok := m[f.mergeKey]
		if !ok {
			return nil, badRequest(index(path, i), "the element has no merge key %q", f.mergeKey)
		}
		if m[directiveKey] != "delete" {
			merges = append(merges, m)
			continue
		}
		for at := findByKey(result, f.mergeKey, key); at >= 0; at = findByKey(result, f.mergeKey, key) {
			result = append(result[:at], result[at+1:]...)
		}
	}
	live := append([]any(nil), result...)
	for _, item := range merges {
		m := item.(map[string]any)
		key := m[f.mergeKey]
		elemPath := path + "[" + f.mergeKey + "=" + show(key) + "]"
		at := findByKey(result, f.mergeKey, key)
		if at < 0 {
			merged, err := mergeMap(map[string]any{}, m, f.elem, elemPath)
			if err != nil {
				return nil, err
			}
			result = append(result, merged)
			continue
		}
		orig, _ := result[at].(map[string]any)
		merged, err := mergeMap(orig, m, f.elem, elemPath)
		if err != nil {
			return nil, err
		}
		result[at] = merged
	}
	return normalizeOrder(result, merges, live, keyOf), nil
}

// mergeSet merges a list of primitives as a set: the original's elements in their order,
// then the patch's new ones; duplicates are dropped.
func mergeSet(original, patch []any) []any {
	result := make([]any, 0, len(original)+len(patch))
	add := func(v any) {
		for _, have := range result {
			if equal(have, v) {
				return
			}
		}
		result = append(result, v)
	}
	for _, v := range original {
		add(v)
	}
	for _, v := range patch {
		if m, ok := v.(map[string]any); ok && m[directiveKey] != nil {
			continue
		}
		add(v)
	}
	return result
}

// findByKey returns the index of the first object in list whose key field equals value,
// or -1.
func findByKey(list []any, key string, value any) int {
	for i, item := range list {
		if m, ok := item.(map[string]any); ok {
			if v, ok := m[key]; ok && equal(v, value) {
				return i
			}
		}
	}
	return -1
}

// retainKeys carries out a $retainKeys directive: every field the patch sets must be in
// the list, and original loses the fields that are not.
func retainKeys(original, patch map[string]any, rk any, path string) *Error {
	list, ok := rk.([]any)
	if !ok {
		return badRequest(member(path, retainKeysKey), "must be a list of field names, not %s", describe(rk))
	}
	keep := make(map[string]bool, len(list))
	for _, item := range list {
		name, ok := item.(string)
		if !ok {
			return badRequest(member(path, retainKeysKey), "must be a list of field names, but holds %s", describe(item))
		}
		keep[name] = true
	}
	for _, k := range sortedKeys(patch) {
		if !strings.HasPrefix(k, "$") && patch[k] != nil && !keep[k] {
			return invalid(member(path, k), "the patch sets a field that its %s list does not name", retainKeysKey)
		}
	}
	for k := range original {
		if !keep[k] {
			delete(original, k)
		}
	}
	return nil
}

// deleteFromPrimitiveList removes the listed primitives from original[name].
func deleteFromPrimitiveList(original map[string]any, name string, v any, f *fieldMeta, path string) *Error {
	remove, ok := v.([]any)
	if !ok {
		return badRequest(path, "must be a list of the values to remove, not %s", describe(v))
	}
	if f != nil && f.mergeKey != "" {
		return badRequest(path, "%q is a list of objects merged by %q, not a list of primitives", name, f.mergeKey)
	}
	list, ok := original[name].([]any)
	if !ok {
		return nil
	}
	kept := make([]any, 0, len(list))
	for _, item := range list {
		gone := false
		for _, r := range remove {
			if equal(item, r) {
				gone = true
				break
			}
		}
		if !gone {
			kept = append(kept, item)
		}
	}
	original[name] = kept
	return nil
}

// setElementOrder reorders original[name], already merged, to follow order, a list of
// merge-key objects (or of primitives), as strategicpatch's mergePatchIntoOriginal does:
// the elements the order names come in its order, the others (the server's own, which the
// client did not know about) in the live order, and the two are interleaved by live, the
// list as it was before the patch (see order.go). patchList, the patch's own value of the
// field, must name its elements in the order's order.
//
// A list of primitives without a merge strategy (a container's args) is reordered too, as
// strategicpatch does; a list of objects without one is left as the patch made it
// (strategicpatch panics on one).
func setElementOrder(original map[string]any, name string, v, patchList any, live []any, f *fieldMeta, path string) *Error {
	order, ok := v.([]any)
	if !ok {
		return badRequest(path, "must be a list, not %s", describe(v))
	}
	mergeKey := ""
	if f != nil && f.merge {
		mergeKey = f.mergeKey
	}
	if mergeKey != "" {
		for i, item := range order {
			m, ok := item.(map[string]any)
			if !ok {
				return badRequest(index(path, i), "must be an object holding the merge key %q, not %s", mergeKey, describe(item))
			}
			if _, ok := m[mergeKey]; !ok {
				return badRequest(index(path, i), "has no merge key %q", mergeKey)
			}
		}
	}
	keyOf := keyBy(mergeKey)
	if err := checkOrder(patchList, order, keyOf, name, path); err != nil {
		return err
	}
	list, ok := original[name].([]any)
	if !ok {
		return nil
	}
	if mergeKey == "" {
		for _, item := range list {
			switch item.(type) {
			case map[string]any, []any:
				return nil
			}
		}
	}
	original[name] = normalizeOrder(list, order, live, keyOf)
	return nil
}

// checkOrder reports a patch list whose elements (other than those carrying a $patch
// directive) are not named by order in the same order, as strategicpatch's
// validatePatchWithSetOrderList does; kube-apiserver answers that with a 500, miniplane
// with a 400 that names the list.
func checkOrder(patchList any, order []any, keyOf keyFunc, name, path string) *Error {
	list, ok := patchList.([]any)
	if !ok {
		return nil // no patch list (the directive only reorders), or mergeList refuses it
	}
	next := 0
	for _, item := range list {
		if m, ok := item.(map[string]any); ok && m[directiveKey] != nil {
			continue
		}
		k, ok := keyOf(item)
		if !ok {
			return nil // an element without its merge key; mergeList names it
		}
		found := false
		for next < len(order) && !found {
			ok, _ := keyOf(order[next])
			found = equal(k, ok)
			next++
		}
		if !found {
			return badRequest(path, "the patch's %q list holds %s, which this order does not name after the elements before it", name, show(k))
		}
	}
	return nil
}
