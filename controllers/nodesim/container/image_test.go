package container

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestImagesPull(t *testing.T) {
	for _, tc := range []struct {
		image string
		want  PullResult
	}{
		{"nginx", Pulled}, {"nginx:1.27", Pulled}, {"busybox", Pulled}, {"busybox:1.36", Pulled},
		{"postgres:16", Pulled}, {"registry.k8s.io/pause:3.10", Pulled}, {"myorg/myapp:v2", Pulled},
		{"nginx@sha256:abc", Pulled}, {"localhost:5000/app", Pulled}, {"mono", Pulled}, {"ruby", Pulled},
		{"nginx:does-not-exist", NotFound}, {"nginx:nonexistent", NotFound}, {"redis:invalid-tag", NotFound},
		{"does-not-exist", NoRepository}, {"ngnix", NoRepository}, {"nignx:latest", NoRepository},
		{"busybx", NoRepository}, {"postgress:16", NoRepository}, {"ubunto", NoRepository},
		{"Nginx", InvalidName}, {"nginx:", InvalidName}, {"", InvalidName}, {"a b", InvalidName},
	} {
		got, msg := Images{}.Pull(tc.image)
		assert.Equal(t, tc.want, got, tc.image)
		assert.Equal(t, got != Pulled, msg != "", "%s: %q", tc.image, msg)
	}
	_, msg := Images{}.Pull("nginx:does-not-exist")
	assert.Equal(t, `rpc error: code = NotFound desc = failed to pull and unpack image "docker.io/library/nginx:does-not-exist": failed to resolve reference "docker.io/library/nginx:does-not-exist": docker.io/library/nginx:does-not-exist: not found`, msg)
}

func TestImagesLists(t *testing.T) {
	im := Images{Present: []string{"ngnix"}, Missing: []string{"myorg/gone", "nginx:1.0"}}
	for _, tc := range []struct {
		image string
		want  PullResult
	}{
		{"ngnix", Pulled}, {"ngnix:2", Pulled}, {"myorg/gone", NoRepository}, {"myorg/gone:v1", NoRepository},
		{"docker.io/myorg/gone", NoRepository}, {"nginx:1.0", NoRepository}, {"nginx:1.1", Pulled},
	} {
		got, _ := im.Pull(tc.image)
		assert.Equal(t, tc.want, got, tc.image)
	}
}

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"nginx", "nginx", 0}, {"ngnix", "nginx", 1}, {"busybx", "busybox", 1}, {"ruby", "rust", 2},
		{"abc", "abcdef", 3}, {"", "ab", 2},
	} {
		assert.Equal(t, tc.want, editDistance(tc.a, tc.b, 2), "%s %s", tc.a, tc.b)
	}
}
