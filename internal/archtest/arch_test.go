// Package archtest holds the tests that keep miniplane's imports pointing one
// way, as the table in DESIGN.md's "Packages and imports" section draws them,
// and that keep the document true to the code: its table equals rules, and
// every citation of it in the Go files names a section (and rule) it has. It
// has no other code.
package archtest

import (
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const module = "github.com/miniplane/miniplane"

// Third-party modules, by import path prefix.
const (
	btree   = "github.com/google/btree"
	zap     = "go.uber.org/zap"
	testify = "github.com/stretchr/testify"
	// protowire is the protobuf wire primitives (tags, varints, lengths) that api/protobuf,
	// the Kubernetes protobuf codec, and apiserver/httpapi's list encoder are built on; the
	// rest of google.golang.org/protobuf is not needed.
	protowire = "google.golang.org/protobuf/encoding/protowire"
	// cel is the CEL evaluator Kubernetes uses, for custom resources' validation rules.
	cel = "github.com/google/cel-go"
)

// rule says what the packages under one top-level directory may import,
// besides the standard library: other miniplane packages (by directory,
// relative to the module root; a package may always import its own subtree)
// and third-party modules.
type rule struct {
	local      []string
	thirdParty []string
}

// rules is the table in DESIGN.md's "Packages and imports" section: change
// both together. clock and internal/ are open to everyone and import the
// standard library only.
var rules = map[string]rule{
	"api":         {thirdParty: []string{protowire}},
	"store":       {thirdParty: []string{btree}},
	"etcdstore":   {local: []string{"store"}, thirdParty: []string{zap}},
	"client":      {local: []string{"api"}},
	"apiserver":   {local: []string{"api", "store", "etcdstore", "client"}, thirdParty: []string{zap, protowire, cel}},
	"informer":    {local: []string{"api", "client"}, thirdParty: []string{zap}},
	"election":    {local: []string{"api", "client"}, thirdParty: []string{zap}},
	"controllers": {local: []string{"api", "client", "apiserver", "informer", "election"}, thirdParty: []string{zap}},
	"sim":         {local: []string{"api", "store", "client", "apiserver", "informer", "election", "controllers", "plane"}, thirdParty: []string{zap}},
	"plane":       {local: []string{"api", "store", "etcdstore", "client", "apiserver", "informer", "election", "controllers"}, thirdParty: []string{zap}},
	"ui":          {local: []string{"api", "store", "client", "apiserver", "controllers", "sim"}},
	"cmd":         {local: []string{"api", "store", "client", "apiserver", "informer", "election", "controllers", "plane", "sim", "ui"}, thirdParty: []string{zap}},
	"internal":    {},
	"clock":       {},
}

// testOnly are what any package's tests may import on top of its rule.
var testOnly = []string{testify, zap + "/zaptest"}

// serverImporters are the only packages outside apiserver whose non-test
// files may import it, although their top-level row allows more: they
// assemble a control plane. Everything else talks to the server through
// client.Client, as client-go's users never import kube-apiserver. Tests
// of a package whose row allows client may import apiserver too, for an
// in-process server to run against.
var serverImporters = []string{"cmd", "sim", "controllers/manager", "plane"}

// testenv is the test scaffolding under internal/: only _test.go files may
// import it, and it imports what the tests of an informer or a controller
// may (an in-process server, a factory, zaptest), not only the standard
// library as the rest of internal/ does.
const testenv = "internal/testenv"

// testenvRule is what testenv imports, as a test file would.
var testenvRule = rule{local: []string{"api", "client", "informer"}, thirdParty: []string{zap}}

// storetest is the store's model test, run against any store backend:
// test scaffolding as testenv is, importing the store and testify.
const storetest = "internal/storetest"

var storetestRule = rule{local: []string{"store"}, thirdParty: []string{testify}}

// check returns why pkg (a directory relative to the module root) may not
// import path, or "" if it may. test says the import is in a _test.go file.
func check(pkg, path string, test bool) string {
	top, _, _ := strings.Cut(pkg, "/")
	r, ok := rules[top]
	switch pkg {
	case testenv:
		r, test = testenvRule, true
	case storetest:
		r, test = storetestRule, true
	}
	if !ok {
		return fmt.Sprintf("package %s is not in the table of DESIGN.md's \"Packages and imports\"; add a row there and to archtest's rules", pkg)
	}
	if local, ok := strings.CutPrefix(path, module+"/"); ok {
		switch {
		case local == top || strings.HasPrefix(local, top+"/"):
			return ""
		case (local == testenv || local == storetest) && !test && pkg != local:
			return fmt.Sprintf("%s may not import %s outside its tests: it is test scaffolding", pkg, local)
		case local == "internal" || strings.HasPrefix(local, "internal/"):
			return ""
		case local == "clock":
			return "" // the clock is open to everyone, as time itself is

		}
		ltop, _, _ := strings.Cut(local, "/")
		if ltop == "apiserver" {
			if test && slices.Contains(r.local, "client") {
				return ""
			}
			for _, s := range serverImporters {
				if pkg == s || strings.HasPrefix(pkg, s+"/") {
					return ""
				}
			}
			return fmt.Sprintf("%s may not import %s: only %v assemble a server; others use package client", pkg, local, serverImporters)
		}
		if slices.Contains(r.local, ltop) {
			return ""
		}
		return fmt.Sprintf("%s may not import %s: DESIGN.md's \"Packages and imports\" lets it import %v", pkg, local, r.local)
	}
	first, _, _ := strings.Cut(path, "/")
	if !strings.Contains(first, ".") {
		return "" // the standard library
	}
	allowed := r.thirdParty
	if test {
		allowed = append(slices.Clone(allowed), testOnly...)
	}
	for _, p := range allowed {
		if path == p || strings.HasPrefix(path, p+"/") {
			return ""
		}
	}
	return fmt.Sprintf("%s may not import %s: its third-party imports are %v", pkg, path, allowed)
}

func TestCheckerCatchesViolations(t *testing.T) {
	tests := []struct {
		pkg, path string
		test      bool
		allowed   bool
	}{
		{pkg: "store", path: "github.com/google/btree", allowed: true},
		{pkg: "store", path: "sync", allowed: true},
		{pkg: "store", path: module + "/clock", allowed: true},
		{pkg: "store", path: module + "/api", allowed: false},
		{pkg: "store", path: module + "/apiserver", allowed: false},
		{pkg: "api", path: "github.com/google/btree", allowed: false},
		{pkg: "api", path: "github.com/stretchr/testify/require", allowed: false},
		{pkg: "api", path: "github.com/stretchr/testify/require", test: true, allowed: true},
		{pkg: "api/protobuf", path: "google.golang.org/protobuf/encoding/protowire", allowed: true},
		{pkg: "api/protobuf", path: "google.golang.org/protobuf/proto", allowed: false},
		{pkg: "store", path: "google.golang.org/protobuf/encoding/protowire", allowed: false},
		{pkg: "apiserver", path: module + "/store", allowed: true},
		{pkg: "apiserver", path: module + "/informer", allowed: false},
		{pkg: "informer", path: module + "/store", allowed: false},
		{pkg: "informer", path: module + "/client", allowed: true},
		{pkg: "informer", path: module + "/apiserver", allowed: false},
		{pkg: "informer", path: module + "/apiserver", test: true, allowed: true},
		{pkg: "controllers/replication", path: module + "/apiserver", allowed: false},
		{pkg: "controllers/replication", path: module + "/apiserver", test: true, allowed: true},
		{pkg: "controllers/manager", path: module + "/apiserver", allowed: true},
		{pkg: "election", path: module + "/apiserver", allowed: false},
		{pkg: "sim", path: module + "/apiserver", allowed: true},
		{pkg: "client/record", path: module + "/client", allowed: true},
		{pkg: "client", path: module + "/apiserver", allowed: false},
		{pkg: "client", path: module + "/apiserver", test: true, allowed: false},
		{pkg: "api/apierrors", path: module + "/api", allowed: true},
		{pkg: "api/apierrors", path: module + "/apiserver", test: true, allowed: false},
		{pkg: "store", path: module + "/apiserver", test: true, allowed: false},
		{pkg: "controllers/replication", path: module + "/controllers/workqueue", allowed: true},
		{pkg: "controllers/replication", path: module + "/sim", allowed: false},
		{pkg: "election", path: module + "/controllers", allowed: false},
		{pkg: "cmd/miniplane", path: module + "/sim", allowed: true},
		{pkg: "cmd/miniplane", path: "k8s.io/client-go/kubernetes", allowed: false},
		{pkg: "clock", path: module + "/store", allowed: false},
		{pkg: "newtop", path: "fmt", allowed: false},
		{pkg: "controllers/endpoints", path: module + "/internal/testenv", test: true, allowed: true},
		{pkg: "informer", path: module + "/internal/testenv", test: true, allowed: true},
		{pkg: "controllers/endpoints", path: module + "/internal/testenv", allowed: false},
		{pkg: "internal/testenv", path: module + "/apiserver", allowed: true},
		{pkg: "internal/testenv", path: module + "/informer", allowed: true},
		{pkg: "internal/testenv", path: "go.uber.org/zap/zaptest", allowed: true},
		{pkg: "internal/testenv", path: module + "/controllers", allowed: false},
		{pkg: "internal/ring", path: module + "/apiserver", allowed: false},
	}
	for _, tt := range tests {
		t.Run(tt.pkg+" imports "+tt.path, func(t *testing.T) {
			why := check(tt.pkg, tt.path, tt.test)
			if tt.allowed {
				assert.Empty(t, why)
			} else {
				assert.NotEmpty(t, why)
			}
		})
	}
}

// TestImportsFollowDesign parses every Go file of the main module (the nested
// interop module has its own rules) and checks each import against rules.
func TestImportsFollowDesign(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	_, err = os.Stat(filepath.Join(root, "go.mod"))
	require.NoError(t, err, "module root not found")

	fset := token.NewFileSet()
	files := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			if path != root {
				if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
					return filepath.SkipDir // a nested module
				}
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(rel)
		if pkg == "." {
			t.Errorf("%s: no Go files belong at the module root", path)
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		files++
		for _, imp := range f.Imports {
			p, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				return err
			}
			if why := check(pkg, p, strings.HasSuffix(path, "_test.go")); why != "" {
				t.Errorf("%s: %s", fset.Position(imp.Pos()), why)
			}
		}
		return nil
	})
	require.NoError(t, err)
	assert.Positive(t, files, "no Go files found: is the walk rooted right?")
}
