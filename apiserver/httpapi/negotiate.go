package httpapi

import (
	"fmt"
	"net/http"

	"github.com/miniplane/miniplane/apiserver"
)

// output is the form a read answers in: the objects as JSON, or a Table
// of them (server-side printing) with the row objects kubectl asks for.
type output struct {
	table         bool
	tableVersion  string // "v1" or "v1beta1" of meta.k8s.io
	includeObject string // "Metadata" (the default), "Object" or "None"
}

var jsonOutput = output{}

// negotiate picks the answer's form from the Accept header, taking the
// first entry it can serve: a Table of meta.k8s.io v1 or v1beta1, or JSON.
// Protobuf and CBOR are not served; a header naming only them gets 406.
func negotiate(r *http.Request) (output, error) {
	accept := r.Header.Get("Accept")
	if accept == "" {
		return jsonOutput, nil
	}
	for _, mt := range parseAccept(accept) {
		switch mt.typ {
		case "application/json", "*/*", "application/*":
		default:
			continue
		}
		as := mt.params["as"]
		switch {
		case as == "":
			return jsonOutput, nil
		case as == "Table" && mt.params["g"] == "meta.k8s.io" && (mt.params["v"] == "v1" || mt.params["v"] == "v1beta1"):
			include := r.URL.Query().Get("includeObject")
			switch include {
			case "":
				include = "Metadata"
			case "Metadata", "Object", "None":
			default:
				return output{}, apiserver.NewBadRequest(fmt.Sprintf("includeObject %q is not one of None, Metadata or Object", include))
			}
			return output{table: true, tableVersion: mt.params["v"], includeObject: include}, nil
		}
	}
	return output{}, apiserver.NewNotAcceptable(fmt.Sprintf("only application/json and Table (as=Table;g=meta.k8s.io;v=v1) are served; the request accepts %q", accept))
}
