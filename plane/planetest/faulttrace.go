package planetest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/miniplane/miniplane/apiserver/faults"
)

// TraceLines is how many of the fault trace's lines a failed test prints:
// the last ones that touched the objects its failure names.
const TraceLines = 20

// faultTrace holds a plane's fault trace in memory while the test runs,
// and what Eventually and Judge said when it failed, so that Start's
// cleanup can write it to a file and print the lines that matter.
type faultTrace struct {
	// mu guards buf and complaints.
	mu         sync.Mutex
	buf        bytes.Buffer
	complaints []string
}

// Write takes the injector's lines, each whole.
func (f *faultTrace) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.buf.Write(p)
}

// traces are the fault traces of the planes running, by the name of the
// test that started each: a testing.TB carries no values, so Eventually
// and Judge find the trace of their test's plane here. Start adds its
// entry and its cleanup removes it.
var traces = struct {
	sync.Mutex
	byTest map[string]*faultTrace
}{byTest: map[string]*faultTrace{}}

// complain records a failure's text with the trace of the plane the test
// named name (or the nearest test above it) started, if there is one.
func complain(name, text string) {
	traces.Lock()
	defer traces.Unlock()
	for {
		if f, ok := traces.byTest[name]; ok {
			f.mu.Lock()
			f.complaints = append(f.complaints, text)
			f.mu.Unlock()
			return
		}
		i := strings.LastIndexByte(name, '/')
		if i < 0 {
			return
		}
		name = name[:i]
	}
}

// report writes the trace to a file that outlives the test (t.TempDir
// would not; see keep) and returns what a failed test prints of it: the
// file's path and the last TraceLines lines that name an object the
// failure named, or the last faults when none does.
func (f *faultTrace) report(test string, seed int64) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var b strings.Builder
	path, err := keep(f.buf.Bytes(), test, seed)
	if err != nil {
		fmt.Fprintf(&b, "the fault trace could not be kept: %v", err)
	} else {
		fmt.Fprintf(&b, "the whole fault trace (one JSON line per request and per fault): %s", path)
	}
	events := parseTrace(f.buf.Bytes())
	if len(events) == 0 {
		return b.String()
	}
	words := wordsOf(strings.Join(f.complaints, "\n"))
	picked, names := pick(events, func(ev faults.Event) []string { return touched(ev, words) })
	if len(picked) > 0 {
		fmt.Fprintf(&b, "\nits last lines on %s:", strings.Join(names, ", "))
	} else {
		picked, _ = pick(events, func(ev faults.Event) []string {
			if ev.Fault != "" {
				return []string{""}
			}
			return nil
		})
		fmt.Fprintf(&b, "\nno line names an object the failure names; the last faults:")
	}
	start := events[0].Time
	for _, ev := range picked {
		b.WriteString("\n\t")
		b.WriteString(formatEvent(ev, start))
	}
	return b.String()
}

// keep writes trace to the file named after the test and seed in the
// directory miniplane-faults of the system's temporary directory, and
// returns its path. One test and seed always get one path, so a test run
// again overwrites its trace rather than adding one.
func keep(trace []byte, test string, seed int64) (string, error) {
	dir := filepath.Join(os.TempDir(), "miniplane-faults")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(dir, fmt.Sprintf("%s.seed%d.jsonl", unsafeInPath.ReplaceAllString(test, "_"), seed))
	return path, os.WriteFile(path, trace, 0o644)
}

var unsafeInPath = regexp.MustCompile(`[^A-Za-z0-9._=-]+`)

func parseTrace(b []byte) []faults.Event {
	var out []faults.Event
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var ev faults.Event
		if json.Unmarshal(sc.Bytes(), &ev) == nil {
			out = append(out, ev)
		}
	}
	return out
}

// pick returns the last TraceLines events match names anything for, in
// order, and the names matched, in the order first matched.
func pick(events []faults.Event, match func(faults.Event) []string) ([]faults.Event, []string) {
	var (
		picked []faults.Event
		names  []string
		seen   = map[string]bool{}
	)
	for i := len(events) - 1; i >= 0 && len(picked) < TraceLines; i-- {
		m := match(events[i])
		if len(m) == 0 {
			continue
		}
		picked = append(picked, events[i])
		for _, n := range m {
			if n != "" && !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
	}
	for i, j := 0, len(picked)-1; i < j; i, j = i+1, j-1 {
		picked[i], picked[j] = picked[j], picked[i]
	}
	return picked, names
}

// touched returns the names in words that ev's object or selector names:
// the name of its key, or a value its selector asks for.
func touched(ev faults.Event, words map[string]bool) []string {
	if ev.Resource == "" {
		return nil // not on a resource
	}
	var out []string
	_, name, _ := strings.Cut(ev.Key, "/")
	if !strings.Contains(ev.Key, "/") {
		name = ev.Key
	}
	if words[name] {
		out = append(out, name)
	}
	for _, term := range strings.FieldsFunc(ev.Selector, func(r rune) bool { return r == ',' || r == ';' || r == ' ' }) {
		if _, v, ok := strings.Cut(term, "="); ok {
			v = strings.TrimLeft(v, "=")
			if words[v] {
				out = append(out, v)
			}
		}
	}
	return out
}

// wordsOf splits text into the words an object's name could be: runs of
// letters, digits, '-' and '.', with the dots that end a sentence trimmed.
func wordsOf(text string) map[string]bool {
	words := map[string]bool{}
	for _, w := range strings.FieldsFunc(text, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '.')
	}) {
		if w = strings.Trim(w, ".-"); w != "" {
			words[w] = true
		}
	}
	return words
}

// formatEvent is one trace line as a failure prints it: the time since the
// trace began, the request, and the fault with how it struck.
func formatEvent(ev faults.Event, start time.Time) string {
	s := fmt.Sprintf("+%-10v %s %s %s", ev.Time.Sub(start).Round(time.Millisecond), ev.Verb, ev.Resource, ev.Key)
	if ev.Selector != "" {
		s += " [" + ev.Selector + "]"
	}
	s += fmt.Sprintf(" rev %d", ev.Revision)
	if ev.Fault != "" {
		s += "  FAULT " + ev.Fault
		if ev.Detail != "" {
			s += ": " + ev.Detail
		}
	}
	return s
}
