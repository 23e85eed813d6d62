package httpapi

import (
	"fmt"
	"mime"
	"net/http"

	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/api/protobuf"
)

// format is a wire format of request and answer bodies.
type format uint8

const (
	// formatJSON is application/json, the default.
	formatJSON format = iota
	// formatProtobuf is application/vnd.kubernetes.protobuf: the magic
	// "k8s\x00" and a runtime.Unknown envelope around the object's message
	// (package api/protobuf). client-go's typed clients speak it by default.
	formatProtobuf
)

// contentType is the media type a body in f carries; watch streams say so.
func (f format) contentType(watch bool) string {
	switch {
	case f == formatProtobuf && watch:
		return protobuf.MediaType + ";stream=watch"
	case f == formatProtobuf:
		return protobuf.MediaType
	}
	return contentTypeJSON
}

// output is the form a read answers in: the objects themselves, a Table of
// them (server-side printing, JSON only) with the row objects kubectl asks
// for, or only their metadata (PartialObjectMetadata, for the metadata
// client and the garbage collectors), in JSON or protobuf.
type output struct {
	format        format
	table         bool
	tableVersion  string // "v1" or "v1beta1" of meta.k8s.io
	includeObject string // "Metadata" (the default), "Object" or "None"
	// partial answers PartialObjectMetadata (PartialObjectMetadataList for
	// a list) of meta.k8s.io partialVersion instead of the objects.
	partial        bool
	partialVersion string
}

var jsonOutput = output{}

// negotiate picks the answer's form from the Accept header, taking the
// first entry it can serve, as kube-apiserver does: JSON or protobuf, each
// plain or as=PartialObjectMetadata (as=PartialObjectMetadataList when list
// is set) of meta.k8s.io v1 or v1beta1, or as=Table of meta.k8s.io v1 or
// v1beta1 in JSON only. A Table in protobuf is not served (kube-apiserver
// answers it 406 too), nor are YAML and CBOR; a header naming only what is
// not served gets 406.
func negotiate(r *http.Request, list bool) (output, error) {
	return negotiateAs(r, list, true)
}

// reviewNotAcceptable is kube-apiserver's message when nothing the request
// accepts can be served (k8s.io/apiserver's negotiation errNotAcceptable,
// listing its serializers).
const reviewNotAcceptable = "only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf"

// negotiateReview is negotiate for a review (SelfSubjectAccessReview and
// the like): kube-apiserver's review storage has no Table convertor, so
// its negotiation passes over as=Table, and answers 406 when nothing else
// is accepted.
func negotiateReview(r *http.Request) (output, error) {
	out, err := negotiateAs(r, false, false)
	if err != nil {
		return output{}, apierrors.NewNotAcceptable(reviewNotAcceptable)
	}
	return out, nil
}

// negotiateAs is negotiate, with as=Table taken only when tables is set.
func negotiateAs(r *http.Request, list, tables bool) (output, error) {
	accept := r.Header.Get("Accept")
	if accept == "" {
		return jsonOutput, nil
	}
	partialKind := "PartialObjectMetadata"
	if list {
		partialKind = "PartialObjectMetadataList"
	}
	for _, mt := range parseAccept(accept) {
		var out output
		switch mt.typ {
		case "application/json", "*/*", "application/*":
		case protobuf.MediaType:
			out.format = formatProtobuf
		default:
			continue
		}
		as := mt.params["as"]
		metaV1 := mt.params["g"] == "meta.k8s.io" && (mt.params["v"] == "v1" || mt.params["v"] == "v1beta1")
		switch {
		case as == "":
			return out, nil
		case as == partialKind && metaV1:
			out.partial, out.partialVersion = true, mt.params["v"]
			return out, nil
		case as == "Table" && metaV1 && out.format == formatJSON && tables:
			include := queryOf(r).Get("includeObject")
			switch include {
			case "":
				include = "Metadata"
			case "Metadata", "Object", "None":
			default:
				return output{}, apierrors.NewBadRequest(fmt.Sprintf("includeObject %q is not one of None, Metadata or Object", include))
			}
			out.table, out.tableVersion, out.includeObject = true, mt.params["v"], include
			return out, nil
		}
	}
	return output{}, apierrors.NewNotAcceptable(fmt.Sprintf(
		"only application/json and %s are served, each as the object, as=%s;g=meta.k8s.io;v=v1, or (JSON only) as=Table;g=meta.k8s.io;v=v1; the request accepts %q",
		protobuf.MediaType, partialKind, accept))
}

// errorFormat is the format a request's errors are answered in: protobuf
// when the first entry of its Accept header that names JSON or protobuf
// names protobuf, JSON otherwise. client-go decodes a Status in either,
// by the answer's Content-Type.
func errorFormat(r *http.Request) format {
	accept := r.Header.Get("Accept")
	if accept == "" {
		return formatJSON
	}
	for _, mt := range parseAccept(accept) {
		switch mt.typ {
		case protobuf.MediaType:
			return formatProtobuf
		case "application/json", "*/*", "application/*":
			return formatJSON
		}
	}
	return formatJSON
}

// bodyFormat is the format of a request's body by its Content-Type: JSON
// when it names none, 415 UnsupportedMediaType when it names neither JSON
// nor protobuf.
func bodyFormat(r *http.Request) (format, error) {
	ct := r.Header.Get("Content-Type")
	switch ct {
	case "":
		return formatJSON, nil
	case "application/json": // what client-go sends, answered as parsing it would
		return formatJSON, nil
	case protobuf.MediaType:
		return formatProtobuf, nil
	}
	mt, _, err := mime.ParseMediaType(ct)
	switch {
	case err != nil:
	case mt == "application/json" || mt == "*/*":
		return formatJSON, nil
	case mt == protobuf.MediaType:
		return formatProtobuf, nil
	}
	return formatJSON, apierrors.NewUnsupportedMediaType(fmt.Sprintf(
		"the body of the request was in an unsupported format %q: this server takes application/json and %s", ct, protobuf.MediaType))
}
