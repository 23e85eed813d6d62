package patch

// mergePatch applies an RFC 7386 JSON merge patch to target and returns the result:
// members of a patch object merge into the target object recursively, a null member
// deletes the key, and every other value (arrays included) replaces what was there. A
// patch that is not an object replaces the target whole, and a patch object that lands
// where the target has no object merges into an empty one (so its nulls vanish). target
// may be modified.
func mergePatch(target, patch any) any {
	p, ok := patch.(map[string]any)
	if !ok {
		return patch
	}
	t, ok := target.(map[string]any)
	if !ok {
		t = map[string]any{}
	}
	for k, pv := range p {
		if pv == nil {
			delete(t, k)
			continue
		}
		t[k] = mergePatch(t[k], pv)
	}
	return t
}
