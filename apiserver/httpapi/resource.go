package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/api/protobuf"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
)

// serveResource answers a request on a resource path.
func (h *Handler) serveResource(w http.ResponseWriter, r *http.Request, req resourceRequest) {
	if req.info.JSONOnly {
		var err error
		if r, err = jsonOnly(r); err != nil {
			writeError(w, err)
			return
		}
	}
	var err error
	switch req.sub {
	case "":
		err = h.serveMain(w, r, req)
	case "status", "approval", "ephemeralcontainers":
		err = h.serveStatus(w, r, req)
	case "scale":
		err = h.serveScale(w, r, req)
	case "binding":
		err = h.serveBinding(w, r, req)
	case "eviction":
		err = h.serveEviction(w, r, req)
	case "log":
		err = h.serveLog(w, r, req)
	case "finalize":
		err = h.serveFinalize(w, r, req)
	case "exec":
		err = h.serveExec(w, r, req)
	case "attach", "portforward", "proxy":
		err = h.serveConnect(w, r, req)
	}
	if err != nil {
		writeError(w, err)
	}
}

// jsonOnly prepares a request on a resource served in JSON only (custom
// resources, as kube-apiserver serves them; their definitions are served in
// protobuf too): a protobuf body is refused with 415, and an Accept that
// prefers protobuf is answered in JSON, as client-go then expects.
func jsonOnly(r *http.Request) (*http.Request, error) {
	if f, err := bodyFormat(r); err == nil && f == formatProtobuf && r.ContentLength != 0 {
		return nil, apierrors.NewUnsupportedMediaType("the body of the request was in an unknown format - accepted media types include: application/json, application/merge-patch+json, application/json-patch+json")
	}
	accept := r.Header.Get("Accept")
	if !strings.Contains(accept, protobuf.MediaType) {
		return r, nil
	}
	r = r.Clone(r.Context())
	r.Header.Set("Accept", strings.ReplaceAll(accept, protobuf.MediaType, "application/json"))
	return r, nil
}

func (h *Handler) serveMain(w http.ResponseWriter, r *http.Request, req resourceRequest) error {
	ctx := r.Context()
	q := queryOf(r)
	switch req.verb {
	case "get":
		out, err := negotiate(r, false)
		if err != nil {
			return err
		}
		obj, err := h.srv.Get(ctx, req.info.Name(), req.namespace, req.name, client.GetOptions{ResourceVersion: q.Get("resourceVersion")})
		if err != nil {
			return err
		}
		return h.writeObject(w, http.StatusOK, out, req.info, obj)
	case "list":
		out, err := negotiate(r, true)
		if err != nil {
			return err
		}
		opts, err := listOptionsOf(q)
		if err != nil {
			return err
		}
		l, err := h.srv.List(ctx, req.info.Name(), req.namespace, opts)
		if err != nil {
			return err
		}
		return h.writeList(w, out, req.info, l)
	case "watch":
		return h.serveWatch(w, r, req)
	case "create":
		if req.info.Namespaced && req.namespace == "" {
			return apierrors.NewMethodNotSupported(req.info.GroupResource(), "create across namespaces (post to /namespaces/{namespace}/"+req.info.Resource+")")
		}
		out, err := negotiate(r, false)
		if err != nil {
			return err
		}
		obj, opts, err := h.decodeObject(w, r, req)
		if err != nil {
			return err
		}
		if obj, err = h.trackUpdate(req.info, nil, obj, managerOf(r)); err != nil {
			return err
		}
		if err := h.checkEscalation(r, obj, nil); err != nil {
			return err
		}
		created, err := h.srv.Create(ctx, obj, opts)
		if err != nil {
			return err
		}
		h.warnIdle(w, req.info)
		return h.writeWritten(w, http.StatusCreated, out, req.info, created)
	case "update":
		out, err := negotiate(r, false)
		if err != nil {
			return err
		}
		obj, opts, err := h.decodeObject(w, r, req)
		if err != nil {
			return err
		}
		if manager := managerOf(r); manager != "" {
			old, err := h.srv.Get(ctx, req.info.Name(), req.namespace, req.name, client.GetOptions{})
			if err != nil {
				return err
			}
			if obj, err = h.trackUpdate(req.info, old, obj, manager); err != nil {
				return err
			}
		}
		if req.info.Group == rbacGroup && h.authz != nil {
			old, err := h.srv.Get(ctx, req.info.Name(), req.namespace, req.name, client.GetOptions{})
			if err != nil && !apierrors.IsNotFound(err) {
				return err
			}
			if err := h.checkEscalation(r, obj, old); err != nil {
				return err
			}
		}
		updated, err := h.srv.Update(ctx, obj, opts)
		if err != nil {
			return err
		}
		return h.writeWritten(w, http.StatusOK, out, req.info, updated)
	case "patch":
		return h.servePatch(w, r, req)
	case "delete":
		out, err := negotiate(r, false)
		if err != nil {
			return err
		}
		opts, err := h.deleteOptionsOf(w, r)
		if err != nil {
			return err
		}
		obj, err := h.srv.Delete(ctx, req.info.Name(), req.namespace, req.name, opts)
		if err != nil {
			return err
		}
		code := http.StatusOK
		if obj.GetObjectMeta().DeletionTimestamp != nil {
			code = http.StatusAccepted // marked for deletion: it is still there
		}
		return h.writeObject(w, code, out, req.info, obj)
	case "deletecollection":
		out, err := negotiate(r, true)
		if err != nil {
			return err
		}
		opts, err := h.deleteOptionsOf(w, r)
		if err != nil {
			return err
		}
		listOpts, err := listOptionsOf(q)
		if err != nil {
			return err
		}
		l, err := h.srv.DeleteCollection(ctx, req.info.Name(), req.namespace, listOpts, opts)
		if err != nil {
			return err
		}
		return h.writeList(w, out, req.info, l)
	}
	return apierrors.NewMethodNotSupported(req.info.GroupResource(), req.verb)
}

// decodeObject reads the body of a create or update of the path's
// resource, checks it against the path, and reads dryRun.
func (h *Handler) decodeObject(w http.ResponseWriter, r *http.Request, req resourceRequest) (api.Object, client.WriteOptions, error) {
	var opts client.WriteOptions
	q := queryOf(r)
	dry, err := dryRunOf(q)
	if err != nil {
		return nil, opts, err
	}
	opts.DryRun = dry
	obj := req.info.New()
	if err := h.decodeRequest(w, r, obj, req.info.Kind, req.info.APIVersion()); err != nil {
		return nil, opts, err
	}
	if err := checkObjectPath(obj.GetObjectMeta(), req.info, req.namespace, req.name); err != nil {
		return nil, opts, err
	}
	// obj was decoded for this request alone (the decoders copy every
	// string and byte slice out of the body): the server may keep it
	// rather than copy it.
	opts.Handover = true
	return obj, opts, nil
}

// serveStatus answers the status subresource, a
// CertificateSigningRequest's approval subresource and a pod's
// ephemeralcontainers subresource, which read and write the same object:
// GET, PUT, PATCH.
func (h *Handler) serveStatus(w http.ResponseWriter, r *http.Request, req resourceRequest) error {
	ctx := r.Context()
	out, err := negotiate(r, false)
	if err != nil {
		return err
	}
	switch req.verb {
	case "get":
		obj, err := h.srv.Get(ctx, req.info.Name(), req.namespace, req.name, client.GetOptions{})
		if err != nil {
			return err
		}
		return h.writeObject(w, http.StatusOK, out, req.info, obj)
	case "update":
		obj, opts, err := h.decodeObject(w, r, req)
		if err != nil {
			return err
		}
		if manager := managerOf(r); manager != "" {
			cur, err := h.srv.Get(ctx, req.info.Name(), req.namespace, req.name, client.GetOptions{})
			if err != nil {
				return err
			}
			if opts.ManagedFields, err = h.trackSubresource(req.info, req.sub, cur, withSubresourceOf(req.sub, cur, obj), manager); err != nil {
				return err
			}
		}
		updated, err := h.updateStatus(ctx, req.sub, obj, opts)
		if err != nil {
			return err
		}
		return h.writeObject(w, http.StatusOK, out, req.info, updated)
	default: // patch (checkVerb allows nothing else)
		return h.servePatch(w, r, req)
	}
}

// updateStatus writes obj through sub, "status", "approval" or
// "ephemeralcontainers".
func (h *Handler) updateStatus(ctx context.Context, sub string, obj api.Object, opts client.WriteOption) (api.Object, error) {
	switch sub {
	case "approval":
		return h.srv.UpdateApproval(ctx, obj, opts)
	case "ephemeralcontainers":
		return h.srv.UpdateEphemeralContainers(ctx, obj, opts)
	}
	return h.srv.UpdateStatus(ctx, obj, opts)
}

// serveFinalize answers PUT on a namespace's finalize subresource, the
// one write that changes its spec.finalizers.
func (h *Handler) serveFinalize(w http.ResponseWriter, r *http.Request, req resourceRequest) error {
	out, err := negotiate(r, false)
	if err != nil {
		return err
	}
	obj, opts, err := h.decodeObject(w, r, req)
	if err != nil {
		return err
	}
	ns, ok := obj.(*api.Namespace)
	if !ok {
		return apierrors.NewBadRequest("the body of a finalize request must be a Namespace")
	}
	updated, err := h.srv.FinalizeNamespace(r.Context(), ns, opts)
	if err != nil {
		return err
	}
	return h.writeObject(w, http.StatusOK, out, req.info, updated)
}

// scaleKind and scaleAPIVersion are the scale subresource's kind.
const (
	scaleKind       = "Scale"
	scaleAPIVersion = "autoscaling/v1"
)

// serveScale answers the scale subresource with autoscaling/v1 Scale:
// GET, PUT, PATCH. kubectl scale needs a Scale back, not the controller.
func (h *Handler) serveScale(w http.ResponseWriter, r *http.Request, req resourceRequest) error {
	ctx := r.Context()
	out, err := negotiate(r, false)
	if err != nil {
		return err
	}
	switch req.verb {
	case "get":
		sc, err := h.srv.GetScale(ctx, req.info.GroupResource().String(), req.namespace, req.name)
		if err != nil {
			return err
		}
		writeValue(w, http.StatusOK, out.format, scaleAPIVersion, scaleKind, sc)
		return nil
	case "update":
		q := queryOf(r)
		dry, err := dryRunOf(q)
		if err != nil {
			return err
		}
		var sc api.Scale
		if err := h.decodeRequest(w, r, &sc, scaleKind, scaleAPIVersion); err != nil {
			return err
		}
		if err := checkObjectPath(&sc.Metadata, req.info, req.namespace, req.name); err != nil {
			return err
		}
		opts := client.WriteOptions{DryRun: dry}
		if manager := managerOf(r); manager != "" {
			cur, err := h.srv.Get(ctx, req.info.Name(), req.namespace, req.name, client.GetOptions{})
			if err != nil {
				return err
			}
			if opts.ManagedFields, err = h.trackSubresource(req.info, "scale", cur, withReplicas(cur, sc.Spec.Replicas), manager); err != nil {
				return err
			}
		}
		updated, err := h.srv.UpdateScale(ctx, req.info.GroupResource().String(), req.namespace, &sc, opts)
		if err != nil {
			return err
		}
		writeValue(w, http.StatusOK, out.format, scaleAPIVersion, scaleKind, updated)
		return nil
	default:
		return h.servePatch(w, r, req)
	}
}

// serveBinding binds a pod to a node, as the scheduler does.
func (h *Handler) serveBinding(w http.ResponseWriter, r *http.Request, req resourceRequest) error {
	q := queryOf(r)
	out, err := negotiate(r, false)
	if err != nil {
		return err
	}
	var b api.Binding
	if err := h.decodeRequest(w, r, &b, "Binding", "v1"); err != nil {
		return err
	}
	if err := checkObjectPath(&b.Metadata, req.info, req.namespace, req.name); err != nil {
		return err
	}
	if dry, err := dryRunOf(q); err != nil || dry {
		if err != nil {
			return err
		}
		_, err := h.srv.Get(r.Context(), req.info.Name(), req.namespace, req.name, client.GetOptions{})
		if err != nil {
			return err
		}
		writeStatus(w, http.StatusCreated, out.format, successStatus())
		return nil
	}
	if _, err := h.srv.Bind(r.Context(), req.namespace, req.name, b.Target.Name); err != nil {
		return err
	}
	writeStatus(w, http.StatusCreated, out.format, successStatus())
	return nil
}

// The eviction subresource's kind.
const (
	evictionKind       = "Eviction"
	evictionAPIVersion = "policy/v1"
)

// serveEviction evicts a pod, as kubectl drain asks with a POST of a
// policy/v1 Eviction naming the pod, and answers 201 with a Success Status,
// as kube-apiserver does. The dryRun query parameter joins the eviction's
// DeleteOptions (whose dryRun, as everywhere, may only be "All"). miniplane serves
// no PodDisruptionBudgets, so no eviction is refused for one (see
// apiserver.Server.Evict); the Status says so.
func (h *Handler) serveEviction(w http.ResponseWriter, r *http.Request, req resourceRequest) error {
	q := queryOf(r)
	out, err := negotiate(r, false)
	if err != nil {
		return err
	}
	var ev api.Eviction
	if err := h.decodeRequest(w, r, &ev, evictionKind, evictionAPIVersion); err != nil {
		return err
	}
	if err := checkObjectPath(&ev.Metadata, req.info, req.namespace, ""); err != nil {
		return err
	}
	if ev.Metadata.Name != req.name {
		return apierrors.NewBadRequest("name in URL does not match name in Eviction object") // kube-apiserver's words
	}
	dry, err := dryRunOf(q)
	if err != nil {
		return err
	}
	if ev.DeleteOptions == nil {
		ev.DeleteOptions = &api.DeleteOptions{}
	}
	for _, v := range ev.DeleteOptions.DryRun {
		if v != api.DryRunAll {
			return apierrors.NewBadRequest(fmt.Sprintf("deleteOptions.dryRun %q is not supported: the only value is %q", v, api.DryRunAll))
		}
	}
	if dry {
		ev.DeleteOptions.DryRun = []string{api.DryRunAll} // the same as any the body holds
	}
	if _, err := h.srv.Evict(r.Context(), &ev); err != nil {
		return err
	}
	writeStatus(w, http.StatusCreated, out.format, successStatus()) // kube-apiserver's, without a message
	return nil
}

func successStatus() *api.Status {
	return &api.Status{TypeMeta: api.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: api.StatusSuccess, Code: http.StatusCreated}
}

// writeObject answers with one object, in JSON or protobuf, as itself,
// as its PartialObjectMetadata, or as a one-row Table.
func (h *Handler) writeObject(w http.ResponseWriter, code int, out output, info apiserver.ResourceInfo, obj api.Object) error {
	switch {
	case out.table:
		t, err := h.tableOf(info, []api.Object{obj}, out, api.ListMeta{ResourceVersion: obj.GetObjectMeta().ResourceVersion}, true)
		if err != nil {
			return err
		}
		writeJSON(w, code, t)
	case out.partial:
		p := partialOf(obj, out.partialVersion)
		writeValue(w, code, out.format, p.APIVersion, p.Kind, p)
	case out.format == formatProtobuf: // the envelope names the kind: no TypeMeta needed
		writeValue(w, code, out.format, info.APIVersion(), info.Kind, obj)
	default:
		writeValue(w, code, out.format, info.APIVersion(), info.Kind, withTypeMeta(info, obj))
	}
	return nil
}

// writeWritten is writeObject for the object a create or update stored:
// the watch event of the write carries the same object, so its plain JSON
// or protobuf encoding goes through the encodings the watch streams share,
// and the write and its watchers encode it once between them.
func (h *Handler) writeWritten(w http.ResponseWriter, code int, out output, info apiserver.ResourceInfo, obj api.Object) error {
	tm := obj.GetTypeMeta()
	if out.table || out.partial || (out.format != formatProtobuf && (tm.Kind != info.Kind || tm.APIVersion != info.APIVersion())) {
		return h.writeObject(w, code, out, info, obj)
	}
	b, err := h.encodings.encode(obj, out.format, info.APIVersion(), info.Kind)
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	writeRaw(w, code, out.format.contentType(false), b)
	return nil
}

// withTypeMeta returns obj with its kind and apiVersion set: a dry-run
// create's result, or a shared stored object, may lack them.
func withTypeMeta(info apiserver.ResourceInfo, obj api.Object) api.Object {
	tm := obj.GetTypeMeta()
	if tm.Kind == info.Kind && tm.APIVersion == info.APIVersion() {
		return obj
	}
	c := obj.DeepCopyObject()
	*c.GetTypeMeta() = api.TypeMeta{Kind: info.Kind, APIVersion: info.APIVersion()}
	return c
}

// writeList answers with a list, as XxxList (or PartialObjectMetadataList)
// in JSON or protobuf, or as a Table. The list's items are encoded one by
// one into one buffer.
func (h *Handler) writeList(w http.ResponseWriter, out output, info apiserver.ResourceInfo, l *client.List) error {
	if out.table {
		t, err := h.tableOf(info, l.Items, out, l.Metadata, true)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, t)
		return nil
	}
	apiVersion, kind := info.APIVersion(), info.Kind+"List"
	if info.ListKind != "" {
		kind = info.ListKind
	}
	if out.partial {
		apiVersion, kind = partialAPIVersion(out.partialVersion), "PartialObjectMetadataList"
	}
	var b []byte
	var err error
	if out.format == formatProtobuf {
		b, err = appendProtobufList(nil, apiVersion, kind, &l.Metadata, l.Items, out.partial)
	} else {
		b, err = appendJSONList(nil, apiVersion, kind, info, &l.Metadata, l.Items, out)
	}
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	writeRaw(w, http.StatusOK, out.format.contentType(false), b)
	return nil
}

// appendJSONList appends a list's JSON: its kind, metadata and items, each
// item as itself or as its PartialObjectMetadata.
func appendJSONList(b []byte, apiVersion, kind string, info apiserver.ResourceInfo, meta *api.ListMeta, items []api.Object, out output) ([]byte, error) {
	m, err := json.Marshal(meta)
	if err != nil {
		return nil, err
	}
	buf := bytes.NewBuffer(b)
	fmt.Fprintf(buf, `{"kind":%q,"apiVersion":%q,"metadata":%s,"items":[`, kind, apiVersion, m)
	enc := json.NewEncoder(buf)
	for i, item := range items {
		if i > 0 {
			buf.WriteByte(',')
		}
		var v any = withTypeMeta(info, item)
		if out.partial {
			v = partialOf(item, out.partialVersion)
		}
		if err := enc.Encode(v); err != nil {
			return nil, err
		}
		buf.Truncate(buf.Len() - 1) // Encode's newline
	}
	buf.WriteString("]}")
	return buf.Bytes(), nil
}

// appendProtobufList appends a list in protobuf: the envelope naming kind,
// around the list's message {metadata = 1 (ListMeta); repeated items = 2},
// each item a bare message (list items carry no envelope) of the object or
// of its PartialObjectMetadata {metadata = 1}. Every XxxList of k8s.io/api
// has these two field numbers.
func appendProtobufList(b []byte, apiVersion, kind string, meta *api.ListMeta, items []api.Object, partial bool) ([]byte, error) {
	raw := protowire.AppendTag(nil, 1, protowire.BytesType)
	m, err := protobuf.Marshal(meta)
	if err != nil {
		return nil, err
	}
	raw = protowire.AppendBytes(raw, m)
	var item, itemMeta []byte
	for i, obj := range items {
		if partial {
			if itemMeta, err = protobuf.Append(itemMeta[:0], obj.GetObjectMeta()); err != nil {
				return nil, err
			}
			item = protowire.AppendTag(item[:0], 1, protowire.BytesType)
			item = protowire.AppendBytes(item, itemMeta)
		} else if item, err = protobuf.Append(item[:0], obj); err != nil {
			return nil, err
		}
		if i == 0 {
			raw = slices.Grow(raw, len(items)*(len(item)+4)) // sized by the first item, to grow once
		}
		raw = protowire.AppendTag(raw, 2, protowire.BytesType)
		raw = protowire.AppendBytes(raw, item)
	}
	return protobuf.AppendUnknown(b, protobuf.Unknown{APIVersion: apiVersion, Kind: kind, Raw: raw}), nil
}

// partialObjectMetadata is an object's metadata alone, the answer to
// as=PartialObjectMetadata. Kubernetes: metav1.PartialObjectMetadata.
type partialObjectMetadata struct {
	api.TypeMeta `json:",inline"`
	Metadata     api.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
}

// partialOf returns obj's PartialObjectMetadata in meta.k8s.io version.
// The metadata is shared with the stored object: encode it, do not change it.
func partialOf(obj api.Object, version string) *partialObjectMetadata {
	return &partialObjectMetadata{
		TypeMeta: api.TypeMeta{Kind: "PartialObjectMetadata", APIVersion: partialAPIVersion(version)},
		Metadata: *obj.GetObjectMeta(),
	}
}

func partialAPIVersion(version string) string { return "meta.k8s.io/" + version }
