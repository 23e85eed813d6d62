package plane

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"strconv"
)

// NewKubeconfig is the content of a kubeconfig file: one cluster at server
// (trusting caPEM when it is https), one user (with token, when there is
// one), and one context that joins them in namespace default, the
// current one.
func NewKubeconfig(server string, caPEM []byte, token string) []byte {
	var b bytes.Buffer
	b.WriteString("apiVersion: v1\nkind: Config\nclusters:\n- name: miniplane\n  cluster:\n")
	fmt.Fprintf(&b, "    server: %s\n", strconv.Quote(server))
	if len(caPEM) > 0 {
		fmt.Fprintf(&b, "    certificate-authority-data: %s\n", base64.StdEncoding.EncodeToString(caPEM))
	}
	b.WriteString("users:\n- name: miniplane-admin\n  user:")
	if token != "" {
		fmt.Fprintf(&b, "\n    token: %s\n", strconv.Quote(token))
	} else {
		b.WriteString(" {}\n")
	}
	b.WriteString("contexts:\n- name: miniplane\n  context:\n    cluster: miniplane\n    user: miniplane-admin\n    namespace: default\n")
	b.WriteString("current-context: miniplane\n")
	return b.Bytes()
}
