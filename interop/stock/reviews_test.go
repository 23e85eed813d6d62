package stock

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"

	"github.com/miniplane/miniplane/interop/internal/planetest"
)

// review is the kindCase of a review resource (`kubectl auth whoami`,
// `kubectl auth can-i`): create is its only verb, and nothing is stored.
type review struct {
	gvr schema.GroupVersionResource
	// namespace is where a namespaced review is posted.
	namespace string
	// create sends reviews through the typed client and checks the answers.
	create func(t *testing.T, cs kubernetes.Interface)
}

func (r review) resource() schema.GroupVersionResource { return r.gvr }

func (r review) run(t *testing.T, p *planetest.Plane, cs kubernetes.Interface, verbs []string) {
	require.Equal(t, []string{"create"}, verbs, "discovery's verbs for %s", r.gvr)
	r.create(t, cs)
	// The typed client sent protobuf and was answered in it.
	path := "/apis/" + r.gvr.Group + "/" + r.gvr.Version + "/" + r.gvr.Resource
	if r.namespace != "" {
		path = "/apis/" + r.gvr.Group + "/" + r.gvr.Version + "/namespaces/" + r.namespace + "/" + r.gvr.Resource
	}
	var posts int
	for _, req := range p.Requests() {
		if req.Path == path {
			posts++
			assert.Equal(t, planetest.Protobuf, req.ContentType, "the review's body")
			assert.True(t, strings.HasPrefix(req.Answer, planetest.Protobuf), "answered %d with Content-Type %q", req.Status, req.Answer)
		}
	}
	assert.NotZero(t, posts, "no request reached %s", path)
}

func reviewCases() []kindCase {
	return []kindCase{
		review{
			gvr: authenticationv1.SchemeGroupVersion.WithResource("selfsubjectreviews"),
			create: func(t *testing.T, cs kubernetes.Interface) {
				got, err := cs.AuthenticationV1().SelfSubjectReviews().Create(boundedContext(t), &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
				require.NoError(t, err)
				// planetest's server takes no token: every request is anonymous.
				assert.Equal(t, "system:anonymous", got.Status.UserInfo.Username)
				assert.Equal(t, []string{"system:unauthenticated"}, got.Status.UserInfo.Groups)
			},
		},
		review{
			gvr: authorizationv1.SchemeGroupVersion.WithResource("selfsubjectaccessreviews"),
			create: func(t *testing.T, cs kubernetes.Interface) {
				ctx := boundedContext(t)
				reviews := cs.AuthorizationV1().SelfSubjectAccessReviews()
				got, err := reviews.Create(ctx, &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
					ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: metav1.NamespaceDefault, Verb: "delete", Resource: "pods", Name: "web"},
				}}, metav1.CreateOptions{})
				require.NoError(t, err)
				assert.True(t, got.Status.Allowed, "miniplane does no authorization")
				require.NotNil(t, got.Spec.ResourceAttributes, "the answer carries the spec sent")
				assert.Equal(t, "delete", got.Spec.ResourceAttributes.Verb)

				_, err = reviews.Create(ctx, &authorizationv1.SelfSubjectAccessReview{}, metav1.CreateOptions{})
				assert.True(t, apierrors.IsInvalid(err), "a review of nothing: want invalid, got %v", err)
			},
		},
		review{
			// What the real kube-scheduler and kube-controller-manager send
			// when someone calls their own port with a bearer token.
			gvr: authenticationv1.SchemeGroupVersion.WithResource("tokenreviews"),
			create: func(t *testing.T, cs kubernetes.Interface) {
				got, err := cs.AuthenticationV1().TokenReviews().Create(boundedContext(t), &authenticationv1.TokenReview{
					Spec: authenticationv1.TokenReviewSpec{Token: "guess", Audiences: []string{"api"}},
				}, metav1.CreateOptions{})
				require.NoError(t, err)
				// planetest's server takes no token: no token is anyone.
				assert.False(t, got.Status.Authenticated)
				assert.Equal(t, "guess", got.Spec.Token, "the answer carries the spec sent")
				assert.Equal(t, []string{"api"}, got.Spec.Audiences)

				_, err = cs.AuthenticationV1().TokenReviews().Create(boundedContext(t), &authenticationv1.TokenReview{}, metav1.CreateOptions{})
				assert.True(t, apierrors.IsBadRequest(err), "a review of no token: want bad request, got %v", err)
			},
		},
		review{
			gvr: authorizationv1.SchemeGroupVersion.WithResource("subjectaccessreviews"),
			create: func(t *testing.T, cs kubernetes.Interface) {
				ctx := boundedContext(t)
				reviews := cs.AuthorizationV1().SubjectAccessReviews()
				got, err := reviews.Create(ctx, &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
					User: "alice", Groups: []string{"dev"}, Extra: map[string]authorizationv1.ExtraValue{"scopes": {"a", "b"}},
					NonResourceAttributes: &authorizationv1.NonResourceAttributes{Path: "/metrics", Verb: "get"},
				}}, metav1.CreateOptions{})
				require.NoError(t, err)
				assert.True(t, got.Status.Allowed, "miniplane does no authorization")
				assert.Equal(t, "alice", got.Spec.User)
				assert.Equal(t, []string{"dev"}, got.Spec.Groups)

				_, err = reviews.Create(ctx, &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
					NonResourceAttributes: &authorizationv1.NonResourceAttributes{Path: "/metrics", Verb: "get"},
				}}, metav1.CreateOptions{})
				assert.True(t, apierrors.IsInvalid(err), "a review of nobody: want invalid, got %v", err)
			},
		},
		review{
			gvr:       authorizationv1.SchemeGroupVersion.WithResource("localsubjectaccessreviews"),
			namespace: metav1.NamespaceDefault,
			create: func(t *testing.T, cs kubernetes.Interface) {
				// What the conformance test "SubjectReview API operations" asks.
				ctx := boundedContext(t)
				reviews := cs.AuthorizationV1().LocalSubjectAccessReviews(metav1.NamespaceDefault)
				got, err := reviews.Create(ctx, &authorizationv1.LocalSubjectAccessReview{
					ObjectMeta: metav1.ObjectMeta{Namespace: metav1.NamespaceDefault},
					Spec: authorizationv1.SubjectAccessReviewSpec{User: "e2e", Groups: []string{"system:authenticated"}, UID: "u1",
						ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: metav1.NamespaceDefault, Verb: "list", Version: "v1", Resource: "configmaps"}},
				}, metav1.CreateOptions{})
				require.NoError(t, err)
				assert.True(t, got.Status.Allowed, "miniplane does no authorization")
				assert.Equal(t, metav1.NamespaceDefault, got.Namespace)
				assert.Equal(t, "u1", got.Spec.UID)

				_, err = reviews.Create(ctx, &authorizationv1.LocalSubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{User: "e2e",
					ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: "other", Verb: "list", Resource: "configmaps"}}}, metav1.CreateOptions{})
				assert.True(t, apierrors.IsInvalid(err), "a review of another namespace: want invalid, got %v", err)
			},
		},
		review{
			gvr: authorizationv1.SchemeGroupVersion.WithResource("selfsubjectrulesreviews"),
			create: func(t *testing.T, cs kubernetes.Interface) {
				got, err := cs.AuthorizationV1().SelfSubjectRulesReviews().Create(boundedContext(t), &authorizationv1.SelfSubjectRulesReview{
					Spec: authorizationv1.SelfSubjectRulesReviewSpec{Namespace: metav1.NamespaceDefault},
				}, metav1.CreateOptions{})
				require.NoError(t, err)
				assert.Equal(t, metav1.NamespaceDefault, got.Spec.Namespace)
				assert.Equal(t, []authorizationv1.ResourceRule{{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}}}, got.Status.ResourceRules)
			},
		},
	}
}
