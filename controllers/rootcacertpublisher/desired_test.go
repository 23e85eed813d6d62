package rootcacertpublisher

import (
	"crypto/x509"
	"encoding/pem"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
)

func TestDesired(t *testing.T) {
	const ca = "-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n"
	good := func() *api.ConfigMap {
		return &api.ConfigMap{
			Metadata: api.ObjectMeta{Namespace: "x", Name: ConfigMapName, ResourceVersion: "7",
				Annotations: map[string]string{DescriptionAnnotation: Description}},
			Data: map[string]string{DataKey: ca},
		}
	}
	with := func(f func(*api.ConfigMap)) *api.ConfigMap { cm := good(); f(cm); return cm }
	tests := []struct {
		name       string
		current    *api.ConfigMap
		wantCreate *api.ConfigMap
		wantUpdate *api.ConfigMap
	}{
		{name: "missing: create", current: nil, wantCreate: with(func(cm *api.ConfigMap) { cm.Metadata.ResourceVersion = "" })},
		{name: "as it should be: nothing", current: good()},
		{name: "other annotations and labels are no concern", current: with(func(cm *api.ConfigMap) {
			cm.Metadata.Labels = map[string]string{"a": "b"}
			cm.Metadata.Annotations["note"] = "kept"
		})},
		{name: "CA changed: restored", current: with(func(cm *api.ConfigMap) { cm.Data[DataKey] = "other" }), wantUpdate: good()},
		{name: "key added: dropped", current: with(func(cm *api.ConfigMap) { cm.Data["extra"] = "1" }), wantUpdate: good()},
		{name: "data emptied: restored", current: with(func(cm *api.ConfigMap) { cm.Data = nil }), wantUpdate: good()},
		{name: "description removed: restored, other annotations kept", current: with(func(cm *api.ConfigMap) {
			cm.Metadata.Annotations = map[string]string{"note": "kept"}
		}), wantUpdate: with(func(cm *api.ConfigMap) { cm.Metadata.Annotations["note"] = "kept" })},
		{name: "no annotations at all: restored", current: with(func(cm *api.ConfigMap) { cm.Metadata.Annotations = nil }), wantUpdate: good()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var before *api.ConfigMap
			if tt.current != nil {
				before = tt.current.DeepCopy()
			}
			create, update := Desired("x", tt.current, ca)
			assert.Equal(t, tt.wantCreate, create)
			assert.Equal(t, tt.wantUpdate, update)
			assert.Equal(t, before, tt.current, "the cached object must not change")
		})
	}
}

// TestPlaceholderCAIsACA checks that the fixed placeholder parses as a CA
// certificate, so that a pod or client reading ca.crt finds one.
func TestPlaceholderCAIsACA(t *testing.T) {
	block, rest := pem.Decode([]byte(PlaceholderCA))
	require.NotNil(t, block)
	assert.Empty(t, rest)
	cert, err := x509.ParseCertificate(block.Bytes)
	require.NoError(t, err)
	assert.True(t, cert.IsCA)
	assert.Equal(t, "miniplane-placeholder-ca", cert.Subject.CommonName)
}
