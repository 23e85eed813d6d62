package apiserver_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/store"
)

// TestSecretStringDataIsFoldedAndNeverStored follows a secret through
// create, update and list: stringData lands in data, the type defaults to
// Opaque, and no stored or returned object carries stringData.
func TestSecretStringDataIsFoldedAndNeverStored(t *testing.T) {
	s, _ := newServer(t)
	secrets := client.For[*api.Secret](s)
	created, err := secrets.Create(ctx, &api.Secret{
		Metadata:   api.ObjectMeta{Namespace: "default", Name: "db", Labels: map[string]string{"app": "db"}},
		Data:       map[string][]byte{"user": []byte("admin")},
		StringData: map[string]string{"password": "hunter2"},
	})
	require.NoError(t, err)
	assert.Equal(t, map[string][]byte{"user": []byte("admin"), "password": []byte("hunter2")}, created.Data)
	assert.Nil(t, created.StringData)
	assert.Equal(t, api.SecretTypeOpaque, created.Type)
	assert.NotEmpty(t, created.Metadata.UID)
	assert.NotEmpty(t, created.Metadata.ResourceVersion)

	up := created.DeepCopy()
	up.StringData = map[string]string{"user": "root"}
	updated, err := secrets.Update(ctx, up)
	require.NoError(t, err)
	assert.Equal(t, map[string][]byte{"user": []byte("root"), "password": []byte("hunter2")}, updated.Data)
	assert.Nil(t, updated.StringData)

	rec, err := s.Store().Get("/registry/secrets/default/db", 0)
	require.NoError(t, err)
	assert.Nil(t, rec.Value.(*api.Secret).StringData, "stringData is never stored")
	list, _, err := secrets.List(ctx, "default", client.ListOptions{FieldSelector: "type=Opaque", LabelSelector: "app=db"})
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Nil(t, list[0].StringData)
	none, _, err := secrets.List(ctx, "default", client.ListOptions{FieldSelector: "type=kubernetes.io/tls"})
	require.NoError(t, err)
	assert.Empty(t, none)
}

// TestConfigRefusalsChangeNothing: each refused write is a 422 naming the
// field, and the store is as it was.
func TestConfigRefusalsChangeNothing(t *testing.T) {
	tests := []struct {
		name    string
		write   func(s *apiserver.Server) error
		wantMsg string
	}{
		{"secret of type tls without a key", func(s *apiserver.Server) error {
			_, err := s.Create(ctx, &api.Secret{Metadata: api.ObjectMeta{Namespace: "default", Name: "tls"}, Type: api.SecretTypeTLS,
				StringData: map[string]string{"tls.crt": "cert"}})
			return err
		}, `Secret "tls" is invalid: data[tls.key]: Required value`},
		{"config map key in data and binaryData", func(s *apiserver.Server) error {
			_, err := s.Create(ctx, &api.ConfigMap{Metadata: api.ObjectMeta{Namespace: "default", Name: "c"},
				Data: map[string]string{"k": "v"}, BinaryData: map[string][]byte{"k": {1}}})
			return err
		}, `ConfigMap "c" is invalid: data[k]: Invalid value: "k": duplicate of key present in binaryData`},
		{"immutable config map's data", func(s *apiserver.Server) error {
			c, err := client.For[*api.ConfigMap](s).Get(ctx, "default", "frozen")
			require.NoError(t, err)
			c = c.DeepCopy()
			c.Data["k"] = "changed"
			_, err = s.Update(ctx, c)
			return err
		}, "ConfigMap \"frozen\" is invalid: data: Forbidden: field is immutable when `immutable` is set"},
		{"immutable secret's stringData", func(s *apiserver.Server) error {
			sec, err := client.For[*api.Secret](s).Get(ctx, "default", "frozen")
			require.NoError(t, err)
			sec = sec.DeepCopy()
			sec.StringData = map[string]string{"k": "changed"}
			_, err = s.Update(ctx, sec)
			return err
		}, "Secret \"frozen\" is invalid: data: Forbidden: field is immutable when `immutable` is set"},
		{"secret's type", func(s *apiserver.Server) error {
			sec, err := client.For[*api.Secret](s).Get(ctx, "default", "frozen")
			require.NoError(t, err)
			sec = sec.DeepCopy()
			sec.Type = "example.com/other"
			_, err = s.Update(ctx, sec)
			return err
		}, `Secret "frozen" is invalid: type: Invalid value: "example.com/other": field is immutable`},
		{"service account name", func(s *apiserver.Server) error {
			_, err := s.Create(ctx, &api.ServiceAccount{Metadata: api.ObjectMeta{Namespace: "default", Name: "Builder"}})
			return err
		}, `ServiceAccount "Builder" is invalid: metadata.name: Invalid value: "Builder": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newServer(t)
			frozen := true
			_, err := s.Create(ctx, &api.ConfigMap{Metadata: api.ObjectMeta{Namespace: "default", Name: "frozen"},
				Data: map[string]string{"k": "v"}, Immutable: &frozen})
			require.NoError(t, err)
			_, err = s.Create(ctx, &api.Secret{Metadata: api.ObjectMeta{Namespace: "default", Name: "frozen"},
				StringData: map[string]string{"k": "v"}, Immutable: &frozen})
			require.NoError(t, err)
			before, err := s.Store().List("", store.ListOptions{})
			require.NoError(t, err)

			err = tt.write(s)
			require.Error(t, err)
			st := apierrors.StatusOf(err)
			assert.Equal(t, api.StatusReasonInvalid, st.Reason)
			assert.Equal(t, int32(422), st.Code)
			assert.Equal(t, tt.wantMsg, st.Message)

			after, err := s.Store().List("", store.ListOptions{})
			require.NoError(t, err)
			assert.Equal(t, before, after, "a refused write changes nothing")
		})
	}
}

// TestServiceAccountCRUD: a service account is created, updated, listed by
// label and deleted like any namespaced object.
func TestServiceAccountCRUD(t *testing.T) {
	s, _ := newServer(t)
	sas := client.For[*api.ServiceAccount](s)
	sa, err := sas.Create(ctx, &api.ServiceAccount{Metadata: api.ObjectMeta{Namespace: "default", Name: "builder", Labels: map[string]string{"team": "ci"}}})
	require.NoError(t, err)
	sa = sa.DeepCopy()
	sa.ImagePullSecrets = []api.LocalObjectReference{{Name: "registry"}}
	updated, err := sas.Update(ctx, sa)
	require.NoError(t, err)
	assert.Equal(t, []api.LocalObjectReference{{Name: "registry"}}, updated.ImagePullSecrets)
	assert.NotEqual(t, sa.Metadata.ResourceVersion, updated.Metadata.ResourceVersion)

	list, _, err := sas.List(ctx, "", client.ListOptions{LabelSelector: "team=ci"})
	require.NoError(t, err)
	require.Len(t, list, 1)
	_, err = sas.Delete(ctx, "default", "builder", api.DeleteOptions{})
	require.NoError(t, err)
	_, err = sas.Get(ctx, "default", "builder")
	assert.Equal(t, int32(404), apierrors.StatusOf(err).Code)
}
