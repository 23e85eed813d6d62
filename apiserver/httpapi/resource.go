package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver"
)

// serveResource answers a request on a resource path.
func (h *Handler) serveResource(w http.ResponseWriter, r *http.Request, req resourceRequest) {
	var err error
	switch req.sub {
	case "":
		err = h.serveMain(w, r, req)
	case "status":
		err = h.serveStatus(w, r, req)
	case "scale":
		err = h.serveScale(w, r, req)
	case "binding":
		err = h.serveBinding(w, r, req)
	case "log":
		err = h.serveLog(w, r, req)
	case "exec", "attach", "portforward", "proxy":
		err = h.serveConnect(w, r, req)
	}
	if err != nil {
		writeError(w, err)
	}
}

func (h *Handler) serveMain(w http.ResponseWriter, r *http.Request, req resourceRequest) error {
	ctx := r.Context()
	q := r.URL.Query()
	switch req.verb {
	case "get":
		out, err := negotiate(r)
		if err != nil {
			return err
		}
		obj, err := h.srv.Get(ctx, req.info.Resource, req.namespace, req.name, apiserver.GetOptions{ResourceVersion: q.Get("resourceVersion")})
		if err != nil {
			return err
		}
		return h.writeObject(w, http.StatusOK, out, req.info, obj)
	case "list":
		out, err := negotiate(r)
		if err != nil {
			return err
		}
		opts, err := listOptionsOf(q)
		if err != nil {
			return err
		}
		l, err := h.srv.List(ctx, req.info.Resource, req.namespace, opts)
		if err != nil {
			return err
		}
		return h.writeList(w, out, req.info, l)
	case "watch":
		return h.serveWatch(w, r, req)
	case "create":
		if req.info.Namespaced && req.namespace == "" {
			return apiserver.NewMethodNotSupported(req.info.GroupResource(), "create across namespaces (post to /namespaces/{namespace}/"+req.info.Resource+")")
		}
		obj, opts, err := h.decodeObject(w, r, req)
		if err != nil {
			return err
		}
		if obj, err = h.trackUpdate(req.info, nil, obj, managerOf(r)); err != nil {
			return err
		}
		created, err := h.srv.CreateWith(ctx, obj, opts)
		if err != nil {
			return err
		}
		return h.writeObject(w, http.StatusCreated, jsonOutput, req.info, created)
	case "update":
		obj, opts, err := h.decodeObject(w, r, req)
		if err != nil {
			return err
		}
		if manager := managerOf(r); manager != "" {
			old, err := h.srv.Get(ctx, req.info.Resource, req.namespace, req.name, apiserver.GetOptions{})
			if err != nil {
				return err
			}
			if obj, err = h.trackUpdate(req.info, old, obj, manager); err != nil {
				return err
			}
		}
		updated, err := h.srv.UpdateWith(ctx, obj, opts)
		if err != nil {
			return err
		}
		return h.writeObject(w, http.StatusOK, jsonOutput, req.info, updated)
	case "patch":
		return h.servePatch(w, r, req)
	case "delete":
		opts, err := h.deleteOptionsOf(w, r)
		if err != nil {
			return err
		}
		obj, err := h.srv.Delete(ctx, req.info.Resource, req.namespace, req.name, opts)
		if err != nil {
			return err
		}
		code := http.StatusOK
		if obj.GetObjectMeta().DeletionTimestamp != nil {
			code = http.StatusAccepted // marked for deletion: it is still there
		}
		return h.writeObject(w, code, jsonOutput, req.info, obj)
	case "deletecollection":
		opts, err := h.deleteOptionsOf(w, r)
		if err != nil {
			return err
		}
		listOpts, err := listOptionsOf(q)
		if err != nil {
			return err
		}
		l, err := h.srv.DeleteCollection(ctx, req.info.Resource, req.namespace, listOpts, opts)
		if err != nil {
			return err
		}
		return h.writeList(w, jsonOutput, req.info, l)
	}
	return apiserver.NewMethodNotSupported(req.info.GroupResource(), req.verb)
}

// decodeObject reads the body of a create or update of the path's
// resource, checks it against the path, and reads dryRun.
func (h *Handler) decodeObject(w http.ResponseWriter, r *http.Request, req resourceRequest) (api.Object, apiserver.WriteOptions, error) {
	var opts apiserver.WriteOptions
	q := r.URL.Query()
	dry, err := dryRunOf(q)
	if err != nil {
		return nil, opts, err
	}
	opts.DryRun = dry
	if err := requireJSONBody(r); err != nil {
		return nil, opts, err
	}
	body, err := readBody(r)
	if err != nil {
		return nil, opts, err
	}
	obj := req.info.New()
	if err := h.decodeInto(w, q, body, obj, req.info.Kind, req.info.APIVersion()); err != nil {
		return nil, opts, err
	}
	if err := checkObjectPath(obj.GetObjectMeta(), req.info, req.namespace, req.name); err != nil {
		return nil, opts, err
	}
	return obj, opts, nil
}

// serveStatus answers the status subresource: GET, PUT, PATCH.
func (h *Handler) serveStatus(w http.ResponseWriter, r *http.Request, req resourceRequest) error {
	ctx := r.Context()
	switch req.verb {
	case "get":
		obj, err := h.srv.Get(ctx, req.info.Resource, req.namespace, req.name, apiserver.GetOptions{})
		if err != nil {
			return err
		}
		return h.writeObject(w, http.StatusOK, jsonOutput, req.info, obj)
	case "update":
		obj, opts, err := h.decodeObject(w, r, req)
		if err != nil {
			return err
		}
		if manager := managerOf(r); manager != "" {
			cur, err := h.srv.Get(ctx, req.info.Resource, req.namespace, req.name, apiserver.GetOptions{})
			if err != nil {
				return err
			}
			if opts.ManagedFields, err = h.trackSubresource(req.info, "status", cur, withStatusOf(cur, obj), manager); err != nil {
				return err
			}
		}
		updated, err := h.srv.UpdateStatusWith(ctx, obj, opts)
		if err != nil {
			return err
		}
		return h.writeObject(w, http.StatusOK, jsonOutput, req.info, updated)
	default: // patch (checkVerb allows nothing else)
		return h.servePatch(w, r, req)
	}
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
	switch req.verb {
	case "get":
		sc, err := h.srv.GetScale(ctx, req.namespace, req.name)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, sc)
		return nil
	case "update":
		q := r.URL.Query()
		dry, err := dryRunOf(q)
		if err != nil {
			return err
		}
		if err := requireJSONBody(r); err != nil {
			return err
		}
		body, err := readBody(r)
		if err != nil {
			return err
		}
		var sc api.Scale
		if err := h.decodeInto(w, q, body, &sc, scaleKind, scaleAPIVersion); err != nil {
			return err
		}
		if err := checkObjectPath(&sc.Metadata, req.info, req.namespace, req.name); err != nil {
			return err
		}
		opts := apiserver.WriteOptions{DryRun: dry}
		if manager := managerOf(r); manager != "" {
			cur, err := h.srv.Get(ctx, req.info.Resource, req.namespace, req.name, apiserver.GetOptions{})
			if err != nil {
				return err
			}
			if opts.ManagedFields, err = h.trackSubresource(req.info, "scale", cur, withReplicas(cur, sc.Spec.Replicas), manager); err != nil {
				return err
			}
		}
		out, err := h.srv.UpdateScaleWith(ctx, req.namespace, &sc, opts)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, out)
		return nil
	default:
		return h.servePatch(w, r, req)
	}
}

// binding is the body of a POST to pods/{name}/binding. Kubernetes:
// corev1.Binding.
type binding struct {
	api.TypeMeta `json:",inline"`
	Metadata     api.ObjectMeta      `json:"metadata"`
	Target       api.ObjectReference `json:"target"`
}

// serveBinding binds a pod to a node, as the scheduler does.
func (h *Handler) serveBinding(w http.ResponseWriter, r *http.Request, req resourceRequest) error {
	q := r.URL.Query()
	if err := requireJSONBody(r); err != nil {
		return err
	}
	body, err := readBody(r)
	if err != nil {
		return err
	}
	var b binding
	if err := h.decodeInto(w, q, body, &b, "Binding", "v1"); err != nil {
		return err
	}
	if err := checkObjectPath(&b.Metadata, req.info, req.namespace, req.name); err != nil {
		return err
	}
	if dry, err := dryRunOf(q); err != nil || dry {
		if err != nil {
			return err
		}
		_, err := h.srv.Get(r.Context(), req.info.Resource, req.namespace, req.name, apiserver.GetOptions{})
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusCreated, successStatus())
		return nil
	}
	if _, err := h.srv.Bind(r.Context(), req.namespace, req.name, b.Target.Name); err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, successStatus())
	return nil
}

func successStatus() api.Status {
	return api.Status{TypeMeta: api.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: api.StatusSuccess, Code: http.StatusCreated}
}

// writeObject answers with one object, as JSON or as a one-row Table.
func (h *Handler) writeObject(w http.ResponseWriter, code int, out output, info apiserver.ResourceInfo, obj api.Object) error {
	if out.table {
		t, err := h.tableOf(info, []api.Object{obj}, out, api.ListMeta{ResourceVersion: obj.GetObjectMeta().ResourceVersion}, true)
		if err != nil {
			return err
		}
		writeJSON(w, code, t)
		return nil
	}
	writeJSON(w, code, withTypeMeta(info, obj))
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

// writeList answers with a list, as XxxList JSON or as a Table. The list's
// items are encoded one by one into one buffer.
func (h *Handler) writeList(w http.ResponseWriter, out output, info apiserver.ResourceInfo, l *apiserver.List) error {
	if out.table {
		t, err := h.tableOf(info, l.Items, out, l.Metadata, true)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, t)
		return nil
	}
	meta, err := json.Marshal(l.Metadata)
	if err != nil {
		return apiserver.NewInternalError(err)
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"kind":%q,"apiVersion":%q,"metadata":%s,"items":[`, info.Kind+"List", info.APIVersion(), meta)
	enc := json.NewEncoder(&b)
	for i, item := range l.Items {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := enc.Encode(withTypeMeta(info, item)); err != nil {
			return apiserver.NewInternalError(err)
		}
		b.Truncate(b.Len() - 1) // Encode's newline
	}
	b.WriteString("]}")
	writeRaw(w, http.StatusOK, contentTypeJSON, b.Bytes())
	return nil
}
