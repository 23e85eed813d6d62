package httpapi

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestSplitSchemeNamePort follows apimachinery's SplitSchemeNamePort.
func TestSplitSchemeNamePort(t *testing.T) {
	for _, tc := range []struct {
		id                 string
		scheme, name, port string
		ok                 bool
	}{
		{"web", "", "web", "", true},
		{"web:80", "", "web", "80", true},
		{"web:http", "", "web", "http", true},
		{"https:web:443", "https", "web", "443", true},
		{"http:web:", "http", "web", "", true},
		{":web:80", "", "web", "80", true},
		{"ftp:web:80", "", "", "", false},
		{":80", "", "", "", false},
		{"a:b:c:d", "", "", "", false},
		{"", "", "", "", false},
	} {
		scheme, name, port, ok := splitSchemeNamePort(tc.id)
		assert.Equal(t, []any{tc.scheme, tc.name, tc.port, tc.ok}, []any{scheme, name, port, ok}, tc.id)
	}
}

// TestRewriteURL follows proxy.Transport's rewriteURL as kube-apiserver
// uses it (no scheme or host of its own).
func TestRewriteURL(t *testing.T) {
	const prefix = "/api/v1/namespaces/ns/pods/p/proxy"
	for _, tc := range []struct{ in, want string }{
		{"/rewriteme", prefix + "/rewriteme"},
		{"/dir/", prefix + "/dir/"},
		{"/x?a=1#f", prefix + "/x?a=1#f"},
		{"relative", "relative"},
		{"http://elsewhere/x", "http://elsewhere/x"},
		{"http://apiserver:6443/x", prefix + "/x"},
		{prefix + "/already", prefix + "/already"},
	} {
		assert.Equal(t, tc.want, rewriteURL(tc.in, prefix, "apiserver:6443"), tc.in)
	}
}

// FuzzRewriteHTML: any page rewrites without panicking, and a page with
// no tag that holds a URL is left as it is.
func FuzzRewriteHTML(f *testing.F) {
	for _, s := range []string{`<a href="/x">t</a>`, `<img src='/i' alt=x>`, `<a href=/x>`, `<!-- <a href="/c"> -->`, `<a href="`, `<`, `<a`, `<a href>`, `<p class="x">`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, page string) {
		out := rewriteHTML(page, func(s string) string { return "/p" + s })
		if !strings.Contains(strings.ToLower(page), "=") {
			assert.Equal(t, page, out)
		}
	})
}

// FuzzSplitSchemeNamePort: what splits joins back into the id.
func FuzzSplitSchemeNamePort(f *testing.F) {
	for _, s := range []string{"web", "web:80", "https:web:443", "a:b:c:d", ":"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		scheme, name, port, ok := splitSchemeNamePort(id)
		if !ok {
			return
		}
		assert.NotEmpty(t, name)
		assert.Contains(t, id, name)
		assert.Contains(t, []string{"", "http", "https"}, scheme)
		assert.Contains(t, id, port)
	})
}
