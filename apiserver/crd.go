package apiserver

// Custom resources: the kinds CustomResourceDefinitions add at run time.
// Kubernetes: k8s.io/apiextensions-apiserver's customresource_handler (one
// REST storage per established definition), its establishing and finalizer
// controllers, and the custom resource strategy.
//
// A definition written to the store is acted on in the same call, before
// the write returns: its kind is registered (or its conflict reported) and
// its status set to NamesAccepted and Established by a status update of its
// own, as the establishing controller would a moment later. Its removal
// deletes every object of the kind and unregisters it; kube-apiserver's
// finalizer does the same, honouring the objects' own finalizers, which
// here are not waited for.
//
// The registry of custom kinds is a copy-on-write snapshot (customKinds)
// read without a lock and replaced under customMu; the built-in kinds'
// maps are never changed after New, so their lookups stay as they were.

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.uber.org/zap"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/apiserver/celrules"
	"github.com/miniplane/miniplane/apiserver/schema"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/store"
)

// customKinds is one immutable snapshot of the served custom kinds.
type customKinds struct {
	byName map[string]*kind       // by plural.group, and by plural when no other kind holds it; other versions by plural.version.group
	byType map[api.TypeMeta]*kind // by apiVersion and kind
	byCRD  map[string][]*kind     // by the definition's name: its storage version's kind, then its other served versions'
	sorted []*kind                // by group, then resource
}

// customLookup returns the custom kind a resource name names, or nil.
func (s *Server) customLookup(resource string) *kind {
	if c := s.custom.Load(); c != nil {
		return c.byName[resource]
	}
	return nil
}

// customSorted returns the custom kinds, sorted.
func (s *Server) customSorted() []*kind {
	if c := s.custom.Load(); c != nil {
		return c.sorted
	}
	return nil
}

// ResourceEpoch counts the changes to the set of served resources: it
// grows when a custom kind is added, changed or removed. The HTTP front
// rebuilds its routes, discovery and OpenAPI documents when it moves.
func (s *Server) ResourceEpoch() uint64 { return s.epoch.Load() }

// storedKinds returns every kind whose objects the store holds: the
// built-in ones, by name, then the custom ones.
func (s *Server) storedKinds() []*kind {
	out := make([]*kind, 0, len(s.kinds))
	for _, name := range slices.Sorted(maps.Keys(s.kinds)) {
		out = append(out, s.kinds[name])
	}
	for _, k := range s.customSorted() {
		if k.storage == nil {
			out = append(out, k)
		}
	}
	return out
}

// crdWritten acts on a definition just stored: it registers (or updates)
// its kind and brings its status to what the establishing controller would
// write. It is called after every successful write of a definition.
func (s *Server) crdWritten(crd *api.CustomResourceDefinition) {
	if crd.Metadata.DeletionTimestamp != nil {
		return // being deleted: served until removed
	}
	conflict := s.registerCRD(crd)
	defer s.syncLocalAPIServices()
	want := crdStatus(crd, conflict, s.now())
	if reflect.DeepEqual(want, crd.Status) {
		return
	}
	next := crd.DeepCopy()
	next.Status = want
	if _, err := s.update(next, true, writeOptions{}); err != nil && !apierrors.IsConflict(err) && !apierrors.IsNotFound(err) {
		s.log.Warn("setting a CustomResourceDefinition's status", zap.String("name", crd.Metadata.Name), zap.Error(err))
	}
}

// crdStatus is the status the establishing controller gives crd: its names
// accepted and the kind established unless conflict says why not.
func crdStatus(crd *api.CustomResourceDefinition, conflict string, now api.Time) api.CustomResourceDefinitionStatus {
	st := api.CustomResourceDefinitionStatus{StoredVersions: slices.Clone(crd.Status.StoredVersions)}
	for _, v := range crd.Spec.Versions {
		if v.Storage && !slices.Contains(st.StoredVersions, v.Name) {
			st.StoredVersions = append(st.StoredVersions, v.Name)
		}
	}
	cond := func(t string, ok bool, reason, msg string) api.CustomResourceDefinitionCondition {
		c := api.CustomResourceDefinitionCondition{Type: t, Status: api.ConditionFalse, Reason: reason, Message: msg, LastTransitionTime: now}
		if ok {
			c.Status = api.ConditionTrue
		}
		for _, old := range crd.Status.Conditions {
			if old.Type == t && old.Status == c.Status {
				c.LastTransitionTime = old.LastTransitionTime
			}
		}
		return c
	}
	if conflict != "" {
		st.AcceptedNames = crd.Status.AcceptedNames
		st.Conditions = []api.CustomResourceDefinitionCondition{
			cond(api.CRDNamesAccepted, false, "NameConflict", conflict),
			cond(api.CRDEstablished, false, "NotAccepted", "not all names are accepted"),
		}
		return st
	}
	st.AcceptedNames = crd.Spec.Names
	st.Conditions = []api.CustomResourceDefinitionCondition{
		cond(api.CRDNamesAccepted, true, "NoConflicts", "no conflicts found"),
		cond(api.CRDEstablished, true, "InitialNamesAccepted", "the initial names have been accepted"),
	}
	return st
}

// registerCRD serves crd's kind, replacing the one it served before, and
// returns "" — or, when another kind holds its names, why it is not served.
func (s *Server) registerCRD(crd *api.CustomResourceDefinition) string {
	s.customMu.Lock()
	defer s.customMu.Unlock()
	// The store's latest state decides: a stale call (another write came
	// after this one) registers the latest definition, not crd.
	if rec, err := s.store.Get(s.kinds[crdResource].key("", crd.Metadata.Name), 0); err == nil {
		crd = rec.Value.(*api.CustomResourceDefinition)
	} else {
		return ""
	}
	old := s.custom.Load()
	next := &customKinds{byName: map[string]*kind{}, byType: map[api.TypeMeta]*kind{}, byCRD: map[string][]*kind{}}
	if old != nil {
		for name, ks := range old.byCRD {
			if name != crd.Metadata.Name {
				next.add(name, ks, s)
			}
		}
	}
	gr := apierrors.GroupResource{Group: crd.Spec.Group, Resource: crd.Spec.Names.Plural}
	if _, taken := s.byName[gr.String()]; taken {
		return fmt.Sprintf("%q is already in use", crd.Spec.Names.Plural)
	}
	if other := next.byName[gr.String()]; other != nil {
		return fmt.Sprintf("%q is already in use", crd.Spec.Names.Plural)
	}
	ks := s.versionKinds(crd)
	for _, k := range ks {
		if other := next.byType[api.TypeMeta{APIVersion: k.apiVersion, Kind: k.kind}]; other != nil {
			return fmt.Sprintf("%q is already in use", crd.Spec.Names.Kind)
		}
	}
	next.add(crd.Metadata.Name, ks, s)
	next.sort()
	s.custom.Store(next)
	s.epoch.Add(1)
	return ""
}

// add adds a definition's kinds: ks[0] serves its storage version and is
// named by plural.group (and plural), the others by plural.version.group.
func (c *customKinds) add(crdName string, ks []*kind, s *Server) {
	c.byCRD[crdName] = ks
	for _, k := range ks {
		c.byType[api.TypeMeta{APIVersion: k.apiVersion, Kind: k.kind}] = k
		c.byName[k.info().Name()] = k
		c.sorted = append(c.sorted, k)
	}
	k := ks[0]
	if _, taken := s.byName[k.gr.Resource]; !taken {
		if _, taken := c.byName[k.gr.Resource]; !taken {
			c.byName[k.gr.Resource] = k
		}
	}
}

func (c *customKinds) sort() {
	slices.SortFunc(c.sorted, func(a, b *kind) int {
		if n := strings.Compare(a.gr.String(), b.gr.String()); n != 0 {
			return n
		}
		return strings.Compare(a.apiVersion, b.apiVersion)
	})
	// A plural alone names the first kind in order that holds it.
	for _, k := range c.sorted {
		if k.storage != nil {
			continue
		}
		if cur := c.byName[k.gr.Resource]; cur != nil && cur != k && cur.gr.String() > k.gr.String() {
			c.byName[k.gr.Resource] = k
		}
	}
}

// crdRemoved stops serving a removed definition's kind and deletes its
// objects, each with a watch event.
func (s *Server) crdRemoved(crd *api.CustomResourceDefinition) {
	s.customMu.Lock()
	old := s.custom.Load()
	var gone *kind
	if old != nil && len(old.byCRD[crd.Metadata.Name]) > 0 {
		gone = old.byCRD[crd.Metadata.Name][0]
	}
	if gone != nil {
		next := &customKinds{byName: map[string]*kind{}, byType: map[api.TypeMeta]*kind{}, byCRD: map[string][]*kind{}}
		for name, ks := range old.byCRD {
			if name != crd.Metadata.Name {
				next.add(name, ks, s)
			}
		}
		next.sort()
		s.custom.Store(next)
		s.epoch.Add(1)
	}
	s.customMu.Unlock()
	if gone == nil {
		return
	}
	defer s.syncLocalAPIServices()
	res, err := s.store.List(gone.keyPrefix, store.ListOptions{})
	if err != nil {
		return
	}
	for _, r := range res.Records {
		if _, err := s.deleteKey(r.Key, r.ModRev); err == nil {
			s.dropGrace(r.Key)
		}
	}
	s.log.Debug("custom resource definition removed", zap.String("name", crd.Metadata.Name), zap.Int("objects", len(res.Records)))
}

// storageVersion returns crd's storage version.
func storageVersion(crd *api.CustomResourceDefinition) *api.CustomResourceDefinitionVersion {
	for i := range crd.Spec.Versions {
		if crd.Spec.Versions[i].Storage {
			return &crd.Spec.Versions[i]
		}
	}
	return &crd.Spec.Versions[0]
}

// customKind builds the kind of crd's version v: its strategy is the
// custom resource strategy, its rules the version's schema.
func (s *Server) customKind(crd *api.CustomResourceDefinition, v *api.CustomResourceDefinitionVersion) *kind {
	apiVersion := crd.Spec.Group + "/" + v.Name
	kindName := crd.Spec.Names.Kind
	var root *api.JSONSchemaProps
	if v.Schema != nil {
		root = v.Schema.OpenAPIV3Schema
	}
	if root == nil {
		root = &api.JSONSchemaProps{Type: "object", XPreserveUnknownFields: ptr(true)}
	}
	hasStatus := v.Subresources != nil && v.Subresources.Status != nil
	k := &kind{
		gr:         apierrors.GroupResource{Group: crd.Spec.Group, Resource: crd.Spec.Names.Plural},
		kind:       kindName,
		apiVersion: apiVersion,
		namespaced: crd.Spec.Scope == api.NamespaceScoped,
		newObj: func() api.Object {
			return &api.Unstructured{TypeMeta: api.TypeMeta{APIVersion: apiVersion, Kind: kindName}}
		},
		singular:   crd.Spec.Names.Singular,
		shortNames: slices.Clone(crd.Spec.Names.ShortNames),
		categories: slices.Clone(crd.Spec.Names.Categories),
		custom:     &customInfo{schema: root, compiled: schema.Compile(root), listKind: crd.Spec.Names.ListKind, crd: crd.Metadata.Name},
	}
	k.keyPrefix = "/registry/" + k.gr.String() + "/"
	k.columns = customColumns(v)
	k.shallowCopy = func(o api.Object) api.Object {
		c := *o.(*api.Unstructured)
		c.Content = maps.Clone(c.Content)
		return &c
	}
	k.equal = func(a, b api.Object) bool { return reflect.DeepEqual(a, b) }
	k.spec = func(o api.Object) any {
		// Every change but metadata's (and status's, with the status
		// subresource) is a change of the desired state.
		c := o.(*api.Unstructured).Content
		if hasStatus {
			if _, ok := c["status"]; ok {
				c = maps.Clone(c)
				delete(c, "status")
			}
		}
		return map[string]any(c)
	}
	metaRules := metaRules{namespaced: k.namespaced, name: nameIsDNSSubdomain}
	compiled := k.custom.compiled
	k.defaults = func(o api.Object) {
		u := o.(*api.Unstructured)
		if u.Content == nil {
			u.Content = api.JSONObject{}
		}
		schema.Prune(u.Content, compiled)
		schema.Default(u.Content, compiled)
	}
	rules, errs := s.rules.Compile(root, "")
	if len(errs) > 0 {
		// The definition's validation compiled them: only a change of
		// the compiler between two versions of miniplane gets here.
		s.log.Warn("CEL validation rules do not compile; they are not run", zap.String("crd", crd.Metadata.Name), zap.Error(errs))
	}
	k.validate = func(o api.Object) apierrors.FieldErrors {
		u := o.(*api.Unstructured)
		errs := validateObjectMeta(nil, &u.Metadata, metaRules, metadataPath)
		return validateContent(errs, u, nil, compiled, rules)
	}
	k.validateUpdate = func(o, old api.Object) apierrors.FieldErrors {
		u := o.(*api.Unstructured)
		errs := validateObjectMetaUpdate(nil, &u.Metadata, &old.(*api.Unstructured).Metadata, metadataPath)
		errs = validateObjectMeta(errs, &u.Metadata, metaRules, metadataPath)
		return validateContent(errs, u, old.(*api.Unstructured), compiled, rules)
	}
	if hasStatus {
		k.status = unstructuredStatus()
		k.resetStatusOnCreate = true
		k.custom.checkStatus = func(o, old api.Object) apierrors.FieldErrors {
			return validateContent(nil, o.(*api.Unstructured), old.(*api.Unstructured), compiled, rules)
		}
	}
	if v.Subresources != nil && v.Subresources.Scale != nil {
		k.scale = unstructuredScale(v.Subresources.Scale)
	}
	if len(v.SelectableFields) > 0 {
		paths := make([]string, len(v.SelectableFields))
		for i, f := range v.SelectableFields {
			paths[i] = f.JSONPath
			k.fieldNames = append(k.fieldNames, strings.TrimPrefix(f.JSONPath, "."))
		}
		k.fields = func(o api.Object) map[string]string {
			out := make(map[string]string, len(paths))
			for _, p := range paths {
				val, _ := schema.Lookup(o.(*api.Unstructured).Content, p)
				out[strings.TrimPrefix(p, ".")] = scalarString(val)
			}
			return out
		}
	}
	return k
}

// customInfo is what a custom kind has beyond a built-in one's strategy.
type customInfo struct {
	// schema is the served version's structural schema (never nil), and
	// compiled the same made ready to walk.
	schema   *api.JSONSchemaProps
	compiled *schema.Schema
	// settled, on a storage version's kind, says that every stored object
	// is as schema makes it, so reads return it as it is (storedSettled).
	settled bool
	// listKind is the kind of a list ("WidgetList").
	listKind string
	// crd is the definition's name.
	crd string
	// checkStatus validates what a status update stores against the
	// stored object; nil without a status subresource.
	checkStatus func(o, old api.Object) apierrors.FieldErrors
}

// validateContent appends to errs the schema's errors for u's content and,
// when the schema has CEL rules and nothing blocks them, the rules' errors
// (old is the stored object on update, else nil). Kubernetes: the custom
// resource strategy's Validate and ValidateUpdate.
func validateContent(errs apierrors.FieldErrors, u, old *api.Unstructured, root *schema.Schema, rules *celrules.Validator) apierrors.FieldErrors {
	errs = append(errs, schema.Validate(u.Content, root)...)
	if rules == nil {
		return errs
	}
	if blocksRules(errs) {
		return append(errs, apierrors.FieldError{Type: api.CauseTypeFieldValueInvalid, Field: "<nil>",
			Detail: "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation"})
	}
	var oldView map[string]any
	if old != nil {
		oldView = ruleView(old)
	}
	return append(errs, rules.Validate(ruleView(u), oldView)...)
}

// blocksRules reports whether errs hold an error that keeps the CEL rules
// from running: a wrong type, a missing field, an unsupported value, one
// too long or too many. Kubernetes: hasBlockingErr.
func blocksRules(errs apierrors.FieldErrors) bool {
	for _, e := range errs {
		switch e.Type {
		case api.CauseTypeFieldValueNotSupported, api.CauseTypeFieldValueRequired, api.CauseTypeFieldValueTooLong, api.CauseTypeFieldValueTooMany:
			return true
		case api.CauseTypeFieldValueInvalid:
			if strings.Contains(e.Detail, " must be of type ") {
				return true // kube-openapi's type errors are TypeInvalid
			}
		}
	}
	return false
}

// ruleView is the object a rule's self sees at the root: the content with
// apiVersion, kind and metadata's name and generateName. The content's
// values are shared, never changed.
func ruleView(u *api.Unstructured) map[string]any {
	v := make(map[string]any, len(u.Content)+3)
	for k, e := range u.Content {
		v[k] = e
	}
	v["apiVersion"] = u.APIVersion
	v["kind"] = u.Kind
	v["metadata"] = map[string]any{"name": u.Metadata.Name, "generateName": u.Metadata.GenerateName}
	return v
}

func scalarString(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(v)
	}
	return fmt.Sprint(v)
}

// unstructuredStatus is statusOf for custom resources: the status is the
// top-level "status" field.
func unstructuredStatus() *statusHooks {
	with := func(old, in api.Object, deep bool) api.Object {
		n := *old.(*api.Unstructured)
		n.Content = maps.Clone(n.Content)
		if n.Content == nil {
			n.Content = api.JSONObject{}
		}
		st, ok := in.(*api.Unstructured).Content["status"]
		switch {
		case !ok:
			delete(n.Content, "status")
		case deep:
			n.Content["status"] = api.DeepCopyJSONValue(st)
		default:
			n.Content["status"] = st
		}
		return &n
	}
	return &statusHooks{
		with: func(old, in api.Object) api.Object { return with(old, in, true) },
		take: func(old, in api.Object) api.Object { return with(old, in, false) },
		same: func(a, b api.Object) bool {
			return reflect.DeepEqual(a.(*api.Unstructured).Content["status"], b.(*api.Unstructured).Content["status"])
		},
		reset: func(obj api.Object) { delete(obj.(*api.Unstructured).Content, "status") },
		keep: func(dst, src api.Object) {
			d := dst.(*api.Unstructured)
			st, ok := src.(*api.Unstructured).Content["status"]
			if !ok {
				delete(d.Content, "status")
				return
			}
			if d.Content == nil {
				d.Content = api.JSONObject{}
			}
			d.Content["status"] = st // src is stored and never changed: sharing is safe
		},
	}
}

// unstructuredScale serves /scale over the paths the definition names.
func unstructuredScale(sc *api.CustomResourceSubresourceScale) *scaleHooks {
	specSteps := schema.Steps(sc.SpecReplicasPath)
	return &scaleHooks{
		replicas: func(o api.Object) *int32 {
			v, ok := schema.Lookup(o.(*api.Unstructured).Content, sc.SpecReplicasPath)
			if !ok {
				return nil
			}
			n, ok := v.(int64)
			if !ok {
				return nil
			}
			r := int32(n)
			return &r
		},
		set: func(o api.Object, n int32) {
			u := o.(*api.Unstructured)
			if c, ok := schema.Set(u.Content, specSteps, int64(n)); ok {
				u.Content = c
			}
		},
		status: func(o api.Object) (int32, string) {
			u := o.(*api.Unstructured)
			var replicas int32
			if v, ok := schema.Lookup(u.Content, sc.StatusReplicasPath); ok {
				if n, ok := v.(int64); ok {
					replicas = int32(n)
				}
			}
			selector := ""
			if sc.LabelSelectorPath != nil {
				if v, ok := schema.Lookup(u.Content, *sc.LabelSelectorPath); ok {
					selector, _ = v.(string)
				}
			}
			return replicas, selector
		},
	}
}

// customColumns are the table columns of a custom kind: Name, the
// definition's printer columns, Age — or Name and Age alone.
func customColumns(v *api.CustomResourceDefinitionVersion) []Column {
	if len(v.AdditionalPrinterColumns) == 0 {
		return []Column{nameColumn, ageColumn}
	}
	cols := []Column{nameColumn}
	for _, c := range v.AdditionalPrinterColumns {
		path := c.JSONPath
		typ := c.Type
		cols = append(cols, Column{
			Name: c.Name, Type: typ, Description: c.Description, Priority: int(c.Priority),
			Cell: func(o api.Object) any { return customCell(o.(*api.Unstructured), path, typ) },
		})
	}
	return cols
}

// customCell is one printer column's value of u: the value at path, a date
// column's as an api.Time (the table prints its age), nil when missing.
func customCell(u *api.Unstructured, path, typ string) any {
	var v any
	var ok bool
	if rest, isMeta := strings.CutPrefix(path, ".metadata."); isMeta {
		switch rest {
		case "creationTimestamp":
			v, ok = u.Metadata.CreationTimestamp, true
		case "name":
			v, ok = u.Metadata.Name, true
		case "namespace":
			v, ok = u.Metadata.Namespace, true
		case "generation":
			v, ok = u.Metadata.Generation, true
		}
	} else {
		v, ok = schema.Lookup(u.Content, path)
	}
	if !ok {
		return nil
	}
	if typ == "date" {
		if t, isTime := v.(api.Time); isTime {
			return t
		}
		if str, isStr := v.(string); isStr {
			var t api.Time
			if err := t.UnmarshalJSON([]byte(strconv.Quote(str))); err == nil {
				return t
			}
		}
	}
	return v
}

// simpleJSONPath is schema.Steps, for the definition's validation.
func simpleJSONPath(path string) []string { return schema.Steps(path) }

func compilePattern(p string) (*regexp.Regexp, error) { return regexp.Compile(p) }

// UnknownFields returns the fields of a custom resource that its schema
// would prune, for the HTTP front's fieldValidation; nil for any other
// object.
func (s *Server) UnknownFields(obj api.Object) []string {
	u, ok := obj.(*api.Unstructured)
	if !ok {
		return nil
	}
	c := s.custom.Load()
	if c == nil {
		return nil
	}
	k := c.byType[u.TypeMeta]
	if k == nil {
		return nil
	}
	return schema.UnknownFields(u.Content, k.custom.compiled)
}

var _ = context.Background
var _ = client.Pods
