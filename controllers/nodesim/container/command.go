package container

import (
	"errors"
	"fmt"
	"math"
	"path"
	"strconv"
	"strings"
	"time"
)

// The command grammar. A container's command and args, joined as the
// kubelet joins them (command, then args), are one of:
//
//   - a simple command: echo WORDS (prints WORDS), sleep N (N seconds, or
//     N with a suffix s, m, h or d, several summed, "infinity" for ever),
//     exit N, true, false or ":"; touch FILE... and rm [-f] FILE..., which
//     make and remove files in the container's simulated filesystem (which
//     holds only the files its command touched), cat FILE... (prints
//     nothing of a file that exists, fails on one that does not) and test
//     -e/-f FILE; a path ("/bin/echo") counts by its last element;
//   - sh -c SCRIPT (also bash, ash, and their /bin paths), where SCRIPT
//     is simple commands joined by ";", newlines, "&&" and "||", with the
//     shell's quoting ('single', "double", backslash) and # comments.
//
// Anything else — no command at all (the image's own command runs), a
// command the grammar does not know, or a script it cannot parse (pipes,
// redirections, variables, substitutions, globs, loops) — is not an error:
// the container runs until it is stopped, as a server does, and its log
// says why.

// Run is one run of a container, worked out from its command before it
// starts: what it prints and when, and how it ends.
type Run struct {
	// Output is what the run prints, in order, each line at its offset
	// from the start of the run.
	Output []Line
	// Forever says the run does not end by itself: it runs until stopped.
	// Duration and ExitCode are then zero.
	Forever bool
	// Duration is how long the run lasts before it exits.
	Duration time.Duration
	// ExitCode is the code it exits with, 0 to 255.
	ExitCode int32
	// Files are the changes its command makes to its files (touch, rm), in
	// order; an exec probe reads them (Exec).
	Files []FileChange
	// Why says, when the run is Forever because the simulator does not
	// know what the command does, why it runs until stopped: the kubelet
	// writes it in the container's log. "" for a command the grammar
	// understands (sleep infinity).
	Why string
}

// FileChange is a file made (Exists) or removed At an offset from the
// start of a run.
type FileChange struct {
	At     time.Duration
	Path   string
	Exists bool
}

// FilesAt returns the files that exist d into the run, by path.
func (r *Run) FilesAt(d time.Duration) map[string]bool {
	files := map[string]bool{}
	for _, c := range r.Files {
		if c.At > d {
			break
		}
		if c.Exists {
			files[c.Path] = true
		} else {
			delete(files, c.Path)
		}
	}
	return files
}

// Line is one line a run prints, At its offset from the start of the run.
type Line struct {
	At   time.Duration
	Text string
}

// maxRun is the longest run the simulator times: a longer one runs until
// stopped (sleep 1e9 is for ever in practice, and sums must not overflow).
const maxRun = 100 * 365 * 24 * time.Hour

// Plan returns what a run of a container with command and args does.
func Plan(command, args []string) Run {
	argv := make([]string, 0, len(command)+len(args))
	argv = append(append(argv, command...), args...)
	if len(argv) == 0 {
		return Run{Forever: true, Why: "no command given: the image's own command runs until the container is stopped, as a server does (no process runs in miniplane, so it prints nothing)"}
	}
	if isShell(argv[0]) && len(argv) >= 3 && argv[1] == "-c" {
		list, err := parseScript(argv[2])
		if err != nil {
			return Run{Forever: true, Why: fmt.Sprintf("cannot simulate the script %q: %v; it runs until the container is stopped", argv[2], err)}
		}
		return execute(list, map[string]bool{})
	}
	return execute([]simple{{argv: argv}}, map[string]bool{})
}

// Exec runs argv, as an exec probe runs it in a container whose files are
// files (FilesAt), and returns its exit code and what it printed (lines
// joined by newlines). A command the grammar does not know, or that does
// not end by itself, counts as passing: as with Plan, what the simulator
// cannot run is taken to do what it is there for.
func Exec(argv []string, files map[string]bool) (code int32, output string) {
	if len(argv) == 0 {
		return 0, ""
	}
	fs := make(map[string]bool, len(files))
	for k, v := range files {
		fs[k] = v
	}
	var r Run
	if isShell(argv[0]) && len(argv) >= 3 && argv[1] == "-c" {
		list, err := parseScript(argv[2])
		if err != nil {
			return 0, ""
		}
		r = execute(list, fs)
	} else {
		r = execute([]simple{{argv: argv}}, fs)
	}
	texts := make([]string, len(r.Output))
	for i, l := range r.Output {
		texts[i] = l.Text
	}
	if r.Forever {
		return 0, strings.Join(texts, "\n")
	}
	return r.ExitCode, strings.Join(texts, "\n")
}

// isShell reports whether name is a shell the grammar reads sh -c of.
func isShell(name string) bool {
	switch path.Base(name) {
	case "sh", "bash", "ash", "dash":
		return true
	}
	return false
}

// simple is a simple command and the operator before it: "" for the
// first, ";" (or a newline), "&&" or "||".
type simple struct {
	op   string
	argv []string
}

// execute runs a list of simple commands as a shell runs them: a command
// after && runs only if the status so far is 0, after || only if it is
// not, after ; always; exit ends the list. files are the files that exist,
// changed as the commands touch and remove them.
func execute(list []simple, files map[string]bool) Run {
	var r Run
	var at time.Duration
	var status int32
	for i, s := range list {
		if i > 0 && (s.op == "&&" && status != 0 || s.op == "||" && status == 0) {
			continue // skipped: the status stays
		}
		name, args := path.Base(s.argv[0]), s.argv[1:]
		switch name {
		case "echo":
			newline := true
			if len(args) > 0 && args[0] == "-n" {
				args, newline = args[1:], false
			}
			text := strings.Join(args, " ")
			if newline || text != "" {
				for _, l := range strings.Split(text, "\n") {
					r.Output = append(r.Output, Line{At: at, Text: l})
				}
			}
			status = 0
		case "true", ":":
			status = 0
		case "touch":
			for _, f := range args {
				files[f] = true
				r.Files = append(r.Files, FileChange{At: at, Path: f, Exists: true})
			}
			status = 0
		case "rm":
			status = 0
			force := len(args) > 0 && (args[0] == "-f" || args[0] == "-rf" || args[0] == "-fr")
			if force || len(args) > 0 && args[0] == "--" {
				args = args[1:]
			}
			for _, f := range args {
				if !files[f] {
					if !force {
						r.Output = append(r.Output, Line{At: at, Text: "rm: can't remove '" + f + "': No such file or directory"})
						status = 1
					}
					continue
				}
				delete(files, f)
				r.Files = append(r.Files, FileChange{At: at, Path: f, Exists: false})
			}
		case "cat":
			status = 0
			for _, f := range args {
				if !files[f] {
					r.Output = append(r.Output, Line{At: at, Text: "cat: can't open '" + f + "': No such file or directory"})
					status = 1
				}
			}
		case "test":
			status = 1
			if len(args) == 2 && (args[0] == "-e" || args[0] == "-f") && files[args[1]] {
				status = 0
			}
		case "false":
			status = 1
		case "sleep":
			d, err := sleepFor(args)
			switch {
			case err != nil:
				r.Output = append(r.Output, Line{At: at, Text: "sleep: " + err.Error()})
				status = 1
			case d < 0 || d > maxRun-at:
				return Run{Output: r.Output, Forever: true}
			default:
				at += d
				status = 0
			}
		case "exit":
			if len(args) > 0 {
				n, err := strconv.ParseInt(args[0], 10, 64)
				if err != nil {
					r.Output = append(r.Output, Line{At: at, Text: "exit: " + args[0] + ": numeric argument required"})
					n = 2
				}
				status = int32(n & 0xff)
			}
			r.Duration, r.ExitCode = at, status
			return r
		default:
			return Run{Output: r.Output, Forever: true, Why: fmt.Sprintf(
				"%q is not a command the simulator runs (it runs echo, sleep, exit, true and false, alone or joined by ;, && and || in sh -c): it runs until the container is stopped",
				strings.Join(s.argv, " "))}
		}
	}
	r.Duration, r.ExitCode = at, status
	return r
}

// sleepFor returns how long sleep args sleeps (the sum of its arguments,
// as GNU and busybox sleep take them), -1 for ever.
func sleepFor(args []string) (time.Duration, error) {
	if len(args) == 0 {
		return 0, errors.New("missing operand")
	}
	var total float64
	for _, a := range args {
		if a == "infinity" || a == "inf" {
			return -1, nil
		}
		num, unit := a, 1.0
		if n := len(a); n > 0 {
			switch a[n-1] {
			case 's':
				num = a[:n-1]
			case 'm':
				num, unit = a[:n-1], 60
			case 'h':
				num, unit = a[:n-1], 3600
			case 'd':
				num, unit = a[:n-1], 86400
			}
		}
		v, err := strconv.ParseFloat(num, 64)
		if err != nil || v < 0 || math.IsNaN(v) || strings.ContainsAny(num, "xXpPnN_") {
			return 0, fmt.Errorf("invalid number '%s'", a)
		}
		total += v * unit
	}
	if total*float64(time.Second) >= float64(maxRun) {
		return -1, nil
	}
	return time.Duration(total * float64(time.Second)), nil
}

// parseScript splits an sh -c script into its simple commands, or says
// why it cannot.
func parseScript(s string) ([]simple, error) {
	var (
		list    []simple
		words   []string
		word    strings.Builder
		inWord  bool
		op      string
		pending bool // an operator was read and wants a command after it
	)
	endWord := func() {
		if inWord {
			words = append(words, word.String())
			word.Reset()
			inWord = false
		}
	}
	endCommand := func(next string) error {
		endWord()
		if len(words) == 0 {
			if next == ";" && !pending && op != "&&" && op != "||" {
				return nil // an empty line, or a trailing ;
			}
			return fmt.Errorf("syntax error near %q", next)
		}
		if strings.Contains(words[0], "=") {
			return errors.New("variable assignments are not simulated")
		}
		list = append(list, simple{op: op, argv: words})
		words, op, pending = nil, next, next == "&&" || next == "||"
		return nil
	}
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, errors.New("unterminated quote")
			}
			word.WriteString(s[i+1 : i+1+j])
			inWord, i = true, i+1+j
		case ch == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				switch c := s[i]; {
				case c == '$' || c == '`':
					return nil, fmt.Errorf("%q expansions are not simulated", string(c))
				case c == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`\n", s[i+1]) >= 0:
					i++
					if s[i] != '\n' {
						word.WriteByte(s[i])
					}
				default:
					word.WriteByte(c)
				}
			}
			if i >= len(s) {
				return nil, errors.New("unterminated quote")
			}
			inWord = true
		case ch == '\\':
			if i+1 < len(s) {
				i++
				if s[i] != '\n' {
					word.WriteByte(s[i])
					inWord = true
				}
			}
		case ch == ' ' || ch == '\t':
			endWord()
		case ch == '#' && !inWord:
			for i < len(s) && s[i] != '\n' {
				i++
			}
			i-- // the newline ends the command
		case ch == ';' || ch == '\n':
			if err := endCommand(";"); err != nil {
				return nil, err
			}
		case (ch == '&' || ch == '|') && i+1 < len(s) && s[i+1] == ch:
			if err := endCommand(s[i : i+2]); err != nil {
				return nil, err
			}
			i++
		case strings.IndexByte("|&<>()$`{}*?[]~!", ch) >= 0:
			return nil, fmt.Errorf("%q is not simulated", string(ch))
		default:
			word.WriteByte(ch)
			inWord = true
		}
	}
	endWord()
	if len(words) > 0 {
		if err := endCommand(";"); err != nil {
			return nil, err
		}
	} else if pending {
		return nil, fmt.Errorf("syntax error: nothing after %q", op)
	}
	return list, nil
}
