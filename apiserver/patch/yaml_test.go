package patch

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestYAMLToJSON(t *testing.T) {
	tests := []struct {
		name, in, want string
		dups           []string
		wantErr        string
	}{
		{name: "object", in: "\napiVersion: v1\nkind: Foo\nmetadata:\n  name: x # a comment\nspec:\n  cronSpec: \"* * * * */5\"\n  ports:\n  - name: x\n    containerPort: 80\n    protocol: TCP\n  - {\"name\": \"y\"}\n  tags:\n  - a\n  - 'it''s'\n  on: true\n  off: null\n  ratio: 1.5\n  empty:\n",
			want: `{"apiVersion":"v1","kind":"Foo","metadata":{"name":"x"},"spec":{"cronSpec":"* * * * */5","empty":null,"off":null,"on":true,"ports":[{"containerPort":80,"name":"x","protocol":"TCP"},{"name":"y"}],"ratio":1.5,"tags":["a","it's"]}}`},
		{name: "nested sequences", in: "a:\n  -\n    - 1\n    - 2\n  - b: c\n    d:\n      e: f\n", want: `{"a":[[1,2],{"b":"c","d":{"e":"f"}}]}`},
		{name: "duplicates", in: "\napiVersion: v1\nkind: Foo\nmetadata:\n  name: x\nspec:\n  unknown: uk1\n  foo: foo1\n  foo: foo2\n",
			want: `{"apiVersion":"v1","kind":"Foo","metadata":{"name":"x"},"spec":{"foo":"foo2","unknown":"uk1"}}`, dups: []string{`line 9: key "foo" already set in map`}},
		{name: "literal block, stripped", in: "d: |-\n  line one\n\n  # not a comment\n    indented\n  line three\ne: 1\n",
			want: `{"d":"line one\n\n# not a comment\n  indented\nline three","e":1}`},
		{name: "literal block, clipped", in: "a:\n  d: |\n    x\n    y\n\n  e: 1\n", want: `{"a":{"d":"x\ny\n","e":1}}`},
		{name: "literal block, kept", in: "d: |+\n  x\n\n\ne: 1\n", want: `{"d":"x\n\n\n","e":1}`},
		{name: "folded block", in: "d: >-\n  a\n  b\n\n  c\n", want: `{"d":"a b\nc"}`},
		{name: "empty block", in: "d: |\ne: 1\n", want: `{"d":"","e":1}`},
		{name: "plain over lines", in: "description: APIVersion defines\n  the versioned schema.\nx: 1\n", want: `{"description":"APIVersion defines the versioned schema.","x":1}`},
		{name: "quoted over lines", in: "description: 'More info: https://x.io\n  and: more'\n", want: `{"description":"More info: https://x.io and: more"}`},
		{name: "bad indentation", in: "a: 1\n   b: 2\n", wantErr: "line 2"},
		{name: "no colon", in: "a: 1\nb\n", wantErr: "line 2: could not find expected ':'"},
		{name: "anchor", in: "a: &x 1\n", wantErr: "anchors"},
		{name: "unterminated", in: "a: \"b\n", wantErr: "line 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, dups, err := YAMLToJSON([]byte(tt.in))
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.JSONEq(t, tt.want, string(out))
			assert.Equal(t, tt.dups, dups)
		})
	}
}

func FuzzYAMLToJSON(f *testing.F) {
	for _, s := range []string{"a: 1\n", "a:\n- b: c\n  d: [1]\n", "- 'x'\n- \"y\\n\"\n", "a:\n  b:\n  - -\n", "d: |-\n  x\n\n  y\ne: >+\n  z\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_, _, _ = YAMLToJSON([]byte(s)) // never panics
	})
}
