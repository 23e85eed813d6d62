package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/api/protobuf"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
)

// readBody reads a request body whole; one over MaxBodyBytes gets 413.
func readBody(r *http.Request) ([]byte, error) {
	if r.Body == nil {
		return nil, nil
	}
	var b []byte
	var err error
	if n := r.ContentLength; n > 0 && n <= MaxBodyBytes {
		// The body's length is known: one buffer of it (and room for the
		// read that finds its end) instead of io.ReadAll's growing ones.
		b, err = readAllInto(r.Body, make([]byte, 0, n+1))
	} else {
		b, err = io.ReadAll(r.Body)
	}
	if err == nil {
		return b, nil
	}
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return nil, apierrors.NewRequestEntityTooLarge(fmt.Sprintf("the request body is too large: the limit is %d bytes", MaxBodyBytes))
	default:
		return nil, apierrors.NewBadRequest("reading the request body: " + err.Error())
	}
}

// queryOf is r's query parameters, read only: nil (which reads as empty)
// when there are none, as on client-go's creates and updates, instead of
// the empty map r.URL.Query() makes on each of the several calls a
// request's handling makes.
func queryOf(r *http.Request) url.Values {
	if r.URL.RawQuery == "" {
		return nil
	}
	return r.URL.Query()
}

// readAllInto is io.ReadAll appending to b, growing it only when it fills.
func readAllInto(r io.Reader, b []byte) ([]byte, error) {
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}

// typeMeta is the kind and apiVersion a body names.
type typeMeta struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
}

// decodeRequest reads a create's or update's body into obj, as decodeBody
// decodes it; a Content-Type this server cannot decode is refused (415)
// before the body is read.
func (h *Handler) decodeRequest(w http.ResponseWriter, r *http.Request, obj any, wantKind, wantAPIVersion string) error {
	if _, err := bodyFormat(r); err != nil {
		return err
	}
	body, err := readBody(r)
	if err != nil {
		return err
	}
	return h.decodeBody(w, r, body, obj, wantKind, wantAPIVersion)
}

// decodeBody decodes a create's or update's body into obj, in the format
// its Content-Type names (415 for one neither JSON nor protobuf), after
// checking that the kind and apiVersion it names (if any) are wantKind and
// wantAPIVersion.
func (h *Handler) decodeBody(w http.ResponseWriter, r *http.Request, body []byte, obj any, wantKind, wantAPIVersion string) error {
	f, err := bodyFormat(r)
	if err != nil {
		return err
	}
	if f == formatProtobuf {
		return h.decodeProtobuf(body, obj, wantKind, wantAPIVersion)
	}
	return h.decodeInto(w, queryOf(r), body, obj, wantKind, wantAPIVersion)
}

// decodeProtobuf decodes a protobuf object body, the magic and a
// runtime.Unknown envelope around the object's message, into obj, after
// checking the kind and apiVersion the envelope names as decodeInto does.
// Fields the message has and obj does not are dropped, as kube-apiserver's
// protobuf decoder drops them (fieldValidation applies to JSON only).
func (h *Handler) decodeProtobuf(body []byte, obj any, wantKind, wantAPIVersion string) error {
	if len(body) == 0 {
		return apierrors.NewBadRequest("the request body is empty: send a protobuf object")
	}
	u, err := protobuf.UnmarshalEnvelope(body)
	if err != nil {
		return apierrors.NewBadRequest("the request body is not a Kubernetes protobuf object: " + err.Error())
	}
	if u.ContentEncoding != "" {
		return apierrors.NewUnsupportedMediaType(fmt.Sprintf("the protobuf envelope's contentEncoding %q is not supported: send the object unencoded", u.ContentEncoding))
	}
	if u.ContentType != "" && u.ContentType != protobuf.MediaType {
		return apierrors.NewUnsupportedMediaType(fmt.Sprintf("the protobuf envelope holds %q: this server takes %s inside it", u.ContentType, protobuf.MediaType))
	}
	if err := h.checkTypeMeta(typeMeta{APIVersion: u.APIVersion, Kind: u.Kind}, wantKind, wantAPIVersion); err != nil {
		return err
	}
	if err := protobuf.Unmarshal(u.Raw, obj); err != nil {
		return apierrors.NewBadRequest("the request body does not decode as " + wantKind + ": " + err.Error())
	}
	if o, ok := obj.(interface{ GetTypeMeta() *api.TypeMeta }); ok {
		*o.GetTypeMeta() = api.TypeMeta{Kind: u.Kind, APIVersion: u.APIVersion}
	}
	return nil
}

// decodeInto decodes a JSON object body into obj after checking that the
// kind and apiVersion it names (if any) are wantKind and wantAPIVersion.
// Unknown fields follow fieldValidation: Strict refuses them (400), Warn
// (the default) and Ignore drop them, Warn with a Warning header.
func (h *Handler) decodeInto(w http.ResponseWriter, q url.Values, body []byte, obj any, wantKind, wantAPIVersion string) error {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		return apierrors.NewBadRequest("the request body is empty: send a JSON object")
	}
	if trimmed[0] != '{' {
		return apierrors.NewBadRequest("the request body is not a JSON object")
	}
	if o, ok := obj.(interface{ GetTypeMeta() *api.TypeMeta }); ok && *o.GetTypeMeta() == (api.TypeMeta{}) && !checksDuplicates(q) {
		if done, err := h.decodeTypedInto(q, trimmed, obj, o.GetTypeMeta(), wantKind, wantAPIVersion); done {
			return err
		}
	}
	var tm typeMeta
	if err := json.Unmarshal(trimmed, &tm); err != nil {
		return apierrors.NewBadRequest("the request body is not valid JSON: " + jsonErrorText(err))
	}
	if err := h.checkTypeMeta(tm, wantKind, wantAPIVersion); err != nil {
		return err
	}
	validation := q.Get("fieldValidation")
	switch validation {
	case "", "Strict", "Warn", "Ignore":
	default:
		return apierrors.NewBadRequest(fmt.Sprintf("fieldValidation %q is not one of Strict, Warn or Ignore", validation))
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.DisallowUnknownFields()
	err := dec.Decode(obj) // trailing data was refused with the type meta above
	_, unknown := unknownField(err)
	if _, custom := obj.(*api.Unstructured); !custom && validation != "Ignore" && (unknown || checksDuplicates(q)) {
		if errs := strictErrors(trimmed, reflect.TypeOf(obj)); len(errs) > 0 {
			if validation == "Strict" {
				return apierrors.NewBadRequest("strict decoding error: " + strings.Join(errs, ", "))
			}
			for _, e := range errs {
				addWarning(w, e)
			}
		}
	}
	if unknown {
		// Decode again from scratch, dropping the unknown fields.
		reflect.ValueOf(obj).Elem().SetZero()
		err = json.Unmarshal(trimmed, obj)
	}
	if err != nil {
		return apierrors.NewBadRequest("the request body does not decode as " + wantKind + ": " + jsonErrorText(err))
	}
	if u, ok := obj.(*api.Unstructured); ok {
		return h.checkUnknownFields(w, validation, u, wantKind, wantAPIVersion)
	}
	return nil
}

// checksDuplicates reports whether a request's body is checked for
// duplicate fields: when its fieldValidation is Strict or Warn, as kubectl
// sends it. kube-apiserver checks every body, Warn being the default; here
// a body with no fieldValidation is walked for strict errors only when it
// has an unknown field, so that the common write decodes in one pass, and
// its duplicates alone go unwarned.
func checksDuplicates(q url.Values) bool {
	v := q.Get("fieldValidation")
	return v == "Strict" || v == "Warn"
}

// checkUnknownFields applies fieldValidation to the fields a custom
// resource's schema does not name, which the server prunes: Strict refuses
// them with kube-apiserver's message, Warn (the default) warns of each,
// Ignore lets them go.
func (h *Handler) checkUnknownFields(w http.ResponseWriter, validation string, u *api.Unstructured, wantKind, wantAPIVersion string) error {
	if u.TypeMeta == (api.TypeMeta{}) {
		u.TypeMeta = api.TypeMeta{Kind: wantKind, APIVersion: wantAPIVersion}
	}
	if validation == "Ignore" {
		return nil
	}
	unknown := h.srv.UnknownFields(u)
	if len(unknown) == 0 {
		return nil
	}
	msgs := make([]string, len(unknown))
	for i, f := range unknown {
		msgs[i] = fmt.Sprintf("unknown field %q", f)
	}
	if validation == "Strict" {
		return apierrors.NewBadRequest("strict decoding error: " + strings.Join(msgs, ", "))
	}
	for _, m := range msgs {
		addWarning(w, m)
	}
	return nil
}

// decodeTypedInto is decodeInto's one pass for an object with a TypeMeta,
// zero before: the body decodes strictly into obj, whose kind and apiVersion
// are then the body's, checked after instead of by a first scan of the body for them. It
// is done only when that decode succeeds and fieldValidation is valid: any
// other body (unknown fields, a decoding error) is left to decodeInto's
// steps, with obj zeroed, so that each error is the one they give and in
// their order.
func (h *Handler) decodeTypedInto(q url.Values, body []byte, obj any, tm *api.TypeMeta, wantKind, wantAPIVersion string) (bool, error) {
	switch q.Get("fieldValidation") {
	case "", "Strict", "Warn", "Ignore":
	default:
		return false, nil
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(obj); err != nil || !onlySpaceAfter(dec) {
		reflect.ValueOf(obj).Elem().SetZero()
		return false, nil
	}
	return true, h.checkTypeMeta(typeMeta{APIVersion: tm.APIVersion, Kind: tm.Kind}, wantKind, wantAPIVersion)
}

// onlySpaceAfter reports whether nothing but white space follows the value
// dec decoded.
func onlySpaceAfter(dec *json.Decoder) bool {
	_, err := dec.Token()
	return errors.Is(err, io.EOF)
}

// unknownField returns the field an "unknown field" decoding error names.
func unknownField(err error) (string, bool) {
	if err == nil {
		return "", false
	}
	field, ok := strings.CutPrefix(err.Error(), "json: unknown field ")
	if !ok {
		return "", false
	}
	if unq, qerr := strconv.Unquote(field); qerr == nil {
		field = unq
	}
	return field, true
}

// jsonErrorText drops the "json: " prefix of encoding/json's messages.
func jsonErrorText(err error) string {
	return strings.TrimPrefix(err.Error(), "json: ")
}

// checkTypeMeta refuses a body that names another kind or API version than
// the path's resource holds. An empty kind or apiVersion takes the path's.
func (h *Handler) checkTypeMeta(tm typeMeta, wantKind, wantAPIVersion string) error {
	if tm.Kind == "" && tm.APIVersion == "" {
		return nil
	}
	if tm.Kind != "" && tm.APIVersion != "" && !h.currentRoutes().kinds[typeMeta{Kind: tm.Kind, APIVersion: tm.APIVersion}] {
		return apierrors.NewBadRequest(fmt.Sprintf("no kind %q is registered for version %q", tm.Kind, tm.APIVersion))
	}
	if (tm.Kind != "" && tm.Kind != wantKind) || (tm.APIVersion != "" && tm.APIVersion != wantAPIVersion) {
		return apierrors.NewBadRequest(fmt.Sprintf("the object's kind %q and apiVersion %q do not match the path, which takes kind %q in apiVersion %q",
			tm.Kind, tm.APIVersion, wantKind, wantAPIVersion))
	}
	return nil
}

// requestKinds are the kinds a request body may be besides the served
// resources' own: the scale, binding and token subresources' and DeleteOptions of
// meta.k8s.io. DeleteOptions is also registered in every served group
// version (New adds those), as Kubernetes registers it: client-go sends a
// Lease's delete as coordination.k8s.io/v1 DeleteOptions.
var requestKinds = []typeMeta{
	{Kind: "Scale", APIVersion: scaleAPIVersion}, {Kind: "Binding", APIVersion: "v1"},
	{Kind: "DeleteOptions", APIVersion: "meta.k8s.io/v1"},
	{Kind: "TokenRequest", APIVersion: "authentication.k8s.io/v1"}, // serviceaccounts/{name}/token
}

// checkObjectPath fills an object's namespace and name from the path when
// it has none, and refuses one whose namespace or name differ from it.
// name is "" on a create.
func checkObjectPath(m *api.ObjectMeta, info apiserver.ResourceInfo, namespace, name string) error {
	if info.Namespaced {
		switch m.Namespace {
		case "":
			m.Namespace = namespace
		case namespace:
		default:
			return apierrors.NewBadRequest(fmt.Sprintf("the namespace of the provided object (%s) does not match the namespace sent on the request (%s)", m.Namespace, namespace))
		}
	}
	if name == "" {
		return nil
	}
	switch m.Name {
	case "":
		m.Name = name
	case name:
	default:
		return apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", m.Name, name))
	}
	return nil
}

// dryRunOf reads the dryRun query parameter: "All" or nothing.
func dryRunOf(q url.Values) (bool, error) {
	values := q["dryRun"]
	for _, v := range values {
		if v != api.DryRunAll {
			return false, apierrors.NewBadRequest(fmt.Sprintf("dryRun %q is not supported: the only value is %q", v, api.DryRunAll))
		}
	}
	return len(values) > 0, nil
}

// listOptionsOf reads a list's or watch's query parameters.
func listOptionsOf(q url.Values) (client.ListOptions, error) {
	opts := client.ListOptions{
		LabelSelector:        q.Get("labelSelector"),
		FieldSelector:        q.Get("fieldSelector"),
		ResourceVersion:      q.Get("resourceVersion"),
		ResourceVersionMatch: q.Get("resourceVersionMatch"),
		Continue:             q.Get("continue"),
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return opts, apierrors.NewBadRequest(fmt.Sprintf("limit %q is not a non-negative integer", v))
		}
		opts.Limit = n
	}
	var err error
	if opts.AllowWatchBookmarks, err = boolParam(q, "allowWatchBookmarks"); err != nil {
		return opts, err
	}
	if q.Has("sendInitialEvents") {
		b, err := boolParam(q, "sendInitialEvents")
		if err != nil {
			return opts, err
		}
		opts.SendInitialEvents = &b
	}
	return opts, nil
}

// boolParam reads a boolean query parameter; absent is false.
func boolParam(q url.Values, name string) (bool, error) {
	v := q.Get(name)
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, apierrors.NewBadRequest(fmt.Sprintf("%s %q is not a boolean", name, v))
	}
	return b, nil
}

// deleteOptionsOf reads a delete's options from its body (a DeleteOptions,
// possibly empty) and its query parameters, which kubectl's older forms
// use; the query wins.
func (h *Handler) deleteOptionsOf(w http.ResponseWriter, r *http.Request) (api.DeleteOptions, error) {
	var opts api.DeleteOptions
	body, err := readBody(r)
	if err != nil {
		return opts, err
	}
	q := queryOf(r)
	if len(bytes.TrimSpace(body)) > 0 {
		f, err := bodyFormat(r)
		if err != nil {
			return opts, err
		}
		var tm typeMeta
		switch f {
		case formatProtobuf:
			u, err := protobuf.UnmarshalEnvelope(body)
			if err != nil {
				return opts, apierrors.NewBadRequest("the request body is not a Kubernetes protobuf object: " + err.Error())
			}
			tm = typeMeta{APIVersion: u.APIVersion, Kind: u.Kind}
		default:
			if err := json.Unmarshal(body, &tm); err != nil {
				return opts, apierrors.NewBadRequest("the request body is not valid JSON: " + jsonErrorText(err))
			}
		}
		if tm.Kind != "" && tm.Kind != "DeleteOptions" {
			return opts, apierrors.NewBadRequest(fmt.Sprintf("the body of a delete must be DeleteOptions, not %q", tm.Kind))
		}
		if err := h.decodeBody(w, r, body, &opts, "DeleteOptions", tm.APIVersion); err != nil {
			return opts, err
		}
	}
	if v := q.Get("gracePeriodSeconds"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return opts, apierrors.NewBadRequest(fmt.Sprintf("gracePeriodSeconds %q is not an integer", v))
		}
		opts.GracePeriodSeconds = &n
	}
	if v := q.Get("propagationPolicy"); v != "" {
		p := api.DeletionPropagation(v)
		opts.PropagationPolicy = &p
	}
	if q.Has("orphanDependents") {
		b, err := boolParam(q, "orphanDependents")
		if err != nil {
			return opts, err
		}
		opts.OrphanDependents = &b
	}
	dry, err := dryRunOf(q)
	if err != nil {
		return opts, err
	}
	if dry {
		opts.DryRun = []string{api.DryRunAll}
	}
	for _, v := range opts.DryRun {
		if v != api.DryRunAll {
			return opts, apierrors.NewBadRequest(fmt.Sprintf("dryRun %q is not supported: the only value is %q", v, api.DryRunAll))
		}
	}
	return opts, nil
}
