package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"mime"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/apiserver/patch"
	"github.com/miniplane/miniplane/client"
)

// The PATCH content types (Kubernetes' types.PatchType).
const (
	jsonPatchType           = patch.JSONPatchType
	mergePatchType          = patch.MergePatchType
	strategicMergePatchType = patch.StrategicMergePatchType
	applyPatchType          = patch.ApplyPatchType
)

// maxPatchAttempts is how many times a PATCH without a resourceVersion
// precondition re-reads and re-applies after losing a race, as
// kube-apiserver retries its patches.
const maxPatchAttempts = 5

// servePatch answers a PATCH of an object, its status or its scale: read
// the stored object, apply the patch to its JSON, decode the result as the
// kind, and write it back through the Server's update (so validation,
// defaulting and conflicts are the ones every update gets), conditionally
// on the resourceVersion read. A patch that loses a race is applied again
// to the new state, unless the patch itself named a resourceVersion.
// Server-side apply (application/apply-patch+yaml) creates the object when
// it is missing; every other patch of a missing object is NotFound.
func (h *Handler) servePatch(w http.ResponseWriter, r *http.Request, req resourceRequest) error {
	q := queryOf(r)
	ct := r.Header.Get("Content-Type")
	patchType, _, _ := mime.ParseMediaType(ct)
	switch patchType {
	case jsonPatchType, mergePatchType, strategicMergePatchType, applyPatchType:
	default:
		return apierrors.NewUnsupportedMediaType(fmt.Sprintf("the patch content type %q is not supported: use %s, %s, %s or %s",
			ct, jsonPatchType, mergePatchType, strategicMergePatchType, applyPatchType))
	}
	out, err := negotiate(r, false)
	if err != nil {
		return err
	}
	dry, err := dryRunOf(q)
	if err != nil {
		return err
	}
	opts := client.WriteOptions{DryRun: dry}
	force, err := boolParam(q, "force")
	if err != nil {
		return err
	}
	manager := managerOf(r)
	if patchType == applyPatchType && q.Get("fieldManager") == "" {
		return apierrors.NewInvalid("meta.k8s.io", "PatchOptions", "", apierrors.FieldErrors{
			apiserver.Required(apiserver.NewPath("fieldManager"), "is required for apply requests"),
		})
	}
	if patchType != applyPatchType && q.Has("force") {
		return apierrors.NewInvalid("meta.k8s.io", "PatchOptions", "", apierrors.FieldErrors{
			apiserver.Forbidden(apiserver.NewPath("force"), "may not be specified for non-apply patch"),
		})
	}
	body, err := readBody(r)
	if err != nil {
		return err
	}
	if patchType == applyPatchType && req.info.Schema != nil {
		if body, err = h.customApplyBody(w, q, req.info, body); err != nil {
			return err
		}
	}
	// Each attempt decodes the object it writes afresh, for that write
	// alone: the server may keep it rather than copy it.
	opts.Handover = true
	p := patchRequest{h: h, w: w, req: req, q: q, patchType: patchType, body: body, manager: manager, force: force, opts: opts}
	for attempt := 1; ; attempt++ {
		code, result, err := p.try(r)
		if err == nil {
			if sc, ok := result.(*api.Scale); ok {
				writeValue(w, code, out.format, scaleAPIVersion, scaleKind, sc)
				return nil
			}
			return p.h.writeObject(w, code, out, req.info, result.(api.Object))
		}
		lostRace := apierrors.IsConflict(err) && !apierrors.HasStatusCause(err, patch.CauseTypeFieldManagerConflict)
		if !lostRace || p.precondition || attempt == maxPatchAttempts {
			return err
		}
	}
}

// patchRequest is one PATCH being served.
type patchRequest struct {
	h         *Handler
	w         http.ResponseWriter
	req       resourceRequest
	q         url.Values
	patchType string
	body      []byte
	manager   string
	force     bool
	opts      client.WriteOptions

	// precondition is set once a patch result carries a resourceVersion
	// other than the one read: the client's own precondition, which a
	// retry must not override.
	precondition bool
}

// try reads, patches and writes once; a Conflict may be retried.
func (p *patchRequest) try(r *http.Request) (int, any, error) {
	ctx := r.Context()
	req := p.req
	if req.sub == "scale" {
		cur, err := p.h.srv.GetScale(ctx, req.info.GroupResource().String(), req.namespace, req.name)
		if err != nil {
			return 0, nil, err
		}
		var sc api.Scale
		if err := p.patchInto(cur, scaleKind, &sc, scaleKind, scaleAPIVersion); err != nil {
			return 0, nil, err
		}
		if err := checkObjectPath(&sc.Metadata, req.info, req.namespace, req.name); err != nil {
			return 0, nil, err
		}
		p.precondition = sc.Metadata.ResourceVersion != cur.Metadata.ResourceVersion
		opts := p.opts
		if p.manager != "" {
			rc, err := p.h.srv.Get(ctx, req.info.Name(), req.namespace, req.name, client.GetOptions{})
			if err != nil {
				return 0, nil, err
			}
			if opts.ManagedFields, err = p.h.trackSubresource(req.info, "scale", rc, withReplicas(rc, sc.Spec.Replicas), p.manager); err != nil {
				return 0, nil, err
			}
		}
		out, err := p.h.srv.UpdateScale(ctx, req.info.GroupResource().String(), req.namespace, &sc, opts)
		return http.StatusOK, out, err
	}

	cur, err := p.h.srv.Get(ctx, req.info.Name(), req.namespace, req.name, client.GetOptions{})
	if apierrors.IsNotFound(err) && p.patchType == applyPatchType && req.sub == "" {
		return p.applyCreate(r)
	}
	if err != nil {
		return 0, nil, err
	}
	obj := req.info.New()
	if err := p.patchInto(withTypeMeta(req.info, cur), req.info.Kind, obj, req.info.Kind, req.info.APIVersion()); err != nil {
		return 0, nil, err
	}
	m := obj.GetObjectMeta()
	if err := checkObjectPath(m, req.info, req.namespace, req.name); err != nil {
		return 0, nil, err
	}
	curRV := cur.GetObjectMeta().ResourceVersion
	if m.ResourceVersion == "" {
		m.ResourceVersion = curRV
	}
	p.precondition = m.ResourceVersion != curRV
	var out api.Object
	if req.sub == "status" || req.sub == "approval" || req.sub == "ephemeralcontainers" {
		opts := p.opts
		if opts.ManagedFields, err = p.h.trackSubresource(req.info, req.sub, cur, withSubresourceOf(req.sub, cur, obj), p.manager); err != nil {
			return 0, nil, err
		}
		out, err = p.h.updateStatus(ctx, req.sub, obj, opts)
	} else {
		if p.patchType != applyPatchType {
			if obj, err = p.h.trackUpdate(req.info, cur, obj, p.manager); err != nil {
				return 0, nil, err
			}
		}
		if err = p.h.checkEscalation(r, obj, cur); err == nil {
			out, err = p.h.srv.Update(ctx, obj, p.opts)
		}
	}
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, withTypeMeta(req.info, out), nil
}

// applyCreate is server-side apply of an object that does not exist: the
// applied configuration becomes a new object.
func (p *patchRequest) applyCreate(r *http.Request) (int, any, error) {
	req := p.req
	created, err := p.serverSideApply(req.info.Kind, nil)
	if err != nil {
		return 0, nil, patchStatus(err, req.info, req.name)
	}
	obj := req.info.New()
	if err := p.h.decodeInto(p.w, p.q, created, obj, req.info.Kind, req.info.APIVersion()); err != nil {
		return 0, nil, err
	}
	if err := checkObjectPath(obj.GetObjectMeta(), req.info, req.namespace, req.name); err != nil {
		return 0, nil, err
	}
	if err := p.h.checkEscalation(r, obj, nil); err != nil {
		return 0, nil, err
	}
	out, err := p.h.srv.Create(r.Context(), obj, p.opts)
	if apierrors.IsAlreadyExists(err) {
		// Created by someone else meanwhile: apply to it instead.
		return 0, nil, apierrors.NewConflict(req.info.GroupResource(), req.name, apierrors.ConflictModified)
	}
	if err != nil {
		return 0, nil, err
	}
	p.h.warnIdle(p.w, req.info)
	return http.StatusCreated, withTypeMeta(req.info, out), nil
}

// serverSideApply applies the request's configuration to live, an object
// of kind in JSON (nil to create one); a custom resource merges by its
// schema's list types.
func (p *patchRequest) serverSideApply(kind string, live []byte) ([]byte, error) {
	if info := p.req.info; info.Schema != nil && kind == info.Kind {
		c := patch.Custom{Schema: info.Schema, HasStatus: info.HasStatus}
		return patch.ServerSideApplyCustom(c, kind, live, p.body, p.manager, p.force, p.h.clock.Now())
	}
	return patch.ServerSideApply(kind, live, p.body, p.manager, p.force, p.h.clock.Now())
}

// patchInto applies the request's patch to cur's JSON and decodes the
// result into into, which must keep the kind and apiVersion.
func (p *patchRequest) patchInto(cur any, kind string, into any, wantKind, wantAPIVersion string) error {
	orig, err := json.Marshal(cur)
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	var patched []byte
	if p.patchType == applyPatchType {
		patched, err = p.serverSideApply(kind, orig)
	} else {
		patched, err = patch.Apply(p.patchType, kind, orig, p.body)
	}
	if err != nil {
		return patchStatus(err, p.req.info, p.req.name)
	}
	return p.h.decodeInto(p.w, p.q, patched, into, wantKind, wantAPIVersion)
}

// patchStatus turns the patch package's errors into the Status a client
// gets (each carries its own, in kube-apiserver's words: 400 for a
// malformed patch, 422 for one that cannot apply, 415 for an unknown type,
// 409 with a FieldManagerConflict cause per field for a conflicting
// apply), naming the object.
func patchStatus(err error, info apiserver.ResourceInfo, name string) error {
	var pe *patch.Error
	var pc *patch.Conflict
	var st api.Status
	switch {
	case errors.As(err, &pe):
		st = pe.Status()
	case errors.As(err, &pc):
		st = pc.Status()
	default:
		return err
	}
	if st.Details == nil {
		st.Details = &api.StatusDetails{}
	}
	st.Details.Name, st.Details.Group, st.Details.Kind = name, info.Group, info.Resource
	return &apierrors.StatusError{Status: st}
}

// customApplyBody is a server-side apply body for a custom resource as
// kube-apiserver reads one: YAML made JSON, a key set twice and a field
// the schema does not declare refused under fieldValidation=Strict (in the
// words of sigs.k8s.io/yaml and structured-merge-diff) and warned of under
// Warn.
func (h *Handler) customApplyBody(w http.ResponseWriter, q url.Values, info apiserver.ResourceInfo, body []byte) ([]byte, error) {
	validation := q.Get("fieldValidation")
	if trimmed := bytes.TrimSpace(body); len(trimmed) > 0 && trimmed[0] != '{' {
		js, dups, err := patch.YAMLToJSON(body)
		if err != nil {
			return nil, apierrors.NewBadRequest("error converting YAML to JSON: " + err.Error())
		}
		if len(dups) > 0 {
			switch validation {
			case "Strict":
				return nil, apierrors.NewBadRequest("error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  " + strings.Join(dups, "\n  "))
			case "", "Warn":
				for _, d := range dups {
					addWarning(w, d)
				}
			}
		}
		body = js
	}
	if validation != "Strict" && validation != "Warn" {
		return body, nil
	}
	var raw map[string]any
	var obj api.Unstructured
	if json.Unmarshal(body, &raw) != nil || json.Unmarshal(body, &obj) != nil {
		return body, nil // the apply itself says what is wrong
	}
	var unknown []string
	if meta, ok := raw["metadata"].(map[string]any); ok {
		for _, k := range slices.Sorted(maps.Keys(meta)) {
			if !isObjectMetaField(k) {
				unknown = append(unknown, "metadata."+k)
			}
		}
	}
	unknown = append(unknown, h.srv.UnknownFields(&obj)...)
	if len(unknown) == 0 {
		return body, nil
	}
	msgs := make([]string, len(unknown))
	for i, f := range unknown {
		msgs[i] = "." + f + ": field not declared in schema"
	}
	if validation == "Warn" {
		for _, m := range msgs {
			addWarning(w, m)
		}
		return body, nil
	}
	return nil, apierrors.NewBadRequest(fmt.Sprintf("failed to create typed patch object (%s, Kind=%s): %s",
		info.APIVersion(), info.Kind, strings.Join(msgs, "\n")))
}

// isObjectMetaField reports whether name is the JSON name of one of
// ObjectMeta's fields.
func isObjectMetaField(name string) bool {
	t := reflect.TypeFor[api.ObjectMeta]()
	for i := range t.NumField() {
		if n, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); n == name {
			return true
		}
	}
	return false
}
