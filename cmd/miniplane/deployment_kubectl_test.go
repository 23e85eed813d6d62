package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// kubectlSession runs the real kubectl against one `serve`, with a
// throwaway home and cache shared by its calls (so discovery is read once),
// and an environment a test may extend (EDITOR for `kubectl edit`).
type kubectlSession struct {
	t    *testing.T
	url  string
	home string
	env  []string
}

func newKubectlSession(t *testing.T, url string) *kubectlSession {
	t.Helper()
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Skip("kubectl is not installed")
	}
	home := t.TempDir()
	return &kubectlSession{t: t, url: url, home: home,
		env: []string{"HOME=" + home, "KUBECONFIG=" + home + "/none", "PATH=/usr/bin:/bin"}}
}

// run runs kubectl with extra environment variables and returns its
// combined output.
func (k *kubectlSession) run(env []string, args ...string) (string, error) {
	bin, _ := exec.LookPath("kubectl")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append([]string{"--server", k.url, "--cache-dir", k.home + "/cache"}, args...)...)
	cmd.Env = append(append([]string{}, k.env...), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// ok runs kubectl and requires it to succeed.
func (k *kubectlSession) ok(args ...string) string {
	k.t.Helper()
	out, err := k.run(nil, args...)
	require.NoError(k.t, err, "kubectl %s\n%s", strings.Join(args, " "), out)
	return out
}

// get runs kubectl and returns its output, "" on failure (for polling).
func (k *kubectlSession) get(args ...string) string {
	out, err := k.run(nil, args...)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(out)
}

// file writes a manifest into the session's home and returns its path.
func (k *kubectlSession) file(name, body string) string {
	k.t.Helper()
	p := filepath.Join(k.home, name)
	require.NoError(k.t, os.WriteFile(p, []byte(body), 0o600))
	return p
}

const recreateDeployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: db
  labels: {app: db}
spec:
  replicas: 2
  strategy: {type: Recreate}
  selector:
    matchLabels: {app: db}
  template:
    metadata:
      labels: {app: db}
    spec:
      containers:
      - name: postgres
        image: postgres:16
`

const mismatchedDeployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: bad
spec:
  selector:
    matchLabels: {app: one}
  template:
    metadata:
      labels: {app: other}
    spec:
      containers:
      - name: c
        image: nginx
`

var revisionLine = regexp.MustCompile(`(?m)^(\d+)\s`)

// TestDeploymentWithKubectl is every tutorial's first steps with a
// Deployment, run with the real kubectl against `miniplane serve`: create,
// get, scale, set image and resources, rollout status, history, undo (to
// the last and to a given revision), pause and resume, restart, expose,
// describe, edit, a Recreate rollout, a refused manifest, and delete with
// each cascade. kubectl does the rollback itself (it lists the
// ReplicaSets and patches the template back), so its selectors and patches
// are exercised too.
func TestDeploymentWithKubectl(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a live control plane and kubectl")
	}
	url, _, stop := startServe(t, "--nodes=3")
	k := newKubectlSession(t, url)
	eventually(t, "ready", func() bool { return k.get("get", "--raw", "/readyz") == "ok" })

	rolledOut := func(name string) {
		t.Helper()
		out := k.ok("rollout", "status", "deployment/"+name, "--timeout=60s")
		assert.Contains(t, out, `deployment "`+name+`" successfully rolled out`)
	}
	replicaSets := func(name string) map[string]string { // rs name -> "desired/ready image"
		out := k.get("get", "rs", "-l", "app="+name, "-o", `jsonpath={range .items[*]}{.metadata.name}={.spec.replicas}/{.status.readyReplicas} {.spec.template.spec.containers[0].image}{"\n"}{end}`)
		got := map[string]string{}
		for _, line := range strings.Split(out, "\n") {
			if name, v, ok := strings.Cut(line, "="); ok {
				got[name] = v
			}
		}
		return got
	}
	image := func() string {
		return k.get("get", "deployment", "web", "-o", "jsonpath={.spec.template.spec.containers[0].image}")
	}

	out := k.ok("create", "deployment", "web", "--image=nginx:1.27", "--replicas=3")
	assert.Contains(t, out, "deployment.apps/web created")
	rolledOut("web")
	out = k.ok("get", "deploy,rs,pods", "-l", "app=web")
	assert.Regexp(t, `deployment.apps/web\s+3/3\s+3\s+3`, out)
	assert.Regexp(t, `replicaset.apps/web-[a-z0-9]+\s+3\s+3\s+3`, out)
	assert.Equal(t, 3, strings.Count(out, "pod/web-"), out)
	assert.Equal(t, "1", k.get("get", "deployment", "web", "-o", `jsonpath={.metadata.annotations.deployment\.kubernetes\.io/revision}`))

	k.ok("scale", "deployment", "web", "--replicas=5")
	rolledOut("web")
	assert.Equal(t, "5", k.get("get", "deployment", "web", "-o", "jsonpath={.status.availableReplicas}"))

	out = k.ok("set", "image", "deployment/web", "nginx=nginx:1.28")
	assert.Contains(t, out, "deployment.apps/web image updated")
	rolledOut("web")
	rs := replicaSets("web")
	require.Len(t, rs, 2, "the old ReplicaSet is kept, scaled to 0, for rollback")
	var images []string
	for _, v := range rs {
		images = append(images, v)
	}
	assert.ElementsMatch(t, []string{"0/ nginx:1.27", "5/5 nginx:1.28"}, images)

	k.ok("set", "resources", "deployment", "web", "-c=nginx", "--limits=cpu=200m,memory=128Mi")
	rolledOut("web")
	history := k.ok("rollout", "history", "deployment/web")
	var revisions []string
	for _, m := range revisionLine.FindAllStringSubmatch(history, -1) {
		revisions = append(revisions, m[1])
	}
	assert.Equal(t, []string{"1", "2", "3"}, revisions, history)

	out = k.ok("rollout", "undo", "deployment/web")
	assert.Contains(t, out, "deployment.apps/web rolled back")
	rolledOut("web")
	assert.Equal(t, "nginx:1.28", image())
	assert.Empty(t, k.get("get", "deployment", "web", "-o", "jsonpath={.spec.template.spec.containers[0].resources.limits.cpu}"), "undo went back to revision 2, without limits")

	k.ok("rollout", "undo", "deployment/web", "--to-revision=1")
	rolledOut("web")
	assert.Equal(t, "nginx:1.27", image())
	assert.Equal(t, "5", k.get("get", "deployment", "web", "-o", `jsonpath={.metadata.annotations.deployment\.kubernetes\.io/revision}`), "a rollback is a new revision")

	out = k.ok("rollout", "pause", "deployment/web")
	assert.Contains(t, out, "deployment.apps/web paused")
	before := replicaSets("web")
	k.ok("set", "image", "deployment/web", "nginx=nginx:1.29")
	k.ok("scale", "deployment", "web", "--replicas=4")
	eventually(t, "a paused deployment still scales", func() bool {
		return k.get("get", "deployment", "web", "-o", "jsonpath={.status.replicas}") == "4"
	})
	assert.Len(t, replicaSets("web"), len(before), "no new ReplicaSet while paused")
	k.ok("rollout", "resume", "deployment/web")
	rolledOut("web")
	assert.Contains(t, replicaSets("web"), k.get("get", "rs", "-l", "app=web", "-o", "jsonpath={.items[?(@.spec.template.spec.containers[0].image==\"nginx:1.29\")].metadata.name}"))

	out = k.ok("rollout", "restart", "deployment/web")
	assert.Contains(t, out, "deployment.apps/web restarted")
	rolledOut("web")
	assert.NotEmpty(t, k.get("get", "deployment", "web", "-o", `jsonpath={.spec.template.metadata.annotations.kubectl\.kubernetes\.io/restartedAt}`))

	out = k.ok("expose", "deployment", "web", "--port=80")
	assert.Contains(t, out, "service/web exposed")
	eventually(t, "the service's endpoints list the four pods", func() bool {
		return strings.Count(k.get("get", "endpoints", "web", "-o", "jsonpath={.subsets[*].addresses[*].ip}"), "10.244.") == 4
	})

	out = k.ok("describe", "deployment", "web")
	for _, want := range []string{"Replicas:", "4 desired | 4 updated | 4 total | 4 available | 0 unavailable",
		"StrategyType:", "RollingUpdate", "RollingUpdateStrategy:  25% max unavailable, 25% max surge",
		"NewReplicaSet:", "OldReplicaSets:", "Progressing    True    NewReplicaSetAvailable",
		"Available      True    MinimumReplicasAvailable", "ScalingReplicaSet", "deployment-controller"} {
		assert.Contains(t, out, want)
	}

	_, err := k.run([]string{"EDITOR=sed -i s/replicas:\\ 4/replicas:\\ 2/"}, "edit", "deployment", "web")
	require.NoError(t, err)
	rolledOut("web")
	assert.Equal(t, "2", k.get("get", "deployment", "web", "-o", "jsonpath={.status.replicas}"))

	out = k.ok("apply", "-f", k.file("db.yaml", recreateDeployment))
	assert.Contains(t, out, "deployment.apps/db created")
	rolledOut("db")
	k.ok("set", "image", "deployment/db", "postgres=postgres:17")
	rolledOut("db")
	assert.Equal(t, "2", k.get("get", "deployment", "db", "-o", "jsonpath={.status.updatedReplicas}"))

	out, err = k.run(nil, "apply", "-f", k.file("bad.yaml", mismatchedDeployment))
	require.Error(t, err)
	assert.Contains(t, out, `The Deployment "bad" is invalid: spec.template.metadata.labels: Invalid value: map[string]string{"app":"other"}: `+"`selector` does not match template `labels`")
	assert.Empty(t, k.get("get", "deployment", "bad", "--ignore-not-found", "-o", "name"), "nothing stored")

	out = k.ok("delete", "deployment", "db", "--cascade=orphan")
	assert.Contains(t, out, `deployment.apps "db" deleted`)
	eventually(t, "the orphaned ReplicaSet loses its owner and keeps its pods", func() bool {
		return k.get("get", "rs", "-l", "app=db", "-o", "jsonpath={.items[?(@.spec.replicas==2)].metadata.ownerReferences}") == "" &&
			k.get("get", "pods", "-l", "app=db", "-o", "name") != ""
	})
	k.ok("delete", "deployment", "web", "--cascade=foreground")
	eventually(t, "a foreground delete takes the ReplicaSets and pods first", func() bool {
		return k.get("get", "rs,pods", "-l", "app=web", "-o", "name") == "" && k.get("get", "deployment", "web", "--ignore-not-found", "-o", "name") == ""
	})
	require.NoError(t, stop())
}
