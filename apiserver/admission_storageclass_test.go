package apiserver_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
)

// TestDefaultStorageClassAdmission: a claim that names no class gets the
// default one (the newest of several), one that names a class or ""
// keeps it, and with no default a claim stays classless. Kubernetes:
// plugin/pkg/admission/storage/storageclass/setdefault's TestAdmission.
func TestDefaultStorageClassAdmission(t *testing.T) {
	fast := "fast"
	empty := ""
	for _, tt := range []struct {
		name     string
		defaults bool     // Config.DefaultStorageClass
		extra    []string // more default classes, created later in this order
		class    *string
		want     *string
	}{
		{"no class gets the default", true, nil, nil, ptrTo(apiserver.DefaultStorageClassName)},
		{"a named class stays", true, nil, &fast, &fast},
		{"the empty class stays", true, nil, &empty, &empty},
		{"no default, no class", false, nil, nil, nil},
		{"the newest default wins", true, []string{"newer"}, nil, ptrTo("newer")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			clk := clock.NewFake(epoch)
			s, err := apiserver.New(apiserver.Config{Clock: clk, Rand: rand.New(rand.NewPCG(1, 2)), DefaultStorageClass: tt.defaults})
			require.NoError(t, err)
			for _, name := range tt.extra {
				clk.Step(time.Second)
				_, err := s.Create(ctx, &api.StorageClass{Metadata: api.ObjectMeta{Name: name,
					Annotations: map[string]string{"storageclass.kubernetes.io/is-default-class": "true"}}, Provisioner: "x"})
				require.NoError(t, err)
			}
			created, err := client.For[*api.PersistentVolumeClaim](s).Create(ctx, &api.PersistentVolumeClaim{
				Metadata: api.ObjectMeta{Namespace: "default", Name: "data"},
				Spec: api.PersistentVolumeClaimSpec{StorageClassName: tt.class,
					AccessModes: []api.PersistentVolumeAccessMode{api.ReadWriteOnce},
					Resources:   api.VolumeResourceRequirements{Requests: api.ResourceList{"storage": "1Gi"}}},
			})
			require.NoError(t, err)
			assert.Equal(t, tt.want, created.Spec.StorageClassName)
		})
	}
}
