package httpapi_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/clock"
)

// TestCustomResourceApplyFieldValidation sends server-side applies of
// custom resources in YAML with fieldValidation=Strict, as Kubernetes'
// FieldValidation conformance tests do, and gets kube-apiserver's answers:
// a valid object and an unknown field under a schema that keeps unknown
// fields are applied; an undeclared field, an unknown metadata field and a
// key set twice are refused in sigs.k8s.io/yaml's and
// structured-merge-diff's words.
func TestCustomResourceApplyFieldValidation(t *testing.T) {
	ts := newTestServer(t, clock.Real{}, nil)
	k := newKubectl(t, ts.url)
	k.ok(portsCRDYAML, "apply", "-f", "-")
	k.ok(strings.Replace(strings.Replace(portsCRDYAML, "sockets", "plugs", 2), "Socket", "Plug", 1)+
		"            x-kubernetes-preserve-unknown-fields: true\n", "apply", "-f", "-")
	const ports = "  ports:\n  - name: x\n    containerPort: 80\n    protocol: TCP"
	tests := []struct {
		name, resource, body string
		wantCode             int
		want                 string
	}{
		{"valid", "sockets", "\napiVersion: demo.example.com/v1\nkind: Socket\nmetadata:\n  name: a\nspec:\n  foo: foo1\n" + ports, 201, `"foo":"foo1"`},
		{"unknown field", "sockets", "\napiVersion: demo.example.com/v1\nkind: Socket\nmetadata:\n  name: b\nunknownField: unknown\nspec:\n  foo: foo1\n" + ports, 400,
			`failed to create typed patch object (demo.example.com/v1, Kind=Socket): .unknownField: field not declared in schema`},
		{"unknown metadata field", "sockets", "\napiVersion: demo.example.com/v1\nkind: Socket\nmetadata:\n  name: c\n  unknownMeta: unknown\nspec:\n  foo: foo1\n", 400,
			`.metadata.unknownMeta: field not declared in schema`},
		{"unknown field kept", "plugs", "\napiVersion: demo.example.com/v1\nkind: Plug\nmetadata:\n  name: d\nspec:\n  unknown: uk1\n" + ports, 201, `"unknown":"uk1"`},
		{"duplicate", "plugs", "\napiVersion: demo.example.com/v1\nkind: Plug\nmetadata:\n  name: e\nspec:\n  unknown: uk1\n  foo: foo1\n  foo: foo2\n" + ports, 400,
			`line 9: key \"foo\" already set in map`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := strings.TrimSpace(strings.SplitN(strings.SplitN(tt.body, "name: ", 2)[1], "\n", 2)[0])
			req, err := http.NewRequest(http.MethodPatch, ts.url+"/apis/demo.example.com/v1/"+tt.resource+"/"+name+
				"?fieldManager=m&fieldValidation=Strict", strings.NewReader(tt.body))
			require.NoError(t, err)
			req.Header.Set("Content-Type", "application/apply-patch+yaml")
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			assert.Equal(t, tt.wantCode, resp.StatusCode, "%s", b)
			assert.Contains(t, string(b), tt.want)
			if tt.wantCode != 201 {
				assert.Contains(t, k.fails("", "get", tt.resource, name), "NotFound", "nothing stored")
			}
		})
	}
}
