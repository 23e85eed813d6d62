package stock

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	eventsv1 "k8s.io/api/events/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	"github.com/miniplane/miniplane/interop/internal/planetest"
)

// object is what every built-in kind's Go type is.
type object interface {
	metav1.Object
	runtime.Object
}

// typedClient is what every generated typed client of client-go offers for
// its kind. DeleteCollection is looked for separately: the interfaces of a
// few kinds leave it out (services, namespaces), though the gentype client
// behind every one of them has it.
type typedClient[T object, L runtime.Object] interface {
	Create(ctx context.Context, obj T, opts metav1.CreateOptions) (T, error)
	Update(ctx context.Context, obj T, opts metav1.UpdateOptions) (T, error)
	Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error
	Get(ctx context.Context, name string, opts metav1.GetOptions) (T, error)
	List(ctx context.Context, opts metav1.ListOptions) (L, error)
	Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)
	Patch(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions, subresources ...string) (T, error)
}

// collectionDeleter is the DeleteCollection of the typed clients that have it.
type collectionDeleter interface {
	DeleteCollection(ctx context.Context, opts metav1.DeleteOptions, listOpts metav1.ListOptions) error
}

// kindCase exercises one served resource with a stock clientset.
type kindCase interface {
	resource() schema.GroupVersionResource
	// run drives every verb of verbs (the resource's verbs in discovery)
	// through the kind's typed client while a shared informer watches.
	run(t *testing.T, p *planetest.Plane, cs kubernetes.Interface, verbs []string)
}

// crud is the kindCase of one kind.
type crud[T object, L runtime.Object] struct {
	gvr        schema.GroupVersionResource
	namespaced bool
	client     func(cs kubernetes.Interface, namespace string) typedClient[T, L]
	// fresh returns a new valid object named name in namespace.
	fresh func(name, namespace string) T
	// strategic, when set, is a strategic merge patch of the kind's own
	// fields, and strategicOK checks that the server merged it the way
	// Kubernetes does (by the list's merge key, not by replacing the list).
	strategic   string
	strategicOK func(t *testing.T, got T)
}

func (c crud[T, L]) resource() schema.GroupVersionResource { return c.gvr }

// freshObject is fresh for callers that do not know T.
func (c crud[T, L]) freshObject(name, namespace string) runtime.Object {
	return c.fresh(name, namespace)
}

// objectPrefix is the name prefix and label value of a kind's objects, so
// that kinds sharing storage (core and events.k8s.io events) or running at
// once do not see each other's objects.
func objectPrefix(gvr schema.GroupVersionResource) string {
	return strings.ReplaceAll(strings.Trim(gvr.Resource+"-"+gvr.Group, "-"), ".", "-") + "-"
}

func (c crud[T, L]) run(t *testing.T, p *planetest.Plane, cs kubernetes.Interface, verbs []string) {
	for _, v := range []string{"create", "get", "list", "update", "patch", "delete", "watch"} {
		require.Contains(t, verbs, v, "discovery does not list the verb %q for %s", v, c.gvr)
	}
	ctx := boundedContext(t)
	ns := ""
	if c.namespaced {
		ns = metav1.NamespaceDefault
	}
	prefix := objectPrefix(c.gvr)
	label := strings.TrimSuffix(prefix, "-")
	selector := "stock=" + label
	client := c.client(cs, ns)
	fresh := func(name string) T {
		obj := c.fresh(name, ns)
		obj.SetLabels(map[string]string{"stock": label, "step": "create"})
		return obj
	}

	// A shared informer of the kind, from the stock factory, sees every
	// change below.
	rec := newRecorder(prefix)
	factory := informers.NewSharedInformerFactory(cs, 0)
	generic, err := factory.ForResource(c.gvr)
	require.NoError(t, err)
	_, err = generic.Informer().AddEventHandler(rec.handler())
	require.NoError(t, err)
	stop := make(chan struct{})
	factory.Start(stop)
	t.Cleanup(func() {
		close(stop)
		factory.Shutdown()
	})
	require.True(t, cache.WaitForCacheSync(ctx.Done(), generic.Informer().HasSynced), "the informer did not sync")

	name := prefix + "a"
	created, err := client.Create(ctx, fresh(name), metav1.CreateOptions{})
	require.NoError(t, err, "create")
	assert.Equal(t, name, created.GetName())
	assert.NotEmpty(t, created.GetUID(), "create: uid")
	assert.NotEmpty(t, created.GetResourceVersion(), "create: resourceVersion")
	ts := created.GetCreationTimestamp()
	assert.False(t, ts.IsZero(), "create: creationTimestamp")
	rec.waitFor(t, ctx, "add "+name)
	cached, err := generic.Lister().Get(cacheKey(ns, name))
	require.NoError(t, err, "the informer's lister")
	assert.Equal(t, created.GetUID(), mustAccessor(t, cached).GetUID())

	got, err := client.Get(ctx, name, metav1.GetOptions{})
	require.NoError(t, err, "get")
	assert.Equal(t, created.GetUID(), got.GetUID())
	assert.Equal(t, created.GetResourceVersion(), got.GetResourceVersion())

	list, err := client.List(ctx, metav1.ListOptions{LabelSelector: selector})
	require.NoError(t, err, "list")
	assert.Equal(t, []string{name}, names(t, list))
	listMeta, err := meta.ListAccessor(list)
	require.NoError(t, err)
	assert.NotEmpty(t, listMeta.GetResourceVersion(), "list: resourceVersion")

	got.GetLabels()["step"] = "update"
	updated, err := client.Update(ctx, got, metav1.UpdateOptions{})
	require.NoError(t, err, "update")
	assert.Equal(t, "update", updated.GetLabels()["step"])
	assert.NotEqual(t, got.GetResourceVersion(), updated.GetResourceVersion(), "update: resourceVersion")
	rec.waitFor(t, ctx, "update "+name+" step=update")

	patched, err := client.Patch(ctx, name, types.MergePatchType,
		[]byte(`{"metadata":{"annotations":{"stock.miniplane.io/patch":"merge"}}}`), metav1.PatchOptions{})
	require.NoError(t, err, "merge patch")
	assert.Equal(t, "merge", patched.GetAnnotations()["stock.miniplane.io/patch"])
	assert.Equal(t, "update", patched.GetLabels()["step"], "a merge patch keeps the labels it does not name")

	patched, err = client.Patch(ctx, name, types.StrategicMergePatchType,
		[]byte(`{"metadata":{"labels":{"step":"strategic"}}}`), metav1.PatchOptions{})
	require.NoError(t, err, "strategic merge patch")
	assert.Equal(t, label, patched.GetLabels()["stock"], "a strategic merge patch keeps the labels it does not name")
	assert.Equal(t, "strategic", patched.GetLabels()["step"])
	assert.Equal(t, "merge", patched.GetAnnotations()["stock.miniplane.io/patch"])
	rec.waitFor(t, ctx, "update "+name+" step=strategic")
	if c.strategic != "" {
		patched, err = client.Patch(ctx, name, types.StrategicMergePatchType, []byte(c.strategic), metav1.PatchOptions{})
		require.NoError(t, err, "strategic merge patch of %s", c.strategic)
		c.strategicOK(t, patched)
	}

	// A typed watch from the last change sees the delete.
	w, err := client.Watch(ctx, metav1.ListOptions{LabelSelector: selector, ResourceVersion: patched.GetResourceVersion()})
	require.NoError(t, err, "watch")
	defer w.Stop()
	// Background, as kubectl asks: the server's default for replication
	// controllers is to orphan, which leaves the object to a garbage
	// collector this test does not run.
	background := metav1.DeleteOptions{PropagationPolicy: ptr.To(metav1.DeletePropagationBackground)}
	require.NoError(t, client.Delete(ctx, name, background), "delete")
	waitWatch(t, ctx, w, watch.Deleted, name)
	rec.waitFor(t, ctx, "delete "+name)
	_, err = client.Get(ctx, name, metav1.GetOptions{})
	assert.True(t, apierrors.IsNotFound(err), "get after delete: %v", err)

	defer checkOneStream(t, p, c.gvr)
	if !slices.Contains(verbs, "deletecollection") {
		return
	}
	for _, n := range []string{prefix + "b", prefix + "c"} {
		_, err := client.Create(ctx, fresh(n), metav1.CreateOptions{})
		require.NoError(t, err, "create %s", n)
		rec.waitFor(t, ctx, "add "+n)
	}
	dc, ok := any(client).(collectionDeleter)
	require.True(t, ok, "discovery lists deletecollection for %s, and its typed client %T has no DeleteCollection", c.gvr, client)
	require.NoError(t, dc.DeleteCollection(ctx, background, metav1.ListOptions{LabelSelector: selector}), "deletecollection")
	rec.waitFor(t, ctx, "delete "+prefix+"b")
	rec.waitFor(t, ctx, "delete "+prefix+"c")
	list, err = client.List(ctx, metav1.ListOptions{LabelSelector: selector})
	require.NoError(t, err, "list after deletecollection")
	assert.Empty(t, names(t, list))
}

// kindCases are the cases of every resource this package knows, whether
// or not the server serves it: the kinds that are stored, then the reviews.
func kindCases() []kindCase {
	return append(storedKindCases(), reviewCases()...)
}

func storedKindCases() []kindCase {
	created := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	return append([]kindCase{
		crud[*corev1.Pod, *corev1.PodList]{
			gvr: corev1.SchemeGroupVersion.WithResource("pods"), namespaced: true,
			client: func(cs kubernetes.Interface, ns string) typedClient[*corev1.Pod, *corev1.PodList] {
				return cs.CoreV1().Pods(ns)
			},
			fresh: func(name, ns string) *corev1.Pod {
				return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Spec: podSpec()}
			},
			strategic: `{"spec":{"containers":[{"name":"app","image":"nginx:1.28"}]}}`,
			strategicOK: func(t *testing.T, p *corev1.Pod) {
				require.Len(t, p.Spec.Containers, 1, "containers merge by name")
				assert.Equal(t, "nginx:1.28", p.Spec.Containers[0].Image)
			},
		},
		crud[*corev1.ReplicationController, *corev1.ReplicationControllerList]{
			gvr: corev1.SchemeGroupVersion.WithResource("replicationcontrollers"), namespaced: true,
			client: func(cs kubernetes.Interface, ns string) typedClient[*corev1.ReplicationController, *corev1.ReplicationControllerList] {
				return cs.CoreV1().ReplicationControllers(ns)
			},
			fresh:     func(name, ns string) *corev1.ReplicationController { return replicationController(name, ns, 0) },
			strategic: `{"spec":{"template":{"spec":{"containers":[{"name":"app","image":"nginx:1.28"}]}}}}`,
			strategicOK: func(t *testing.T, rc *corev1.ReplicationController) {
				require.Len(t, rc.Spec.Template.Spec.Containers, 1, "containers merge by name")
				assert.Equal(t, "nginx:1.28", rc.Spec.Template.Spec.Containers[0].Image)
			},
		},
		crud[*corev1.Service, *corev1.ServiceList]{
			gvr: corev1.SchemeGroupVersion.WithResource("services"), namespaced: true,
			client: func(cs kubernetes.Interface, ns string) typedClient[*corev1.Service, *corev1.ServiceList] {
				return cs.CoreV1().Services(ns)
			},
			fresh: func(name, ns string) *corev1.Service {
				return &corev1.Service{
					ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
					Spec: corev1.ServiceSpec{
						Selector: map[string]string{"app": name},
						Ports:    []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromInt32(8080)}},
					},
				}
			},
			strategic: `{"spec":{"ports":[{"port":80,"targetPort":9090}]}}`,
			strategicOK: func(t *testing.T, s *corev1.Service) {
				require.Len(t, s.Spec.Ports, 1, "ports merge by port")
				assert.Equal(t, "http", s.Spec.Ports[0].Name, "the merged port keeps its name")
				assert.Equal(t, intstr.FromInt32(9090), s.Spec.Ports[0].TargetPort)
			},
		},
		crud[*corev1.Endpoints, *corev1.EndpointsList]{
			gvr: corev1.SchemeGroupVersion.WithResource("endpoints"), namespaced: true,
			client: func(cs kubernetes.Interface, ns string) typedClient[*corev1.Endpoints, *corev1.EndpointsList] {
				return cs.CoreV1().Endpoints(ns)
			},
			fresh: func(name, ns string) *corev1.Endpoints {
				return &corev1.Endpoints{
					ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
					Subsets: []corev1.EndpointSubset{{
						Addresses: []corev1.EndpointAddress{{IP: "10.0.0.1"}},
						Ports:     []corev1.EndpointPort{{Name: "http", Port: 80, Protocol: corev1.ProtocolTCP}},
					}},
				}
			},
		},
		crud[*corev1.Node, *corev1.NodeList]{
			gvr: corev1.SchemeGroupVersion.WithResource("nodes"),
			client: func(cs kubernetes.Interface, _ string) typedClient[*corev1.Node, *corev1.NodeList] {
				return cs.CoreV1().Nodes()
			},
			fresh: func(name, _ string) *corev1.Node {
				return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.NodeSpec{PodCIDR: "10.244.1.0/24"}}
			},
			strategic: `{"spec":{"taints":[{"key":"stock","value":"yes","effect":"NoSchedule"}]}}`,
			strategicOK: func(t *testing.T, n *corev1.Node) {
				assert.Equal(t, []corev1.Taint{{Key: "stock", Value: "yes", Effect: corev1.TaintEffectNoSchedule}}, n.Spec.Taints)
				assert.Equal(t, "10.244.1.0/24", n.Spec.PodCIDR, "fields the patch does not name stay")
			},
		},
		crud[*corev1.Namespace, *corev1.NamespaceList]{
			gvr: corev1.SchemeGroupVersion.WithResource("namespaces"),
			client: func(cs kubernetes.Interface, _ string) typedClient[*corev1.Namespace, *corev1.NamespaceList] {
				return cs.CoreV1().Namespaces()
			},
			fresh: func(name, _ string) *corev1.Namespace {
				return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
			},
		},
		crud[*corev1.Event, *corev1.EventList]{
			gvr: corev1.SchemeGroupVersion.WithResource("events"), namespaced: true,
			client: func(cs kubernetes.Interface, ns string) typedClient[*corev1.Event, *corev1.EventList] {
				return cs.CoreV1().Events(ns)
			},
			fresh: func(name, ns string) *corev1.Event {
				return &corev1.Event{
					ObjectMeta:     metav1.ObjectMeta{Name: name, Namespace: ns},
					InvolvedObject: corev1.ObjectReference{Kind: "Pod", APIVersion: "v1", Namespace: ns, Name: "web"},
					Reason:         "Tested", Message: "a stock client wrote this event", Type: corev1.EventTypeNormal,
					Source: corev1.EventSource{Component: "stock"}, Count: 1,
					FirstTimestamp: metav1.NewTime(created), LastTimestamp: metav1.NewTime(created),
				}
			},
		},
		crud[*eventsv1.Event, *eventsv1.EventList]{
			gvr: eventsv1.SchemeGroupVersion.WithResource("events"), namespaced: true,
			client: func(cs kubernetes.Interface, ns string) typedClient[*eventsv1.Event, *eventsv1.EventList] {
				return cs.EventsV1().Events(ns)
			},
			fresh: func(name, ns string) *eventsv1.Event {
				return &eventsv1.Event{
					ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
					EventTime:  metav1.NewMicroTime(created), ReportingController: "stock.miniplane.io/interop",
					ReportingInstance: "stock-1", Action: "Test", Reason: "Tested", Type: corev1.EventTypeNormal,
					Regarding: corev1.ObjectReference{Kind: "Pod", APIVersion: "v1", Namespace: ns, Name: "web"},
					Note:      "a stock client wrote this event",
				}
			},
		},
		crud[*coordinationv1.Lease, *coordinationv1.LeaseList]{
			gvr: coordinationv1.SchemeGroupVersion.WithResource("leases"), namespaced: true,
			client: func(cs kubernetes.Interface, ns string) typedClient[*coordinationv1.Lease, *coordinationv1.LeaseList] {
				return cs.CoordinationV1().Leases(ns)
			},
			fresh: func(name, ns string) *coordinationv1.Lease {
				return &coordinationv1.Lease{
					ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
					Spec:       coordinationv1.LeaseSpec{HolderIdentity: ptr.To("stock-1"), LeaseDurationSeconds: ptr.To[int32](15)},
				}
			},
		},
		crud[*discoveryv1.EndpointSlice, *discoveryv1.EndpointSliceList]{
			gvr: discoveryv1.SchemeGroupVersion.WithResource("endpointslices"), namespaced: true,
			client: func(cs kubernetes.Interface, ns string) typedClient[*discoveryv1.EndpointSlice, *discoveryv1.EndpointSliceList] {
				return cs.DiscoveryV1().EndpointSlices(ns)
			},
			fresh: func(name, ns string) *discoveryv1.EndpointSlice {
				return &discoveryv1.EndpointSlice{
					ObjectMeta:  metav1.ObjectMeta{Name: name, Namespace: ns},
					AddressType: discoveryv1.AddressTypeIPv4,
					Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{"10.244.1.5"}, Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)}}},
					Ports:       []discoveryv1.EndpointPort{{Name: ptr.To("http"), Port: ptr.To[int32](8080)}},
				}
			},
		},
		crud[*corev1.ConfigMap, *corev1.ConfigMapList]{
			gvr: corev1.SchemeGroupVersion.WithResource("configmaps"), namespaced: true,
			client: func(cs kubernetes.Interface, ns string) typedClient[*corev1.ConfigMap, *corev1.ConfigMapList] {
				return cs.CoreV1().ConfigMaps(ns)
			},
			fresh: func(name, ns string) *corev1.ConfigMap {
				return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
					Data: map[string]string{"a": "b"}, BinaryData: map[string][]byte{"bin": {0, 0xff}}}
			},
		},
		crud[*corev1.Secret, *corev1.SecretList]{
			gvr: corev1.SchemeGroupVersion.WithResource("secrets"), namespaced: true,
			client: func(cs kubernetes.Interface, ns string) typedClient[*corev1.Secret, *corev1.SecretList] {
				return cs.CoreV1().Secrets(ns)
			},
			fresh: func(name, ns string) *corev1.Secret {
				return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
					Type: corev1.SecretTypeBasicAuth, StringData: map[string]string{"username": "admin"}}
			},
			strategic: `{"stringData":{"password":"hunter2"}}`,
			strategicOK: func(t *testing.T, s *corev1.Secret) {
				assert.Equal(t, map[string][]byte{"username": []byte("admin"), "password": []byte("hunter2")}, s.Data,
					"stringData is folded into data")
				assert.Nil(t, s.StringData, "and never returned")
			},
		},
		crud[*corev1.ResourceQuota, *corev1.ResourceQuotaList]{
			gvr: corev1.SchemeGroupVersion.WithResource("resourcequotas"), namespaced: true,
			client: func(cs kubernetes.Interface, ns string) typedClient[*corev1.ResourceQuota, *corev1.ResourceQuotaList] {
				return cs.CoreV1().ResourceQuotas(ns)
			},
			fresh: func(name, ns string) *corev1.ResourceQuota {
				return &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
					Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{"pods": resource.MustParse("10")}}}
			},
		},
		crud[*corev1.ServiceAccount, *corev1.ServiceAccountList]{
			gvr: corev1.SchemeGroupVersion.WithResource("serviceaccounts"), namespaced: true,
			client: func(cs kubernetes.Interface, ns string) typedClient[*corev1.ServiceAccount, *corev1.ServiceAccountList] {
				return cs.CoreV1().ServiceAccounts(ns)
			},
			fresh: func(name, ns string) *corev1.ServiceAccount {
				return &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
					Secrets: []corev1.ObjectReference{{Name: "a"}}}
			},
			strategic: `{"secrets":[{"name":"b"}]}`,
			strategicOK: func(t *testing.T, sa *corev1.ServiceAccount) {
				// Merged by name, not replaced, with the patch's new element first
				// as Kubernetes puts it.
				assert.Equal(t, []corev1.ObjectReference{{Name: "b"}, {Name: "a"}}, sa.Secrets, "secrets merge by name")
			},
		},
	}, slices.Concat(schedulingKindCases(), admissionKindCases(), podAdmissionKindCases(), apiOnlyKindCases(), networkingKindCases(), autoscalingKindCases())...)
}

// networkingKindCases are the networking.k8s.io kinds, stored and
// validated with nothing acting on them.
func networkingKindCases() []kindCase {
	return []kindCase{
		crud[*networkingv1.Ingress, *networkingv1.IngressList]{
			gvr: networkingv1.SchemeGroupVersion.WithResource("ingresses"), namespaced: true,
			client: func(cs kubernetes.Interface, ns string) typedClient[*networkingv1.Ingress, *networkingv1.IngressList] {
				return cs.NetworkingV1().Ingresses(ns)
			},
			fresh: func(name, ns string) *networkingv1.Ingress {
				return &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Spec: networkingv1.IngressSpec{
					DefaultBackend: &networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: "web",
						Port: networkingv1.ServiceBackendPort{Number: 80}}}}}
			},
		},
		crud[*networkingv1.IngressClass, *networkingv1.IngressClassList]{
			gvr: networkingv1.SchemeGroupVersion.WithResource("ingressclasses"),
			client: func(cs kubernetes.Interface, _ string) typedClient[*networkingv1.IngressClass, *networkingv1.IngressClassList] {
				return cs.NetworkingV1().IngressClasses()
			},
			fresh: func(name, _ string) *networkingv1.IngressClass {
				return &networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: networkingv1.IngressClassSpec{Controller: "example.com/ingress"}}
			},
		},
		crud[*networkingv1.NetworkPolicy, *networkingv1.NetworkPolicyList]{
			gvr: networkingv1.SchemeGroupVersion.WithResource("networkpolicies"), namespaced: true,
			client: func(cs kubernetes.Interface, ns string) typedClient[*networkingv1.NetworkPolicy, *networkingv1.NetworkPolicyList] {
				return cs.NetworkingV1().NetworkPolicies(ns)
			},
			fresh: func(name, ns string) *networkingv1.NetworkPolicy {
				return &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Spec: networkingv1.NetworkPolicySpec{
					PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
					Egress:      []networkingv1.NetworkPolicyEgressRule{{To: []networkingv1.NetworkPolicyPeer{{IPBlock: &networkingv1.IPBlock{CIDR: "10.0.0.0/8"}}}}}}}
			},
		},
	}
}

// podAdmissionKindCases are the kinds kube-apiserver's admission steps read
// when a pod is created.
func podAdmissionKindCases() []kindCase {
	return []kindCase{
		crud[*schedulingv1.PriorityClass, *schedulingv1.PriorityClassList]{
			gvr: schedulingv1.SchemeGroupVersion.WithResource("priorityclasses"),
			client: func(cs kubernetes.Interface, _ string) typedClient[*schedulingv1.PriorityClass, *schedulingv1.PriorityClassList] {
				return cs.SchedulingV1().PriorityClasses()
			},
			fresh: func(name, _ string) *schedulingv1.PriorityClass {
				return &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Value: 1000, Description: "for tests",
					PreemptionPolicy: ptr.To(corev1.PreemptNever)}
			},
		},
		crud[*corev1.LimitRange, *corev1.LimitRangeList]{
			gvr: corev1.SchemeGroupVersion.WithResource("limitranges"), namespaced: true,
			client: func(cs kubernetes.Interface, ns string) typedClient[*corev1.LimitRange, *corev1.LimitRangeList] {
				return cs.CoreV1().LimitRanges(ns)
			},
			fresh: func(name, ns string) *corev1.LimitRange {
				return &corev1.LimitRange{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{
					Type: corev1.LimitTypePersistentVolumeClaim, Max: corev1.ResourceList{"storage": resource.MustParse("10Gi")}}}}}
			},
		},
		crud[*corev1.PodTemplate, *corev1.PodTemplateList]{
			gvr: corev1.SchemeGroupVersion.WithResource("podtemplates"), namespaced: true,
			client: func(cs kubernetes.Interface, ns string) typedClient[*corev1.PodTemplate, *corev1.PodTemplateList] {
				return cs.CoreV1().PodTemplates(ns)
			},
			fresh: func(name, ns string) *corev1.PodTemplate {
				return &corev1.PodTemplate{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
					Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}}, Spec: podSpec()}}
			},
			strategic: `{"template":{"spec":{"containers":[{"name":"sidecar","image":"busybox"}]}}}`,
			strategicOK: func(t *testing.T, pt *corev1.PodTemplate) {
				assert.Len(t, pt.Template.Spec.Containers, 2, "containers merge by name")
			},
		},
	}
}

// schedulingCase returns the case of resource among schedulingKindCases,
// whose fresh objects the subresource tests start from.
func schedulingCase[T object](t *testing.T, resource string) crud[T, runtime.Object] {
	t.Helper()
	for _, c := range schedulingKindCases() {
		if c.resource().Resource != resource {
			continue
		}
		f := c.(interface {
			freshObject(name, namespace string) runtime.Object
		})
		return crud[T, runtime.Object]{fresh: func(name, ns string) T { return f.freshObject(name, ns).(T) }}
	}
	t.Fatalf("no case for %s", resource)
	return crud[T, runtime.Object]{}
}

// schedulingKindCases are the kinds kube-scheduler lists and watches beyond
// the core ones.
func schedulingKindCases() []kindCase {
	web := &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	template := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}}, Spec: podSpec()}
	return []kindCase{
		crud[*corev1.PersistentVolume, *corev1.PersistentVolumeList]{
			gvr: corev1.SchemeGroupVersion.WithResource("persistentvolumes"),
			client: func(cs kubernetes.Interface, _ string) typedClient[*corev1.PersistentVolume, *corev1.PersistentVolumeList] {
				return cs.CoreV1().PersistentVolumes()
			},
			fresh: func(name, _ string) *corev1.PersistentVolume {
				return &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.PersistentVolumeSpec{
					Capacity:    corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("10Gi")},
					AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
					PersistentVolumeSource: corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{
						Driver: "ebs.csi.aws.com", VolumeHandle: "vol-1", VolumeAttributes: map[string]string{"a": "b"}}},
					NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
						MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"a"}}}}}}},
				}}
			},
		},
		crud[*corev1.PersistentVolumeClaim, *corev1.PersistentVolumeClaimList]{
			gvr: corev1.SchemeGroupVersion.WithResource("persistentvolumeclaims"), namespaced: true,
			client: func(cs kubernetes.Interface, ns string) typedClient[*corev1.PersistentVolumeClaim, *corev1.PersistentVolumeClaimList] {
				return cs.CoreV1().PersistentVolumeClaims(ns)
			},
			fresh: func(name, ns string) *corev1.PersistentVolumeClaim {
				return &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Spec: corev1.PersistentVolumeClaimSpec{
					AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
					Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
					StorageClassName: ptr.To("fast"),
				}}
			},
		},
		crud[*storagev1.StorageClass, *storagev1.StorageClassList]{
			gvr: storagev1.SchemeGroupVersion.WithResource("storageclasses"),
			client: func(cs kubernetes.Interface, _ string) typedClient[*storagev1.StorageClass, *storagev1.StorageClassList] {
				return cs.StorageV1().StorageClasses()
			},
			fresh: func(name, _ string) *storagev1.StorageClass {
				return &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Provisioner: "ebs.csi.aws.com",
					Parameters: map[string]string{"type": "gp3"}, VolumeBindingMode: ptr.To(storagev1.VolumeBindingWaitForFirstConsumer)}
			},
		},
		crud[*storagev1.CSINode, *storagev1.CSINodeList]{
			gvr: storagev1.SchemeGroupVersion.WithResource("csinodes"),
			client: func(cs kubernetes.Interface, _ string) typedClient[*storagev1.CSINode, *storagev1.CSINodeList] {
				return cs.StorageV1().CSINodes()
			},
			fresh: func(name, _ string) *storagev1.CSINode {
				return &storagev1.CSINode{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: storagev1.CSINodeSpec{Drivers: []storagev1.CSINodeDriver{{
					Name: "ebs.csi.aws.com", NodeID: "i-1", TopologyKeys: []string{"zone"}, Allocatable: &storagev1.VolumeNodeResources{Count: ptr.To[int32](25)}}}}}
			},
			strategic: `{"spec":{"drivers":[{"name":"other.csi.example.com","nodeID":"n2","topologyKeys":null}]}}`,
			strategicOK: func(t *testing.T, n *storagev1.CSINode) {
				assert.Len(t, n.Spec.Drivers, 2, "drivers merge by name")
			},
		},
		crud[*storagev1.CSIDriver, *storagev1.CSIDriverList]{
			gvr: storagev1.SchemeGroupVersion.WithResource("csidrivers"),
			client: func(cs kubernetes.Interface, _ string) typedClient[*storagev1.CSIDriver, *storagev1.CSIDriverList] {
				return cs.StorageV1().CSIDrivers()
			},
			fresh: func(name, _ string) *storagev1.CSIDriver {
				return &storagev1.CSIDriver{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: storagev1.CSIDriverSpec{StorageCapacity: ptr.To(true)}}
			},
		},
		crud[*storagev1.CSIStorageCapacity, *storagev1.CSIStorageCapacityList]{
			gvr: storagev1.SchemeGroupVersion.WithResource("csistoragecapacities"), namespaced: true,
			client: func(cs kubernetes.Interface, ns string) typedClient[*storagev1.CSIStorageCapacity, *storagev1.CSIStorageCapacityList] {
				return cs.StorageV1().CSIStorageCapacities(ns)
			},
			fresh: func(name, ns string) *storagev1.CSIStorageCapacity {
				return &storagev1.CSIStorageCapacity{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, StorageClassName: "fast",
					NodeTopology: &metav1.LabelSelector{MatchLabels: map[string]string{"zone": "a"}}, Capacity: ptr.To(resource.MustParse("100Gi"))}
			},
		},
		crud[*storagev1.VolumeAttachment, *storagev1.VolumeAttachmentList]{
			gvr: storagev1.SchemeGroupVersion.WithResource("volumeattachments"),
			client: func(cs kubernetes.Interface, _ string) typedClient[*storagev1.VolumeAttachment, *storagev1.VolumeAttachmentList] {
				return cs.StorageV1().VolumeAttachments()
			},
			fresh: func(name, _ string) *storagev1.VolumeAttachment {
				return &storagev1.VolumeAttachment{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: storagev1.VolumeAttachmentSpec{
					Attacher: "ebs.csi.aws.com", NodeName: "node-0", Source: storagev1.VolumeAttachmentSource{PersistentVolumeName: ptr.To("pv0")}}}
			},
		},
		crud[*policyv1.PodDisruptionBudget, *policyv1.PodDisruptionBudgetList]{
			gvr: policyv1.SchemeGroupVersion.WithResource("poddisruptionbudgets"), namespaced: true,
			client: func(cs kubernetes.Interface, ns string) typedClient[*policyv1.PodDisruptionBudget, *policyv1.PodDisruptionBudgetList] {
				return cs.PolicyV1().PodDisruptionBudgets(ns)
			},
			fresh: func(name, ns string) *policyv1.PodDisruptionBudget {
				return &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
					Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: ptr.To(intstr.FromString("50%")), Selector: web}}
			},
		},
		crud[*rbacv1.Role, *rbacv1.RoleList]{
			gvr: rbacv1.SchemeGroupVersion.WithResource("roles"), namespaced: true,
			client: func(cs kubernetes.Interface, ns string) typedClient[*rbacv1.Role, *rbacv1.RoleList] {
				return cs.RbacV1().Roles(ns)
			},
			fresh: func(name, ns string) *rbacv1.Role {
				return &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
					Rules: []rbacv1.PolicyRule{{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods"}}}}
			},
		},
		crud[*rbacv1.RoleBinding, *rbacv1.RoleBindingList]{
			gvr: rbacv1.SchemeGroupVersion.WithResource("rolebindings"), namespaced: true,
			client: func(cs kubernetes.Interface, ns string) typedClient[*rbacv1.RoleBinding, *rbacv1.RoleBindingList] {
				return cs.RbacV1().RoleBindings(ns)
			},
			fresh: func(name, ns string) *rbacv1.RoleBinding {
				return &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
					Subjects: []rbacv1.Subject{{Kind: "User", Name: "jane"}}, RoleRef: rbacv1.RoleRef{Kind: "Role", Name: "reader"}}
			},
		},
		crud[*rbacv1.ClusterRole, *rbacv1.ClusterRoleList]{
			gvr: rbacv1.SchemeGroupVersion.WithResource("clusterroles"),
			client: func(cs kubernetes.Interface, _ string) typedClient[*rbacv1.ClusterRole, *rbacv1.ClusterRoleList] {
				return cs.RbacV1().ClusterRoles()
			},
			fresh: func(name, _ string) *rbacv1.ClusterRole {
				return &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name},
					Rules: []rbacv1.PolicyRule{{Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz"}}}}
			},
		},
		crud[*rbacv1.ClusterRoleBinding, *rbacv1.ClusterRoleBindingList]{
			gvr: rbacv1.SchemeGroupVersion.WithResource("clusterrolebindings"),
			client: func(cs kubernetes.Interface, _ string) typedClient[*rbacv1.ClusterRoleBinding, *rbacv1.ClusterRoleBindingList] {
				return cs.RbacV1().ClusterRoleBindings()
			},
			fresh: func(name, _ string) *rbacv1.ClusterRoleBinding {
				return &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name},
					Subjects: []rbacv1.Subject{{Kind: "Group", Name: "devs"}}, RoleRef: rbacv1.RoleRef{Kind: "ClusterRole", Name: "view"}}
			},
		},
		crud[*batchv1.CronJob, *batchv1.CronJobList]{
			gvr: batchv1.SchemeGroupVersion.WithResource("cronjobs"), namespaced: true,
			client: func(cs kubernetes.Interface, ns string) typedClient[*batchv1.CronJob, *batchv1.CronJobList] {
				return cs.BatchV1().CronJobs(ns)
			},
			fresh: func(name, ns string) *batchv1.CronJob {
				spec := podSpec()
				spec.RestartPolicy = corev1.RestartPolicyOnFailure
				return &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
					Spec: batchv1.CronJobSpec{Schedule: "*/5 * * * *", Suspend: ptr.To(true),
						JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: spec}}}}}
			},
			strategic: `{"spec":{"jobTemplate":{"spec":{"template":{"spec":{"containers":[{"name":"app","image":"nginx:1.28"}]}}}}}}`,
			strategicOK: func(t *testing.T, cj *batchv1.CronJob) {
				containers := cj.Spec.JobTemplate.Spec.Template.Spec.Containers
				require.Len(t, containers, 1, "containers merge by name")
				assert.Equal(t, "nginx:1.28", containers[0].Image)
				assert.Equal(t, batchv1.AllowConcurrent, cj.Spec.ConcurrencyPolicy, "defaulted")
			},
		},
		crud[*appsv1.ReplicaSet, *appsv1.ReplicaSetList]{
			gvr: appsv1.SchemeGroupVersion.WithResource("replicasets"), namespaced: true,
			client: func(cs kubernetes.Interface, ns string) typedClient[*appsv1.ReplicaSet, *appsv1.ReplicaSetList] {
				return cs.AppsV1().ReplicaSets(ns)
			},
			fresh: func(name, ns string) *appsv1.ReplicaSet {
				return &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
					Spec: appsv1.ReplicaSetSpec{Replicas: ptr.To[int32](0), Selector: web, Template: template}}
			},
			strategic: `{"spec":{"template":{"spec":{"containers":[{"name":"app","image":"nginx:1.28"}]}}}}`,
			strategicOK: func(t *testing.T, rs *appsv1.ReplicaSet) {
				require.Len(t, rs.Spec.Template.Spec.Containers, 1, "containers merge by name")
				assert.Equal(t, "nginx:1.28", rs.Spec.Template.Spec.Containers[0].Image)
			},
		},
		crud[*batchv1.Job, *batchv1.JobList]{
			gvr: batchv1.SchemeGroupVersion.WithResource("jobs"), namespaced: true,
			client: func(cs kubernetes.Interface, ns string) typedClient[*batchv1.Job, *batchv1.JobList] {
				return cs.BatchV1().Jobs(ns)
			},
			fresh: func(name, ns string) *batchv1.Job {
				t := *template.DeepCopy()
				t.Spec.RestartPolicy = corev1.RestartPolicyNever
				return &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
					Spec: batchv1.JobSpec{Suspend: ptr.To(true), Template: t}}
			},
			strategic: `{"metadata":{"labels":{"team":"batch"}}}`,
			strategicOK: func(t *testing.T, j *batchv1.Job) {
				assert.Equal(t, "batch", j.Labels["team"])
				assert.NotNil(t, j.Spec.Selector, "defaulted: the generated selector")
			},
		},
		crud[*appsv1.Deployment, *appsv1.DeploymentList]{
			gvr: appsv1.SchemeGroupVersion.WithResource("deployments"), namespaced: true,
			client: func(cs kubernetes.Interface, ns string) typedClient[*appsv1.Deployment, *appsv1.DeploymentList] {
				return cs.AppsV1().Deployments(ns)
			},
			fresh: func(name, ns string) *appsv1.Deployment {
				return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
					Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](0), Selector: web, Template: template}}
			},
			strategic: `{"spec":{"template":{"spec":{"containers":[{"name":"app","image":"nginx:1.28"}]}}}}`,
			strategicOK: func(t *testing.T, d *appsv1.Deployment) {
				require.Len(t, d.Spec.Template.Spec.Containers, 1, "containers merge by name")
				assert.Equal(t, "nginx:1.28", d.Spec.Template.Spec.Containers[0].Image)
				assert.Equal(t, appsv1.RollingUpdateDeploymentStrategyType, d.Spec.Strategy.Type, "defaulted")
			},
		},
		crud[*appsv1.DaemonSet, *appsv1.DaemonSetList]{
			gvr: appsv1.SchemeGroupVersion.WithResource("daemonsets"), namespaced: true,
			client: func(cs kubernetes.Interface, ns string) typedClient[*appsv1.DaemonSet, *appsv1.DaemonSetList] {
				return cs.AppsV1().DaemonSets(ns)
			},
			fresh: func(name, ns string) *appsv1.DaemonSet {
				return &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
					Spec: appsv1.DaemonSetSpec{Selector: web, Template: template}}
			},
			strategic: `{"spec":{"template":{"spec":{"containers":[{"name":"app","image":"nginx:1.28"}]}}}}`,
			strategicOK: func(t *testing.T, ds *appsv1.DaemonSet) {
				require.Len(t, ds.Spec.Template.Spec.Containers, 1, "containers merge by name")
				assert.Equal(t, "nginx:1.28", ds.Spec.Template.Spec.Containers[0].Image)
				assert.Equal(t, appsv1.RollingUpdateDaemonSetStrategyType, ds.Spec.UpdateStrategy.Type, "defaulted")
			},
		},
		crud[*appsv1.ControllerRevision, *appsv1.ControllerRevisionList]{
			gvr: appsv1.SchemeGroupVersion.WithResource("controllerrevisions"), namespaced: true,
			client: func(cs kubernetes.Interface, ns string) typedClient[*appsv1.ControllerRevision, *appsv1.ControllerRevisionList] {
				return cs.AppsV1().ControllerRevisions(ns)
			},
			fresh: func(name, ns string) *appsv1.ControllerRevision {
				return &appsv1.ControllerRevision{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
					Data: runtime.RawExtension{Raw: []byte(`{"spec":{"template":{"$patch":"replace"}}}`)}, Revision: 1}
			},
		},
		crud[*appsv1.StatefulSet, *appsv1.StatefulSetList]{
			gvr: appsv1.SchemeGroupVersion.WithResource("statefulsets"), namespaced: true,
			client: func(cs kubernetes.Interface, ns string) typedClient[*appsv1.StatefulSet, *appsv1.StatefulSetList] {
				return cs.AppsV1().StatefulSets(ns)
			},
			fresh: func(name, ns string) *appsv1.StatefulSet {
				return &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
					Spec: appsv1.StatefulSetSpec{Replicas: ptr.To[int32](0), Selector: web, Template: template, ServiceName: "web"}}
			},
		},
	}
}

// TestKinds drives every verb of every served kind through a stock
// clientset while a stock shared informer of the kind watches: create, get,
// list, update, merge and strategic merge patch, a typed watch, delete and
// deletecollection, each checked on the answer and on what the informer
// saw.
func TestKinds(t *testing.T) {
	p, cs := start(t)
	srv := discover(t, cs)
	for _, c := range kindCases() {
		t.Run(key(c.resource()), func(t *testing.T) {
			verbs, ok := srv[key(c.resource())]
			if !ok {
				t.Skipf("the server does not serve %s (discovery does not list it)", c.resource())
			}
			t.Parallel()
			c.run(t, p, clientset(t, p), verbs)
		})
	}
}

// checkOneStream checks that the informer of gvr synced and followed every
// change on one stream, a WatchList: a stream the client cannot decode
// makes its reflector list or watch again, and the events still arrive,
// late. The informer's requests are the reads of the collection across
// namespaces without a label selector (the test's own reads have one).
func checkOneStream(t *testing.T, p *planetest.Plane, gvr schema.GroupVersionResource) {
	t.Helper()
	path := "/apis/" + gvr.Group + "/" + gvr.Version + "/" + gvr.Resource
	if gvr.Group == "" {
		path = "/api/" + gvr.Version + "/" + gvr.Resource
	}
	var requests []string
	for _, r := range p.Requests() {
		q, err := url.ParseQuery(r.Query)
		require.NoError(t, err)
		if r.Path == path && r.Method == http.MethodGet && !q.Has("labelSelector") {
			requests = append(requests, r.Query)
		}
	}
	assert.Len(t, requests, 1, "the informer's requests for %s", path)
}

// podSpec is the spec of the tests' pods: one container named app.
func podSpec() corev1.PodSpec {
	return corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "nginx:1.27"}}}
}

// replicationController returns a valid controller of replicas pods.
func replicationController(name, ns string, replicas int32) *corev1.ReplicationController {
	labels := map[string]string{"rc": name}
	return &corev1.ReplicationController{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: corev1.ReplicationControllerSpec{
			Replicas: ptr.To(replicas),
			Selector: labels,
			Template: &corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: podSpec()},
		},
	}
}

// names returns the names of a list's items.
func names(t *testing.T, list runtime.Object) []string {
	t.Helper()
	items, err := meta.ExtractList(list)
	require.NoError(t, err)
	out := []string{}
	for _, it := range items {
		out = append(out, mustAccessor(t, it).GetName())
	}
	return out
}

func mustAccessor(t *testing.T, obj any) metav1.Object {
	t.Helper()
	m, err := meta.Accessor(obj)
	require.NoError(t, err)
	return m
}

// cacheKey is an informer cache's key of an object.
func cacheKey(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}

// waitWatch reads w until it delivers an event of type typ for the object
// named name; anything else before it is skipped. It fails t if the watch
// ends, reports an error, or ctx ends first.
func waitWatch(t *testing.T, ctx context.Context, w watch.Interface, typ watch.EventType, name string) {
	t.Helper()
	var seen []string
	for {
		select {
		case ev, ok := <-w.ResultChan():
			require.True(t, ok, "the watch ended before %s %s; it delivered %q", typ, name, seen)
			require.NotEqual(t, watch.Error, ev.Type, "the watch reported an error: %v", apierrors.FromObject(ev.Object))
			m := mustAccessor(t, ev.Object)
			if ev.Type == typ && m.GetName() == name {
				return
			}
			seen = append(seen, string(ev.Type)+" "+m.GetName())
		case <-ctx.Done():
			t.Fatalf("the watch never delivered %s %s; it delivered %q", typ, name, seen)
		}
	}
}
