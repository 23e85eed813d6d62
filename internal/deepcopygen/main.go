// Command deepcopygen writes api/deepcopy_generated.go: the deep copies of
// package api's types, which the store, the informers and every controller
// make before they change a shared object (DESIGN.md, "Contracts every
// package keeps"). It writes
//
//   - DeepCopyInto and DeepCopy for every struct type on the wire (a field
//     has a json tag) that holds a map, a slice or a pointer, directly or in
//     a struct field;
//   - DeepCopyInto and DeepCopy for the structs with references those hold,
//     and DeepCopy for the named map and slice types (ResourceList);
//   - DeepCopyObject for every kind: a struct with an inline TypeMeta whose
//     *T has a GetObjectMeta method, which makes it an api.Object. Lists
//     have no GetObjectMeta, so they are not Objects and get no
//     DeepCopyObject.
//
// A method written by hand in package api wins: the generator skips it and
// names it in the generated file's header. That is the way to give one type
// a copy that is not a plain deep copy.
//
// Each DeepCopyInto copies the struct by value, then replaces every field
// that holds references with a fresh copy, with the helpers in
// api/deepcopy.go: clonePtr for a pointer to a value without references,
// slices.Clone and maps.Clone for slices and maps of such values,
// deepCopySlice and deepCopyMap for those whose elements need copying,
// DeepCopy and DeepCopyInto for the package's own structs. What "holds
// references" means for the few types from other packages is the table
// [external].
//
// It runs from go generate in api:
//
//	go run ../internal/deepcopygen . deepcopy_generated.go
//
// and a test in this package fails when the committed file is not what it
// would write. It reads the source with go/parser only (no type checking,
// so a stale generated file does not stop it) and imports the standard
// library only.
package main

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"go/types"
	"io/fs"
	"maps"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "deepcopygen:", err)
		os.Exit(1)
	}
}

// run reads the api package in args[0] and writes its deep copies to args[1].
func run(args []string) error {
	if len(args) != 2 {
		return errors.New("usage: deepcopygen API_DIR OUTPUT_FILE")
	}
	src, err := generate(os.DirFS(args[0]))
	if err != nil {
		return err
	}
	return os.WriteFile(args[1], src, 0o644)
}

// external says what the types from other packages that api's types hold
// are, as far as copying goes: each maps to a Go type expression with the
// same references. Any other imported type fails generation until it is
// added here.
var external = map[string]string{
	// time.Time holds a *time.Location, which is never changed once made:
	// sharing it is safe, so a Time copies by value.
	"time.Time": "struct{}",
	// json.RawMessage is a []byte.
	"json.RawMessage": "[]byte",
}

// basic are the predeclared types without references.
var basic = map[string]bool{
	"bool": true, "string": true, "byte": true, "rune": true,
	"int": true, "int8": true, "int16": true, "int32": true, "int64": true,
	"uint": true, "uint8": true, "uint16": true, "uint32": true, "uint64": true, "uintptr": true,
	"float32": true, "float64": true, "complex64": true, "complex128": true,
}

// typeDecl is one type declared in the package.
type typeDecl struct {
	name string
	file string
	expr ast.Expr // the type's definition: *ast.StructType, *ast.MapType, ...
}

// pkg is what the generator knows of the package.
type pkg struct {
	name  string
	decls []*typeDecl          // in file (sorted by name) and declaration order
	types map[string]*typeDecl // by name
	// methods holds "Type.Method" for every method declared in a file that
	// is not generated.
	methods map[string]bool
	refs    map[string]bool // holdsReferences of each named type, once known
	imports map[string]bool // the packages the generated code uses
}

// generate returns the Go source of the deep copies for the package whose
// files are in dir (test files and generated files are skipped).
func generate(dir fs.FS) ([]byte, error) {
	p, err := parsePackage(dir)
	if err != nil {
		return nil, err
	}
	return p.render()
}

// parsePackage reads the types and hand-written methods of the non-test,
// non-generated Go files of dir.
func parsePackage(dir fs.FS) (*pkg, error) {
	names, err := fs.Glob(dir, "*.go")
	if err != nil {
		return nil, err
	}
	p := &pkg{types: map[string]*typeDecl{}, methods: map[string]bool{}, refs: map[string]bool{}, imports: map[string]bool{}}
	aliases := map[string]string{} // alias name -> the type it names
	fset := token.NewFileSet()
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := fs.ReadFile(dir, name)
		if err != nil {
			return nil, err
		}
		f, err := parser.ParseFile(fset, name, src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		if ast.IsGenerated(f) {
			continue
		}
		p.name = f.Name.Name
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					if ts, ok := spec.(*ast.TypeSpec); ok && ts.Assign.IsValid() {
						// An alias gets no methods of its own: its fields
						// are copied as its target's (resolved below).
						if id, ok := ts.Type.(*ast.Ident); ok {
							aliases[ts.Name.Name] = id.Name
						}
					} else if ok && ts.TypeParams == nil {
						td := &typeDecl{name: ts.Name.Name, file: name, expr: ts.Type}
						p.decls = append(p.decls, td)
						p.types[td.name] = td
					}
				}
			case *ast.FuncDecl:
				if recv := receiverName(d); recv != "" {
					p.methods[recv+"."+d.Name.Name] = true
				}
			}
		}
	}
	for alias, target := range aliases {
		if td, ok := p.types[target]; ok {
			p.types[alias] = td
		}
	}
	if len(p.decls) == 0 {
		return nil, errors.New("no types in the api directory")
	}
	return p, nil
}

// receiverName returns the name of a method's receiver type, or "" for a
// function.
func receiverName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) != 1 {
		return ""
	}
	t := fn.Recv.List[0].Type
	if star, ok := t.(*ast.StarExpr); ok {
		t = star.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// holdsReferences reports whether a value of type t holds a map, slice or
// pointer, directly or in a struct field.
func (p *pkg) holdsReferences(t ast.Expr) (bool, error) {
	switch t := t.(type) {
	case *ast.Ident:
		if basic[t.Name] {
			return false, nil
		}
		td, ok := p.types[t.Name]
		if !ok {
			return false, fmt.Errorf("type %s: not declared in the package", t.Name)
		}
		if p.handCopied(t) {
			return true, nil
		}
		if refs, ok := p.refs[t.Name]; ok {
			return refs, nil
		}
		refs, err := p.holdsReferences(td.expr)
		if err != nil {
			return false, fmt.Errorf("%s: %w", t.Name, err)
		}
		p.refs[t.Name] = refs
		return refs, nil
	case *ast.SelectorExpr:
		u, err := underlyingOfExternal(t)
		if err != nil {
			return false, err
		}
		return p.holdsReferences(u)
	case *ast.StarExpr, *ast.MapType:
		return true, nil
	case *ast.ArrayType:
		if t.Len == nil {
			return true, nil
		}
		return p.holdsReferences(t.Elt)
	case *ast.StructType:
		for _, field := range t.Fields.List {
			refs, err := p.holdsReferences(field.Type)
			if err != nil {
				return false, fmt.Errorf("%s: %w", strings.Join(fieldNames(field), ", "), err)
			}
			if refs {
				return true, nil
			}
		}
		return false, nil
	}
	return false, fmt.Errorf("type %s: deepcopygen cannot copy it", types.ExprString(t))
}

// underlyingOfExternal returns the entry of [external] for a type of
// another package.
func underlyingOfExternal(t *ast.SelectorExpr) (ast.Expr, error) {
	name := types.ExprString(t)
	src, ok := external[name]
	if !ok {
		return nil, fmt.Errorf("type %s: from another package and not in deepcopygen's external table", name)
	}
	return parser.ParseExpr(src)
}

// handCopied reports whether t names a type of the package whose DeepCopy
// and DeepCopyInto are written by hand: the generator copies a value of it
// by calling them and never looks inside it (api.JSONObject holds free JSON
// values, which no generated copy can name).
func (p *pkg) handCopied(t *ast.Ident) bool {
	return p.types[t.Name] != nil && p.methods[t.Name+".DeepCopyInto"] && p.methods[t.Name+".DeepCopy"]
}

// structWithReferences returns the struct type of t when t names a struct
// of the package that holds references: one with its own DeepCopyInto.
func (p *pkg) structWithReferences(t ast.Expr) *ast.StructType {
	id, ok := t.(*ast.Ident)
	if !ok || p.types[id.Name] == nil {
		return nil
	}
	st, ok := p.types[id.Name].expr.(*ast.StructType)
	if !ok {
		return nil
	}
	if refs, err := p.holdsReferences(id); err != nil || !refs {
		return nil
	}
	return st
}

// copyOf returns an expression whose value is a copy of x, of type t, that
// shares nothing mutable with x, or "" when x itself is such a copy.
func (p *pkg) copyOf(t ast.Expr, x string) (string, error) {
	refs, err := p.holdsReferences(t)
	if err != nil || !refs {
		return "", err
	}
	switch t := t.(type) {
	case *ast.Ident:
		if p.handCopied(t) {
			if _, isStruct := p.types[t.Name].expr.(*ast.StructType); isStruct {
				return fmt.Sprintf("*%s.DeepCopy()", x), nil
			}
			return x + ".DeepCopy()", nil
		}
		if p.structWithReferences(t) != nil {
			return fmt.Sprintf("*%s.DeepCopy()", x), nil // x is a variable: a map value
		}
		// A named map or slice type: copied as its definition is, the result
		// keeps the name (maps.Clone and slices.Clone return their argument's type).
		return p.copyOf(p.types[t.Name].expr, x)
	case *ast.SelectorExpr:
		u, err := underlyingOfExternal(t)
		if err != nil {
			return "", err
		}
		return p.copyOf(u, x)
	case *ast.StarExpr:
		if refs, err := p.holdsReferences(t.X); err != nil || !refs {
			return "clonePtr(" + x + ")", err
		}
		if p.structWithReferences(t.X) != nil {
			return x + ".DeepCopy()", nil
		}
	case *ast.ArrayType:
		if t.Len != nil {
			break
		}
		elem := t.Elt
		if refs, err := p.holdsReferences(elem); err != nil || !refs {
			p.imports["slices"] = true
			return "slices.Clone(" + x + ")", err
		}
		if p.structWithReferences(elem) != nil {
			return fmt.Sprintf("deepCopySlice(%s, (*%s).DeepCopyInto)", x, types.ExprString(elem)), nil
		}
		inner, err := p.copyOf(elem, "*in")
		if err != nil {
			return "", err
		}
		e := types.ExprString(elem)
		if strings.HasPrefix(e, "json.") {
			p.imports["encoding/json"] = true
		}
		return fmt.Sprintf("deepCopySlice(%s, func(in, out *%s) { *out = %s })", x, e, inner), nil
	case *ast.MapType:
		if refs, err := p.holdsReferences(t.Key); err != nil || refs {
			if err == nil {
				err = errors.New("its keys hold references")
			}
			return "", fmt.Errorf("type %s: %w", types.ExprString(t), err)
		}
		if refs, err := p.holdsReferences(t.Value); err != nil || !refs {
			p.imports["maps"] = true
			return "maps.Clone(" + x + ")", err
		}
		v := types.ExprString(t.Value)
		inner, err := p.copyOf(t.Value, "v")
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("deepCopyMap(%s, func(v %s) %s { return %s })", x, v, v, inner), nil
	}
	return "", fmt.Errorf("type %s: deepcopygen cannot copy it", types.ExprString(t))
}

// copyInto returns the statement that makes out's field f, of type t, a
// copy of in's after `*out = *in`, or "" when that assignment copied it.
func (p *pkg) copyInto(t ast.Expr, f string) (string, error) {
	if id, ok := t.(*ast.Ident); (ok && p.handCopied(id)) || p.structWithReferences(t) != nil {
		return fmt.Sprintf("in.%s.DeepCopyInto(&out.%s)", f, f), nil
	}
	c, err := p.copyOf(t, "in."+f)
	if err != nil || c == "" {
		return "", err
	}
	return fmt.Sprintf("out.%s = %s", f, c), nil
}

// copied returns the names of the types that get deep-copy methods: the
// structs on the wire that hold references, and the structs, maps and
// slices with references that they hold, directly or through pointers,
// slices and maps.
func (p *pkg) copied() (map[string]bool, error) {
	copied := map[string]bool{}
	var visit func(t ast.Expr)
	visit = func(t ast.Expr) {
		switch t := t.(type) {
		case *ast.Ident:
			td := p.types[t.Name]
			if td == nil || copied[t.Name] || p.handCopied(t) {
				return
			}
			if refs, err := p.holdsReferences(t); err != nil || !refs {
				return // an error shows when the field that holds it is copied
			}
			copied[t.Name] = true
			visit(td.expr)
		case *ast.StructType:
			for _, field := range t.Fields.List {
				visit(field.Type)
			}
		case *ast.StarExpr:
			visit(t.X)
		case *ast.ArrayType:
			visit(t.Elt)
		case *ast.MapType:
			visit(t.Value)
		}
	}
	for _, td := range p.decls {
		if st, ok := td.expr.(*ast.StructType); ok && isWire(st) {
			if _, err := p.holdsReferences(&ast.Ident{Name: td.name}); err != nil {
				return nil, err
			}
			visit(&ast.Ident{Name: td.name})
		}
	}
	return copied, nil
}

// isWire reports whether a struct is on the wire: a field has a json tag.
func isWire(st *ast.StructType) bool {
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

// isKind reports whether a struct is an api.Object: it embeds TypeMeta
// and its pointer has GetObjectMeta.
func (p *pkg) isKind(name string, st *ast.StructType) bool {
	for _, field := range st.Fields.List {
		if id, ok := field.Type.(*ast.Ident); ok && len(field.Names) == 0 && id.Name == "TypeMeta" {
			return p.methods[name+".GetObjectMeta"]
		}
	}
	return false
}

// fieldNames returns the names of a struct field: its names, or the type's
// name for an embedded field.
func fieldNames(field *ast.Field) []string {
	if len(field.Names) > 0 {
		names := make([]string, len(field.Names))
		for i, id := range field.Names {
			names[i] = id.Name
		}
		return names
	}
	t := field.Type
	if star, ok := t.(*ast.StarExpr); ok {
		t = star.X
	}
	if sel, ok := t.(*ast.SelectorExpr); ok {
		return []string{sel.Sel.Name}
	}
	return []string{types.ExprString(t)}
}

const (
	docDeepCopyInto   = "// DeepCopyInto copies in into out; out shares nothing mutable with in.\n"
	docDeepCopy       = "// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.\n"
	docDeepCopyObject = "// DeepCopyObject returns in.DeepCopy() as an Object.\n"
)

// writer accumulates the generated methods.
type writer struct {
	p       *pkg
	body    bytes.Buffer
	file    string   // the source file of the last type written
	skipped []string // "Type.Method" of the methods written by hand
}

// render returns the gofmt'ed source of the generated file.
func (p *pkg) render() ([]byte, error) {
	copied, err := p.copied()
	if err != nil {
		return nil, err
	}
	w := &writer{p: p}
	for _, td := range p.decls {
		if !copied[td.name] {
			continue
		}
		if td.file != w.file {
			w.file = td.file
			fmt.Fprintf(&w.body, "\n// Types of %s.\n", td.file)
		}
		if st, ok := td.expr.(*ast.StructType); ok {
			err = w.structMethods(td.name, st)
		} else {
			err = w.namedDeepCopy(td)
		}
		if err != nil {
			return nil, err
		}
	}
	return w.source()
}

// want reports whether to write method m of type t: whether it is not
// written by hand.
func (w *writer) want(t, m string) bool {
	if w.p.methods[t+"."+m] {
		w.skipped = append(w.skipped, t+"."+m)
		return false
	}
	return true
}

// structMethods writes DeepCopyInto and DeepCopy of struct t, and
// DeepCopyObject if t is a kind.
func (w *writer) structMethods(t string, st *ast.StructType) error {
	if w.want(t, "DeepCopyInto") {
		var lines []string
		for _, field := range st.Fields.List {
			for _, f := range fieldNames(field) {
				line, err := w.p.copyInto(field.Type, f)
				if err != nil {
					return fmt.Errorf("%s.%s: %w", t, f, err)
				}
				if line != "" {
					lines = append(lines, "\t"+line+"\n")
				}
			}
		}
		fmt.Fprintf(&w.body, "\n%sfunc (in *%s) DeepCopyInto(out *%s) {\n\t*out = *in\n%s}\n",
			docDeepCopyInto, t, t, strings.Join(lines, ""))
	}
	if w.want(t, "DeepCopy") {
		fmt.Fprintf(&w.body, "\n%sfunc (in *%s) DeepCopy() *%s {\n\tif in == nil {\n\t\treturn nil\n\t}\n"+
			"\tout := new(%s)\n\tin.DeepCopyInto(out)\n\treturn out\n}\n", docDeepCopy, t, t, t)
	}
	if w.p.isKind(t, st) && w.want(t, "DeepCopyObject") {
		fmt.Fprintf(&w.body, "\n%sfunc (in *%s) DeepCopyObject() Object {\n\tif c := in.DeepCopy(); c != nil {\n"+
			"\t\treturn c\n\t}\n\treturn nil\n}\n", docDeepCopyObject, t)
	}
	return nil
}

// namedDeepCopy writes DeepCopy of a named map or slice type.
func (w *writer) namedDeepCopy(td *typeDecl) error {
	c, err := w.p.copyOf(td.expr, "in")
	if err != nil {
		return fmt.Errorf("%s: %w", td.name, err)
	}
	if w.want(td.name, "DeepCopy") {
		fmt.Fprintf(&w.body, "\n%sfunc (in %s) DeepCopy() %s {\n\treturn %s\n}\n", docDeepCopy, td.name, td.name, c)
	}
	return nil
}

// source returns the whole file: header, imports and methods, gofmt'ed.
func (w *writer) source() ([]byte, error) {
	name := w.p.name
	var b bytes.Buffer
	b.WriteString("// Code generated by internal/deepcopygen from the types of package " + name + ". DO NOT EDIT.\n\n")
	b.WriteString("// Run `go generate ./" + name + "/` after changing a type. The rule each DeepCopyInto follows:\n" +
		"// copy the struct by value, then replace every map, slice and pointer with a fresh copy.\n" +
		"// The helpers are in deepcopy.go.\n")
	if len(w.skipped) > 0 {
		b.WriteString("//\n// Written by hand, so not generated here: " + strings.Join(w.skipped, ", ") + ".\n")
	}
	b.WriteString("\npackage " + name + "\n\n")
	if len(w.p.imports) > 0 {
		b.WriteString("import (\n")
		for _, imp := range slices.Sorted(maps.Keys(w.p.imports)) {
			b.WriteString(strconv.Quote(imp) + "\n")
		}
		b.WriteString(")\n")
	}
	b.Write(w.body.Bytes())
	src, err := format.Source(b.Bytes())
	if err != nil {
		return nil, fmt.Errorf("formatting the output: %w\n%s", err, b.Bytes())
	}
	return src, nil
}
