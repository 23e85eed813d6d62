package container

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// input is what a command reads: the files named, or what was piped into
// it. It prints busybox's error for a file that is not there, and reports
// false then.
func (sh *shell) input(cmd string, files []string) ([]string, bool) {
	if len(files) == 0 {
		if sh.stdin == nil {
			return []string{""}, true
		}
		return []string{*sh.stdin}, true
	}
	out := make([]string, 0, len(files))
	for _, f := range files {
		file, there := sh.exists(resolve(f))
		if !there || file.IsDir() {
			sh.print(cmd + ": can't open '" + f + "': No such file or directory\n")
			return nil, false
		}
		out = append(out, file.Data)
	}
	return out, true
}

// wc is wc with one of -l, -w or -c: the count, and the file's name after
// it when it read a file, a line each. More options, or none, are not
// simulated.
func (sh *shell) wc(args []string) (int32, bool) {
	if len(args) == 0 {
		return 0, false
	}
	var count func(string) int
	switch args[0] {
	case "-l":
		count = func(s string) int { return strings.Count(s, "\n") }
	case "-w":
		count = func(s string) int { return len(strings.Fields(s)) }
	case "-c":
		count = func(s string) int { return len(s) }
	default:
		return 0, false
	}
	files := args[1:]
	if len(files) > 1 {
		return 0, false // the total line is not simulated
	}
	data, ok := sh.input("wc", files)
	if !ok {
		return 1, true
	}
	if len(files) == 0 {
		sh.print(strconv.Itoa(count(data[0])) + "\n")
	} else {
		sh.print(fmt.Sprintf("%d %s\n", count(data[0]), files[0]))
	}
	return 0, true
}

// awkPrint is the one awk program the grammar runs: {print} or {print $N,
// $M, ...}, which prints fields of each line (split at blanks; $0 the
// line), joined by a space.
var awkPrint = regexp.MustCompile(`^\s*\{\s*print((\s+\$\d+)(\s*,\s*\$\d+)*)?\s*;?\s*\}\s*$`)

var awkField = regexp.MustCompile(`\$(\d+)`)

// awk runs awkPrint programs over its files or input; others are not
// simulated.
func (sh *shell) awk(args []string) (int32, bool) {
	if len(args) == 0 || !awkPrint.MatchString(args[0]) {
		return 0, false
	}
	var fields []int
	for _, m := range awkField.FindAllStringSubmatch(args[0], -1) {
		n, err := strconv.Atoi(m[1])
		if err != nil {
			return 0, false
		}
		fields = append(fields, n)
	}
	data, ok := sh.input("awk", args[1:])
	if !ok {
		return 2, true
	}
	for _, d := range data {
		for _, line := range strings.SplitAfter(d, "\n") {
			if line == "" {
				continue
			}
			line = strings.TrimSuffix(line, "\n")
			if len(fields) == 0 {
				sh.print(line + "\n")
				continue
			}
			words := strings.Fields(line)
			out := make([]string, len(fields))
			for i, n := range fields {
				switch {
				case n == 0:
					out[i] = line
				case n <= len(words):
					out[i] = words[n-1]
				}
			}
			sh.print(strings.Join(out, " ") + "\n")
		}
	}
	return 0, true
}
