package httpapi_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
)

// TestKubectlConfigKinds drives the commands a learner types first for
// config maps, secrets and service accounts: kubectl's typed generators
// (which send protobuf), get with kubectl's columns, -o yaml with base64
// data and no stringData, describe, and a refusal that stores nothing.
func TestKubectlConfigKinds(t *testing.T) {
	ts := newTestServer(t, clock.Real{}, nil)
	k := newKubectl(t, ts.url)
	ctx := context.Background()

	t.Run("create", func(t *testing.T) {
		assert.Equal(t, "configmap/app created\n", k.ok("", "create", "configmap", "app", "--from-literal=a=b", "--from-literal=mode=dev"))
		assert.Equal(t, "secret/db created\n", k.ok("", "create", "secret", "generic", "db", "--from-literal=password=hunter2"))
		assert.Equal(t, "serviceaccount/builder created\n", k.ok("", "create", "serviceaccount", "builder"))

		cm, err := client.For[*api.ConfigMap](ts.srv).Get(ctx, "default", "app")
		require.NoError(t, err)
		assert.Equal(t, map[string]string{"a": "b", "mode": "dev"}, cm.Data)
		s, err := client.For[*api.Secret](ts.srv).Get(ctx, "default", "db")
		require.NoError(t, err)
		assert.Equal(t, map[string][]byte{"password": []byte("hunter2")}, s.Data)
		assert.Equal(t, api.SecretTypeOpaque, s.Type)
		_, err = client.For[*api.ServiceAccount](ts.srv).Get(ctx, "default", "builder")
		require.NoError(t, err)
	})
	t.Run("stringData from a manifest", func(t *testing.T) {
		manifest := "apiVersion: v1\nkind: Secret\nmetadata:\n  name: tls\ntype: kubernetes.io/tls\nstringData:\n  tls.crt: cert\n  tls.key: key\n"
		assert.Equal(t, "secret/tls created\n", k.ok(manifest, "apply", "-f", "-"))
	})
	t.Run("get", func(t *testing.T) {
		rows := columns(k.ok("", "get", "cm,secret,sa"))
		// kubectl prints one table per resource, each with its header.
		var tables [][][]string
		for _, r := range rows {
			if len(r) == 0 {
				continue
			}
			if r[0] == "NAME" {
				tables = append(tables, nil)
			}
			tables[len(tables)-1] = append(tables[len(tables)-1], r)
		}
		require.Len(t, tables, 3, "%v", rows)
		assert.Equal(t, []string{"NAME", "DATA", "AGE"}, tables[0][0])
		assert.Equal(t, []string{"configmap/app", "2"}, tables[0][1][:2])
		assert.Equal(t, []string{"NAME", "TYPE", "DATA", "AGE"}, tables[1][0])
		assert.Equal(t, []string{"secret/db", "Opaque", "1"}, tables[1][1][:3])
		assert.Equal(t, []string{"secret/tls", "kubernetes.io/tls", "2"}, tables[1][2][:3])
		assert.Equal(t, []string{"NAME", "SECRETS", "AGE"}, tables[2][0])
		assert.Equal(t, []string{"serviceaccount/builder", "0"}, tables[2][1][:2])
	})
	t.Run("get secret -o yaml", func(t *testing.T) {
		out := k.ok("", "get", "secret", "tls", "-o", "yaml")
		assert.Contains(t, out, "kind: Secret\n")
		assert.Contains(t, out, "  tls.crt: Y2VydA==\n", "data is base64")
		assert.Contains(t, out, "  tls.key: a2V5\n")
		assert.Contains(t, out, "type: kubernetes.io/tls\n")
		// As on a real cluster, only apply's last-applied annotation still
		// holds what was sent; the object has no stringData.
		assert.NotContains(t, out, "\nstringData:")
		assert.Contains(t, k.ok("", "get", "secret", "db", "-o", "yaml"), "  password: aHVudGVyMg==\n")
	})
	t.Run("describe", func(t *testing.T) {
		out := k.ok("", "describe", "secret", "db")
		assert.Contains(t, out, "password:  7 bytes")
		out = k.ok("", "describe", "cm", "app")
		assert.Contains(t, out, "mode:\n----\ndev")
	})
	t.Run("field selector", func(t *testing.T) {
		rows := columns(k.ok("", "get", "secrets", "--field-selector", "type=kubernetes.io/tls"))
		require.Len(t, rows, 2)
		assert.Equal(t, "tls", rows[1][0])
	})
	t.Run("refused", func(t *testing.T) {
		bad := "apiVersion: v1\nkind: Secret\nmetadata:\n  name: half\ntype: kubernetes.io/tls\nstringData:\n  tls.crt: cert\n"
		errOut := k.fails(bad, "create", "-f", "-")
		assert.Contains(t, errOut, `The Secret "half" is invalid: data[tls.key]: Required value`)
		_, err := client.For[*api.Secret](ts.srv).Get(ctx, "default", "half")
		assert.True(t, apierrors.IsNotFound(err), "nothing stored")
	})
	t.Run("immutable", func(t *testing.T) {
		manifest := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: frozen\nimmutable: true\ndata:\n  k: v\n"
		k.ok(manifest, "create", "-f", "-")
		errOut := k.fails("", "patch", "cm", "frozen", "-p", `{"data":{"k":"w"}}`)
		assert.Contains(t, errOut, "data: Forbidden: field is immutable when `immutable` is set")
	})
}
