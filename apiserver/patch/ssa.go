package patch

import (
	"bytes"
	"github.com/miniplane/miniplane/api"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// ServerSideApply carries out a server-side apply of one object. live is the stored
// object as JSON, or nil when there is none (the result is then the object to create);
// applied is the request body, a JSON object (YAML that is not JSON is refused with
// ReasonUnsupportedMediaType); manager is the fieldManager, required; force takes fields
// that other managers own instead of failing. now stamps this manager's managedFields
// entry.
//
// The result is live with applied merged into it (objects recursively, keyed lists by
// key, sets as sets, other lists and scalars replaced), minus the fields this manager
// applied before, applies no longer, and nobody else owns; metadata.managedFields records
// the new ownership, with this manager's entry (operation "Apply") owning exactly the
// applied fields. The server's own metadata (uid, resourceVersion, generation, timestamps)
// is kept from live; for kinds with a status subresource, status too.
//
// A field conflicts when applied gives it a value other than live's and another manager
// owns it (another manager name, or the same name through an update: kube-apiserver tells
// them apart by operation too). Without force, any conflict fails the whole apply with a
// *Conflict listing each field and owner; with force, ownership moves to this manager.
// apiVersion, kind and metadata name and namespace are identity, never owned nor in
// conflict. Other errors are *Error.
//
// This is a smaller server-side apply than Kubernetes': the merge keys are the strategic
// merge patch keys of schema.go (one key per list, where Kubernetes lists some with two,
// such as a port's containerPort and protocol), and nulls in applied mean "not set".
func ServerSideApply(kind string, live, applied []byte, manager string, force bool, now time.Time) ([]byte, error) {
	s, ok := kindSchemas[kind]
	if !ok {
		return nil, badRequest("", "server-side apply is not supported for kind %s", quoteKind(kind))
	}
	return serverSideApply(s, statusKinds[kind], kind, live, applied, manager, force, now)
}

// serverSideApply is ServerSideApply of a kind whose fields s describes; with
// hasStatus, status is a subresource the apply leaves alone.
func serverSideApply(s *schema, hasStatus bool, kind string, live, applied []byte, manager string, force bool, now time.Time) ([]byte, error) {
	if manager == "" {
		return nil, badRequest("", "a server-side apply needs a fieldManager: "+
			"PATCH requests of type %s must include one", ApplyPatchType)
	}
	if err := validateManager(manager); err != nil {
		return nil, err
	}
	cfg, perr := decodeApplied(applied, s)
	if perr != nil {
		return nil, perr
	}
	newSet := fieldsOf(cfg, s, kind, true)
	if hasStatus {
		newSet.remove([]string{fieldElement("status")}) // a custom kind's: fieldsOf knows the built-in ones
	}
	if live == nil {
		obj := deepCopy(cfg, nil).(map[string]any)
		if hasStatus {
			delete(obj, "status")
		}
		entry := &managedEntry{
			manager: manager, operation: operationApply, apiVersion: apiVersionOf(cfg),
			time: timestamp(now), fields: newSet,
		}
		writeManagedFields(obj, []*managedEntry{entry})
		return encodeObject(obj)
	}
	obj, err := decodeObject(live)
	if err != nil {
		return nil, invalid("", "the stored object is not a JSON object: %v", err)
	}
	entries := readManagedFields(obj)
	entries, mine := entryFor(entries, manager, operationApply, "")

	// Conflicts: leaves applied with a value other than live's, owned by someone else.
	var causes []ConflictCause
	for _, path := range newSet.members() {
		if !newSet.leaf(path) {
			continue
		}
		want, _ := lookup(cfg, path)
		if have, ok := lookup(obj, path); ok && equal(have, want) {
			continue
		}
		for _, e := range entries {
			if e != mine && e.fields.has(path) {
				causes = append(causes, ConflictCause{
					Manager: e.manager, Operation: e.operation, Subresource: e.subresource,
					APIVersion: e.apiVersion, Time: e.time, Field: formatPath(path),
				})
				if force {
					e.fields.remove(path)
				}
			}
		}
	}
	if len(causes) > 0 && !force {
		sortCauses(causes)
		return nil, &Conflict{Causes: causes}
	}

	// Fields this manager dropped from its configuration go, unless someone else owns them
	// (or something inside them). Parents come before children, so a list element goes
	// whole; the key field of an element that stays, stays.
	var removed [][]string
	for _, path := range mine.fields.members() {
		if newSet.has(path) || hasPrefixIn(removed, path) || isKeyOfElement(path) || ownedByOthers(entries, mine, path) {
			continue
		}
		removePath(obj, path)
		removed = append(removed, path)
	}

	patchObj := deepCopy(cfg, nil).(map[string]any)
	if meta, ok := patchObj["metadata"].(map[string]any); ok {
		for k := range serverFields {
			delete(meta, k)
		}
	}
	if hasStatus {
		delete(patchObj, "status")
	}
	merged, perr := mergeMap(obj, patchObj, s, "")
	if perr != nil {
		return nil, perr
	}
	// An apply that leaves this manager's fields as they were keeps the entry's time, so
	// that applying the same configuration again changes nothing at all.
	if !mine.fields.equal(newSet) || mine.apiVersion != apiVersionOf(cfg) || mine.time == "" {
		mine.time = timestamp(now)
	}
	mine.fields = newSet
	mine.apiVersion = apiVersionOf(cfg)
	for _, e := range entries {
		e.fields.prune(merged)
	}
	writeManagedFields(merged, entries)
	return encodeObject(merged)
}

// hasPrefixIn reports whether one of prefixes is a prefix of path.
func hasPrefixIn(prefixes [][]string, path []string) bool {
	for _, p := range prefixes {
		if len(p) <= len(path) && slices.Equal(p, path[:len(p)]) {
			return true
		}
	}
	return false
}

// isKeyOfElement reports whether path names the merge key field of a keyed list element,
// as in [..., k:{"name":"web"}, f:name].
func isKeyOfElement(path []string) bool {
	if len(path) < 2 {
		return false
	}
	e, err := parseElement(path[len(path)-2])
	if err != nil || e.kind != 'k' {
		return false
	}
	f, err := parseElement(path[len(path)-1])
	if err != nil || f.kind != 'f' {
		return false
	}
	_, ok := e.key[f.name]
	return ok
}

// ownedByOthers reports whether an entry other than mine owns path or a field under it.
func ownedByOthers(entries []*managedEntry, mine *managedEntry, path []string) bool {
	for _, e := range entries {
		if e == mine {
			continue
		}
		n := e.fields
		for _, el := range path {
			if n = n.children[el]; n == nil {
				break
			}
		}
		if n != nil {
			return true
		}
	}
	return false
}

// TrackUpdate records a write that is not an apply (a create, an update, a patch of
// another type) in newObj's metadata.managedFields, as kube-apiserver does for every
// write: manager's entry with operation "Update" gains the fields the write set or
// changed, and other managers lose them (an update always wins; only applies conflict).
// oldObj is the stored object before the write, or nil for a create. Ownership of
// fields newObj no longer has is dropped. managedFields are taken from oldObj; whatever
// newObj carries there is replaced. It returns newObj with the new managedFields. An
// empty manager leaves the write untracked and returns newObj re-encoded.
func TrackUpdate(kind string, oldObj, newObj []byte, manager string, now time.Time) ([]byte, error) {
	return TrackSubresourceUpdate(kind, "", oldObj, newObj, manager, now)
}

// TrackSubresourceUpdate is [TrackUpdate] for a write through a subresource ("status",
// "scale"): oldObj and newObj are still the whole object, and the manager's entry is
// recorded with the subresource, apart from its entry for writes to the object itself,
// as kube-apiserver records them.
func TrackSubresourceUpdate(kind, subresource string, oldObj, newObj []byte, manager string, now time.Time) ([]byte, error) {
	if err := validateManager(manager); err != nil {
		return nil, err
	}
	s := kindSchemas[kind]
	obj, err := decodeObject(newObj)
	if err != nil {
		return nil, badRequest("", "the new object is not a JSON object: %v", err)
	}
	var old map[string]any
	var entries []*managedEntry
	if oldObj != nil {
		if old, err = decodeObject(oldObj); err != nil {
			return nil, invalid("", "the stored object is not a JSON object: %v", err)
		}
		entries = readManagedFields(old)
	}
	if manager != "" {
		changed := newFieldSet()
		set := fieldsOf(obj, s, kind, false)
		for _, path := range set.members() {
			if old != nil {
				if have, ok := lookup(old, path); ok && (!set.leaf(path) || equal(have, mustLookup(obj, path))) {
					continue
				}
			}
			changed.insert(path)
		}
		if !changed.empty() {
			var mine *managedEntry
			entries, mine = entryFor(entries, manager, operationUpdate, subresource)
			for _, path := range changed.members() {
				for _, e := range entries {
					if e != mine && changed.leaf(path) {
						e.fields.remove(path)
					}
				}
				mine.fields.insert(path)
			}
			mine.apiVersion = apiVersionOf(obj)
			mine.time = timestamp(now)
		}
	}
	for _, e := range entries {
		e.fields.prune(obj)
	}
	writeManagedFields(obj, entries)
	return encodeObject(obj)
}

// TrackCreate is [TrackUpdate] of a create (oldObj nil) that returns only what it
// records: the managedFields the created object gets, the same entries TrackUpdate
// writes into it, nil when manager is empty or newObj sets no field. A caller holding
// newObj as a typed object sets them there, sparing the re-encoding of the whole
// object and its decoding back that TrackUpdate's JSON answer costs, on the path
// every create of a stock client takes (client-go names its manager in User-Agent).
func TrackCreate(kind string, newObj []byte, manager string, now time.Time) ([]api.ManagedFieldsEntry, error) {
	if err := validateManager(manager); err != nil {
		return nil, err
	}
	if manager == "" {
		return nil, nil
	}
	obj, err := decodeObject(newObj)
	if err != nil {
		return nil, badRequest("", "the new object is not a JSON object: %v", err)
	}
	set := fieldsOf(obj, kindSchemas[kind], kind, false)
	if set.empty() {
		return nil, nil
	}
	fields, err := encode(set.fieldsV1())
	if err != nil {
		return nil, invalid("", "the field set cannot be encoded: %v", err)
	}
	at := api.NewTime(now)
	return []api.ManagedFieldsEntry{{
		Manager:    manager,
		Operation:  operationUpdate,
		APIVersion: apiVersionOf(obj),
		Time:       &at,
		FieldsType: "FieldsV1",
		FieldsV1:   fields,
	}}, nil
}

// maxManagerLength is kube-apiserver's bound on a fieldManager.
const maxManagerLength = 128

// validateManager checks a fieldManager as kube-apiserver does: at most 128 bytes of
// printable characters.
func validateManager(manager string) *Error {
	if len(manager) > maxManagerLength {
		return badRequest("fieldManager", "must be at most %d characters, not %d", maxManagerLength, len(manager))
	}
	if !utf8.ValidString(manager) {
		return badRequest("fieldManager", "must be valid UTF-8")
	}
	for _, r := range manager {
		if !unicode.IsPrint(r) {
			return badRequest("fieldManager", "must hold only printable characters, not %q", r)
		}
	}
	return nil
}

func mustLookup(obj any, path []string) any {
	v, _ := lookup(obj, path)
	return v
}

// decodeApplied reads an apply body for a kind s describes: a JSON object without patch
// directives or managedFields, with nulls dropped (see checkApplied).
func decodeApplied(body []byte, s *schema) (map[string]any, *Error) {
	v, err := decode(body)
	if err != nil {
		trimmed := bytes.TrimSpace(body)
		if len(trimmed) > 0 && trimmed[0] != '{' && trimmed[0] != '[' {
			return nil, unsupported("the apply body is not JSON: only the JSON form of YAML is accepted " +
				"(kubectl apply --server-side sends JSON)")
		}
		return nil, badRequest("", "the apply body is not valid JSON: %v", err)
	}
	cfg, ok := v.(map[string]any)
	if !ok {
		return nil, badRequest("", "the apply body must be a JSON object, got %s", describe(v))
	}
	if meta, ok := cfg["metadata"].(map[string]any); ok {
		if mf, ok := meta["managedFields"]; ok && mf != nil {
			if l, ok := mf.([]any); !ok || len(l) > 0 {
				return nil, badRequest(".metadata.managedFields", "must be empty in an apply: the server keeps managed fields")
			}
		}
	}
	if perr := checkApplied(cfg, s, ""); perr != nil {
		return nil, perr
	}
	return cfg, nil
}

// checkApplied drops nulls from the objects in obj, an object s describes, and refuses
// what an apply cannot mean: patch directives (an apply states the fields it wants, it
// does not patch), elements of a keyed list without their key, and two elements of a
// keyed list or set with the same identity.
func checkApplied(obj map[string]any, s *schema, path string) *Error {
	for _, k := range sortedKeys(obj) {
		if strings.HasPrefix(k, "$") {
			return badRequest(member(path, k), "server-side apply takes an object, not patch directives")
		}
		if obj[k] == nil {
			delete(obj, k)
			continue
		}
		if err := checkAppliedValue(obj[k], s.lookup(k), member(path, k)); err != nil {
			return err
		}
	}
	return nil
}

func checkAppliedValue(v any, f *fieldMeta, path string) *Error {
	var elem *schema
	if f != nil {
		elem = f.elem
	}
	switch v := v.(type) {
	case map[string]any:
		return checkApplied(v, elem, path)
	case []any:
		seen := make([]any, 0, len(v))
		for i, item := range v {
			at := index(path, i)
			if f != nil && f.merge {
				id := item
				if f.mergeKey != "" {
					m, ok := item.(map[string]any)
					if !ok {
						return badRequest(at, "the list is keyed by %q, so its elements must be objects, not %s", f.mergeKey, describe(item))
					}
					if id, ok = m[f.mergeKey]; !ok || id == nil {
						return badRequest(at, "the element has no merge key %q", f.mergeKey)
					}
				}
				for _, s := range seen {
					if equal(s, id) {
						return badRequest(at, "duplicate entries for %s", formatPath([]string{identity(f, id)}))
					}
				}
				seen = append(seen, id)
			}
			if m, ok := item.(map[string]any); ok {
				if err := checkApplied(m, elem, at); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// identity is the path element of a keyed list or set element with identity id.
func identity(f *fieldMeta, id any) string {
	if f.mergeKey == "" {
		return valueElement(id)
	}
	return keyElement(f.mergeKey, id)
}

func apiVersionOf(obj map[string]any) string {
	s, _ := obj["apiVersion"].(string)
	return s
}

func encodeObject(obj map[string]any) ([]byte, error) {
	out, err := encode(obj)
	if err != nil {
		return nil, invalid("", "the result cannot be encoded: %v", err)
	}
	return out, nil
}
