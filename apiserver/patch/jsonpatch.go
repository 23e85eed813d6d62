package patch

import (
	"strconv"
	"strings"
)

// Limits that keep a hostile JSON patch from costing more than a request should: the
// number of operations (kube-apiserver has the same bound), and the number of JSON values
// all "copy" operations of one patch may copy, so that copying a document into itself
// again and again cannot double its size without end.
const (
	maxJSONPatchOperations = 10000
	maxCopiedValues        = 1 << 20
)

// operation is one decoded RFC 6902 operation.
type operation struct {
	index    int // position in the patch, for error messages
	op       string
	path     []string
	from     []string
	rawPath  string
	value    any
	hasValue bool
}

// decodeJSONPatch checks that body is an RFC 6902 patch (an array of operation objects
// with the members each operation needs) and decodes it.
func decodeJSONPatch(body any) ([]operation, *Error) {
	list, ok := body.([]any)
	if !ok {
		return nil, badRequest("", "a JSON patch must be a JSON array of operations, got %s", describe(body))
	}
	if len(list) > maxJSONPatchOperations {
		return nil, badRequest("", "a JSON patch may hold at most %d operations, this one has %d", maxJSONPatchOperations, len(list))
	}
	ops := make([]operation, 0, len(list))
	for i, raw := range list {
		where := "[" + strconv.Itoa(i) + "]"
		m, ok := raw.(map[string]any)
		if !ok {
			return nil, badRequest(where, "a JSON patch operation must be an object, got %s", describe(raw))
		}
		op := operation{index: i}
		name, ok := m["op"].(string)
		if !ok {
			return nil, badRequest(where, `operation needs an "op" string`)
		}
		op.op = name
		var err *Error
		if op.rawPath, op.path, err = pointerMember(m, "path", where); err != nil {
			return nil, err
		}
		switch name {
		case "add", "replace", "test":
			op.value, op.hasValue = m["value"]
			if !op.hasValue {
				return nil, badRequest(where, `%q operation needs a "value"`, name)
			}
		case "remove":
		case "move", "copy":
			if _, op.from, err = pointerMember(m, "from", where); err != nil {
				return nil, err
			}
		default:
			return nil, badRequest(where, "unknown JSON patch operation %q: want add, remove, replace, move, copy or test", name)
		}
		ops = append(ops, op)
	}
	return ops, nil
}

// pointerMember reads member name of an operation as a JSON pointer.
func pointerMember(m map[string]any, name, where string) (string, []string, *Error) {
	raw, ok := m[name].(string)
	if !ok {
		return "", nil, badRequest(where, "operation needs a %q string holding a JSON pointer", name)
	}
	tokens, err := parsePointer(raw)
	if err != nil {
		return "", nil, badRequest(where, "%s %q: %s", name, raw, err.Message)
	}
	return raw, tokens, nil
}

// parsePointer splits an RFC 6901 JSON pointer into its unescaped reference tokens. ""
// is the whole document (no tokens).
func parsePointer(p string) ([]string, *Error) {
	if p == "" {
		return nil, nil
	}
	if p[0] != '/' {
		return nil, badRequest("", `a JSON pointer must be empty or start with "/"`)
	}
	parts := strings.Split(p[1:], "/")
	for i, part := range parts {
		if !strings.Contains(part, "~") {
			continue
		}
		var b strings.Builder
		for j := 0; j < len(part); j++ {
			if part[j] != '~' {
				b.WriteByte(part[j])
				continue
			}
			if j+1 < len(part) && part[j+1] == '0' {
				b.WriteByte('~')
			} else if j+1 < len(part) && part[j+1] == '1' {
				b.WriteByte('/')
			} else {
				return nil, badRequest("", `"~" must be followed by "0" or "1" in a JSON pointer`)
			}
			j++
		}
		parts[i] = b.String()
	}
	return parts, nil
}

// applyJSONPatch applies ops in order to doc and returns the result. Each operation sees
// the result of the ones before it; the first that fails stops the patch, and the caller
// keeps nothing of it.
func applyJSONPatch(doc any, ops []operation) (any, *Error) {
	copied := 0
	for _, op := range ops {
		var err *Error
		switch op.op {
		case "add":
			doc, err = addValue(doc, op.path, op.value)
		case "remove":
			doc, _, err = removeValue(doc, op.path)
		case "replace":
			if len(op.path) == 0 {
				doc = op.value
				break
			}
			doc, _, err = removeValue(doc, op.path)
			if err == nil {
				doc, err = addValue(doc, op.path, op.value)
			}
		case "move":
			if isProperPrefix(op.from, op.path) {
				err = invalid("", "cannot move a value into itself")
				break
			}
			var v any
			doc, v, err = removeValue(doc, op.from)
			if err == nil {
				doc, err = addValue(doc, op.path, v)
			}
		case "copy":
			var v any
			v, err = getValue(doc, op.from)
			if err == nil {
				v = deepCopy(v, &copied)
				if copied > maxCopiedValues {
					err = invalid("", "the copy operations of this patch copy more than %d values", maxCopiedValues)
					break
				}
				doc, err = addValue(doc, op.path, v)
			}
		case "test":
			var v any
			v, err = getValue(doc, op.path)
			if err == nil && !equal(v, op.value) {
				err = invalid("", "test failed: the value is not the one the patch expects")
			}
		}
		if err != nil {
			return nil, opError(op, err)
		}
	}
	return doc, nil
}

// opError names the failing operation and the path it worked on in err.
func opError(op operation, err *Error) *Error {
	return &Error{
		Reason:  err.Reason,
		Field:   op.rawPath,
		Message: "operation " + strconv.Itoa(op.index) + " (" + op.op + "): " + err.Message,
	}
}

func isProperPrefix(prefix, path []string) bool {
	if len(prefix) >= len(path) {
		return false
	}
	for i := range prefix {
		if prefix[i] != path[i] {
			return false
		}
	}
	return true
}

// getValue returns the value the pointer tokens name in doc.
func getValue(doc any, tokens []string) (any, *Error) {
	cur := doc
	for i, tok := range tokens {
		switch c := cur.(type) {
		case map[string]any:
			v, ok := c[tok]
			if !ok {
				return nil, notFound(tokens[:i+1])
			}
			cur = v
		case []any:
			idx, err := arrayIndex(tok, len(c), false)
			if err != nil {
				return nil, err
			}
			cur = c[idx]
		default:
			return nil, notFound(tokens[:i+1])
		}
	}
	return cur, nil
}

// addValue adds v at tokens in doc, as RFC 6902's "add": the parent must exist; an object
// member is set (replacing any value there), an array element is inserted before the
// index, and "-" appends.
func addValue(doc any, tokens []string, v any) (any, *Error) {
	if len(tokens) == 0 {
		return v, nil
	}
	parent, err := getValue(doc, tokens[:len(tokens)-1])
	if err != nil {
		return nil, err
	}
	last := tokens[len(tokens)-1]
	switch p := parent.(type) {
	case map[string]any:
		p[last] = v
		return doc, nil
	case []any:
		idx, err := arrayIndex(last, len(p), true)
		if err != nil {
			return nil, err
		}
		grown := make([]any, 0, len(p)+1)
		grown = append(grown, p[:idx]...)
		grown = append(grown, v)
		grown = append(grown, p[idx:]...)
		return setValue(doc, tokens[:len(tokens)-1], grown), nil
	default:
		return nil, invalid("", "the parent of the target is %s, not an object or array", describe(parent))
	}
}

// removeValue removes the value at tokens from doc and returns the new document and the
// removed value.
func removeValue(doc any, tokens []string) (any, any, *Error) {
	if len(tokens) == 0 {
		return nil, nil, invalid("", "cannot remove the whole document")
	}
	parent, err := getValue(doc, tokens[:len(tokens)-1])
	if err != nil {
		return nil, nil, err
	}
	last := tokens[len(tokens)-1]
	switch p := parent.(type) {
	case map[string]any:
		v, ok := p[last]
		if !ok {
			return nil, nil, notFound(tokens)
		}
		delete(p, last)
		return doc, v, nil
	case []any:
		idx, err := arrayIndex(last, len(p), false)
		if err != nil {
			return nil, nil, err
		}
		v := p[idx]
		shrunk := make([]any, 0, len(p)-1)
		shrunk = append(shrunk, p[:idx]...)
		shrunk = append(shrunk, p[idx+1:]...)
		return setValue(doc, tokens[:len(tokens)-1], shrunk), v, nil
	default:
		return nil, nil, notFound(tokens)
	}
}

// setValue replaces the value at tokens, which must exist, and returns the document. It
// is how a grown or shrunk array is put back in its place.
func setValue(doc any, tokens []string, v any) any {
	if len(tokens) == 0 {
		return v
	}
	parent, _ := getValue(doc, tokens[:len(tokens)-1])
	last := tokens[len(tokens)-1]
	switch p := parent.(type) {
	case map[string]any:
		p[last] = v
	case []any:
		idx, _ := arrayIndex(last, len(p), false)
		p[idx] = v
	}
	return doc
}

// arrayIndex parses an array index token: decimal digits without leading zeros, less
// than n (or equal to n, or "-", when adding).
func arrayIndex(tok string, n int, adding bool) (int, *Error) {
	if adding && tok == "-" {
		return n, nil
	}
	valid := tok != "" && len(tok) <= 9 && (tok == "0" || tok[0] != '0')
	for i := 0; valid && i < len(tok); i++ {
		valid = tok[i] >= '0' && tok[i] <= '9'
	}
	if !valid {
		return 0, invalid("", "%q is not an array index", tok)
	}
	idx, _ := strconv.Atoi(tok)
	if idx > n || (!adding && idx == n) {
		return 0, invalid("", "array index %d is out of range (the array has %d elements)", idx, n)
	}
	return idx, nil
}

func notFound(tokens []string) *Error {
	return invalid("", "path %q does not exist", formatPointer(tokens))
}

// formatPointer is parsePointer's inverse.
func formatPointer(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		t = strings.ReplaceAll(t, "~", "~0")
		b.WriteString(strings.ReplaceAll(t, "/", "~1"))
	}
	return b.String()
}
