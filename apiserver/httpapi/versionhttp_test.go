package httpapi_test

import (
	"encoding/json"
	"net/http"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestVersionIsTheRunningBinarys checks /version over HTTP: the Kubernetes
// version miniplane mimics, with the Go version, compiler and platform of
// the binary that answers (here the test binary), not fixed strings.
func TestVersionIsTheRunningBinarys(t *testing.T) {
	f := newFixture(t, nil)
	rec := f.do(t, request{path: "/version"})
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	var v map[string]string
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &v))
	assert.Equal(t, "v1.32.0-miniplane", v["gitVersion"])
	assert.Equal(t, runtime.Version(), v["goVersion"])
	assert.Equal(t, runtime.Compiler, v["compiler"])
	assert.Equal(t, runtime.GOOS+"/"+runtime.GOARCH, v["platform"])
	assert.NotEmpty(t, v["buildDate"])
	for _, key := range []string{"major", "minor", "gitVersion", "gitCommit", "gitTreeState", "buildDate", "goVersion", "compiler", "platform"} {
		assert.Contains(t, v, key, "kubectl version reads every field of version.Info")
	}
}
