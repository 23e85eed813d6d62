package apiserver

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/miniplane/miniplane/api"
)

func TestConfigKeyMessageIsKubernetes(t *testing.T) {
	assert.Equal(t, `a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`, msgConfigKey)
}

func validConfigMap() *api.ConfigMap {
	return &api.ConfigMap{
		Metadata:   api.ObjectMeta{Name: "app.config", Namespace: "default"},
		Data:       map[string]string{"a": "b", "KEY_NAME": "x", ".env": "y"},
		BinaryData: map[string][]byte{"logo.png": {0x89, 'P', 'N', 'G'}},
	}
}

func TestValidateConfigMap(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*api.ConfigMap)
		want   string
		causes []cause
	}{
		{name: "valid", change: func(*api.ConfigMap) {}},
		{name: "empty", change: func(c *api.ConfigMap) { c.Data, c.BinaryData = nil, nil }},
		{name: "name is a subdomain, not a label", change: func(c *api.ConfigMap) { c.Metadata.Name = "Bad_Name" },
			want:   `metadata.name: Invalid value: "Bad_Name": ` + msgDNS1123Subdomain,
			causes: []cause{{invalid, "metadata.name"}}},
		{name: "bad data key", change: func(c *api.ConfigMap) { c.Data["a/b"] = "x" },
			want: `data[a/b]: Invalid value: "a/b": ` + msgConfigKey, causes: []cause{{invalid, "data[a/b]"}}},
		{name: "dot key", change: func(c *api.ConfigMap) { c.Data["."] = "x" },
			want: `data[.]: Invalid value: ".": must not be '.'`, causes: []cause{{invalid, "data[.]"}}},
		{name: "dotdot prefix", change: func(c *api.ConfigMap) { c.BinaryData["..x"] = nil },
			want: `binaryData[..x]: Invalid value: "..x": must not start with '..'`, causes: []cause{{invalid, "binaryData[..x]"}}},
		{name: "empty key", change: func(c *api.ConfigMap) { c.Data[""] = "x" },
			want: `data[]: Invalid value: "": ` + msgConfigKey, causes: []cause{{invalid, "data[]"}}},
		{name: "long key", change: func(c *api.ConfigMap) { c.Data[strings.Repeat("k", 254)] = "x" },
			want:   `data[` + strings.Repeat("k", 254) + `]: Invalid value: "` + strings.Repeat("k", 254) + `": must be no more than 253 characters`,
			causes: []cause{{invalid, "data[" + strings.Repeat("k", 254) + "]"}}},
		{name: "key in both", change: func(c *api.ConfigMap) { c.BinaryData["a"] = []byte("b") },
			want: `data[a]: Invalid value: "a": duplicate of key present in binaryData`, causes: []cause{{invalid, "data[a]"}}},
		{name: "too big", change: func(c *api.ConfigMap) { c.Data["big"] = strings.Repeat("x", maxConfigSize) },
			want: `: Too long: may not be more than 1048576 bytes`, causes: []cause{{tooLong, ""}}},
		{name: "no namespace", change: func(c *api.ConfigMap) { c.Metadata.Namespace = "" },
			want: "metadata.namespace: Required value", causes: []cause{{required, "metadata.namespace"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := validConfigMap()
			tc.change(c)
			defaultConfigMap(c)
			assertErrors(t, validateConfigMap(c), tc.want, tc.causes)
		})
	}
}

func TestValidateConfigMapUpdate(t *testing.T) {
	immutable := validConfigMap()
	immutable.Immutable = ptrTo(true)
	for _, tc := range []struct {
		name   string
		old    *api.ConfigMap
		change func(*api.ConfigMap)
		want   string
		causes []cause
	}{
		{name: "mutable data changes", old: validConfigMap(), change: func(c *api.ConfigMap) { c.Data["a"] = "c" }},
		{name: "made immutable", old: validConfigMap(), change: func(c *api.ConfigMap) { c.Immutable = ptrTo(true) }},
		{name: "immutable, labels change", old: immutable, change: func(c *api.ConfigMap) { c.Metadata.Labels = map[string]string{"x": "y"} }},
		{name: "immutable, data changes", old: immutable, change: func(c *api.ConfigMap) { c.Data["a"] = "c" },
			want: "data: Forbidden: field is immutable when `immutable` is set", causes: []cause{{forbidden, "data"}}},
		{name: "immutable, binaryData dropped", old: immutable, change: func(c *api.ConfigMap) { c.BinaryData = nil },
			want: "binaryData: Forbidden: field is immutable when `immutable` is set", causes: []cause{{forbidden, "binaryData"}}},
		{name: "immutable unset", old: immutable, change: func(c *api.ConfigMap) { c.Immutable = ptrTo(false) },
			want: "immutable: Forbidden: field is immutable when `immutable` is set", causes: []cause{{forbidden, "immutable"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.old.DeepCopy()
			tc.change(c)
			assertErrors(t, validateConfigMapUpdate(c, tc.old), tc.want, tc.causes)
		})
	}
}

func TestDefaultSecret(t *testing.T) {
	s := &api.Secret{
		Data:       map[string][]byte{"a": []byte("old"), "b": []byte("kept")},
		StringData: map[string]string{"a": "new", "c": "added"},
	}
	defaultSecret(s)
	assert.Equal(t, &api.Secret{
		Data: map[string][]byte{"a": []byte("new"), "b": []byte("kept"), "c": []byte("added")},
		Type: api.SecretTypeOpaque,
	}, s, "stringData wins, is folded in and dropped; the type becomes Opaque")

	only := &api.Secret{StringData: map[string]string{"k": "v"}, Type: api.SecretTypeBasicAuth}
	defaultSecret(only)
	assert.Equal(t, &api.Secret{Data: map[string][]byte{"k": []byte("v")}, Type: api.SecretTypeBasicAuth}, only)
}

func validSecret(typ api.SecretType, data map[string][]byte) *api.Secret {
	return &api.Secret{Metadata: api.ObjectMeta{Name: "creds", Namespace: "default"}, Type: typ, Data: data}
}

func TestValidateSecret(t *testing.T) {
	b := []byte("x")
	for _, tc := range []struct {
		name   string
		secret *api.Secret
		want   string
		causes []cause
	}{
		{name: "opaque", secret: validSecret(api.SecretTypeOpaque, map[string][]byte{"a": b})},
		{name: "custom type", secret: validSecret("example.com/thing", nil)},
		{name: "bad key", secret: validSecret(api.SecretTypeOpaque, map[string][]byte{"a b": b}),
			want: `data[a b]: Invalid value: "a b": ` + msgConfigKey, causes: []cause{{invalid, "data[a b]"}}},
		{name: "too big", secret: validSecret(api.SecretTypeOpaque, map[string][]byte{"a": make([]byte, maxConfigSize+1)}),
			want: "data: Too long: may not be more than 1048576 bytes", causes: []cause{{tooLong, "data"}}},
		{name: "tls", secret: validSecret(api.SecretTypeTLS, map[string][]byte{"tls.crt": b, "tls.key": b})},
		{name: "tls without key", secret: validSecret(api.SecretTypeTLS, map[string][]byte{"tls.crt": b}),
			want: "data[tls.key]: Required value", causes: []cause{{required, "data[tls.key]"}}},
		{name: "tls empty", secret: validSecret(api.SecretTypeTLS, nil),
			want:   "[data[tls.crt]: Required value, data[tls.key]: Required value]",
			causes: []cause{{required, "data[tls.crt]"}, {required, "data[tls.key]"}}},
		{name: "dockerconfigjson", secret: validSecret(api.SecretTypeDockerConfigJSON, map[string][]byte{".dockerconfigjson": []byte(`{"auths":{}}`)})},
		{name: "dockerconfigjson missing", secret: validSecret(api.SecretTypeDockerConfigJSON, map[string][]byte{"a": b}),
			want: "data[.dockerconfigjson]: Required value", causes: []cause{{required, "data[.dockerconfigjson]"}}},
		{name: "dockerconfigjson not JSON", secret: validSecret(api.SecretTypeDockerConfigJSON, map[string][]byte{".dockerconfigjson": []byte("{")}),
			want:   `data[.dockerconfigjson]: Invalid value: "<secret contents redacted>": unexpected end of JSON input`,
			causes: []cause{{invalid, "data[.dockerconfigjson]"}}},
		{name: "dockercfg missing", secret: validSecret(api.SecretTypeDockercfg, nil),
			want: "data[.dockercfg]: Required value", causes: []cause{{required, "data[.dockercfg]"}}},
		{name: "basic-auth with an empty password", secret: validSecret(api.SecretTypeBasicAuth, map[string][]byte{"password": {}})},
		{name: "basic-auth with neither", secret: validSecret(api.SecretTypeBasicAuth, map[string][]byte{"user": b}),
			want:   "[data[username]: Required value, data[password]: Required value]",
			causes: []cause{{required, "data[username]"}, {required, "data[password]"}}},
		{name: "ssh-auth with an empty key", secret: validSecret(api.SecretTypeSSHAuth, map[string][]byte{"ssh-privatekey": {}}),
			want: "data[ssh-privatekey]: Required value", causes: []cause{{required, "data[ssh-privatekey]"}}},
		{name: "service-account-token without its account", secret: validSecret(api.SecretTypeServiceAccountToken, nil),
			want:   "metadata.annotations[kubernetes.io/service-account.name]: Required value",
			causes: []cause{{required, "metadata.annotations[kubernetes.io/service-account.name]"}}},
		{name: "service-account-token", secret: func() *api.Secret {
			s := validSecret(api.SecretTypeServiceAccountToken, nil)
			s.Metadata.Annotations = map[string]string{api.ServiceAccountNameKey: "default"}
			return s
		}()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assertErrors(t, validateSecret(tc.secret), tc.want, tc.causes)
		})
	}
}

func TestValidateSecretUpdate(t *testing.T) {
	old := validSecret(api.SecretTypeOpaque, map[string][]byte{"a": []byte("b")})
	immutable := old.DeepCopy()
	immutable.Immutable = ptrTo(true)
	for _, tc := range []struct {
		name   string
		old    *api.Secret
		change func(*api.Secret)
		want   string
		causes []cause
	}{
		{name: "data changes", old: old, change: func(s *api.Secret) { s.Data["a"] = []byte("c") }},
		{name: "type changes", old: old, change: func(s *api.Secret) { s.Type = api.SecretTypeBasicAuth; s.Data["username"] = nil },
			want: `type: Invalid value: "kubernetes.io/basic-auth": field is immutable`, causes: []cause{{invalid, "type"}}},
		{name: "immutable, annotations change", old: immutable, change: func(s *api.Secret) { s.Metadata.Annotations = map[string]string{"a": "b"} }},
		{name: "immutable, data changes", old: immutable, change: func(s *api.Secret) { s.Data["a"] = []byte("c") },
			want: "data: Forbidden: field is immutable when `immutable` is set", causes: []cause{{forbidden, "data"}}},
		{name: "immutable unset", old: immutable, change: func(s *api.Secret) { s.Immutable = nil },
			want: "immutable: Forbidden: field is immutable when `immutable` is set", causes: []cause{{forbidden, "immutable"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.old.DeepCopy()
			tc.change(s)
			assertErrors(t, validateSecretUpdate(s, tc.old), tc.want, tc.causes)
		})
	}
}

func TestValidateServiceAccount(t *testing.T) {
	sa := &api.ServiceAccount{Metadata: api.ObjectMeta{Name: "builder", Namespace: "ci"},
		ImagePullSecrets: []api.LocalObjectReference{{Name: "registry"}}}
	assert.Nil(t, validateServiceAccount(sa))

	bad := sa.DeepCopy()
	bad.Metadata.Name = "-builder"
	assertErrors(t, validateServiceAccount(bad), `metadata.name: Invalid value: "-builder": `+msgDNS1123Subdomain,
		[]cause{{invalid, "metadata.name"}})

	renamed := sa.DeepCopy()
	renamed.Metadata.Name = "other"
	assertErrors(t, validateServiceAccountUpdate(renamed, sa), `metadata.name: Invalid value: "other": field is immutable`,
		[]cause{{invalid, "metadata.name"}})
}
