package httpapi_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
)

// widgetCRDYAML is the CustomResourceDefinition a controller author
// applies first: namespaced Widgets with a status subresource, a printer
// column and a default.
const widgetCRDYAML = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.demo.example.com
spec:
  group: demo.example.com
  scope: Namespaced
  names:
    plural: widgets
    singular: widget
    kind: Widget
    shortNames: [wd]
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
    additionalPrinterColumns:
    - name: Replicas
      type: integer
      jsonPath: .spec.replicas
    - name: Created
      type: date
      jsonPath: .metadata.creationTimestamp
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            description: The widget's desired state.
            properties:
              replicas:
                type: integer
                minimum: 0
                default: 1
                description: How many widgets to run.
              color:
                type: string
          status:
            type: object
            properties:
              ready:
                type: integer
`

// TestKubectlCustomResources drives a CustomResourceDefinition's life with
// the real kubectl: apply it, see it, apply an object of its kind, get it
// with its printer column, explain its schema, be refused an invalid one,
// and delete the definition with its objects.
func TestKubectlCustomResources(t *testing.T) {
	ts := newTestServer(t, clock.Real{}, nil)
	k := newKubectl(t, ts.url)
	ctx := context.Background()

	assert.Equal(t, "customresourcedefinition.apiextensions.k8s.io/widgets.demo.example.com created\n",
		k.ok(widgetCRDYAML, "apply", "-f", "-"))
	rows := columns(k.ok("", "get", "crd"))
	require.Len(t, rows, 2, "%v", rows)
	assert.Equal(t, []string{"NAME", "CREATED", "AT"}, rows[0])
	assert.Equal(t, "widgets.demo.example.com", rows[1][0])
	assert.Contains(t, k.ok("", "get", "crd", "widgets.demo.example.com", "-o", "yaml"), "type: Established")

	assert.Equal(t, "widget.demo.example.com/small created\n",
		k.ok("apiVersion: demo.example.com/v1\nkind: Widget\nmetadata:\n  name: small\nspec:\n  color: red\n", "apply", "-f", "-"))
	assert.Equal(t, "widget.demo.example.com/big created\n",
		k.ok("apiVersion: demo.example.com/v1\nkind: Widget\nmetadata:\n  name: big\nspec:\n  replicas: 5\n", "apply", "-f", "-"))
	rows = columns(k.ok("", "get", "widgets"))
	require.Len(t, rows, 3, "%v", rows)
	assert.Equal(t, []string{"NAME", "REPLICAS", "CREATED"}, rows[0])
	assert.Equal(t, []string{"big", "5"}, rows[1][:2])
	assert.Equal(t, []string{"small", "1"}, rows[2][:2], "the default")
	assert.Contains(t, k.ok("", "get", "wd", "small", "-o", "yaml"), "replicas: 1")
	assert.Equal(t, "widget.demo.example.com/small configured\n",
		k.ok("apiVersion: demo.example.com/v1\nkind: Widget\nmetadata:\n  name: small\nspec:\n  color: blue\n", "apply", "-f", "-"))
	assert.Equal(t, "widget.demo.example.com/small patched\n",
		k.ok("", "patch", "widget", "small", "--type=merge", "-p", `{"spec":{"replicas":2}}`))

	out := k.ok("", "explain", "widget.spec")
	assert.Contains(t, out, "GROUP:      demo.example.com")
	assert.Contains(t, out, "How many widgets to run.")

	errOut := k.fails("apiVersion: demo.example.com/v1\nkind: Widget\nmetadata:\n  name: bad\nspec:\n  replicas: -1\n", "apply", "-f", "-")
	assert.Contains(t, errOut, `The Widget "bad" is invalid: spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0`)
	errOut = k.fails("apiVersion: demo.example.com/v1\nkind: Widget\nmetadata:\n  name: bad\nspec:\n  shape: round\n", "apply", "-f", "-")
	assert.Contains(t, errOut, `unknown field "spec.shape"`)
	_, err := ts.srv.Get(ctx, "widgets", "default", "bad", client.GetOptions{})
	assert.Error(t, err, "nothing stored on refusal")

	assert.Contains(t, k.ok("", "api-resources", "--api-group=demo.example.com"), "widgets")
	assert.Equal(t, "customresourcedefinition.apiextensions.k8s.io \"widgets.demo.example.com\" deleted\n",
		k.ok("", "delete", "crd", "widgets.demo.example.com"))
	assert.Equal(t, 0, ts.srv.Count("widgets.demo.example.com"))
	assert.Contains(t, k.fails("", "get", "widgets", "--cache-dir", t.TempDir()), `the server doesn't have a resource type "widgets"`)
}
