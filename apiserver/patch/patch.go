package patch

import "encoding/json"

// The patch types, as they appear in the Content-Type of a PATCH request.
const (
	// JSONPatchType is an RFC 6902 JSON patch: a list of operations.
	JSONPatchType = "application/json-patch+json"
	// MergePatchType is an RFC 7386 JSON merge patch (kubectl label, kubectl scale).
	MergePatchType = "application/merge-patch+json"
	// StrategicMergePatchType is Kubernetes' strategic merge patch (kubectl apply's
	// client-side mode, kubectl edit): a merge patch whose lists merge by key.
	StrategicMergePatchType = "application/strategic-merge-patch+json"
	// ApplyPatchType is a server-side apply body (kubectl apply --server-side); see
	// [ServerSideApply].
	ApplyPatchType = "application/apply-patch+yaml"
)

// Apply applies a JSON patch, merge patch or strategic merge patch to original (the
// stored object as JSON) and returns the patched object as compact JSON with sorted keys.
// kind is the object's Kind ("Pod", "ReplicationController", "Service", "Endpoints",
// "Node", "Lease", "Event", "Namespace", "Scale", "ConfigMap", "Secret", "ServiceAccount"); it chooses the merge keys of a
// strategic merge patch and is ignored by the other two types.
//
// Errors are *Error: ReasonBadRequest for a patch that is malformed (not JSON, not the
// shape its type requires, an unknown operation or directive), ReasonInvalid for one that
// cannot be applied to this object (a failing "test", a missing path, a result that is not
// a JSON object), ReasonUnsupportedMediaType for an unknown patch type, an apply body, or
// a strategic merge patch of a kind without patch metadata. Apply never panics and never
// changes original.
func Apply(patchType, kind string, original, patchBody []byte) ([]byte, error) {
	if patchType == ApplyPatchType {
		return nil, unsupported("an apply patch is carried out by ServerSideApply, not Apply")
	}
	var s *schema
	switch patchType {
	case JSONPatchType, MergePatchType:
	case StrategicMergePatchType:
		var ok bool
		if s, ok = kindSchemas[kind]; !ok {
			return nil, unsupported("strategic merge patch is not supported for kind %s; use a JSON merge patch or a JSON patch", quoteKind(kind))
		}
	default:
		return nil, unsupported("unsupported patch type %s: want %s, %s, %s or %s",
			quoteKind(patchType), JSONPatchType, MergePatchType, StrategicMergePatchType, ApplyPatchType)
	}
	body, err := decode(patchBody)
	if err != nil {
		return nil, badRequest("", "the patch is not valid JSON: %v", err)
	}
	doc, err := decodeObject(original)
	if err != nil {
		return nil, invalid("", "the object to patch is not a JSON object: %v", err)
	}
	var result any
	switch patchType {
	case JSONPatchType:
		ops, perr := decodeJSONPatch(body)
		if perr != nil {
			return nil, perr
		}
		if result, perr = applyJSONPatch(doc, ops); perr != nil {
			return nil, perr
		}
	case MergePatchType:
		p, ok := body.(map[string]any)
		if !ok {
			return nil, badRequest("", "a merge patch must be a JSON object, got %s", describe(body))
		}
		result = mergePatch(doc, p)
	case StrategicMergePatchType:
		p, ok := body.(map[string]any)
		if !ok {
			return nil, badRequest("", "a strategic merge patch must be a JSON object, got %s", describe(body))
		}
		merged, perr := strategicMerge(doc, p, s)
		if perr != nil {
			return nil, perr
		}
		result = merged
	}
	if _, ok := result.(map[string]any); !ok {
		return nil, invalid("", "the patched object must be a JSON object, but the patch made it %s", describe(result))
	}
	out, err := encode(result)
	if err != nil {
		return nil, invalid("", "the patched object cannot be encoded: %v", err)
	}
	return out, nil
}

// quoteKind quotes a name from the request for a message.
func quoteKind(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
