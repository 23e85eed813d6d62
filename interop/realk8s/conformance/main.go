// Command conformance turns the Ginkgo JSON reports of Kubernetes' e2e.test
// into what run-conformance.sh prints and commits: a PASS or FAIL line per
// test run, a summary, the results kept across runs, and the table
// interop/realk8s/CONFORMANCE.md of every [Conformance] test of the suite.
//
//	conformance -list LIST.json -dir interop/realk8s -table TABLE \
//	    [-report RUN.json -focus F -skip S -wall SECONDS]
//
// LIST.json is the report of `e2e.test --ginkgo.dry-run
// --ginkgo.focus='\[Conformance\]'`: the suite's conformance tests. RUN.json
// is a real run's report; its results replace those of the same tests in
// DIR/conformance-results.tsv, the run is added to DIR/conformance-runs.tsv,
// and the Markdown table TABLE (run-conformance.sh passes
// interop/realk8s/CONFORMANCE.md) is written again from the list, the
// results and DIR/conformance-notes.tsv. Without -report the table is only
// rewritten.
//
// conformance-notes.tsv is written by hand, one test a line:
// NAME<TAB>cannot<TAB>WHY (the test's source shows it cannot pass without a
// container runtime or a pod network) or NAME<TAB>cause<TAB>WHY (the
// cause of a failure, in one line, for the table instead of the first line
// of the test's failure message).
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, time.Now()); err != nil {
		fmt.Fprintln(os.Stderr, "conformance:", err)
		os.Exit(1)
	}
}

// The files run keeps in -dir.
const (
	resultsFile = "conformance-results.tsv"
	runsFile    = "conformance-runs.tsv"
	notesFile   = "conformance-notes.tsv"
)

func run(args []string, stdout io.Writer, now time.Time) error {
	fs := flag.NewFlagSet("conformance", flag.ContinueOnError)
	list := fs.String("list", "", "the dry run's JSON report: every [Conformance] test of the suite")
	report := fs.String("report", "", "a run's JSON report (optional)")
	dir := fs.String("dir", ".", "where the results, runs and notes are")
	table := fs.String("table", "", "the Markdown table to write")
	focus := fs.String("focus", "", "the run's --ginkgo.focus, for the runs table")
	skip := fs.String("skip", "", "the run's --ginkgo.skip, for the runs table")
	wall := fs.Int("wall", 0, "the run's wall time in seconds, for the runs table")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *list == "" || *table == "" {
		return errors.New("-list and -table are required")
	}
	all, err := readSpecs(*list)
	if err != nil {
		return err
	}
	names := conformanceNames(all)
	if len(names) == 0 {
		return fmt.Errorf("%s lists no [Conformance] test", *list)
	}
	results, err := readResults(filepath.Join(*dir, resultsFile))
	if err != nil {
		return err
	}
	runs, err := readRuns(filepath.Join(*dir, runsFile))
	if err != nil {
		return err
	}
	notes, err := readNotes(filepath.Join(*dir, notesFile))
	if err != nil {
		return err
	}
	if *report != "" {
		specs, err := readSpecs(*report)
		if err != nil {
			return err
		}
		ran := runResults(specs, now)
		printRun(stdout, ran, notes)
		for _, r := range ran {
			results[r.Name] = r
		}
		runs = append(runs, runRow{
			Date: now.UTC().Format(time.RFC3339), Focus: *focus, Skip: *skip,
			Counts: countStates(ran), Wall: *wall,
		})
		if err := writeResults(filepath.Join(*dir, resultsFile), results); err != nil {
			return err
		}
		if err := writeRuns(filepath.Join(*dir, runsFile), runs); err != nil {
			return err
		}
	}
	for name, n := range notes {
		if _, ok := names[name]; !ok {
			fmt.Fprintf(stdout, "warning: %s names a test the suite does not have: %s\n", notesFile, name)
		} else if n.Cannot && results[name].State == "passed" {
			fmt.Fprintf(stdout, "warning: %s says this test cannot pass, but it passed: %s\n", notesFile, name)
		}
	}
	md := renderTable(names, results, notes, runs)
	return os.WriteFile(*table, []byte(md), 0o644)
}

// spec is the part of a Ginkgo SpecReport (ginkgo/v2/types) read here.
type spec struct {
	ContainerHierarchyTexts []string
	LeafNodeType            string
	LeafNodeText            string
	LeafNodeLocation        struct {
		FileName   string
		LineNumber int
	}
	State   string
	RunTime time.Duration
	Failure struct {
		Message string
	}
}

// fullText is the spec's name as Ginkgo matches --ginkgo.focus against it.
func (s spec) fullText() string {
	return strings.Join(append(append([]string{}, s.ContainerHierarchyTexts...), s.LeafNodeText), " ")
}

// readSpecs reads a Ginkgo JSON report (a list of suite reports) and
// returns every It of it.
func readSpecs(path string) ([]spec, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var suites []struct{ SpecReports []spec }
	if err := json.Unmarshal(data, &suites); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var its []spec
	for _, s := range suites {
		for _, sp := range s.SpecReports {
			if sp.LeafNodeType == "It" {
				its = append(its, sp)
			}
		}
	}
	return its, nil
}

// conformanceNames are the [Conformance] tests among specs, each with the
// source location that defines it.
func conformanceNames(specs []spec) map[string]string {
	names := map[string]string{}
	for _, s := range specs {
		if name := s.fullText(); strings.Contains(name, "[Conformance]") {
			names[name] = fmt.Sprintf("%s:%d", trimSource(s.LeafNodeLocation.FileName), s.LeafNodeLocation.LineNumber)
		}
	}
	return names
}

// trimSource makes a module cache path relative to k8s.io/kubernetes.
func trimSource(path string) string {
	if i := strings.Index(path, "/test/e2e/"); i >= 0 {
		return path[i+1:]
	}
	return path
}

// result is one test's last outcome, a row of conformance-results.tsv.
type result struct {
	Name    string
	State   string // Ginkgo's: passed, failed, timedout, panicked, interrupted, aborted, skipped
	Seconds int
	Date    string
	Message string // the failure's first line
}

// runResults are the results of the specs a run ran: a spec the focus left
// out is reported skipped with no message, and is not one.
func runResults(specs []spec, now time.Time) []result {
	var out []result
	for _, s := range specs {
		if s.State == "skipped" && s.Failure.Message == "" || s.State == "pending" {
			continue
		}
		out = append(out, result{
			Name:    s.fullText(),
			State:   s.State,
			Seconds: int(s.RunTime.Round(time.Second) / time.Second),
			Date:    now.UTC().Format("2006-01-02"),
			Message: firstLine(s.Failure.Message),
		})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// firstLine is the first non-empty line of a failure message, cut to 300
// bytes, with tabs made spaces so that it fits a TSV cell.
func firstLine(msg string) string {
	for _, l := range strings.Split(msg, "\n") {
		if l = strings.TrimSpace(strings.ReplaceAll(l, "\t", " ")); l != "" {
			if len(l) > 300 {
				l = l[:300] + "…"
			}
			return l
		}
	}
	return ""
}

// printRun prints a line per test of a run and the summary.
func printRun(w io.Writer, ran []result, notes map[string]note) {
	for _, r := range ran {
		word := "FAIL"
		switch r.State {
		case "passed":
			word = "PASS"
		case "skipped":
			word = "SKIP"
		}
		why := r.Message
		if n, ok := notes[r.Name]; ok && r.State != "passed" {
			why = n.Text
		}
		fmt.Fprintf(w, "%s %4ds %s", word, r.Seconds, r.Name)
		if why != "" {
			fmt.Fprintf(w, "\n           %s", why)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "summary: %s\n", countStates(ran))
}

// counts is how many tests of a run ended in each state.
type counts struct{ Passed, Failed, Skipped int }

func countStates(rs []result) counts {
	var c counts
	for _, r := range rs {
		switch r.State {
		case "passed":
			c.Passed++
		case "skipped":
			c.Skipped++
		default:
			c.Failed++
		}
	}
	return c
}

func (c counts) String() string {
	return fmt.Sprintf("%d passed, %d failed, %d skipped", c.Passed, c.Failed, c.Skipped)
}

// runRow is a row of conformance-runs.tsv: one run of the script.
type runRow struct {
	Date, Focus, Skip string
	Counts            counts
	Wall              int
}

// note is a row of conformance-notes.tsv.
type note struct {
	Cannot bool
	Text   string
}

// readTSV reads a tab-separated file with at least n fields a line;
// lines that are empty or start with # are skipped, and a missing file is
// empty.
func readTSV(path string, n int) ([][]string, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var rows [][]string
	for i, line := range strings.Split(string(data), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) < n {
			return nil, fmt.Errorf("%s:%d: want %d tab-separated fields, got %d", path, i+1, n, len(f))
		}
		rows = append(rows, f)
	}
	return rows, nil
}

func readResults(path string) (map[string]result, error) {
	rows, err := readTSV(path, 5)
	if err != nil {
		return nil, err
	}
	out := map[string]result{}
	for _, f := range rows {
		secs, err := strconv.Atoi(f[2])
		if err != nil {
			return nil, fmt.Errorf("%s: seconds of %q: %w", path, f[0], err)
		}
		out[f[0]] = result{Name: f[0], State: f[1], Seconds: secs, Date: f[3], Message: f[4]}
	}
	return out, nil
}

func writeResults(path string, results map[string]result) error {
	var b strings.Builder
	b.WriteString("# Written by run-conformance.sh: each [Conformance] test's last result.\n# name\tstate\tseconds\tdate\tfailure\n")
	for _, name := range sortedKeys(results) {
		r := results[name]
		fmt.Fprintf(&b, "%s\t%s\t%d\t%s\t%s\n", r.Name, r.State, r.Seconds, r.Date, r.Message)
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

func readRuns(path string) ([]runRow, error) {
	rows, err := readTSV(path, 7)
	if err != nil {
		return nil, err
	}
	var out []runRow
	for _, f := range rows {
		var nums [4]int
		for i := range nums {
			if nums[i], err = strconv.Atoi(f[3+i]); err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
		}
		out = append(out, runRow{Date: f[0], Focus: f[1], Skip: f[2],
			Counts: counts{Passed: nums[0], Failed: nums[1], Skipped: nums[2]}, Wall: nums[3]})
	}
	return out, nil
}

func writeRuns(path string, runs []runRow) error {
	var b strings.Builder
	b.WriteString("# Written by run-conformance.sh: one row a run.\n# date\tfocus\tskip\tpassed\tfailed\tskipped\twall seconds\n")
	for _, r := range runs {
		fmt.Fprintf(&b, "%s\t%s\t%s\t%d\t%d\t%d\t%d\n", r.Date, r.Focus, r.Skip, r.Counts.Passed, r.Counts.Failed, r.Counts.Skipped, r.Wall)
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

func readNotes(path string) (map[string]note, error) {
	rows, err := readTSV(path, 3)
	if err != nil {
		return nil, err
	}
	out := map[string]note{}
	for _, f := range rows {
		switch f[1] {
		case "cannot", "cause":
		default:
			return nil, fmt.Errorf("%s: %q: the second field must be cannot or cause, got %q", path, f[0], f[1])
		}
		out[f[0]] = note{Cannot: f[1] == "cannot", Text: f[2]}
	}
	return out, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
