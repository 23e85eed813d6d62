package plane_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/controllers/manager"
	"github.com/miniplane/miniplane/plane"
	"github.com/miniplane/miniplane/plane/planetest"
)

// TestPodReadsItsServiceAccountToken: a pod that reads its token file, as
// a client library in a pod does, reads a token the API server's
// TokenReview accepts as that pod's service account.
func TestPodReadsItsServiceAccountToken(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := planetest.Start(t, plane.Config{Seed: 3, Options: options(func(o *manager.Options) { o.Nodes = 1 })})
		pods := client.For[*api.Pod](p.Server())
		_, err := pods.Create(context.Background(), &api.Pod{
			Metadata: api.ObjectMeta{Namespace: "default", Name: "reader"},
			Spec: api.PodSpec{RestartPolicy: api.RestartPolicyNever, Containers: []api.Container{{
				Name: "c", Image: "busybox", Command: []string{"cat", "/var/run/secrets/kubernetes.io/serviceaccount/token"},
			}}},
		})
		require.NoError(t, err)
		var pod *api.Pod
		waitFor(t, "the pod to finish", func() bool {
			pod, err = pods.Get(context.Background(), "default", "reader")
			require.NoError(t, err)
			return pod.Status.Phase == api.PodSucceeded
		})
		log, err := p.Nodes().ContainerLog(pod, "c", false, 0)
		require.NoError(t, err)
		var token string
		for _, l := range log.Lines {
			if strings.Count(l.Text, ".") == 2 && !strings.Contains(l.Text, " ") {
				token = l.Text
			}
		}
		require.NotEmpty(t, token, "the log holds a JWT: %v", log.Lines)

		review := `{"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","spec":{"token":"` + token + `"}}`
		req, err := http.NewRequest(http.MethodPost, p.Host()+"/apis/authentication.k8s.io/v1/tokenreviews", strings.NewReader(review))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		resp, err := (&http.Client{Transport: p.Transport()}).Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		require.Equal(t, http.StatusCreated, resp.StatusCode)
		var got struct {
			Status struct {
				Authenticated bool `json:"authenticated"`
				User          struct {
					Username string `json:"username"`
				} `json:"user"`
			} `json:"status"`
		}
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&got))
		assert.True(t, got.Status.Authenticated)
		assert.Equal(t, "system:serviceaccount:default:default", got.Status.User.Username)
	})
}
