// Command clientrename moves a miniplane tree from the client side's old
// home in package apiserver to its own packages (issue 14): it rewrites
// apiserver.Client, apiserver.ListOptions, apiserver.Pods, ... to
// client.Client, ...; the Status errors to apierrors; the event recorder to
// record; and CreateWith/UpdateWith/UpdateStatusWith/UpdateScaleWith calls to
// Create/Update/UpdateStatus/UpdateScale, whose options are variadic now. In
// package apiserver itself it qualifies the unqualified uses of the moved
// names. It fixes each file's imports, renames a local variable that would
// shadow a new import, and gofmts what it changed.
//
// Run it at the root of the main module (it walks the nested interop module
// too): go run ./internal/tools/clientrename [dir]. It only rewrites
// references, never declarations, so it is idempotent: a second run finds
// nothing of the old names and changes nothing. It prints each file it
// changes and, on stderr, what it could not do.
package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

const module = "github.com/miniplane/miniplane"

// pkgs are the packages names move to, by the name they are used by.
var pkgs = map[string]string{
	"client":    module + "/client",
	"record":    module + "/client/record",
	"apierrors": module + "/api/apierrors",
	"api":       module + "/api",
}

// moved maps each old name in package apiserver to its new package and name.
var moved = movedNames()

func movedNames() map[string][2]string {
	moved := map[string][2]string{}
	for _, n := range []string{"Client", "Watcher", "WatchEvent", "List", "ListOptions", "GetOptions",
		"For", "Typed", "ResourceOf", "MatchNotOlderThan", "MatchExact", "ErrWatchClosed", "WriteOptions",
		"Namespaces", "Pods", "ReplicationControllers", "Services", "Endpoints", "Nodes", "Leases",
		"Events", "ConfigMaps", "Secrets", "ServiceAccounts", "EventsK8sIO"} {
		moved[n] = [2]string{"client", n}
	}
	for _, n := range []string{"EventRecorder", "NewEventRecorder"} {
		moved[n] = [2]string{"record", n}
	}
	for _, n := range []string{"StatusError", "StatusOf", "ReasonOf", "GroupResource", "FieldError",
		"FieldErrors", "ConflictModified",
		"IsNotFound", "IsAlreadyExists", "IsConflict", "IsInvalid", "IsGone", "IsBadRequest", "IsForbidden",
		"IsMethodNotSupported", "IsTimeout", "IsTooManyRequests",
		"NewNotFound", "NewAlreadyExists", "NewConflict", "NewInvalid", "NewResourceExpired",
		"NewTooOldResourceVersion", "NewGone", "NewBadRequest", "NewUnauthorized", "NewNotAcceptable",
		"NewRequestEntityTooLarge", "NewUnsupportedMediaType", "NewServiceUnavailable",
		"NewMethodNotSupported", "NewForbidden", "NewTooLargeResourceVersion", "NewInternalError",
		"NewTooManyRequests"} {
		moved[n] = [2]string{"apierrors", n}
	}
	moved["HasCause"] = [2]string{"apierrors", "HasStatusCause"}
	moved["CauseNamespaceTerminating"] = [2]string{"api", "NamespaceTerminatingCause"}
	moved["FinalizerOrphan"] = [2]string{"api", "FinalizerOrphanDependents"}
	moved["FinalizerForeground"] = [2]string{"api", "FinalizerDeleteDependents"}
	moved["NodeLeaseNamespace"] = [2]string{"api", "NamespaceNodeLease"}
	return moved
}

// methods are renamed wherever they are selected: the options are variadic.
var methods = map[string]string{
	"CreateWith": "Create", "UpdateWith": "Update", "UpdateStatusWith": "UpdateStatus", "UpdateScaleWith": "UpdateScale",
}

// commentRef finds a qualified name in a comment.
var commentRef = regexp.MustCompile(`\bapiserver\.([A-Z][A-Za-z0-9]*)\b`)

// skipDirs are the new packages, which the move wrote by hand.
var skipDirs = []string{"client", "api/apierrors", "internal/tools/clientrename"}

func main() {
	root := "."
	if len(os.Args) > 1 {
		root = os.Args[1]
	}
	failed := false
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "vendor") {
				return filepath.SkipDir
			}
			for _, s := range skipDirs {
				if rel == s || strings.HasPrefix(rel, s+"/") {
					return filepath.SkipDir
				}
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		out, warnings, err := rewrite(path, src)
		for _, w := range warnings {
			fmt.Fprintf(os.Stderr, "%s: %s\n", path, w)
			failed = true
		}
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if out != nil && !bytes.Equal(out, src) {
			fmt.Println(path)
			return os.WriteFile(path, out, 0o644)
		}
		return nil
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if failed {
		os.Exit(2)
	}
}

type edit struct {
	off, end int
	text     string
}

// rewrite returns src with the old names replaced, or nil when nothing
// changes.
func rewrite(path string, src []byte) ([]byte, []string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
	if err != nil {
		return nil, nil, err
	}
	off := func(p token.Pos) int { return fset.Position(p).Offset }
	serverName := "" // what the file calls package apiserver
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == module+"/apiserver" {
			serverName = "apiserver"
			if imp.Name != nil {
				serverName = imp.Name.Name
			}
		}
	}
	inServer := f.Name.Name == "apiserver"
	var edits []edit
	used := map[string]bool{} // new packages referenced
	skip := map[*ast.Ident]bool{}
	litKeys := map[*ast.Ident]bool{} // struct literal keys: field names

	// Declarations and selected names are not references to moved names.
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			skip[n.Sel] = true
		case *ast.FuncDecl:
			skip[n.Name] = true
		case *ast.TypeSpec:
			skip[n.Name] = true
		case *ast.ValueSpec:
			for _, id := range n.Names {
				skip[id] = true
			}
		case *ast.Field:
			for _, id := range n.Names {
				skip[id] = true
			}
		case *ast.LabeledStmt:
			skip[n.Label] = true
		case *ast.BranchStmt:
			if n.Label != nil {
				skip[n.Label] = true
			}
		case *ast.CompositeLit:
			// Keys of a struct literal are field names, not references.
			if _, isMap := n.Type.(*ast.MapType); !isMap {
				for _, e := range n.Elts {
					if kv, ok := e.(*ast.KeyValueExpr); ok {
						if id, ok := kv.Key.(*ast.Ident); ok {
							litKeys[id] = true
							if n.Type != nil {
								skip[id] = true
							}
						}
					}
				}
			}
		}
		return true
	})
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			if x, ok := n.X.(*ast.Ident); ok && serverName != "" && x.Name == serverName && x.Obj == nil {
				if to, ok := moved[n.Sel.Name]; ok {
					edits = append(edits, edit{off(n.Pos()), off(n.End()), to[0] + "." + to[1]})
					used[to[0]] = true
					return false
				}
			}
			if to, ok := methods[n.Sel.Name]; ok {
				edits = append(edits, edit{off(n.Sel.Pos()), off(n.Sel.End()), to})
			}
		case *ast.Ident:
			if inServer && !skip[n] && n.Obj == nil {
				if to, ok := moved[n.Name]; ok {
					edits = append(edits, edit{off(n.Pos()), off(n.End()), to[0] + "." + to[1]})
					used[to[0]] = true
				}
			}
		}
		return true
	})
	// Comments name the moved things too: "apiserver.Client" reads
	// "client.Client" now.
	for _, cg := range f.Comments {
		for _, c := range cg.List {
			for _, m := range commentRef.FindAllStringSubmatchIndex(c.Text, -1) {
				if to, ok := moved[c.Text[m[2]:m[3]]]; ok {
					base := off(c.Pos())
					edits = append(edits, edit{base + m[0], base + m[1], to[0] + "." + to[1]})
				}
			}
		}
	}
	if len(edits) == 0 {
		return nil, nil, nil
	}

	// A local that shadows a package now referenced is renamed.
	var warnings []string
	for name := range used {
		var objs []*ast.Object
		ast.Inspect(f, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && id.Name == name && id.Obj != nil && !slices.Contains(objs, id.Obj) {
				objs = append(objs, id.Obj)
			}
			return true
		})
		if len(objs) == 0 {
			continue
		}
		newName := name[:1] + "l"
		if name == "client" {
			newName = "cl"
		}
		if bytes.Contains(src, []byte(newName+" ")) || bytes.Contains(src, []byte(newName+".")) {
			warnings = append(warnings, fmt.Sprintf("a local %q shadows package %s and %q is taken: rename it by hand", name, name, newName))
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && id.Obj != nil && slices.Contains(objs, id.Obj) && !litKeys[id] && !isFieldName(f, id) {
				edits = append(edits, edit{off(id.Pos()), off(id.End()), newName})
			}
			return true
		})
	}

	sort.Slice(edits, func(i, j int) bool { return edits[i].off > edits[j].off })
	out := slices.Clone(src)
	last := len(out) + 1
	for _, e := range edits {
		if e.end > last {
			continue // nested in an edit already made
		}
		out = slices.Concat(out[:e.off], []byte(e.text), out[e.end:])
		last = e.off
	}
	out, err = fixImports(path, out, used, serverName)
	if err != nil {
		return nil, warnings, err
	}
	return out, warnings, nil
}

// isFieldName reports whether id is a struct field's name (which the parser
// may resolve like a variable): those are not shadowing locals.
func isFieldName(f *ast.File, id *ast.Ident) bool {
	field := false
	ast.Inspect(f, func(n ast.Node) bool {
		if st, ok := n.(*ast.StructType); ok {
			for _, fl := range st.Fields.List {
				if slices.Contains(fl.Names, id) {
					field = true
				}
			}
		}
		return !field
	})
	return field
}

// fixImports adds the imports of the packages used and drops the apiserver
// import when nothing selects from it any more.
func fixImports(path string, src []byte, used map[string]bool, serverName string) ([]byte, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
	if err != nil {
		return nil, fmt.Errorf("after rewriting: %w", err)
	}
	have := map[string]bool{}
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		have[p] = true
	}
	var add []string
	for name := range used {
		if !have[pkgs[name]] {
			add = append(add, strconv.Quote(pkgs[name]))
		}
	}
	sort.Strings(add)
	drop := serverName != ""
	if drop {
		ast.Inspect(f, func(n ast.Node) bool {
			if s, ok := n.(*ast.SelectorExpr); ok {
				if x, ok := s.X.(*ast.Ident); ok && x.Name == serverName && x.Obj == nil {
					drop = false
				}
			}
			return drop
		})
	}
	if len(add) == 0 && !drop {
		return format.Source(src)
	}
	lines := strings.Split(string(src), "\n")
	newLines := make([]string, 0, len(add))
	for _, a := range add {
		newLines = append(newLines, "\t"+a)
	}
	// Insert next to a miniplane import (the same group), or as a new group.
	at := -1
	var serverSpec *ast.ImportSpec
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		if p == module+"/apiserver" {
			serverSpec = imp
		}
		if strings.HasPrefix(p, module) && imp.Name == nil {
			at = fset.Position(imp.Pos()).Line // insert after this line
		}
	}
	if drop && serverSpec != nil {
		l := fset.Position(serverSpec.Pos()).Line - 1
		if strings.HasPrefix(strings.TrimSpace(lines[l]), "import ") {
			lines[l] = "import ()"
		} else {
			lines[l] = "\x00"
		}
	}
	if len(newLines) > 0 {
		if at < 0 {
			if len(f.Imports) == 0 {
				pl := fset.Position(f.Name.End()).Line
				lines = slices.Insert(lines, pl, append(append([]string{"", "import ("}, newLines...), ")")...)
			} else {
				decl := f.Decls[0].(*ast.GenDecl)
				if decl.Rparen.IsValid() {
					rl := fset.Position(decl.Rparen).Line - 1
					lines = slices.Insert(lines, rl, append([]string{""}, newLines...)...)
				} else {
					l := fset.Position(decl.Pos()).Line - 1
					spec := strings.TrimSpace(strings.TrimPrefix(lines[l], "import"))
					repl := append(append([]string{"import (", "\t" + spec, ""}, newLines...), ")")
					lines = slices.Concat(lines[:l], repl, lines[l+1:])
				}
			}
		} else {
			lines = slices.Insert(lines, at, newLines...)
		}
	}
	kept := lines[:0]
	for _, l := range lines {
		if l != "\x00" {
			kept = append(kept, l)
		}
	}
	return format.Source([]byte(strings.Join(kept, "\n")))
}
