package apiserver

// ConfigMaps, Secrets and ServiceAccounts: defaulting and validation.
// Kubernetes: pkg/apis/core/validation (ValidateConfigMap, ValidateSecret,
// ValidateServiceAccount and their updates) and pkg/apis/core/v1 (the Secret
// defaults and the StringData conversion).

import (
	"encoding/json"
	"reflect"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
)

// configMeta is how the metadata of config maps, secrets and service
// accounts is checked: namespaced, names that are DNS subdomains.
var configMeta = metaRules{namespaced: true, name: nameIsDNSSubdomain, kubeFinalizers: true}

// maxConfigSize bounds the bytes of a secret's data, or of a config map's
// data and binaryData together. Kubernetes: core.MaxSecretSize.
const maxConfigSize = 1 << 20

// Messages of Kubernetes' config-key and immutability checks.
const (
	msgConfigKey         = "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"
	msgImmutableWhenSet  = "field is immutable when `immutable` is set"
	msgDuplicateOfBinary = "duplicate of key present in binaryData"
	redactedSecret       = "<secret contents redacted>"
)

// configKeyMsgs returns what is wrong with a key of a config map's or a
// secret's data: Kubernetes' IsConfigMapKey.
func configKeyMsgs(key string) []string {
	var msgs []string
	if len(key) > 253 {
		msgs = append(msgs, maxLenMsg(253))
	}
	if !isConfigKey(key) {
		msgs = append(msgs, msgConfigKey)
	}
	switch {
	case key == ".":
		msgs = append(msgs, "must not be '.'")
	case key == "..":
		msgs = append(msgs, "must not be '..'")
	case len(key) > 2 && key[:2] == "..":
		msgs = append(msgs, "must not start with '..'")
	}
	return msgs
}

// isConfigKey reports whether key matches [-._a-zA-Z0-9]+.
func isConfigKey(key string) bool {
	if key == "" {
		return false
	}
	for i := range len(key) {
		if c := key[i]; !isAlnum(c) && c != '-' && c != '.' && c != '_' {
			return false
		}
	}
	return true
}

// defaultConfigMap does nothing: Kubernetes defaults no config map field.
func defaultConfigMap(*api.ConfigMap) {}

// validateConfigMap checks a config map on create.
func validateConfigMap(c *api.ConfigMap) apierrors.FieldErrors {
	errs := validateObjectMeta(nil, &c.Metadata, configMeta, metadataPath)
	size := 0
	data, binary := pathAt("data"), pathAt("binaryData")
	for _, key := range sortedKeys(c.Data) {
		errs = invalidEach(errs, data.key(key), key, configKeyMsgs(key))
		if _, dup := c.BinaryData[key]; dup {
			errs = append(errs, Invalid(data.key(key).path(), key, msgDuplicateOfBinary))
		}
		size += len(c.Data[key])
	}
	for _, key := range sortedKeys(c.BinaryData) {
		errs = invalidEach(errs, binary.key(key), key, configKeyMsgs(key))
		size += len(c.BinaryData[key])
	}
	if size > maxConfigSize {
		errs = append(errs, TooLong("", maxConfigSize))
	}
	return errs
}

// validateConfigMapUpdate checks an update: once immutable is true, neither
// it nor the data may change.
func validateConfigMapUpdate(c, old *api.ConfigMap) apierrors.FieldErrors {
	errs := validateObjectMetaUpdate(nil, &c.Metadata, &old.Metadata, metadataPath)
	if isTrue(old.Immutable) {
		if !isTrue(c.Immutable) {
			errs = append(errs, Forbidden("immutable", msgImmutableWhenSet))
		}
		if !reflect.DeepEqual(c.Data, old.Data) {
			errs = append(errs, Forbidden("data", msgImmutableWhenSet))
		}
		if !reflect.DeepEqual(c.BinaryData, old.BinaryData) {
			errs = append(errs, Forbidden("binaryData", msgImmutableWhenSet))
		}
	}
	return append(errs, validateConfigMap(c)...)
}

func isTrue(b *bool) bool { return b != nil && *b }

// defaultSecret folds stringData into data (a stringData value wins over a
// data value of the same key) and drops it, so stringData is never stored
// nor returned, as Kubernetes' v1 conversion does; then a secret without a
// type becomes Opaque. It runs on every create and update, before
// validation, so validation and immutability see the folded data.
func defaultSecret(s *api.Secret) {
	if len(s.StringData) > 0 {
		if s.Data == nil {
			s.Data = make(map[string][]byte, len(s.StringData))
		}
		for k, v := range s.StringData {
			s.Data[k] = []byte(v)
		}
	}
	s.StringData = nil
	if s.Type == "" {
		s.Type = api.SecretTypeOpaque
	}
}

// validateSecret checks a secret on create: its keys, its size, and the
// keys or annotations its type requires.
func validateSecret(s *api.Secret) apierrors.FieldErrors {
	errs := validateObjectMeta(nil, &s.Metadata, configMeta, metadataPath)
	data := pathAt("data")
	size := 0
	for _, key := range sortedKeys(s.Data) {
		errs = invalidEach(errs, data.key(key), key, configKeyMsgs(key))
		size += len(s.Data[key])
	}
	if size > maxConfigSize {
		errs = append(errs, TooLong("data", maxConfigSize))
	}
	required := func(key string) { errs = append(errs, Required(data.key(key).path(), "")) }
	has := func(key string) bool { _, ok := s.Data[key]; return ok }
	switch s.Type {
	case api.SecretTypeServiceAccountToken:
		if s.Metadata.Annotations[api.ServiceAccountNameKey] == "" {
			errs = append(errs, Required(metadataPath.child("annotations").key(api.ServiceAccountNameKey).path(), ""))
		}
	case api.SecretTypeDockercfg, api.SecretTypeDockerConfigJSON:
		key := api.DockerConfigKey
		if s.Type == api.SecretTypeDockerConfigJSON {
			key = api.DockerConfigJSONKey
		}
		if !has(key) {
			required(key)
			break
		}
		var doc map[string]any
		if err := json.Unmarshal(s.Data[key], &doc); err != nil {
			errs = append(errs, Invalid(data.key(key).path(), redactedSecret, err.Error()))
		}
	case api.SecretTypeBasicAuth:
		// Either may be empty, but one must be there.
		if !has(api.BasicAuthUsernameKey) && !has(api.BasicAuthPasswordKey) {
			required(api.BasicAuthUsernameKey)
			required(api.BasicAuthPasswordKey)
		}
	case api.SecretTypeSSHAuth:
		if len(s.Data[api.SSHAuthPrivateKey]) == 0 {
			required(api.SSHAuthPrivateKey)
		}
	case api.SecretTypeTLS:
		for _, key := range []string{api.TLSCertKey, api.TLSPrivateKeyKey} {
			if !has(key) {
				required(key)
			}
		}
	}
	return errs
}

// validateSecretUpdate checks an update: the type never changes, and once
// immutable is true neither it nor the data may change.
func validateSecretUpdate(s, old *api.Secret) apierrors.FieldErrors {
	errs := validateObjectMetaUpdate(nil, &s.Metadata, &old.Metadata, metadataPath)
	if s.Type != old.Type {
		errs = append(errs, Invalid("type", s.Type, msgImmutable))
	}
	if isTrue(old.Immutable) {
		if !isTrue(s.Immutable) {
			errs = append(errs, Forbidden("immutable", msgImmutableWhenSet))
		}
		if !reflect.DeepEqual(s.Data, old.Data) {
			errs = append(errs, Forbidden("data", msgImmutableWhenSet))
		}
	}
	return append(errs, validateSecret(s)...)
}

// defaultServiceAccount does nothing: Kubernetes defaults no service account
// field (token secrets are no longer generated for them).
func defaultServiceAccount(*api.ServiceAccount) {}

// validateServiceAccount checks a service account: Kubernetes checks only
// its metadata.
func validateServiceAccount(sa *api.ServiceAccount) apierrors.FieldErrors {
	return validateObjectMeta(nil, &sa.Metadata, configMeta, metadataPath)
}

// validateServiceAccountUpdate checks an update: the account keeps its
// identity.
func validateServiceAccountUpdate(sa, old *api.ServiceAccount) apierrors.FieldErrors {
	errs := validateObjectMetaUpdate(nil, &sa.Metadata, &old.Metadata, metadataPath)
	return append(errs, validateServiceAccount(sa)...)
}
