package main

import (
	"fmt"
	"regexp"
	"strings"
)

// The verdicts of the table, in its column order.
const (
	verdictPassed = "passed"
	verdictFailed = "failed"
	verdictCannot = "cannot pass"
	verdictNotRun = "not run"
)

var verdicts = []string{verdictPassed, verdictFailed, verdictCannot, verdictNotRun}

// verdict is a test's row in the table: its verdict and why. A passed test
// is passed whatever the notes say (run warns about such a note); a test the
// notes say cannot pass is "cannot pass" whether it failed or was not run;
// a failure's why, or why a test not run is expected to fail, is the note's
// cause, else the failure message's first line.
func verdict(r result, ran bool, n note, noted bool) (string, string) {
	switch {
	case ran && r.State == "passed":
		return verdictPassed, ""
	case noted && n.Cannot:
		return verdictCannot, n.Text
	case (!ran || r.State == "skipped") && noted:
		return verdictNotRun, n.Text
	case !ran || r.State == "skipped":
		return verdictNotRun, r.Message
	case noted:
		return verdictFailed, n.Text
	default:
		return verdictFailed, r.State + ": " + r.Message
	}
}

var sigOf = regexp.MustCompile(`^\[(sig-[a-z-]+)\]`)

// sig is the SIG that owns a test, from the prefix of its name.
func sig(name string) string {
	if m := sigOf.FindStringSubmatch(name); m != nil {
		return m[1]
	}
	return "other"
}

// renderTable writes the table (interop/realk8s/CONFORMANCE.md): the summary per SIG, the runs, and a
// row per test under its SIG.
func renderTable(names map[string]string, results map[string]result, notes map[string]note, runs []runRow) string {
	type row struct{ name, source, verdict, why, secs string }
	bySig := map[string][]row{}
	tally := map[string]map[string]int{}
	total := map[string]int{}
	for _, name := range sortedKeys(names) {
		r, ran := results[name]
		n, noted := notes[name]
		v, why := verdict(r, ran, n, noted)
		s := sig(name)
		secs := ""
		if ran && v != verdictNotRun {
			secs = fmt.Sprintf("%ds", r.Seconds)
		}
		bySig[s] = append(bySig[s], row{name, names[name], v, why, secs})
		if tally[s] == nil {
			tally[s] = map[string]int{}
		}
		tally[s][v]++
		total[v]++
	}

	var b strings.Builder
	b.WriteString(`# Kubernetes v1.32 conformance tests against miniplane serve

Written by ` + "`run-conformance.sh`" + ` from the JSON reports of Kubernetes' own ` + "`e2e.test`" + ` (v1.32.13,
built from the Go module proxy) run against ` + "`miniplane serve`" + `; do not edit it by hand. Each
test's last result is kept in ` + "`conformance-results.tsv`" + `; why a test cannot pass, or what
makes it fail, is written by hand in ` + "`conformance-notes.tsv`" + ` (a "cannot pass" cites the
test's source). "Not run" means no run of the script has reached it yet.

`)
	fmt.Fprintf(&b, "%d of %d [Conformance] tests pass; %d cannot pass without a container runtime or a pod network; %d fail; %d not run.\n\n",
		total[verdictPassed], len(names), total[verdictCannot], total[verdictFailed], total[verdictNotRun])
	b.WriteString("| SIG | tests | " + strings.Join(verdicts, " | ") + " |\n|---|---:|---:|---:|---:|---:|\n")
	sigs := sortedKeys(bySig)
	for _, s := range sigs {
		fmt.Fprintf(&b, "| %s | %d |", s, len(bySig[s]))
		for _, v := range verdicts {
			fmt.Fprintf(&b, " %d |", tally[s][v])
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "| all | %d |", len(names))
	for _, v := range verdicts {
		fmt.Fprintf(&b, " %d |", total[v])
	}
	b.WriteString("\n\n## Runs\n\nWall time is the whole run's, serve's start and the suite's set-up included.\n\n")
	b.WriteString("| date | focus | skip | passed | failed | skipped | wall |\n|---|---|---|---:|---:|---:|---:|\n")
	for _, r := range runs {
		fmt.Fprintf(&b, "| %s | %s | %s | %d | %d | %d | %ds |\n", r.Date, code(r.Focus), code(r.Skip),
			r.Counts.Passed, r.Counts.Failed, r.Counts.Skipped, r.Wall)
	}
	for _, s := range sigs {
		fmt.Fprintf(&b, "\n## %s\n\n| test | result | time | why |\n|---|---|---:|---|\n", s)
		for _, r := range bySig[s] {
			fmt.Fprintf(&b, "| %s <sub>%s</sub> | %s | %s | %s |\n", cell(shortName(r.name)), r.source, r.verdict, r.secs, cell(r.why))
		}
	}
	return b.String()
}

// shortName drops what every row of a SIG's table shares: the SIG and the
// [Conformance] tag.
func shortName(name string) string {
	name = strings.TrimSpace(sigOf.ReplaceAllString(name, ""))
	return strings.TrimSpace(strings.ReplaceAll(name, "[Conformance]", ""))
}

// cell makes text safe in a Markdown table cell.
func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "<", "&lt;", ">", "&gt;").Replace(s)
}

// code is s as inline code, or nothing when s is empty.
func code(s string) string {
	if s == "" {
		return ""
	}
	return "`" + strings.ReplaceAll(s, "|", `\|`) + "`"
}
