package httpapi_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/apiserver/httpapi"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
)

// kubectlTimeout bounds every kubectl run, so a hang fails the test.
const kubectlTimeout = 60 * time.Second

// kubectl runs the real kubectl against one test server, with no
// kubeconfig, a throwaway HOME and a fresh discovery cache.
type kubectl struct {
	t    *testing.T
	bin  string
	args []string
	env  []string
}

func newKubectl(t *testing.T, url string) *kubectl {
	bin, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skip("kubectl is not installed")
	}
	home := t.TempDir()
	return &kubectl{
		t: t, bin: bin,
		args: []string{"--server", url, "--cache-dir", t.TempDir()},
		env:  []string{"HOME=" + home, "KUBECONFIG=" + home + "/none", "PATH=/usr/bin:/bin"},
	}
}

// run runs kubectl with stdin and returns its stdout, stderr and error.
func (k *kubectl) run(stdin string, args ...string) (string, string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), kubectlTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, k.bin, append(append([]string{}, k.args...), args...)...)
	cmd.Env = k.env
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return stdout.String(), stderr.String(), err
}

// ok runs kubectl and requires it to succeed.
func (k *kubectl) ok(stdin string, args ...string) string {
	k.t.Helper()
	out, errOut, err := k.run(stdin, args...)
	require.NoError(k.t, err, "kubectl %v\nstdout: %s\nstderr: %s", args, out, errOut)
	return out
}

// fails runs kubectl and requires it to fail; it returns stderr.
func (k *kubectl) fails(stdin string, args ...string) string {
	k.t.Helper()
	out, errOut, err := k.run(stdin, args...)
	require.Error(k.t, err, "kubectl %v should fail\nstdout: %s", args, out)
	return errOut
}

const podManifest = `apiVersion: v1
kind: Pod
metadata:
  name: web
  labels:
    app: web
spec:
  containers:
  - name: nginx
    image: nginx:1.27
    ports:
    - containerPort: 80
`

const rcManifest = `apiVersion: v1
kind: ReplicationController
metadata:
  name: frontend
spec:
  replicas: 2
  selector:
    app: frontend
  template:
    metadata:
      labels:
        app: frontend
    spec:
      containers:
      - name: php
        image: php:8.3-apache
        ports:
        - containerPort: 80
`

const svcManifest = `apiVersion: v1
kind: Service
metadata:
  name: frontend
spec:
  selector:
    app: frontend
  ports:
  - port: 80
`

// columns splits kubectl's table output into rows of fields.
func columns(out string) [][]string {
	var rows [][]string
	for line := range strings.SplitSeq(strings.TrimSpace(out), "\n") {
		rows = append(rows, strings.Fields(line))
	}
	return rows
}

// TestKubectl drives the real kubectl through the commands a learner
// types, against a server on a loopback port, and checks both what kubectl
// prints and what the server stored. The steps build on each other.
func TestKubectl(t *testing.T) {
	ts := newTestServer(t, clock.Real{}, nil)
	k := newKubectl(t, ts.url)
	ctx := context.Background()
	pods := client.For[*api.Pod](ts.srv)
	rcs := client.For[*api.ReplicationController](ts.srv)

	t.Run("version", func(t *testing.T) {
		out := k.ok("", "version")
		assert.Contains(t, out, "Client Version: v1.32")
		assert.Contains(t, out, "Server Version: v1.32.0-miniplane")
	})
	t.Run("api-resources", func(t *testing.T) {
		rows := columns(k.ok("", "api-resources"))
		require.NotEmpty(t, rows)
		assert.Equal(t, []string{"NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND"}, rows[0])
		var want [][]string // what api's registry serves, in the preferred versions
		for _, r := range servedResources(t, ts.srv) {
			if r.preferred {
				want = append(want, r.apiResourcesRow())
			}
		}
		assert.ElementsMatch(t, want, rows[1:])
		for _, fact := range kubeAPIServerFacts {
			if fact.preferred {
				assert.Contains(t, rows[1:], fact.apiResourcesRow(), "as kube-apiserver serves it")
			}
		}
	})
	t.Run("create", func(t *testing.T) {
		assert.Equal(t, "pod/web created\n", k.ok(podManifest, "create", "-f", "-"))
		p, err := pods.Get(ctx, "default", "web")
		require.NoError(t, err)
		assert.Equal(t, "nginx:1.27", p.Spec.Containers[0].Image)
		assert.Equal(t, api.ProtocolTCP, p.Spec.Containers[0].Ports[0].Protocol, "defaulted by the server")
	})
	t.Run("typed generators send protobuf", func(t *testing.T) {
		// kubectl create namespace|service use client-go's typed clients,
		// which send protobuf bodies.
		assert.Equal(t, "namespace/team-a created\n", k.ok("", "create", "namespace", "team-a"))
		assert.Equal(t, "service/api created\n", k.ok("", "create", "service", "clusterip", "api", "--tcp=80:8080", "-n", "team-a"))
		svc, err := client.For[*api.Service](ts.srv).Get(ctx, "team-a", "api")
		require.NoError(t, err)
		assert.Equal(t, int32(80), svc.Spec.Ports[0].Port)
		assert.Equal(t, api.FromInt(8080), svc.Spec.Ports[0].TargetPort)
		assert.Equal(t, map[string]string{"app": "api"}, svc.Spec.Selector)
		assert.NotEmpty(t, svc.Spec.ClusterIP)
	})
	t.Run("create existing", func(t *testing.T) {
		assert.Contains(t, k.fails(podManifest, "create", "-f", "-"),
			`Error from server (AlreadyExists): error when creating "STDIN": pods "web" already exists`)
	})
	t.Run("create invalid", func(t *testing.T) {
		bad := "apiVersion: v1\nkind: Pod\nmetadata:\n  name: bad\nspec:\n  containers: []\n"
		errOut := k.fails(bad, "create", "-f", "-")
		assert.Contains(t, errOut, `The Pod "bad" is invalid:`)
		assert.Contains(t, errOut, "spec.containers: Required value")
		_, err := pods.Get(ctx, "default", "bad")
		assert.True(t, apierrors.IsNotFound(err), "nothing stored")
	})
	t.Run("get missing", func(t *testing.T) {
		assert.Contains(t, k.fails("", "get", "pod", "nope"), `Error from server (NotFound): pods "nope" not found`)
	})
	t.Run("get", func(t *testing.T) {
		rows := columns(k.ok("", "get", "pods"))
		require.Len(t, rows, 2)
		assert.Equal(t, []string{"NAME", "READY", "STATUS", "RESTARTS", "AGE"}, rows[0])
		assert.Equal(t, []string{"web", "0/1", "Pending", "0"}, rows[1][:4])

		rows = columns(k.ok("", "get", "po", "web"))
		require.Len(t, rows, 2)
		assert.Equal(t, "web", rows[1][0])
	})
	t.Run("endpointslices", func(t *testing.T) {
		slice := `{"apiVersion":"discovery.k8s.io/v1","kind":"EndpointSlice","metadata":{"name":"web-x1"},"addressType":"IPv4",` +
			`"endpoints":[{"addresses":["10.244.0.5"]},{"addresses":["10.244.0.6"]}],"ports":[{"name":"http","port":8080}]}`
		assert.Equal(t, "endpointslice.discovery.k8s.io/web-x1 created\n", k.ok(slice, "create", "-f", "-"))
		rows := columns(k.ok("", "get", "endpointslices"))
		require.Len(t, rows, 2)
		assert.Equal(t, []string{"NAME", "ADDRESSTYPE", "PORTS", "ENDPOINTS", "AGE"}, rows[0])
		assert.Equal(t, []string{"web-x1", "IPv4", "8080", "10.244.0.5,10.244.0.6"}, rows[1][:4])
		assert.Contains(t, k.fails(strings.Replace(slice, `"IPv4"`, `"IPv6"`, 1), "replace", "-f", "-"),
			`addressType: Invalid value: "IPv6": field is immutable`)
	})
	t.Run("get -o wide", func(t *testing.T) {
		rows := columns(k.ok("", "get", "pods", "-o", "wide"))
		require.Len(t, rows, 2)
		assert.Equal(t, []string{"NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE", "NOMINATED", "NODE", "READINESS", "GATES"}, rows[0])
		assert.Equal(t, []string{"<none>", "<none>", "<none>", "<none>"}, rows[1][5:])
	})
	t.Run("get -o yaml", func(t *testing.T) {
		out := k.ok("", "get", "pod", "web", "-o", "yaml")
		assert.Contains(t, out, "kind: Pod\n")
		assert.Contains(t, out, "  name: web\n")
		assert.Contains(t, out, "phase: Pending")
	})
	t.Run("get -o json", func(t *testing.T) {
		var list struct {
			Kind  string    `json:"kind"`
			Items []api.Pod `json:"items"`
		}
		require.NoError(t, json.Unmarshal([]byte(k.ok("", "get", "pods", "-o", "json")), &list))
		assert.Equal(t, "List", list.Kind)
		require.Len(t, list.Items, 1)
		assert.Equal(t, "web", list.Items[0].Metadata.Name)
	})
	t.Run("get -l", func(t *testing.T) {
		_, err := pods.Create(ctx, podOf("default", "other", map[string]string{"app": "other"}))
		require.NoError(t, err)
		rows := columns(k.ok("", "get", "pods", "-l", "app=web"))
		require.Len(t, rows, 2)
		assert.Equal(t, "web", rows[1][0])
		out, errOut, err := k.run("", "get", "pods", "-l", "app=none")
		require.NoError(t, err)
		assert.Empty(t, out)
		assert.Contains(t, errOut, "No resources found in default namespace.")
		rows = columns(k.ok("", "get", "pods", "-A", "--show-labels"))
		require.Len(t, rows, 3)
		assert.Equal(t, []string{"NAMESPACE", "NAME", "READY", "STATUS", "RESTARTS", "AGE", "LABELS"}, rows[0])
		assert.Equal(t, []string{"default", "other"}, rows[1][:2])
		assert.Equal(t, "app=other", rows[1][6])
	})
	t.Run("get -w", func(t *testing.T) { testGetWatch(t, k, ts) })
	t.Run("apply client-side", func(t *testing.T) {
		assert.Equal(t, "replicationcontroller/frontend created\n", k.ok(rcManifest, "apply", "-f", "-"))
		rc, err := rcs.Get(ctx, "default", "frontend")
		require.NoError(t, err)
		assert.Contains(t, rc.Metadata.Annotations, "kubectl.kubernetes.io/last-applied-configuration")
		assert.Equal(t, "replicationcontroller/frontend unchanged\n", k.ok(rcManifest, "apply", "-f", "-"))
	})
	t.Run("apply client-side with a change", func(t *testing.T) {
		changed := strings.Replace(rcManifest, "image: php:8.3-apache", "image: php:8.4-apache", 1)
		// kubectl diff asks the server for a dry run: nothing may change.
		_, _, err := k.run(changed, "diff", "-f", "-")
		var exit *exec.ExitError
		require.ErrorAs(t, err, &exit)
		assert.Equal(t, 1, exit.ExitCode(), "diff exits 1 when the object would change")
		rc, err := rcs.Get(ctx, "default", "frontend")
		require.NoError(t, err)
		assert.Equal(t, "php:8.3-apache", rc.Spec.Template.Spec.Containers[0].Image, "diff's dry run stored nothing")

		assert.Equal(t, "replicationcontroller/frontend configured\n", k.ok(changed, "apply", "-f", "-"))
		rc, err = rcs.Get(ctx, "default", "frontend")
		require.NoError(t, err)
		c := rc.Spec.Template.Spec.Containers[0]
		assert.Equal(t, "php:8.4-apache", c.Image)
		assert.Equal(t, []api.ContainerPort{{ContainerPort: 80, Protocol: api.ProtocolTCP}}, c.Ports, "a strategic merge patch keeps the ports")

		// Back to the first manifest, for the steps below.
		assert.Equal(t, "replicationcontroller/frontend configured\n", k.ok(rcManifest, "apply", "-f", "-"))
	})
	t.Run("get several kinds -o wide", func(t *testing.T) {
		k.ok(svcManifest, "create", "-f", "-")
		out := k.ok("", "get", "rc,svc,endpoints", "-o", "wide")
		blocks := strings.Split(strings.TrimSpace(out), "\n\n")
		require.Len(t, blocks, 2, out) // no endpoints yet: that kind prints nothing
		rows := columns(blocks[0])
		assert.Equal(t, []string{"NAME", "DESIRED", "CURRENT", "READY", "AGE", "CONTAINERS", "IMAGES", "SELECTOR"}, rows[0])
		assert.Equal(t, []string{"replicationcontroller/frontend", "2", "0", "0"}, rows[1][:4])
		assert.Equal(t, []string{"php", "php:8.3-apache", "app=frontend"}, rows[1][5:])
		rows = columns(blocks[1])
		assert.Equal(t, []string{"NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE", "SELECTOR"}, rows[0])
		assert.Equal(t, "service/frontend", rows[1][0])
		assert.Equal(t, "ClusterIP", rows[1][1])
		assert.Equal(t, []string{"<none>", "80/TCP"}, rows[1][3:5])

		out = k.ok("", "get", "all")
		for _, want := range []string{"pod/web", "pod/other", "replicationcontroller/frontend", "service/frontend"} {
			assert.Contains(t, out, want)
		}
	})
	t.Run("scale with a precondition", func(t *testing.T) {
		// --current-replicas makes kubectl GET the scale and PUT it back.
		assert.Equal(t, "replicationcontroller/frontend scaled\n", k.ok("", "scale", "rc", "frontend", "--current-replicas=2", "--replicas=4"))
		rc, err := rcs.Get(ctx, "default", "frontend")
		require.NoError(t, err)
		assert.Equal(t, int32(4), *rc.Spec.Replicas)
		assert.Contains(t, k.fails("", "scale", "rc", "frontend", "--current-replicas=2", "--replicas=3"), "Expected replicas to be 2, was 4")
	})
	t.Run("scale", func(t *testing.T) {
		// Without preconditions kubectl scale sends a merge patch to /scale.
		assert.Equal(t, "replicationcontroller/frontend scaled\n", k.ok("", "scale", "rc", "frontend", "--replicas=5"))
		rc, err := rcs.Get(ctx, "default", "frontend")
		require.NoError(t, err)
		assert.Equal(t, int32(5), *rc.Spec.Replicas)
	})
	t.Run("label", func(t *testing.T) {
		assert.Equal(t, "pod/web labeled\n", k.ok("", "label", "pod", "web", "env=prod"))
		p, err := pods.Get(ctx, "default", "web")
		require.NoError(t, err)
		assert.Equal(t, "prod", p.Metadata.Labels["env"])
		assert.Contains(t, k.fails("", "label", "pod", "web", "env=dev"), "'env' already has a value (prod), and --overwrite is false")
		assert.Equal(t, "pod/web unlabeled\n", k.ok("", "label", "pod", "web", "env-"))
		p, err = pods.Get(ctx, "default", "web")
		require.NoError(t, err)
		assert.NotContains(t, p.Metadata.Labels, "env")
	})
	t.Run("apply server-side", func(t *testing.T) {
		svc := strings.ReplaceAll(svcManifest, "frontend", "backend")
		assert.Equal(t, "service/backend serverside-applied\n", k.ok(svc, "apply", "--server-side", "-f", "-"))
		got, err := client.For[*api.Service](ts.srv).Get(ctx, "default", "backend")
		require.NoError(t, err)
		assert.Equal(t, api.ServiceTypeClusterIP, got.Spec.Type)
		require.NotEmpty(t, got.Metadata.ManagedFields)
		assert.Equal(t, "kubectl", got.Metadata.ManagedFields[0].Manager)
		assert.Equal(t, "Apply", got.Metadata.ManagedFields[0].Operation)

		more := strings.Replace(svc, "  - port: 80\n", "  - port: 80\n    name: http\n  - port: 443\n    name: https\n", 1)
		assert.Equal(t, "service/backend serverside-applied\n", k.ok(more, "apply", "--server-side", "-f", "-"))
		got, err = client.For[*api.Service](ts.srv).Get(ctx, "default", "backend")
		require.NoError(t, err)
		assert.Len(t, got.Spec.Ports, 2)
	})
	t.Run("apply server-side after scale conflicts", func(t *testing.T) {
		manifest := strings.ReplaceAll(rcManifest, "frontend", "owned")
		assert.Equal(t, "replicationcontroller/owned serverside-applied\n", k.ok(manifest, "apply", "--server-side", "-f", "-"))
		k.ok("", "scale", "rc", "owned", "--replicas=4")
		errOut := k.fails(manifest, "apply", "--server-side", "-f", "-")
		assert.Contains(t, errOut, `Apply failed with 1 conflict: conflict with "kubectl" with subresource "scale" using v1`)
		assert.Contains(t, errOut, ".spec.replicas")
		assert.Equal(t, "replicationcontroller/owned serverside-applied\n", k.ok(manifest, "apply", "--server-side", "--force-conflicts", "-f", "-"))
		rc, err := rcs.Get(ctx, "default", "owned")
		require.NoError(t, err)
		assert.Equal(t, int32(2), *rc.Spec.Replicas, "forced back to the manifest's")
	})
	t.Run("describe", func(t *testing.T) {
		out := k.ok("", "describe", "rc", "frontend")
		assert.Regexp(t, `Name:\s+frontend`, out)
		assert.Regexp(t, `Replicas:\s+0 current / 5 desired`, out)
		assert.Regexp(t, `Labels:\s+app=frontend`, out)
		assert.Regexp(t, `Image:\s+php:8.3-apache`, out)
		assert.Contains(t, out, "Events:")
		out = k.ok("", "describe", "pod", "web")
		assert.Regexp(t, `Status:\s+Running`, out, "as the watch step left it")
	})
	t.Run("delete", func(t *testing.T) {
		assert.Equal(t, "pod \"web\" deleted\n", k.ok("", "delete", "pod", "web"))
		_, err := pods.Get(ctx, "default", "web")
		assert.True(t, apierrors.IsNotFound(err))
		assert.Contains(t, k.fails("", "delete", "pod", "web"), `Error from server (NotFound): pods "web" not found`)
	})
	t.Run("delete cascade", func(t *testing.T) { testDeleteCascade(t, k, ts) })
}

// testGetWatch runs kubectl get pods -w, waits for it to print the
// current pods, changes one, and waits for the change to be printed.
func testGetWatch(t *testing.T, k *kubectl, ts *testServer) {
	ctx, cancel := context.WithTimeout(context.Background(), kubectlTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, k.bin, append(append([]string{}, k.args...), "get", "pods", "-l", "app=web", "-w")...)
	cmd.Env = k.env
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	defer func() {
		cancel()
		_ = cmd.Wait()
	}()
	lines := bufio.NewScanner(stdout)
	next := func() []string {
		if lines.Scan() {
			return strings.Fields(lines.Text())
		}
		cancel()
		_ = cmd.Wait() // stderr is complete only after Wait
		require.FailNow(t, "kubectl get -w stopped", stderr.String())
		return nil
	}
	assert.Equal(t, "NAME", next()[0])
	assert.Equal(t, []string{"web", "0/1", "Pending"}, next()[:3])

	p, err := client.For[*api.Pod](ts.srv).Get(ctx, "default", "web")
	require.NoError(t, err)
	running := p.DeepCopyObject().(*api.Pod)
	running.Status.Phase = api.PodRunning
	running.Status.PodIP = "10.244.0.9"
	running.Status.ContainerStatuses = []api.ContainerStatus{{Name: "nginx", Ready: true, State: api.ContainerState{Running: &api.ContainerStateRunning{}}}}
	_, err = ts.srv.UpdateStatus(ctx, running)
	require.NoError(t, err)
	assert.Equal(t, []string{"web", "1/1", "Running"}, next()[:3], "the change, once")
}

// testDeleteCascade deletes replication controllers with each cascade
// policy and checks what the server did: with no garbage collector
// running, Background removes the owner at once and leaves the dependents
// for the collector; Foreground and Orphan leave the owner marked with the
// finalizer the collector acts on.
func testDeleteCascade(t *testing.T, k *kubectl, ts *testServer) {
	ctx := context.Background()
	rcs := client.For[*api.ReplicationController](ts.srv)
	pods := client.For[*api.Pod](ts.srv)
	tests := []struct {
		cascade       string
		wantRemoved   bool
		wantFinalizer string
	}{
		{cascade: "background", wantRemoved: true},
		{cascade: "foreground", wantFinalizer: api.FinalizerDeleteDependents},
		{cascade: "orphan", wantFinalizer: api.FinalizerOrphanDependents},
	}
	for _, tt := range tests {
		t.Run(tt.cascade, func(t *testing.T) {
			name := "cascade-" + tt.cascade
			rc, err := rcs.Create(ctx, rcOf("default", name, 1))
			require.NoError(t, err)
			dep := podOf("default", name+"-pod", map[string]string{"app": name})
			dep.Metadata.OwnerReferences = []api.OwnerReference{{APIVersion: "v1", Kind: "ReplicationController", Name: name, UID: rc.Metadata.UID, Controller: ptr(true), BlockOwnerDeletion: ptr(true)}}
			_, err = pods.Create(ctx, dep)
			require.NoError(t, err)

			out := k.ok("", "delete", "rc", name, "--cascade="+tt.cascade, "--wait=false")
			assert.Equal(t, "replicationcontroller \""+name+"\" deleted\n", out)
			got, err := rcs.Get(ctx, "default", name)
			if tt.wantRemoved {
				assert.True(t, apierrors.IsNotFound(err), "removed at once")
			} else {
				require.NoError(t, err)
				assert.NotNil(t, got.Metadata.DeletionTimestamp)
				assert.Equal(t, []string{tt.wantFinalizer}, got.Metadata.Finalizers)
			}
			_, err = pods.Get(ctx, "default", name+"-pod")
			assert.NoError(t, err, "the dependent waits for the garbage collector")
		})
	}
}

func ptr[T any](v T) *T { return &v }

// TestKubectlDrain drains a node with the real kubectl: it cordons the node
// (a patch of spec.unschedulable), lists the node's pods across namespaces
// by spec.nodeName, and evicts each through pods/eviction, which it uses
// because discovery lists it; then it waits for them to be gone, which the
// server's sweeper sees to when their grace period ends, as a kubelet would.
func TestKubectlDrain(t *testing.T) {
	ts := newTestServer(t, clock.Real{}, nil)
	k := newKubectl(t, ts.url)
	ctx, cancel := context.WithCancel(context.Background())
	swept := make(chan struct{})
	go func() {
		defer close(swept)
		ts.srv.Run(ctx)
	}()
	defer func() {
		cancel()
		<-swept
	}()

	nodes := client.For[*api.Node](ts.srv)
	pods := client.For[*api.Pod](ts.srv)
	for _, name := range []string{"node-1", "node-2"} {
		_, err := nodes.Create(ctx, &api.Node{Metadata: api.ObjectMeta{Name: name},
			Status: api.NodeStatus{Conditions: []api.NodeCondition{{Type: api.NodeReady, Status: api.ConditionTrue}}}})
		require.NoError(t, err)
	}
	_, err := client.For[*api.Namespace](ts.srv).Create(ctx, &api.Namespace{Metadata: api.ObjectMeta{Name: "team"}})
	require.NoError(t, err)
	owner, err := client.For[*api.ReplicationController](ts.srv).Create(ctx, rcOf("default", "web", 3))
	require.NoError(t, err)
	placed := map[string]string{"default/web-1": "node-1", "team/web-2": "node-1", "default/web-3": "node-2"}
	for key, node := range placed {
		ns, name, _ := strings.Cut(key, "/")
		p := podOf(ns, name, map[string]string{"app": "web"})
		// drain refuses pods no controller manages, unless forced.
		p.Metadata.OwnerReferences = []api.OwnerReference{{APIVersion: "v1", Kind: "ReplicationController", Name: "web", UID: owner.Metadata.UID, Controller: ptr(true)}}
		p.Spec.TerminationGracePeriodSeconds = ptr(int64(1))
		_, err := pods.Create(ctx, p)
		require.NoError(t, err)
		_, err = ts.srv.Bind(ctx, ns, name, node)
		require.NoError(t, err)
	}

	out := k.ok("", "drain", "node-1", "--ignore-daemonsets")
	assert.Contains(t, out, "node/node-1 cordoned")
	assert.Contains(t, out, "evicting pod default/web-1")
	assert.Contains(t, out, "evicting pod team/web-2")
	assert.Contains(t, out, "pod/web-1 evicted")
	assert.Contains(t, out, "pod/web-2 evicted")
	assert.Contains(t, out, "node/node-1 drained")

	n, err := nodes.Get(ctx, "", "node-1")
	require.NoError(t, err)
	assert.True(t, n.Spec.Unschedulable, "cordoned")
	for key, node := range placed {
		ns, name, _ := strings.Cut(key, "/")
		_, err := pods.Get(ctx, ns, name)
		if node == "node-1" {
			assert.True(t, apierrors.IsNotFound(err), "%s was evicted, got %v", key, err)
		} else {
			assert.NoError(t, err, "%s is on another node", key)
		}
	}
	rows := columns(k.ok("", "get", "nodes"))
	require.Len(t, rows, 3)
	assert.Equal(t, []string{"node-1", "Ready,SchedulingDisabled"}, rows[1][:2])
	assert.Equal(t, []string{"node-2", "Ready"}, rows[2][:2])

	assert.Equal(t, "node/node-1 uncordoned\n", k.ok("", "uncordon", "node-1"))
	n, err = nodes.Get(ctx, "", "node-1")
	require.NoError(t, err)
	assert.False(t, n.Spec.Unschedulable)
}

// TestKubectlEvents shows that core/v1 and events.k8s.io/v1 Events are one
// storage: an event recorded through each API is listed, the same, by
// `kubectl get events` and `kubectl get events.v1.events.k8s.io`.
func TestKubectlEvents(t *testing.T) {
	ts := newTestServer(t, clock.NewFake(epoch), nil)
	k := newKubectl(t, ts.url)
	old := &api.Event{
		Metadata:       api.ObjectMeta{Namespace: "default", Name: "web.1"},
		InvolvedObject: api.ObjectReference{Kind: "Pod", Namespace: "default", Name: "web", APIVersion: "v1"},
		Reason:         "Pulled", Message: "Container image already present", Type: api.EventTypeNormal,
		Source: api.EventSource{Component: "kubelet", Host: "node-1"}, Count: 3,
		FirstTimestamp: api.NewTime(epoch.Add(-time.Hour)), LastTimestamp: api.NewTime(epoch.Add(-2 * time.Minute)),
	}
	_, err := client.For[*api.Event](ts.srv).Create(ctx, old)
	require.NoError(t, err)
	recorded := &api.EventsV1Event{
		Metadata:  api.ObjectMeta{Namespace: "team-a", Name: "db.2"},
		Regarding: api.ObjectReference{Kind: "Pod", Namespace: "team-a", Name: "db", APIVersion: "v1"},
		Reason:    "Scheduled", Note: "Successfully assigned team-a/db to node-2", Type: api.EventTypeNormal, Action: "Binding",
		EventTime:           api.NewMicroTime(epoch.Add(-30 * time.Second)),
		ReportingController: "default-scheduler", ReportingInstance: "default-scheduler-1",
	}
	_, err = client.For[*api.Namespace](ts.srv).Create(ctx, &api.Namespace{Metadata: api.ObjectMeta{Name: "team-a"}})
	require.NoError(t, err)
	_, err = client.For[*api.EventsV1Event](ts.srv).Create(ctx, recorded)
	require.NoError(t, err)

	want := [][]string{
		{"NAMESPACE", "LAST", "SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"},
		{"default", "2m", "Normal", "Pulled", "pod/web", "Container", "image", "already", "present"},
		{"team-a", "30s", "Normal", "Scheduled", "pod/db", "Successfully", "assigned", "team-a/db", "to", "node-2"},
	}
	core := k.ok("", "get", "events", "-A")
	assert.Equal(t, want, columns(core))
	assert.Equal(t, core, k.ok("", "get", "events.v1.events.k8s.io", "-A"), "one storage, printed alike")
	assert.Equal(t, core, k.ok("", "get", "ev", "-A"))

	wide := columns(k.ok("", "get", "events.events.k8s.io", "-n", "team-a", "-o", "wide"))
	require.Len(t, wide, 2)
	assert.Equal(t, []string{"default-scheduler,", "default-scheduler-1"}, wide[1][4:6], "SOURCE: the reporting controller and instance")

	var v1List struct {
		Items []api.EventsV1Event `json:"items"`
	}
	require.NoError(t, json.Unmarshal([]byte(k.ok("", "get", "events.events.k8s.io", "-A", "-o", "json")), &v1List))
	require.Len(t, v1List.Items, 2)
	assert.Equal(t, "events.k8s.io/v1", v1List.Items[0].APIVersion)
	assert.Equal(t, "Container image already present", v1List.Items[0].Note)
	assert.Equal(t, int32(3), v1List.Items[0].DeprecatedCount)
}

// TestKubectlLogsAuthAndConnect drives the kubectl commands that reach
// past the objects: logs (from a LogSource), auth can-i and whoami (the
// review APIs), and exec, attach and port-forward, which miniplane cannot
// serve and says why.
func TestKubectlLogsAuthAndConnect(t *testing.T) {
	logs := newFakeLogs()
	ts := newTestServer(t, clock.Real{}, func(c *httpapi.Config) { c.Logs = logs })
	k := newKubectl(t, ts.url)
	ctx := context.Background()
	p := podOf("default", "web", map[string]string{"app": "web"})
	p.Spec.NodeName = "node-0"
	created, err := client.For[*api.Pod](ts.srv).Create(ctx, p)
	require.NoError(t, err)
	running := created.DeepCopy()
	running.Status.Phase = api.PodRunning // exec and port-forward check the phase first
	_, err = ts.srv.UpdateStatus(ctx, running)
	require.NoError(t, err)
	now := time.Now()
	logs.add("web/app", now.Add(-time.Hour), "an hour ago", false)
	logs.add("web/app", now, "now", false)
	logs.add("web/app/previous", now.Add(-2*time.Hour), "before the crash", true)

	t.Run("logs", func(t *testing.T) {
		assert.Equal(t, "an hour ago\nnow\n", k.ok("", "logs", "web"))
		assert.Equal(t, "now\n", k.ok("", "logs", "web", "--tail=1"))
		assert.Equal(t, "now\n", k.ok("", "logs", "web", "--since=10m"))
		assert.Equal(t, "before the crash\n", k.ok("", "logs", "web", "--previous"))
		assert.Regexp(t, `^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z now\n$`, k.ok("", "logs", "web", "--timestamps", "--tail=1"))
		logs.mu.Lock()
		delete(logs.runs, "web/app/previous")
		logs.mu.Unlock()
		assert.Contains(t, k.fails("", "logs", "web", "--previous"),
			`Error from server (BadRequest): previous terminated container "app" in pod "web" not found`)
	})
	t.Run("logs -f", func(t *testing.T) {
		runCtx, cancel := context.WithTimeout(context.Background(), kubectlTimeout)
		defer cancel()
		cmd := exec.CommandContext(runCtx, k.bin, append(append([]string{}, k.args...), "logs", "-f", "web")...)
		cmd.Env = k.env
		stdout, err := cmd.StdoutPipe()
		require.NoError(t, err)
		require.NoError(t, cmd.Start())
		lines := bufio.NewScanner(stdout)
		for _, want := range []string{"an hour ago", "now"} {
			require.True(t, lines.Scan())
			assert.Equal(t, want, lines.Text())
		}
		logs.add("web/app", time.Now(), "a new line", false)
		require.True(t, lines.Scan(), "kubectl logs -f prints a line written after it started")
		assert.Equal(t, "a new line", lines.Text())
		logs.add("web/app", time.Now(), "exited", true)
		require.True(t, lines.Scan())
		assert.Equal(t, "exited", lines.Text())
		assert.False(t, lines.Scan())
		assert.NoError(t, cmd.Wait(), "the run ended, so kubectl logs -f exits")
	})
	t.Run("auth", func(t *testing.T) {
		assert.Equal(t, "yes\n", k.ok("", "auth", "can-i", "create", "pods"))
		assert.Equal(t, "yes\n", k.ok("", "auth", "can-i", "delete", "replicationcontrollers", "--all-namespaces"))
		assert.Equal(t, "yes\n", k.ok("", "auth", "can-i", "get", "/healthz"))
		rows := columns(k.ok("", "auth", "can-i", "--list"))
		require.GreaterOrEqual(t, len(rows), 2)
		assert.Equal(t, []string{"*.*", "[]", "[]", "[*]"}, rows[1])
		rows = columns(k.ok("", "auth", "whoami"))
		assert.Equal(t, [][]string{{"ATTRIBUTE", "VALUE"}, {"Username", "system:anonymous"}, {"Groups", "[system:unauthenticated]"}}, rows)
	})
	t.Run("unsupported", func(t *testing.T) {
		assert.Contains(t, k.fails("", "exec", "web", "--", "ls"),
			"Error from server (MethodNotAllowed): miniplane runs no containers: exec is not supported")
		assert.Contains(t, k.fails("", "attach", "web"),
			"Error from server (MethodNotAllowed): miniplane runs no containers: attach is not supported")
		assert.Contains(t, k.fails("", "port-forward", "web", "18080:80"),
			"error: error upgrading connection: miniplane runs no containers: port-forward is not supported")
		assert.Contains(t, k.fails("", "get", "--raw", "/api/v1/namespaces/default/pods/web/proxy/"),
			"Error from server (MethodNotAllowed): miniplane runs no containers: proxy is not supported")
	})
}
