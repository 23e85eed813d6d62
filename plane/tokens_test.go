package plane_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
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

// TestCompactEveryExpiresOldRevisions: with CompactEvery, the in-memory
// store is compacted as kube-apiserver compacts etcd: a revision stays
// readable for at least one period, and is gone (410) after two.
func TestCompactEveryExpiresOldRevisions(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := planetest.Start(t, plane.Config{Seed: 1, CompactEvery: 5 * time.Minute, Options: options(func(o *manager.Options) { o.Nodes = 1 })})
		cms := client.For[*api.ConfigMap](p.Server())
		cm, err := cms.Create(context.Background(), &api.ConfigMap{Metadata: api.ObjectMeta{Namespace: "default", Name: "old"}})
		require.NoError(t, err)
		at := client.ListOptions{ResourceVersion: cm.Metadata.ResourceVersion, ResourceVersionMatch: client.MatchExact}
		listOld := func() error {
			_, err := p.Server().List(context.Background(), client.ConfigMaps, "default", at)
			return err
		}
		<-time.After(6 * time.Minute) // virtual time: one compaction, of nothing yet
		synctest.Wait()
		require.NoError(t, listOld(), "still readable one period on")
		<-time.After(5 * time.Minute) // the second compacts past the ConfigMap's revision
		synctest.Wait()
		err = listOld()
		require.Error(t, err)
		assert.True(t, apierrors.IsGone(err), "%v", err)
	})
}
