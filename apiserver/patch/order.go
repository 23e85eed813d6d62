package patch

import "sort"

// This file puts a merged list in the order Kubernetes' strategicpatch gives it
// (normalizeElementOrder in k8s.io/apimachinery/pkg/util/strategicpatch/patch.go).
// The elements the patch names (its list, or its $setElementOrder list) keep the patch's
// order; the server's own elements keep the live list's order; the two are then
// interleaved by the live list's order where both are in it. An element the live list
// does not have (a new one) is placed before the server's remaining elements, so a patch
// that only adds an element puts it first: {"secrets":[{"name":"s3"}]} on [s1, s2] gives
// [s3, s1, s2].

// keyFunc returns what identifies a list element: its merge key's value for a list of
// objects, the element itself for a set of primitives. ok is false when it has none.
type keyFunc func(item any) (key any, ok bool)

// keyBy returns the keyFunc of a list merged by mergeKey ("" for a set of primitives).
func keyBy(mergeKey string) keyFunc {
	if mergeKey == "" {
		return func(item any) (any, bool) { return item, true }
	}
	return func(item any) (any, bool) {
		m, ok := item.(map[string]any)
		if !ok {
			return nil, false
		}
		k, ok := m[mergeKey]
		return k, ok
	}
}

// position returns the index in list of the element with item's key, or -1.
func position(list []any, item any, keyOf keyFunc) int {
	k, ok := keyOf(item)
	if !ok {
		return -1
	}
	for i, v := range list {
		if vk, ok := keyOf(v); ok && equal(k, vk) {
			return i
		}
	}
	return -1
}

// normalizeOrder returns merged in Kubernetes' order: the elements patchOrder names
// sorted by it, the others sorted by serverOrder (the live list), interleaved by
// serverOrder. merged is not modified.
func normalizeOrder(merged, patchOrder, serverOrder []any, keyOf keyFunc) []any {
	var patched, serverOnly []any
	for _, item := range merged {
		if position(patchOrder, item, keyOf) >= 0 {
			patched = append(patched, item)
		} else {
			serverOnly = append(serverOnly, item)
		}
	}
	sortBy(patched, patchOrder, keyOf)
	sortBy(serverOnly, serverOrder, keyOf)
	return interleave(serverOnly, patched, serverOrder, keyOf)
}

// sortBy stably sorts list by the positions of its elements in order. Like
// strategicpatch's normalizeSliceOrder, a comparison with an element order does not name
// says "less", so such elements (a list without a strategy that the patch replaced and a
// $setElementOrder reorders) land where that sort puts them, which is what Kubernetes does.
func sortBy(list, order []any, keyOf keyFunc) {
	sort.SliceStable(list, func(i, j int) bool {
		if pi := position(order, list[i], keyOf); pi >= 0 {
			if pj := position(order, list[j], keyOf); pj >= 0 {
				return pi < pj
			}
		}
		return true
	})
}

// interleave merges the server's elements (left) into the patch's (right), both already
// sorted, as strategicpatch's mergeSortedSlice does: a server element goes next only
// while both it and the next patch element are in serverOrder and it comes first there.
func interleave(left, right, serverOrder []any, keyOf keyFunc) []any {
	result := make([]any, 0, len(left)+len(right))
	i, j := 0, 0
	for i < len(left) || j < len(right) {
		switch {
		case j >= len(right):
			result = append(result, left[i])
			i++
		case i >= len(left):
			result = append(result, right[j])
			j++
		default:
			li := position(serverOrder, left[i], keyOf)
			ri := position(serverOrder, right[j], keyOf)
			if li >= 0 && ri >= 0 && li < ri {
				result = append(result, left[i])
				i++
			} else {
				result = append(result, right[j])
				j++
			}
		}
	}
	return result
}
