// Command openapigen writes apiserver/httpapi/openapi_docs.go: the doc
// comments of package api's types and fields, and the name of the
// Kubernetes definition each type mirrors, for the OpenAPI documents the
// HTTP front serves. Doc comments are gone at run time, so the HTTP front
// reads its schema descriptions from this generated table and builds the
// rest of each schema from the Go types by reflection.
//
// It runs from go generate in apiserver/httpapi:
//
//	go run ../../internal/openapigen ../../api openapi_docs.go
//
// and a test in this package fails when the committed file is not what
// it would write. It imports the standard library only.
package main

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/doc/comment"
	"go/format"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "openapigen:", err)
		os.Exit(1)
	}
}

// run reads the api package in args[0] and writes the table to args[1].
func run(args []string) error {
	if len(args) != 2 {
		return errors.New("usage: openapigen API_DIR OUTPUT_FILE")
	}
	src, err := generate(os.DirFS(args[0]))
	if err != nil {
		return err
	}
	return os.WriteFile(args[1], src, 0o644)
}

// generate returns the Go source of the table for the package whose files
// are in dir (test files are skipped).
func generate(dir fs.FS) ([]byte, error) {
	pkg, err := parsePackage(dir)
	if err != nil {
		return nil, err
	}
	docs, defs := collect(pkg)
	return render(docs, defs)
}

// parsePackage parses the non-test Go files of dir, with their comments.
func parsePackage(dir fs.FS) ([]*ast.File, error) {
	names, err := fs.Glob(dir, "*.go")
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := fs.ReadFile(dir, name)
		if err != nil {
			return nil, err
		}
		f, err := parser.ParseFile(fset, name, src, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	if len(files) == 0 {
		return nil, errors.New("no Go files in the api directory")
	}
	return files, nil
}

// collect returns the doc text of the exported struct types that are on
// the wire (a field has a json tag, or the doc comment names a Kubernetes
// definition, as Time's does) and of their documented fields, keyed
// "Type" and "Type.Field", and the Kubernetes definition name of each such
// type whose doc comment names one.
func collect(files []*ast.File) (docs, defs map[string]string) {
	symbols := map[string]bool{}
	for _, f := range files {
		for name, obj := range f.Scope.Objects {
			if obj.Kind != ast.Bad {
				symbols[name] = true
			}
		}
	}
	p := &comment.Parser{LookupSym: func(recv, name string) bool { return symbols[name] }}
	docs, defs = map[string]string{}, map[string]string{}
	for _, f := range files {
		for _, decl := range f.Decls {
			gen, ok := decl.(*ast.GenDecl)
			if !ok || gen.Tok != token.TYPE {
				continue
			}
			for _, spec := range gen.Specs {
				ts := spec.(*ast.TypeSpec)
				st, ok := ts.Type.(*ast.StructType)
				if !ok || !ts.Name.IsExported() {
					continue
				}
				doc := ts.Doc
				if doc == nil && len(gen.Specs) == 1 {
					doc = gen.Doc
				}
				def := definitionName(doc.Text())
				if def == "" && !hasJSONTag(st) {
					continue
				}
				name := ts.Name.Name
				if text := docText(p, doc); text != "" {
					docs[name] = text
				}
				if def != "" {
					defs[name] = def
				}
				for _, field := range st.Fields.List {
					text := docText(p, field.Doc)
					if text == "" {
						continue
					}
					for _, id := range field.Names {
						docs[name+"."+id.Name] = text
					}
				}
			}
		}
	}
	return docs, defs
}

// hasJSONTag reports whether a struct has a field with a json tag.
func hasJSONTag(st *ast.StructType) bool {
	for _, field := range st.Fields.List {
		if field.Tag == nil {
			continue
		}
		tag, err := strconv.Unquote(field.Tag.Value)
		if err == nil && reflect.StructTag(tag).Get("json") != "" {
			return true
		}
	}
	return false
}

// docText renders a doc comment as plain text: paragraphs separated by a
// blank line, each on one line (kubectl explain wraps them itself), doc
// links as their names.
func docText(p *comment.Parser, doc *ast.CommentGroup) string {
	if doc == nil {
		return ""
	}
	pr := &comment.Printer{TextWidth: -1}
	return strings.TrimSpace(string(pr.Text(p.Parse(doc.Text()))))
}

// kubernetesRef finds the counterpart a doc comment names, as
// "Kubernetes: corev1.Pod" or "Kubernetes: k8s.io/apimachinery/pkg/util/intstr.IntOrString".
var kubernetesRef = regexp.MustCompile(`Kubernetes:\s+(?:[\w.-]+/)*([a-z][a-z0-9]*)\.([A-Z]\w*)`)

// groupVersionAlias is the usual import alias of a k8s.io/api package: the
// group's first label and the version ("coordinationv1", "autoscalingv1").
var groupVersionAlias = regexp.MustCompile(`^([a-z]+)(v[0-9]+(?:(?:alpha|beta)[0-9]+)?)$`)

// definitionName returns the name of the OpenAPI definition of the
// Kubernetes type a doc comment names, as kube-apiserver names its
// definitions ("io.k8s.api.core.v1.Pod"), or "" when it names none of a
// package that has definitions.
func definitionName(doc string) string {
	m := kubernetesRef.FindStringSubmatch(strings.Join(strings.Fields(doc), " "))
	if m == nil {
		return ""
	}
	pkg, typ := m[1], m[2]
	switch pkg {
	case "metav1":
		return "io.k8s.apimachinery.pkg.apis.meta.v1." + typ
	case "intstr":
		return "io.k8s.apimachinery.pkg.util.intstr." + typ
	case "resource":
		return "io.k8s.apimachinery.pkg.api.resource." + typ
	case "apiextensionsv1":
		return "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1." + typ
	}
	if gv := groupVersionAlias.FindStringSubmatch(pkg); gv != nil {
		return "io.k8s.api." + gv[1] + "." + gv[2] + "." + typ
	}
	return ""
}

// render returns the gofmt'ed source of the two tables.
func render(docs, defs map[string]string) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`// Code generated by internal/openapigen from the doc comments of package api. DO NOT EDIT.

package httpapi

// apiDocs holds the doc comments of package api's wire types ("Pod") and
// of their fields ("Pod.Spec") as plain text: the descriptions of the
// OpenAPI schemas.
var apiDocs = map[string]string{
`)
	writeMap(&b, docs)
	b.WriteString(`}

// apiDefinitions names the OpenAPI definition of each api type whose doc
// comment names its Kubernetes counterpart: "Pod" is
// "io.k8s.api.core.v1.Pod".
var apiDefinitions = map[string]string{
`)
	writeMap(&b, defs)
	b.WriteString("}\n")
	return format.Source(b.Bytes())
}

func writeMap(b *bytes.Buffer, m map[string]string) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		fmt.Fprintf(b, "\t%s: %s,\n", strconv.Quote(k), strconv.Quote(m[k]))
	}
}
