package api

import (
	"maps"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestValidateLabelKey(t *testing.T) {
	const nameRule = "name part must consist of letters, digits, '-', '_' or '.', and must start and end with a letter or digit"
	const prefixRule = "prefix part must be a lowercase RFC 1123 subdomain: lowercase letters, digits, '-' and '.', " +
		"each dot-separated part starting and ending with a letter or digit (e.g. 'example.com')"
	tests := []struct {
		key  string
		want string // the problem, or "" if valid
	}{
		{"app", ""},
		{"App_Name-2.x", ""},
		{"a", ""},
		{strings.Repeat("a", 63), ""},
		{"app.kubernetes.io/name", ""},
		{"kubernetes.io/metadata.name", ""},
		{"a-b.c-d/e", ""},
		{strings.Repeat("a", 253) + "/x", ""},
		{"", "name part must be non-empty"},
		{strings.Repeat("a", 64), "name part must be no more than 63 characters"},
		{"-app", nameRule},
		{"app_", nameRule},
		{"a b", nameRule},
		{"a*", nameRule},
		{"héllo", nameRule},
		{"/a", "prefix part must be non-empty"},
		{"a/", "name part must be non-empty"},
		{"a/b/c", "a qualified name must contain at most one '/'"},
		{"Example.com/a", prefixRule},
		{"example..com/a", prefixRule},
		{"-example.com/a", prefixRule},
		{"example_com/a", prefixRule},
		{strings.Repeat("a", 254) + "/x", "prefix part must be no more than 253 characters"},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			err := ValidateLabelKey(tt.key)
			if tt.want == "" {
				assert.NoError(t, err)
				return
			}
			assert.EqualError(t, err, `invalid label key "`+tt.key+`": `+tt.want)
		})
	}
}

func TestValidateLabelValue(t *testing.T) {
	const rule = "must be empty or consist of letters, digits, '-', '_' or '.', and must start and end with a letter or digit"
	tests := []struct {
		value string
		want  string
	}{
		{"", ""},
		{"web", ""},
		{"v1.2.3_rc-1", ""},
		{"0", ""},
		{strings.Repeat("x", 63), ""},
		{strings.Repeat("x", 64), "must be no more than 63 characters"},
		{"-x", rule},
		{"x.", rule},
		{"a/b", rule},
		{"a b", rule},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			err := ValidateLabelValue(tt.value)
			if tt.want == "" {
				assert.NoError(t, err)
				return
			}
			assert.EqualError(t, err, `invalid label value "`+tt.value+`": `+tt.want)
		})
	}
}

func TestSelectorFromSet(t *testing.T) {
	tests := []struct {
		name    string
		set     map[string]string
		want    string
		matches map[string]string
		misses  map[string]string
	}{
		{"nil matches everything", nil, "", map[string]string{"any": "thing"}, nil},
		{"empty matches everything", map[string]string{}, "", nil, nil},
		{"one label", map[string]string{"app": "web"}, "app=web",
			map[string]string{"app": "web", "extra": "ok"}, map[string]string{"app": "db"}},
		{"sorted by key", map[string]string{"tier": "fe", "app": "web"}, "app=web,tier=fe",
			map[string]string{"app": "web", "tier": "fe"}, map[string]string{"app": "web"}},
		{"empty value must be present", map[string]string{"canary": ""}, "canary=",
			map[string]string{"canary": ""}, map[string]string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sel := SelectorFromSet(tt.set)
			assert.Equal(t, tt.want, sel.String())
			assert.Equal(t, len(tt.set) == 0, sel.Empty())
			assert.True(t, sel.Matches(tt.matches))
			if tt.misses != nil {
				assert.False(t, sel.Matches(tt.misses))
			}
			parsed, err := ParseSelector(sel.String())
			require.NoError(t, err)
			assert.Equal(t, sel, parsed)
		})
	}
}

func TestSelectorFromSetDoesNotAliasTheMap(t *testing.T) {
	set := map[string]string{"app": "web"}
	sel := SelectorFromSet(set)
	set["app"] = "db"
	set["more"] = "x"
	assert.Equal(t, "app=web", sel.String())
}

func TestValidatedSelectorFromSet(t *testing.T) {
	sel, err := ValidatedSelectorFromSet(map[string]string{"app": "web", "tier": ""})
	require.NoError(t, err)
	assert.Equal(t, "app=web,tier=", sel.String())

	_, err = ValidatedSelectorFromSet(map[string]string{"good": "x", "b@d": "x", "a d": "x"})
	assert.EqualError(t, err, `invalid label key "a d": name part must consist of letters, digits, '-', '_' or '.', `+
		`and must start and end with a letter or digit`, "the first bad key in sorted order is reported")

	_, err = ValidatedSelectorFromSet(map[string]string{"app": "not ok"})
	assert.EqualError(t, err, `label "app": invalid label value "not ok": must be empty or consist of letters, digits, `+
		`'-', '_' or '.', and must start and end with a letter or digit`)
}

// TestSameLabelsIsMapsEqual: the same map, equal maps, different maps,
// nil and empty ones give maps.Equal's answer.
func TestSameLabelsIsMapsEqual(t *testing.T) {
	a := map[string]string{"app": "web"}
	tests := []struct {
		name string
		x, y map[string]string
	}{
		{"same map", a, a},
		{"equal maps", a, map[string]string{"app": "web"}},
		{"different maps", a, map[string]string{"app": "api"}},
		{"nil and empty", nil, map[string]string{}},
		{"nil and a label", nil, a},
		{"both nil", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, maps.Equal(tt.x, tt.y), SameLabels(tt.x, tt.y))
			assert.Equal(t, maps.Equal(tt.y, tt.x), SameLabels(tt.y, tt.x))
		})
	}
}
