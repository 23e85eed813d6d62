package uitest

import (
	"encoding/json"
	"fmt"
	"maps"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// kubectlOut runs the real kubectl with stdin and returns its output.
func kubectlOut(t *testing.T, kubeconfig, stdin string, args ...string) string {
	t.Helper()
	cmd := exec.Command("kubectl", append([]string{"--kubeconfig", kubeconfig}, args...)...)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "kubectl %s: %s", strings.Join(args, " "), out)
	return string(out)
}

// deploymentRollout plays the deployment controller's part when the
// plane has none: it makes the Deployment's ReplicaSets (named
// <deployment>-<hash>, owned by the Deployment, with their revision) and
// scales them, and writes the Deployment's status as the controller
// would; the replica set controller makes the pods. When the plane runs a
// deployment controller, it does nothing.
type deploymentRollout struct {
	t      *testing.T
	kc     string
	name   string
	uid    string
	manual bool
}

func newDeploymentRollout(t *testing.T, kc, name string) *deploymentRollout {
	r := &deploymentRollout{t: t, kc: kc, name: name}
	r.uid = kubectlOut(t, kc, "", "get", "deployment", name, "-o", "jsonpath={.metadata.uid}")
	// A deployment controller makes the first ReplicaSet at once.
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		if strings.TrimSpace(kubectlOut(t, kc, "", "get", "replicasets", "-l", "app="+name, "-o", "name")) != "" {
			t.Logf("the plane runs a deployment controller: the test watches it work")
			return r
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Logf("the plane has no deployment controller: the test makes the ReplicaSets and writes the Deployment's status")
	r.manual = true
	return r
}

// replicaSet creates or scales the ReplicaSet of revision rev.
func (r *deploymentRollout) replicaSet(hash string, rev, replicas int, image string) {
	if !r.manual {
		return
	}
	kubectlOut(r.t, r.kc, fmt.Sprintf(`apiVersion: apps/v1
kind: ReplicaSet
metadata:
  name: %[1]s-%[2]s
  labels: {app: %[1]s, pod-template-hash: "%[2]s"}
  annotations: {deployment.kubernetes.io/revision: "%[3]d"}
  ownerReferences:
  - {apiVersion: apps/v1, kind: Deployment, name: %[1]s, uid: %[4]s, controller: true, blockOwnerDeletion: true}
spec:
  replicas: %[5]d
  selector: {matchLabels: {app: %[1]s, pod-template-hash: "%[2]s"}}
  template:
    metadata: {labels: {app: %[1]s, pod-template-hash: "%[2]s"}}
    spec: {containers: [{name: nginx, image: "%[6]s"}]}
`, r.name, hash, rev, r.uid, replicas, image), "apply", "--server-side", "--field-manager=deployment", "-f", "-")
}

// status writes the Deployment's status as the controller would.
func (r *deploymentRollout) status(replicas, updated, available int, progressing string) {
	if !r.manual {
		return
	}
	gen := kubectlOut(r.t, r.kc, "", "get", "deployment", r.name, "-o", "jsonpath={.metadata.generation}")
	avail := "True"
	availReason := "MinimumReplicasAvailable"
	if available == 0 {
		avail, availReason = "False", "MinimumReplicasUnavailable"
	}
	patch := fmt.Sprintf(`{"status":{"observedGeneration":%s,"replicas":%d,"updatedReplicas":%d,"readyReplicas":%d,"availableReplicas":%d,"conditions":[
		{"type":"Available","status":"%s","reason":"%s","message":"Deployment has minimum availability."},
		{"type":"Progressing","status":"True","reason":"%s","message":"ReplicaSet is progressing."}]}}`,
		gen, replicas, updated, available, available, avail, availReason, progressing)
	kubectlOut(r.t, r.kc, "", "patch", "deployment", r.name, "--subresource=status", "--type=merge", "--field-manager=deployment", "-p", patch)
}

// TestADeploymentAndItsRolloutOnThePage creates a Deployment with kubectl,
// sees its ReplicaSet and pods grouped under it, changes its image with
// `kubectl set image` and follows the rollout: both ReplicaSets with their
// revisions and counts, the conditions, the past, and the timeline's link
// from a new pod to the set image write.
func TestADeploymentAndItsRolloutOnThePage(t *testing.T) {
	b := newBrowser(t)
	url, kc := serve(t)
	b.run(t, chromedp.Navigate(url+"/ui/"))
	b.waitFor(t, 10*time.Second, `document.body.dataset.ready === 'true'`)

	kubectl(t, kc, "create", "deployment", "web", "--image=nginx:1.26", "--replicas=3")
	r := newDeploymentRollout(t, kc, "web")
	r.replicaSet("6d4cf56db6", 1, 3, "nginx:1.26")
	dep := `document.querySelector('[data-deployment="web"]')`
	rsOf := dep + `?.querySelectorAll('.rs')`
	b.waitFor(t, 15*time.Second, rsOf+`?.length === 1 && `+dep+`.querySelectorAll('[data-wpod][data-status="Running"]').length === 3`)
	r.status(3, 3, 3, "NewReplicaSetAvailable")
	b.waitFor(t, 15*time.Second, dep+`.dataset.rolledOut === 'true'`)
	assert.Equal(t, "1", eval[string](t, b, rsOf+`[0].dataset.revision`))
	assert.Equal(t, int64(0), eval[int64](t, b, `document.querySelectorAll('[data-bare-rs]').length`), "the ReplicaSet is under its Deployment, not beside it")
	b.screenshot(t, "7-deployment")

	// The rollout: the new ReplicaSet grows, the old one shrinks.
	kubectl(t, kc, "set", "image", "deployment/web", "nginx=nginx:1.27")
	r.replicaSet("7f8b9c5d4", 2, 1, "nginx:1.27")
	r.replicaSet("6d4cf56db6", 1, 2, "nginx:1.26")
	r.status(3, 1, 3, "ReplicaSetUpdated")
	b.waitFor(t, 15*time.Second, rsOf+`?.length === 2 && `+rsOf+`[0].dataset.revision === '2' && `+rsOf+`[1].dataset.revision === '1'`)
	if r.manual {
		b.waitFor(t, 15*time.Second, rsOf+`[0].dataset.desired === '1' && `+rsOf+`[0].dataset.ready === '1' && `+
			rsOf+`[1].dataset.desired === '2' && `+rsOf+`[1].querySelectorAll('[data-wpod]').length === 2`)
		assert.Equal(t, "ReplicaSetUpdated", eval[string](t, b, dep+`.querySelector('[data-condition="Progressing"]').dataset.reason`))
		assert.Equal(t, "false", eval[string](t, b, dep+`.dataset.rolledOut`), "a rollout in progress")
		assert.Contains(t, eval[string](t, b, dep+`.innerText`), "1 out of 3 new replicas have been updated")
	}
	mid := eval[int64](t, b, `Number(document.body.dataset.revision)`)
	b.screenshot(t, "8-rollout")

	// The timeline leads from a pod of the new ReplicaSet to kubectl set image.
	setImage := eval[int64](t, b, `Number(document.querySelector('#timeline tr[data-kind="Deployment"][data-actor="kubectl-set"]')?.dataset.revision ?? 0)`)
	require.NotZero(t, setImage, "the timeline shows kubectl's set image write")
	b.waitFor(t, 5*time.Second, fmt.Sprintf(`document.querySelector('#timeline tr.v-ADDED[data-kind="Pod"][data-rollout="%d"]') !== null`, setImage))
	rsCreated := eval[int64](t, b, `Number(document.querySelector('#timeline tr.v-ADDED[data-kind="Pod"][data-name^="web-7f8b9c5d4"], #timeline tr.v-ADDED[data-kind="Pod"][data-rollout]')?.dataset.trigger ?? 0)`)
	assert.NotZero(t, rsCreated, "the pod's own trigger is its ReplicaSet's write")

	// The end of the rollout.
	r.replicaSet("7f8b9c5d4", 2, 3, "nginx:1.27")
	r.replicaSet("6d4cf56db6", 1, 0, "nginx:1.26")
	r.status(3, 3, 3, "NewReplicaSetAvailable")
	b.waitFor(t, 30*time.Second, dep+`.dataset.rolledOut === 'true' && `+rsOf+`[0].querySelectorAll('[data-wpod][data-status="Running"]').length === 3 && `+
		rsOf+`[1].querySelectorAll('[data-wpod]').length === 0`)
	assert.Contains(t, eval[string](t, b, dep+`.innerText`), `deployment "web" successfully rolled out`)
	b.screenshot(t, "9-rolled-out")

	// Back in time, to the middle of the rollout.
	b.travel(t, mid)
	b.waitFor(t, 5*time.Second, fmt.Sprintf(`document.body.dataset.revision === '%d' && `+rsOf+`?.length === 2 && `+dep+`.dataset.rolledOut === 'false'`, mid))

	// The rollout link travels to the set image write.
	b.run(t, chromedp.Click(chromedp.CSS(fmt.Sprintf(`#timeline tr.v-ADDED[data-kind="Pod"][data-rollout="%d"] a.rollout-start`, setImage))))
	b.waitFor(t, 5*time.Second, fmt.Sprintf(`document.body.dataset.revision === '%d' && `+rsOf+`?.length === 1`, setImage))
	b.noErrors(t)
}

// TestPodStatusCountsMatchKubectl runs pods that end up Running,
// Completed, Error, CrashLoopBackOff, ErrImagePull or ImagePullBackOff
// and Pending, and checks that the page's header counts them as the
// STATUS column of `kubectl get pods` does.
func TestPodStatusCountsMatchKubectl(t *testing.T) {
	b := newBrowser(t)
	url, kc := serve(t)
	b.run(t, chromedp.Navigate(url+"/ui/"))
	b.waitFor(t, 10*time.Second, `document.body.dataset.ready === 'true'`)

	kubectl(t, kc, "run", "web", "--image=nginx")
	kubectl(t, kc, "run", "done", "--image=busybox", "--restart=Never", "--command", "--", "sh", "-c", "echo hello")
	kubectl(t, kc, "run", "fails", "--image=busybox", "--restart=Never", "--command", "--", "sh", "-c", "exit 1")
	kubectl(t, kc, "run", "crashes", "--image=busybox", "--command", "--", "sh", "-c", "exit 1")
	kubectl(t, kc, "run", "typo", "--image=nginx:does-not-exist")
	kubectl(t, kc, "run", "stuck", "--image=nginx", `--overrides={"apiVersion":"v1","spec":{"nodeSelector":{"disk":"ssd"}}}`)

	want := map[string]bool{"Running": true, "Completed": true, "Error": true, "CrashLoopBackOff": true, "Pending": true}
	var kubectlCounts, pageCounts map[string]int
	deadline := time.Now().Add(45 * time.Second)
	for {
		kubectlCounts = map[string]int{}
		for _, line := range strings.Split(strings.TrimSpace(kubectlOut(t, kc, "", "get", "pods", "--no-headers")), "\n") {
			if f := strings.Fields(line); len(f) >= 3 {
				kubectlCounts[f[2]]++
			}
		}
		pageCounts = map[string]int{}
		require.NoError(t, json.Unmarshal([]byte(eval[string](t, b, `document.getElementById('pod-summary').dataset.status || '{}'`)), &pageCounts))
		allThere := true
		for s := range want {
			allThere = allThere && kubectlCounts[s] > 0
		}
		pulling := kubectlCounts["ErrImagePull"] + kubectlCounts["ImagePullBackOff"]
		if allThere && pulling == 1 && maps.Equal(kubectlCounts, pageCounts) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the page counts %v; kubectl prints %v", pageCounts, kubectlCounts)
		}
		time.Sleep(300 * time.Millisecond)
	}
	t.Logf("kubectl and the page agree: %v", pageCounts)
	summary := eval[string](t, b, `document.getElementById('pod-summary').innerText`)
	assert.Contains(t, summary, "6 pods: ")
	assert.Contains(t, summary, "1 Running")
	assert.Contains(t, summary, "1 CrashLoopBackOff")
	assert.False(t, eval[bool](t, b, `[...document.querySelectorAll('.counts, #pod-summary')].some((e) => /\b1 pods\b/.test(e.textContent))`), "one pod is a pod")
	assert.Equal(t, "CrashLoopBackOff", eval[string](t, b, `document.querySelector('[data-pod="crashes"]')?.dataset.status ?? ''`))
	b.screenshot(t, "10-pod-statuses")
	b.noErrors(t)
}
