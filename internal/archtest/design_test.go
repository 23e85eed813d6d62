package archtest

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// packagesSection is the heading of DESIGN.md's import table, which rules
// must equal.
const packagesSection = "Packages and imports"

// readDesign returns DESIGN.md at the module root.
func readDesign(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "DESIGN.md"))
	require.NoError(t, err, "DESIGN.md belongs at the module root")
	return string(b)
}

// section returns the body of the "## title" or "### title" section of
// doc, up to the next heading of the same or a higher level.
func section(doc, title string) (string, bool) {
	lines := strings.Split(doc, "\n")
	for i, l := range lines {
		level := strings.IndexFunc(l, func(r rune) bool { return r != '#' })
		if level < 2 || strings.TrimSpace(l[level:]) != title {
			continue
		}
		var body []string
		for _, m := range lines[i+1:] {
			if n := strings.IndexFunc(m, func(r rune) bool { return r != '#' }); n >= 1 && n <= level && strings.HasPrefix(m[n:], " ") {
				break
			}
			body = append(body, m)
		}
		return strings.Join(body, "\n"), true
	}
	return "", false
}

var backticked = regexp.MustCompile("`([^`]+)`")

// designTable parses the import table of DESIGN.md's packages section: per
// top-level directory, the miniplane packages and third-party modules its
// row allows.
func designTable(t *testing.T, doc string) map[string]rule {
	t.Helper()
	body, ok := section(doc, packagesSection)
	require.True(t, ok, "DESIGN.md has no %q section", packagesSection)
	table := map[string]rule{}
	for _, line := range strings.Split(body, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue // the header, its separator, and prose
		}
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		require.Len(t, cells, 4, "a row of the import table has four columns: %s", line)
		names := func(cell string) []string {
			var out []string
			for _, m := range backticked.FindAllStringSubmatch(cell, -1) {
				out = append(out, m[1])
			}
			return out
		}
		first := names(cells[0])
		require.NotEmpty(t, first, "a row names its package first: %s", line)
		table[first[0]] = rule{local: names(cells[2]), thirdParty: names(cells[3])}
	}
	return table
}

// TestDesignTableIsArchtestsRules checks that the import table in DESIGN.md
// says exactly what rules enforces, row for row, so neither can drift.
func TestDesignTableIsArchtestsRules(t *testing.T) {
	table := designTable(t, readDesign(t))
	var inDoc, inRules []string
	for top := range table {
		inDoc = append(inDoc, top)
	}
	for top := range rules {
		inRules = append(inRules, top)
	}
	slices.Sort(inDoc)
	slices.Sort(inRules)
	require.Equal(t, inRules, inDoc, "the table's rows are rules' top-level directories")
	for _, top := range inRules {
		t.Run(top, func(t *testing.T) {
			want, got := rules[top], table[top]
			assert.ElementsMatch(t, want.local, got.local, "miniplane imports of %s", top)
			assert.ElementsMatch(t, want.thirdParty, got.thirdParty, "third-party imports of %s", top)
		})
	}
}

// citation finds a reference to a section of DESIGN.md in Go source, as in
// (DESIGN.md, "Determinism", rule 4) or DESIGN.md's "Packages and imports";
// quotes may be escaped inside a string literal.
var citation = regexp.MustCompile(`DESIGN\.md(?:'s)?,? \\?"([^"\\]+)\\?"(?:, rule (\d+))?`)

// walkGo calls fn with the path and source of every Go file under the
// repository root (the nested modules included, testdata and dot
// directories not), with comment lines joined so that a citation may wrap
// onto the next one, and returns how many files it read. It skips this
// file, which talks about citations rather than making them.
func walkGo(t *testing.T, fn func(path, src string)) int {
	t.Helper()
	root := filepath.Join("..", "..")
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || filepath.Base(path) == "design_test.go" && filepath.Base(filepath.Dir(path)) == "archtest" {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		fn(path, strings.ReplaceAll(string(b), "\n// ", " "))
		return nil
	})
	require.NoError(t, err)
	return files
}

// TestCitationsOfDesignResolve checks that every mention of DESIGN.md in
// the module's Go files names a section the document has, and a rule that
// section numbers, so that a reader who follows one finds it.
func TestCitationsOfDesignResolve(t *testing.T) {
	doc := readDesign(t)
	cited := 0
	walkGo(t, func(path, src string) {
		mentions := strings.Count(src, "DESIGN.md")
		found := citation.FindAllStringSubmatch(src, -1)
		if len(found) != mentions {
			t.Errorf("%s mentions DESIGN.md %d times but names a section %d times: cite it as (DESIGN.md, \"Section\")", path, mentions, len(found))
		}
		for _, m := range found {
			cited++
			body, ok := section(doc, m[1])
			if !ok {
				t.Errorf("%s cites DESIGN.md section %q, which it does not have", path, m[1])
				continue
			}
			if m[2] != "" {
				n, err := strconv.Atoi(m[2])
				require.NoError(t, err)
				if !strings.Contains("\n"+body, fmt.Sprintf("\n%d. ", n)) {
					t.Errorf("%s cites rule %d of DESIGN.md's %q, which has no such rule", path, n, m[1])
				}
			}
		}
	})
	assert.Positive(t, cited, "no citation found: is the walk rooted right?")
}

var (
	// mdMention is a Markdown file named in Go source (DESIGN.md,
	// interop/README.md, notes.md §4.3).
	mdMention = regexp.MustCompile(`[A-Za-z0-9_][A-Za-z0-9_./-]*\.md\b`)
	// docRule is a rule or section of a document cited by its bare name,
	// as in STYLE rule 10 or README §3.
	docRule = regexp.MustCompile(`\b([A-Z][A-Z0-9_]+),? (?:rule|section|§) ?\d+`)
	// url is a web address, whose .md files are not the repository's.
	url = regexp.MustCompile(`https?://\S+`)
)

// foreignDocs returns the documents src cites that are not in the
// repository: a Markdown file named by a path that resolves neither from
// the repository's root nor from dir (the citing file's directory, both
// relative to the root), and a rule of a document named without a path
// (STYLE rule 10) whose NAME.md is not at the root. exists reports whether
// a path relative to the root names a file.
func foreignDocs(src, dir string, exists func(path string) bool) []string {
	src = url.ReplaceAllString(src, "")
	var out []string
	for _, name := range mdMention.FindAllString(src, -1) {
		if !exists(filepath.Clean(name)) && !exists(filepath.Join(dir, name)) {
			out = append(out, name)
		}
	}
	for _, m := range docRule.FindAllStringSubmatch(src, -1) {
		if !exists(m[1] + ".md") {
			out = append(out, m[0])
		}
	}
	return out
}

// TestForeignDocsFindsCitationsOutsideTheRepo checks the scanner the test
// below relies on.
func TestForeignDocsFindsCitationsOutsideTheRepo(t *testing.T) {
	files := map[string]bool{"DESIGN.md": true, "README.md": true, "interop/README.md": true}
	exists := func(path string) bool { return files[path] }
	tests := []struct {
		name, src, dir string
		want           []string
	}{
		{name: "design section", src: `(DESIGN.md, "Determinism", rule 4)`},
		{name: "nested readme from the root", src: "see interop/README.md", dir: "sim"},
		{name: "nested readme from beside it", src: "see README.md", dir: "interop/stock"},
		{name: "style rule", src: "immutable (STYLE rule 10), so", want: []string{"STYLE rule 10"}},
		{name: "style file", src: "as STYLE.md says", want: []string{"STYLE.md"}},
		{name: "style file's rule", src: "(STYLE.md, rule 19)", want: []string{"STYLE.md"}},
		{name: "notes elsewhere", src: "(informer-and-workqueue.md §4.3)", want: []string{"informer-and-workqueue.md"}},
		{name: "readme section", src: "README §3"},
		{name: "a web page", src: "https://github.com/kubernetes/community/blob/master/CONTRIBUTING.md"},
		{name: "a rule of no document", src: "every rule here is a DNS rule"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, foreignDocs(tt.src, tt.dir, exists))
		})
	}
}

// TestCitationsStayInTheRepo checks that the Go files cite only documents
// the repository has: a comment that sends the reader to a file they
// cannot open (the house style's own notes, a reference outside the
// repository) is a dead link. Cite DESIGN.md's section instead, or nothing.
func TestCitationsStayInTheRepo(t *testing.T) {
	root := filepath.Join("..", "..")
	exists := func(path string) bool {
		fi, err := os.Stat(filepath.Join(root, path))
		return err == nil && !fi.IsDir()
	}
	files := walkGo(t, func(path, src string) {
		rel, err := filepath.Rel(root, filepath.Dir(path))
		require.NoError(t, err)
		for _, doc := range foreignDocs(src, rel, exists) {
			t.Errorf("%s cites %q, which is not in the repository: cite (DESIGN.md, \"Section\") or nothing", path, doc)
		}
	})
	assert.Positive(t, files, "no Go file found: is the walk rooted right?")
}

// TestSectionFindsHeadingsAndStopsAtTheNext checks the parser the two tests
// above rely on.
func TestSectionFindsHeadingsAndStopsAtTheNext(t *testing.T) {
	doc := "# T\n\n## A\n\na1\n\n### A.1\n\nsub\n\n## B\n\nb1\n1. one\n"
	tests := []struct {
		title string
		want  string
		ok    bool
	}{
		{title: "A", want: "\na1\n\n### A.1\n\nsub\n", ok: true},
		{title: "A.1", want: "\nsub\n", ok: true},
		{title: "B", want: "\nb1\n1. one\n", ok: true},
		{title: "T", ok: false}, // a level-1 title is not a section
		{title: "C", ok: false},
	}
	for _, tt := range tests {
		t.Run(tt.title, func(t *testing.T) {
			got, ok := section(doc, tt.title)
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestDesignTableNamesEverySubpackage checks that the first column of the
// import table names, after its top-level directory, exactly the packages
// below it (`controllers` (`workqueue`, `loop`, ...)), so that a new
// package is added to the table in the change that adds it.
func TestDesignTableNamesEverySubpackage(t *testing.T) {
	body, ok := section(readDesign(t), packagesSection)
	require.True(t, ok)
	named := map[string][]string{}
	for _, line := range strings.Split(body, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		first, _, _ := strings.Cut(strings.Trim(line, "| "), " | ")
		var names []string
		for _, m := range backticked.FindAllStringSubmatch(first, -1) {
			names = append(names, m[1])
		}
		top := names[0]
		for _, n := range names[1:] {
			named[top] = append(named[top], strings.TrimPrefix(n, top+"/"))
		}
	}
	root := filepath.Join("..", "..")
	onDisk := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == "interop" || strings.HasPrefix(d.Name(), ".") && rel != "." || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		top, sub, nested := strings.Cut(filepath.ToSlash(filepath.Dir(rel)), "/")
		if !nested || !strings.HasSuffix(path, ".go") || slices.Contains(onDisk[top], sub) {
			return nil
		}
		onDisk[top] = append(onDisk[top], sub)
		return nil
	})
	require.NoError(t, err)
	for top := range rules {
		assert.ElementsMatch(t, onDisk[top], named[top], "the packages under %s/ and those its row of DESIGN.md's table names", top)
	}
}
