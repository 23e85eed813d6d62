package httpapi

import (
	"context"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/miniplane/miniplane/controllers/manager"
	"github.com/miniplane/miniplane/plane"
	"github.com/miniplane/miniplane/plane/planetest"
)

// TestProxyToASimulatedServer: a pod running agnhost serve-hostname
// answers its name through pods/{name}:9376/proxy/, to client-go's
// ProxyGet and to the real kubectl's `get --raw`, and a port nothing
// listens on gives kube-apiserver's 503.
func TestProxyToASimulatedServer(t *testing.T) {
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skip("kubectl is not installed")
	}
	synctest.Test(t, func(t *testing.T) {
		opts := manager.DefaultOptions()
		opts.Nodes = 1
		p := planetest.Start(t, plane.Config{Seed: 1, Options: &opts})
		cs, err := kubernetes.NewForConfig(&rest.Config{Host: p.Host(), Transport: p.Transport()})
		require.NoError(t, err)
		ctx := t.Context()
		_, err = cs.CoreV1().Pods("default").Create(ctx, &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: "hostname"},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{
				Name: "app", Image: "registry.k8s.io/e2e-test-images/agnhost:2.53", Args: []string{"serve-hostname"},
				Ports: []corev1.ContainerPort{{ContainerPort: 9376}},
			}}},
		}, metav1.CreateOptions{})
		require.NoError(t, err)
		running := func() bool {
			pod, err := cs.CoreV1().Pods("default").Get(ctx, "hostname", metav1.GetOptions{})
			require.NoError(t, err)
			return pod.Status.Phase == corev1.PodRunning
		}
		start := time.Now()
		for synctest.Wait(); !running(); synctest.Wait() {
			require.Less(t, time.Since(start), time.Minute, "the pod did not start")
			<-time.After(100 * time.Millisecond) // steps the bubble's clock
		}

		body, err := cs.CoreV1().Pods("default").ProxyGet("", "hostname", "9376", "/", nil).DoRaw(ctx)
		require.NoError(t, err)
		assert.Equal(t, "hostname", string(body))
		_, err = cs.CoreV1().Pods("default").ProxyGet("", "hostname", "81", "/", nil).DoRaw(ctx)
		assert.True(t, apierrors.IsServiceUnavailable(err), "a refused port is a 503: %v", err)

		srv := httptest.NewServer(p.Handler())
		defer srv.Close()
		kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
		require.NoError(t, os.WriteFile(kubeconfig, []byte("apiVersion: v1\nkind: Config\nclusters: [{name: m, cluster: {server: \""+srv.URL+
			"\"}}]\ncontexts: [{name: m, context: {cluster: m, user: u}}]\nusers: [{name: u, user: {}}]\ncurrent-context: m\n"), 0o600))
		cmd := exec.CommandContext(context.WithoutCancel(ctx), kubectl, "--kubeconfig", kubeconfig, "get", "--raw", "/api/v1/namespaces/default/pods/hostname:9376/proxy/")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, string(out))
		assert.Equal(t, "hostname", string(out))
	})
}
