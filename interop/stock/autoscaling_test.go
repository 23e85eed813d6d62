package stock

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
)

// autoscalingKindCases: HorizontalPodAutoscalers are stored as
// autoscaling/v2; v1, a view of the same objects, is driven by
// subresource-style cases (testHPAv1), as its objects are v2's too.
func autoscalingKindCases() []kindCase {
	return []kindCase{
		crud[*autoscalingv2.HorizontalPodAutoscaler, *autoscalingv2.HorizontalPodAutoscalerList]{
			gvr: autoscalingv2.SchemeGroupVersion.WithResource("horizontalpodautoscalers"), namespaced: true,
			client: func(cs kubernetes.Interface, ns string) typedClient[*autoscalingv2.HorizontalPodAutoscaler, *autoscalingv2.HorizontalPodAutoscalerList] {
				return cs.AutoscalingV2().HorizontalPodAutoscalers(ns)
			},
			fresh: func(name, ns string) *autoscalingv2.HorizontalPodAutoscaler { return hpaV2(name, ns) },
		},
	}
}

func hpaV2(name, ns string) *autoscalingv2.HorizontalPodAutoscaler {
	return &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "absent"},
			MinReplicas:    ptr.To(int32(1)), MaxReplicas: 3,
		}}
}

// testHPAv1 creates an autoscaler through autoscaling/v1 and reads it
// through v2: its CPU target is v2's Resource metric, as kube-apiserver
// converts it.
func testHPAv1(t *testing.T, cs kubernetes.Interface) {
	ctx := boundedContext(t)
	v1 := cs.AutoscalingV1().HorizontalPodAutoscalers(metav1.NamespaceDefault)
	created, err := v1.Create(ctx, &autoscalingv1.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Name: "hpa-v1"},
		Spec: autoscalingv1.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv1.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "absent"},
			MaxReplicas:    4, TargetCPUUtilizationPercentage: ptr.To(int32(50)),
		}}, metav1.CreateOptions{})
	require.NoError(t, err)
	assert.Equal(t, int32(50), *created.Spec.TargetCPUUtilizationPercentage)
	v2, err := cs.AutoscalingV2().HorizontalPodAutoscalers(metav1.NamespaceDefault).Get(ctx, "hpa-v1", metav1.GetOptions{})
	require.NoError(t, err)
	require.Len(t, v2.Spec.Metrics, 1)
	assert.Equal(t, int32(50), *v2.Spec.Metrics[0].Resource.Target.AverageUtilization)
	list, err := v1.List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	assert.NotEmpty(t, list.Items)
	require.NoError(t, v1.Delete(ctx, "hpa-v1", metav1.DeleteOptions{}))
}

// testHPAStatus writes an autoscaler's status through v2 or v1, retrying
// on the conflicts its controller's own status writes cause.
func testHPAStatus(version string) func(t *testing.T, cs kubernetes.Interface) {
	return func(t *testing.T, cs kubernetes.Interface) {
		ctx := boundedContext(t)
		name := "hpa-status-" + version
		v2 := cs.AutoscalingV2().HorizontalPodAutoscalers(metav1.NamespaceDefault)
		_, err := v2.Create(ctx, hpaV2(name, ""), metav1.CreateOptions{})
		require.NoError(t, err)
		err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
			if version == "v1" {
				v1 := cs.AutoscalingV1().HorizontalPodAutoscalers(metav1.NamespaceDefault)
				h, err := v1.Get(ctx, name, metav1.GetOptions{})
				if err != nil {
					return err
				}
				h.Status.CurrentReplicas, h.Status.DesiredReplicas = 2, 3
				h.Spec.MaxReplicas = 9 // a status write must not change the spec
				_, err = v1.UpdateStatus(ctx, h, metav1.UpdateOptions{})
				return err
			}
			h, err := v2.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			h.Status.CurrentReplicas, h.Status.DesiredReplicas = 2, 3
			h.Spec.MaxReplicas = 9
			_, err = v2.UpdateStatus(ctx, h, metav1.UpdateOptions{})
			return err
		})
		require.NoError(t, err)
		got, err := v2.Get(ctx, name, metav1.GetOptions{})
		require.NoError(t, err)
		assert.Equal(t, int32(3), got.Spec.MaxReplicas, "a status write kept the spec")
		assert.Equal(t, int32(3), got.Status.DesiredReplicas)
	}
}

// testAPIServices writes, reads, lists and deletes an APIService naming a
// service through the REST client (kube-aggregator's typed client is not a
// dependency). This bare server keeps no local ones (apiserver's
// TestLocalAPIServices covers those).
func testAPIServices(t *testing.T, cs kubernetes.Interface) {
	ctx := boundedContext(t)
	rc := cs.Discovery().RESTClient()
	const path = "/apis/apiregistration.k8s.io/v1/apiservices"
	svc := `{"apiVersion":"apiregistration.k8s.io/v1","kind":"APIService","metadata":{"name":"v1beta1.metrics.example.com"},
		"spec":{"group":"metrics.example.com","version":"v1beta1","groupPriorityMinimum":100,"versionPriority":100,
		"insecureSkipTLSVerify":true,"service":{"namespace":"kube-system","name":"metrics"}}}`
	_, err := rc.Post().AbsPath(path).SetHeader("Content-Type", "application/json").Body([]byte(svc)).DoRaw(ctx)
	require.NoError(t, err)
	body, err := rc.Get().AbsPath(path + "/v1beta1.metrics.example.com").DoRaw(ctx)
	require.NoError(t, err)
	var got struct {
		Spec struct {
			Group   string                `json:"group"`
			Service struct{ Name string } `json:"service"`
		} `json:"spec"`
	}
	require.NoError(t, json.Unmarshal(body, &got))
	assert.Equal(t, "metrics.example.com", got.Spec.Group)
	assert.Equal(t, "metrics", got.Spec.Service.Name)
	list, err := rc.Get().AbsPath(path).DoRaw(ctx)
	require.NoError(t, err)
	assert.Contains(t, string(list), `"v1beta1.metrics.example.com"`)
	require.NoError(t, rc.Delete().AbsPath(path+"/v1beta1.metrics.example.com").Do(ctx).Error())
}

// testAPIServiceStatus writes an APIService's status as an aggregator's
// availability controller does.
func testAPIServiceStatus(t *testing.T, cs kubernetes.Interface) {
	ctx := boundedContext(t)
	rc := cs.Discovery().RESTClient()
	svc := `{"apiVersion":"apiregistration.k8s.io/v1","kind":"APIService","metadata":{"name":"v1.status.example.com"},
		"spec":{"group":"status.example.com","version":"v1","groupPriorityMinimum":100,"versionPriority":100,
		"insecureSkipTLSVerify":true,"service":{"namespace":"kube-system","name":"status"}}}`
	created, err := rc.Post().AbsPath("/apis/apiregistration.k8s.io/v1/apiservices").SetHeader("Content-Type", "application/json").Body([]byte(svc)).DoRaw(ctx)
	require.NoError(t, err)
	var obj map[string]any
	require.NoError(t, json.Unmarshal(created, &obj))
	obj["status"] = map[string]any{"conditions": []any{map[string]any{
		"type": "Available", "status": "False", "reason": "ServiceNotFound", "message": "no service", "lastTransitionTime": "2026-11-29T12:00:00Z"}}}
	b, err := json.Marshal(obj)
	require.NoError(t, err)
	out, err := rc.Put().AbsPath("/apis/apiregistration.k8s.io/v1/apiservices/v1.status.example.com/status").SetHeader("Content-Type", "application/json").Body(b).DoRaw(ctx)
	require.NoError(t, err)
	assert.Contains(t, string(out), `"reason":"ServiceNotFound"`)
}
