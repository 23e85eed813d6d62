package httpapi

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/miniplane/miniplane/controllers/manager"
	"github.com/miniplane/miniplane/plane"
	"github.com/miniplane/miniplane/plane/planetest"
)

// TestClientGoAgainstAWholePlane is what a controller author's test looks
// like: a whole control plane (replication controller, scheduler,
// kubelets) started by planetest inside a synctest bubble, and a stock
// clientset and shared informer on its in-memory transport. The RC's pods
// come up Ready in the informer's cache on virtual time, and when the test
// ends nothing is left running (synctest.Test fails otherwise).
func TestClientGoAgainstAWholePlane(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		opts := manager.DefaultOptions()
		opts.Nodes = 2
		p := planetest.Start(t, plane.Config{Seed: 1, Options: &opts})
		cs, err := kubernetes.NewForConfig(&rest.Config{Host: p.Host(), Transport: p.Transport()})
		require.NoError(t, err)
		ctx, cancel := context.WithCancel(t.Context())

		factory := informers.NewSharedInformerFactory(cs, 0)
		pods := factory.Core().V1().Pods()
		pods.Informer() // registered before Start
		factory.Start(ctx.Done())
		defer func() {
			cancel() // stops the informers, which Shutdown waits for
			factory.Shutdown()
		}()
		require.True(t, cache.WaitForCacheSync(ctx.Done(), pods.Informer().HasSynced))

		replicas := int32(2)
		labelsOf := map[string]string{"app": "web"}
		_, err = cs.CoreV1().ReplicationControllers("default").Create(ctx, &corev1.ReplicationController{
			ObjectMeta: metav1.ObjectMeta{Name: "web"},
			Spec: corev1.ReplicationControllerSpec{Replicas: &replicas, Selector: labelsOf, Template: &corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labelsOf},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx"}}},
			}},
		}, metav1.CreateOptions{})
		require.NoError(t, err)

		ready := func() int {
			list, err := pods.Lister().Pods("default").List(labels.SelectorFromSet(labelsOf))
			require.NoError(t, err)
			n := 0
			for _, pod := range list {
				for _, c := range pod.Status.Conditions {
					if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue && pod.Spec.NodeName != "" {
						n++
					}
				}
			}
			return n
		}
		start := time.Now()
		for synctest.Wait(); ready() < 2; synctest.Wait() {
			require.Less(t, time.Since(start), time.Minute, "the pods did not become ready")
			<-time.After(100 * time.Millisecond) // steps the bubble's clock
		}
		assert.Equal(t, 2, ready())
	})
}
