package httpapi_test

import (
	"encoding/base64"
	"encoding/json"
	"math/rand/v2"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/apiserver/httpapi"
	"github.com/miniplane/miniplane/apiserver/rbac"
	"github.com/miniplane/miniplane/apiserver/serviceaccount"
	"github.com/miniplane/miniplane/clock"
)

// newRBACServer serves a Server with the default cluster roles and
// bindings, the token "s3cret" and the RBAC authorizer, as `serve
// --token=s3cret --authorization-mode=RBAC` does.
func newRBACServer(t *testing.T, mutate func(*httpapi.Config)) *testServer {
	t.Helper()
	clk := clock.Real{}
	srv, err := apiserver.New(apiserver.Config{Clock: clk, Rand: rand.New(rand.NewPCG(7, 8)), BootstrapPolicy: true})
	require.NoError(t, err)
	issuer, err := serviceaccount.New(serviceaccount.Config{Key: serviceaccount.KeyFromSeed(rand.New(rand.NewPCG(1, 2))), Clock: clk, Client: srv})
	require.NoError(t, err)
	cfg := httpapi.Config{Server: srv, Clock: clk, Token: "s3cret", Authorizer: rbac.New(rbac.FromClient(srv)), ServiceAccountTokens: issuer}
	if mutate != nil {
		mutate(&cfg)
	}
	h, err := httpapi.New(cfg)
	require.NoError(t, err)
	// HTTPS, as serve with a token: kubectl sends no token over http.
	hs := httptest.NewTLSServer(h)
	t.Cleanup(func() {
		h.Shutdown()
		hs.Close()
	})
	return &testServer{srv: srv, h: h, url: hs.URL}
}

// TestKubectlRBAC drives RBAC as a learner does: a role and a binding
// made with kubectl's generators, `auth can-i --as` for a service account
// answered truthfully, and a request the role does not allow refused with
// kube-apiserver's 403 message.
func TestKubectlRBAC(t *testing.T) {
	ts := newRBACServer(t, nil)
	k := newKubectl(t, ts.url)
	k.args = append(k.args, "--token", "s3cret", "--insecure-skip-tls-verify")
	const robot = "system:serviceaccount:team:robot"

	t.Run("defaults", func(t *testing.T) {
		rows := columns(k.ok("", "get", "clusterrolebindings", "cluster-admin", "-o", "wide"))
		assert.Equal(t, []string{"NAME", "ROLE", "AGE", "USERS", "GROUPS", "SERVICEACCOUNTS"}, rows[0])
		assert.Equal(t, "ClusterRole/cluster-admin", rows[1][1])
		assert.Contains(t, rows[1], "system:masters")
		names := k.ok("", "get", "clusterroles", "-o", "name")
		for _, want := range []string{"cluster-admin", "admin", "edit", "view", "system:discovery", "system:basic-user", "system:public-info-viewer"} {
			assert.Contains(t, names, "clusterrole.rbac.authorization.k8s.io/"+want+"\n")
		}
		assert.Equal(t, "miniplane-admin\n", k.ok("", "auth", "whoami", "-o", "jsonpath={.status.userInfo.username}{\"\\n\"}"))
	})
	t.Run("create", func(t *testing.T) {
		assert.Equal(t, "namespace/team created\n", k.ok("", "create", "namespace", "team"))
		assert.Equal(t, "serviceaccount/robot created\n", k.ok("", "create", "serviceaccount", "robot", "-n", "team"))
		assert.Equal(t, "role.rbac.authorization.k8s.io/pod-reader created\n",
			k.ok("", "create", "role", "pod-reader", "--verb=get,list,watch", "--resource=pods,pods/log", "-n", "team"))
		assert.Equal(t, "rolebinding.rbac.authorization.k8s.io/read-pods created\n",
			k.ok("", "create", "rolebinding", "read-pods", "--role=pod-reader", "--serviceaccount=team:robot", "--user=jane", "-n", "team"))
		rows := columns(k.ok("", "get", "rolebindings", "-n", "team", "-o", "wide"))
		require.Len(t, rows, 2)
		assert.Equal(t, []string{"NAME", "ROLE", "AGE", "USERS", "GROUPS", "SERVICEACCOUNTS"}, rows[0])
		assert.Equal(t, []string{"read-pods", "Role/pod-reader"}, rows[1][:2])
		assert.Equal(t, []string{"jane", "team/robot"}, rows[1][3:])
	})
	t.Run("can-i", func(t *testing.T) {
		assert.Equal(t, "yes\n", k.ok("", "auth", "can-i", "--as="+robot, "list", "pods", "-n", "team"))
		assert.Equal(t, "yes\n", k.ok("", "auth", "can-i", "--as="+robot, "get", "pods/log", "-n", "team"))
		out, _, err := k.run("", "auth", "can-i", "--as="+robot, "delete", "pods", "-n", "team")
		assert.Error(t, err, "no exits 1")
		assert.Equal(t, "no\n", out)
		out, _, _ = k.run("", "auth", "can-i", "--as="+robot, "list", "pods", "-n", "default")
		assert.Equal(t, "no\n", out, "the role binding grants in its namespace only")
		assert.Equal(t, "yes\n", k.ok("", "auth", "can-i", "--as=jane", "watch", "pods", "-n", "team"))
		assert.Equal(t, "yes\n", k.ok("", "auth", "can-i", "delete", "nodes"), "the token's user is in system:masters")
		list := k.ok("", "auth", "can-i", "--list", "--as="+robot, "-n", "team")
		assert.Contains(t, list, "pods/log")
		assert.Contains(t, list, "selfsubjectaccessreviews.authorization.k8s.io")
	})
	t.Run("denied", func(t *testing.T) {
		errOut := k.fails("", "get", "secrets", "-n", "team", "--as="+robot)
		assert.Equal(t, `Error from server (Forbidden): secrets is forbidden: User "system:serviceaccount:team:robot" cannot list resource "secrets" in API group "" in the namespace "team"`,
			strings.TrimSpace(errOut))
		errOut = k.fails("", "get", "nodes", "--as=jane")
		assert.Contains(t, errOut, `nodes is forbidden: User "jane" cannot list resource "nodes" in API group "" at the cluster scope`)
		errOut = k.fails("", "create", "configmap", "x", "-n", "team", "--as="+robot)
		assert.Contains(t, errOut, `configmaps is forbidden: User "system:serviceaccount:team:robot" cannot create resource "configmaps" in API group "" in the namespace "team"`)
		k.ok("", "get", "pods", "-n", "team", "--as="+robot) // allowed: an empty list
	})
	t.Run("escalation", func(t *testing.T) {
		// jane may manage roles and bindings in team, and holds the
		// pod-reader rules there, nothing more.
		k.ok("", "create", "role", "rbac-admin", "--verb=get,list,create,update,patch", "--resource=roles.rbac.authorization.k8s.io,rolebindings.rbac.authorization.k8s.io", "-n", "team")
		k.ok("", "create", "rolebinding", "jane-rbac", "--role=rbac-admin", "--user=jane", "-n", "team")
		rev := ts.srv.Store().Rev()
		errOut := k.fails("", "create", "role", "secret-reader", "--verb=get,list", "--resource=secrets", "-n", "team", "--as=jane")
		assert.Equal(t, `Error from server (Forbidden): roles.rbac.authorization.k8s.io "secret-reader" is forbidden: user "jane" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:
{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list"]}`, strings.TrimSpace(errOut))
		errOut = k.fails("", "create", "rolebinding", "jane-admin", "--clusterrole=cluster-admin", "--user=jane", "-n", "team", "--as=jane")
		assert.Contains(t, errOut, `rolebindings.rbac.authorization.k8s.io "jane-admin" is forbidden: user "jane" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:`)
		assert.Equal(t, rev, ts.srv.Store().Rev(), "nothing stored")
		assert.Equal(t, "role.rbac.authorization.k8s.io/pod-lister created\n",
			k.ok("", "create", "role", "pod-lister", "--verb=list", "--resource=pods", "-n", "team", "--as=jane"), "rules jane holds")
		assert.Equal(t, "rolebinding.rbac.authorization.k8s.io/robot-reads created\n",
			k.ok("", "create", "rolebinding", "robot-reads", "--role=pod-reader", "--serviceaccount=team:robot", "-n", "team", "--as=jane"))
		k.ok("", "create", "role", "escalator", "--verb=escalate,bind", "--resource=roles.rbac.authorization.k8s.io", "-n", "team")
		k.ok("", "create", "rolebinding", "jane-escalates", "--role=escalator", "--user=jane", "-n", "team")
		assert.Equal(t, "role.rbac.authorization.k8s.io/secret-reader created\n",
			k.ok("", "create", "role", "secret-reader", "--verb=get,list", "--resource=secrets", "-n", "team", "--as=jane"), "escalate allows it")
		assert.Equal(t, "rolebinding.rbac.authorization.k8s.io/jane-secrets created\n",
			k.ok("", "create", "rolebinding", "jane-secrets", "--role=secret-reader", "--user=jane", "-n", "team", "--as=jane"), "bind allows it")
	})
	t.Run("a service account's token", func(t *testing.T) {
		token := strings.TrimSpace(k.ok("", "create", "token", "robot", "-n", "team", "--duration=20m"))
		parts := strings.Split(token, ".")
		require.Len(t, parts, 3, token)
		payload, err := base64.RawURLEncoding.DecodeString(parts[1])
		require.NoError(t, err)
		var c map[string]any
		require.NoError(t, json.Unmarshal(payload, &c))
		assert.Equal(t, robot, c["sub"])
		assert.Equal(t, []any{"https://kubernetes.default.svc.cluster.local"}, c["aud"])
		assert.Equal(t, "https://kubernetes.default.svc.cluster.local", c["iss"])
		assert.InDelta(t, 20*60, c["exp"].(float64)-c["iat"].(float64), 0)
		assert.Equal(t, c["iat"], c["nbf"])
		kube := c["kubernetes.io"].(map[string]any)
		assert.Equal(t, "team", kube["namespace"])
		assert.Equal(t, "robot", kube["serviceaccount"].(map[string]any)["name"])

		sa := newKubectl(t, ts.url)
		sa.args = append(sa.args, "--token", token, "--insecure-skip-tls-verify")
		assert.Equal(t, robot+"\n", sa.ok("", "auth", "whoami", "-o", "jsonpath={.status.userInfo.username}{\"\\n\"}"))
		sa.ok("", "get", "pods", "-n", "team")
		assert.Contains(t, sa.fails("", "get", "secrets", "-n", "team"),
			`secrets is forbidden: User "system:serviceaccount:team:robot" cannot list resource "secrets" in API group "" in the namespace "team"`)
		assert.Contains(t, sa.fails("", "get", "pods", "-n", "team", "--as=jane"),
			`users "jane" is forbidden: User "system:serviceaccount:team:robot" cannot impersonate resource "users" in API group "" at the cluster scope`)

		review := "apiVersion: authentication.k8s.io/v1\nkind: TokenReview\nspec:\n  token: " + token + "\n"
		out := k.ok(review, "create", "-f", "-", "-o", "jsonpath={.status.authenticated} {.status.user.username} {.status.user.groups} {.status.audiences}")
		assert.Equal(t, `true system:serviceaccount:team:robot ["system:serviceaccounts","system:serviceaccounts:team","system:authenticated"] ["https://kubernetes.default.svc.cluster.local"]`, out)

		assert.Contains(t, k.fails("", "create", "token", "robot", "-n", "team", "--duration=5m"),
			`spec.expirationSeconds: Invalid value: 300: may not specify a duration less than 10 minutes`)
		k.ok("", "delete", "serviceaccount", "robot", "-n", "team")
		assert.Contains(t, sa.fails("", "get", "pods", "-n", "team"), "Unauthorized", "the token dies with its account")
	})
}
