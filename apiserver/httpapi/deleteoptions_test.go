package httpapi_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client"
)

// TestDeleteOptionsOfEveryGroupVersion checks that a delete's body may name
// DeleteOptions in any group version the server serves — client-go's typed
// clients send it in the resource's own (a lease's delete says
// coordination.k8s.io/v1), and kube-apiserver registers it in every group
// version — and that one of a group version not served is refused without
// deleting anything.
func TestDeleteOptionsOfEveryGroupVersion(t *testing.T) {
	tests := []struct {
		name       string
		apiVersion string
		wantCode   int
		wantMsg    string
	}{
		{name: "the resource's own group version", apiVersion: "coordination.k8s.io/v1", wantCode: 200},
		{name: "core v1", apiVersion: "v1", wantCode: 200},
		{name: "meta.k8s.io v1", apiVersion: "meta.k8s.io/v1", wantCode: 200},
		{name: "a group version not served", apiVersion: "autoscaling/v2beta2", wantCode: 400, wantMsg: `no kind "DeleteOptions" is registered for version "autoscaling/v2beta2"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, nil)
			_, err := f.srv.Create(ctx, &api.Lease{Metadata: api.ObjectMeta{Name: "lock", Namespace: "default"}})
			require.NoError(t, err)
			rev := f.srv.Store().Rev()

			rec := f.do(t, request{
				method: "DELETE", path: "/apis/coordination.k8s.io/v1/namespaces/default/leases/lock",
				body: `{"kind":"DeleteOptions","apiVersion":"` + tt.apiVersion + `","propagationPolicy":"Background"}`,
			})
			require.Equal(t, tt.wantCode, rec.Code, rec.Body.String())
			_, err = f.srv.Get(ctx, client.Leases, "default", "lock", client.GetOptions{})
			if tt.wantCode != 200 {
				assert.Contains(t, statusOf(t, rec).Message, tt.wantMsg)
				assert.NoError(t, err, "a refused delete removed the lease")
				assert.Equal(t, rev, f.srv.Store().Rev(), "a refused delete changed the store")
				return
			}
			assert.True(t, apierrors.IsNotFound(err), "the lease is still there: %v", err)
		})
	}
}
