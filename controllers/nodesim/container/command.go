package container

import (
	"errors"
	"fmt"
	iofs "io/fs"
	"maps"
	"math"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The command grammar. A container's command and args, joined as the
// kubelet joins them (command, then args), are one of:
//
//   - a simple command: echo WORDS (prints WORDS), sleep N (N seconds, or
//     N with a suffix s, m, h or d, several summed, "infinity" for ever),
//     exit N, true, false or ":"; env and printenv [NAME...] (the
//     environment the kubelet handed it, Input.Env; under sh also SHLVL
//     and PWD); cat FILE... (prints the files), ls [-1aA] [PATH...] (one
//     name a line, sorted); hexdump -C FILE... (bytes in hex and ASCII,
//     sixteen a line); touch FILE..., rm [-f] FILE... and mv [-fv] SRC...
//     DST, which make, remove and move files; test (or [) -e/-f/-d/-s FILE; and agnhost
//     mounttest with --fs_type, --new_file_0644 (0666, 0660, 0777),
//     --file_mode, --file_perm, --file_owner, --file_content=PATH and
//     --file_content_in_loop=PATH (with --retry_time=SECONDS and
//     --break_on_expected_content), printed as agnhost prints them; agnhost
//     entrypoint-tester, etc-hosts and pause (agnhost.go); id [-u|-g|-G]
//     [-n] and whoami (Input.User, named by the image's /etc/passwd);
//     ip link add (refused without CAP_NET_ADMIN); sysctl [-n] NAME...
//     (Input.Sysctls, else a safe sysctl's kernel default: SafeSysctls);
//     test's comparisons (-eq,
//     =, ...); and nonewprivs' nnp. The files are the container's
//     simulated filesystem: its mounted volumes (Input.FS) and the files
//     its commands made. A path ("/bin/echo") counts by its last element;
//   - sh [-x] -c SCRIPT (also bash, ash, and their /bin paths; -x traces
//     each command run, "+ " and its words, on stderr), where SCRIPT
//     is simple commands joined by ";", newlines, "&&" and "||", with the
//     shell's quoting ('single', "double", backslash), # comments, and
//     $NAME and ${NAME} replaced by the variable's value (split into words
//     at blanks outside double quotes), $(COMMAND) by what it prints, $?
//     by the last status, and NAME=VALUE words before a
//     command setting its environment (not the shell's: $NAME in the same
//     script does not see them), NAME=VALUE alone setting a shell variable
//     (outside if statements), and "> FILE" or ">> FILE" after a
//     command sending what it prints to the file, "|" piping it into the
//     next (which cat, wc -l/-w/-c and awk '{print $N, ...}' read); if
//     LIST; then LIST; [else LIST;] fi, nested or not, with test's [ ] and
//     [[ ]] (and -r, -w, -x); and while true; do ...; done of echo and
//     sleep N commands, which runs for ever, printing its body's lines
//     pass after pass (Run.Line). On a read-only root
//     filesystem (Input.ReadOnlyRoot) only writable volumes take files:
//     elsewhere touch and "> FILE" fail with "Read-only file system".
//
// Anything else — no command at all (the image's own command runs), a
// command or option the grammar does not know, or a script it cannot
// parse (other redirections, special parameters but $?, ${A:-b},
// nested or arithmetic substitutions, globs, other loops, elif) —
// is not an error: the container runs until it is stopped, as a server
// does, and its log says why.

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
	// Files are the changes its command makes to its files (touch, rm,
	// redirects, mounttest's new files), in order; an exec probe reads them
	// (Exec), and the kubelet carries those in a shared volume into it.
	Files []FileChange
	// in is what the kubelet handed the run, which its exec probes see.
	in Input
	// unknown is the command the grammar does not know that made the run
	// Forever, or "".
	unknown string
	// Loop, when set, says the run is Forever in a loop that prints:
	// Output[Loop.From:] is its first pass, repeated every Loop.Period
	// (Line reads them).
	Loop *Loop
	// Why says, when the run is Forever because the simulator does not
	// know what the command does, why it runs until stopped: the kubelet
	// writes it in the container's log. "" for a command the grammar
	// understands (sleep infinity).
	Why string
}

// Loop is the printing loop a Forever run ends in (while true; do echo
// polo; sleep 2; done).
type Loop struct {
	From   int           // the index in Output of the first pass's first line
	Period time.Duration // how long one pass takes, > 0
}

// Line is the run's i-th line, counting a loop's passes after Output;
// false when it prints no more.
func (r *Run) Line(i int) (Line, bool) {
	if i < len(r.Output) {
		return r.Output[i], true
	}
	if r.Loop == nil || r.Loop.From >= len(r.Output) {
		return Line{}, false
	}
	n := len(r.Output) - r.Loop.From
	k := i - r.Loop.From
	l := r.Output[r.Loop.From+k%n]
	l.At += time.Duration(k/n) * r.Loop.Period
	return l, true
}

// FileChange is a file made or written (Exists) or removed At an offset
// from the start of a run. The kubelet carries the changes to a volume
// shared with other containers or pods into the volume, on the clock.
type FileChange struct {
	At     time.Duration
	Path   string
	Exists bool
	// File is the file as the change leaves it, when it Exists.
	File File
}

// FilesAt returns the files the run has made (true) or removed (false) d
// into it, by path.
func (r *Run) FilesAt(d time.Duration) map[string]bool {
	files := map[string]bool{}
	for _, c := range r.Files {
		if c.At > d {
			break
		}
		files[c.Path] = c.Exists
	}
	return files
}

// Overlay is r with changes that commands exec'd into the container made
// to its own files, each At its offset into the run (in time order): they
// join the run's own changes in time order (the run's first at one time),
// and the files they wrote join those it was handed. The kubelet keeps
// them for the run, as a container's writable layer keeps them until it
// restarts; its probes, its server and later execs see them.
func (r Run) Overlay(changes []FileChange) Run {
	if len(changes) == 0 {
		return r
	}
	files := make([]FileChange, 0, len(r.Files)+len(changes))
	i := 0
	for _, ch := range changes {
		for ; i < len(r.Files) && r.Files[i].At <= ch.At; i++ {
			files = append(files, r.Files[i])
		}
		files = append(files, ch)
	}
	r.Files = append(files, r.Files[i:]...)
	fs := make(FS, len(r.in.FS)+len(changes))
	maps.Copy(fs, r.in.FS)
	for _, ch := range changes {
		if ch.Exists {
			fs.Put(ch.Path, ch.File)
		}
	}
	r.in.FS = fs
	return r
}

// FSAt is the container's files d into the run r: those it was handed and
// those made by then, less those removed by then. A file's content is the
// last the run (and the execs overlaid) gave it, and a file first made
// after d with content shows already: the run keeps one filesystem, not
// one per moment (what a probe asks of it turns on which files exist).
func (r *Run) FSAt(d time.Duration) FS {
	fs := make(FS, len(r.in.FS))
	maps.Copy(fs, r.in.FS)
	for p, made := range r.FilesAt(d) {
		if _, ok := fs[p]; made && !ok {
			fs.Put(p, File{Mode: 0o644})
		} else if !made {
			delete(fs, p)
		}
	}
	return fs
}

// ProgramAt is the program the container running r runs (NewProgram, with
// image, command and args) as its servers see it d into the run: over its
// files as they are then (FSAt).
func (r *Run) ProgramAt(image string, command, args []string, d time.Duration) Program {
	in := r.in
	in.FS = r.FSAt(d)
	return NewProgram(image, command, args, in)
}

// Line is one line a run prints, At its offset from the start of the run.
type Line struct {
	At   time.Duration
	Text string
	// Reads, when set, says the line is agnhost's report of reading the
	// file at this path At then (mounttest --file_content_in_loop): Text is
	// the report from the files the run started with, and ReadReport gives
	// it from the files as they are when the line is printed, which the
	// kubelet may have updated meanwhile.
	Reads string
}

// maxRun is the longest run the simulator times: a longer one runs until
// stopped (sleep 1e9 is for ever in practice, and sums must not overflow).
const maxRun = 100 * 365 * 24 * time.Hour

// Plan returns what a run of a container with command and args does,
// with an empty environment and filesystem.
func Plan(command, args []string) Run { return PlanIn(command, args, Input{}) }

// PlanIn returns what a run of a container with command and args does when
// the kubelet hands it in (its environment and volumes). The command and
// args are taken as the kubelet hands them to the runtime, their $(VAR)
// references already expanded (package podenv).
func PlanIn(command, args []string, in Input) Run {
	argv := make([]string, 0, len(command)+len(args))
	argv = append(append(argv, command...), args...)
	if len(argv) == 0 {
		return Run{Forever: true, Why: "no command given: the image's own command runs until the container is stopped, as a server does (no process runs in miniplane, so it prints nothing)", in: in}
	}
	sh := newShell(in, map[string]bool{})
	if script, trace, ok := shellScript(argv); ok {
		sh.name, sh.script, sh.trace = argv[0], true, trace
		return sh.runScript(script)
	}
	return sh.execute([]simple{{argv: argv}})
}

// runScript runs an sh -c script: parsed a part at a time (parseScript
// stops after a variable assignment, so that what follows is expanded
// with the variable set), each part run as it is parsed.
func (sh *shell) runScript(script string) Run {
	var status int32
	for rest := script; ; {
		list, after, err := parseScript(rest, sh.lookup, sh.substitute)
		if err != nil {
			sh.parseErr = err
			return sh.forever(fmt.Sprintf("cannot simulate the script %q: %v; it runs until the container is stopped", script, err))
		}
		var ended *Run
		if status, ended = sh.run(list, status); ended != nil {
			return *ended
		}
		if after == "" {
			return sh.end(status)
		}
		rest = after
	}
}

// Exec runs argv, as an exec probe runs it d into the run r (in the files
// as they are then: FilesAt), and returns its exit code and what it
// printed. A command the grammar does not know, or that does not end by
// itself, counts as passing: as with Plan, what the simulator cannot run is
// taken to do what it is there for.
func (r *Run) Exec(argv []string, d time.Duration) (code int32, output string) {
	return execIn(argv, r.FilesAt(d), r.in)
}

// ExecuteWith is Execute with the container's shared volumes as the
// kubelet holds them now, every container's writes in: under each mount
// point of at, the files of fs (the container's filesystem as package
// podenv's Mount gives it from the kubelet's volumes) replace those the
// run was handed and the changes the run made there itself. The kubelet's
// exec (pods/exec) runs commands so; what the run did elsewhere (its own
// root filesystem) stays as Execute sees it.
func (r *Run) ExecuteWith(argv []string, d time.Duration, fs FS, at []string) ExecResult {
	files, in := r.inWith(d, fs, at)
	return ExecuteIn(argv, files, in)
}

// ProgramWith is ProgramAt with the container's shared volumes as the
// kubelet holds them now (fs under each mount point of at, as ExecuteWith
// takes them): the program as its server answers a request sent now.
func (r *Run) ProgramWith(image string, command, args []string, d time.Duration, fs FS, at []string) Program {
	files, in := r.inWith(d, fs, at)
	run := Run{Files: make([]FileChange, 0, len(files)), in: in}
	for _, p := range slices.Sorted(maps.Keys(files)) {
		run.Files = append(run.Files, FileChange{Path: p, Exists: files[p]})
	}
	return run.ProgramAt(image, command, args, 0)
}

// inWith is what a command run d into r sees, with fs under the mount
// points of at (ExecuteWith): the files made or removed by then, over its
// filesystem.
func (r *Run) inWith(d time.Duration, fs FS, at []string) (map[string]bool, Input) {
	under := func(p string) bool {
		return slices.ContainsFunc(at, func(m string) bool {
			m = path.Clean("/" + m)
			return p == m || m == "/" || strings.HasPrefix(p, m+"/")
		})
	}
	files := r.FilesAt(d)
	for p := range files {
		if under(p) {
			delete(files, p)
		}
	}
	in := r.in
	in.FS = make(FS, len(r.in.FS)+len(fs))
	for p, f := range r.in.FS {
		if !under(p) {
			in.FS[p] = f
		}
	}
	for p, f := range fs {
		if under(p) {
			in.FS.Put(p, f)
		}
	}
	return files, in
}

func execIn(argv []string, files map[string]bool, in Input) (code int32, output string) {
	r, _, _, err := runArgv(argv, files, in)
	if err != nil {
		return 0, ""
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

// runArgv runs argv over files (made or removed over in.FS, copied first),
// a script of sh -c parsed first, and returns the run and what it printed
// as it printed it (the run's lines, a last line without its newline
// kept so), and the trace of sh -x on its stderr; the error is a script
// the grammar cannot parse.
func runArgv(argv []string, files map[string]bool, in Input) (r Run, printed, traced string, err error) {
	if len(argv) == 0 {
		return Run{in: in}, "", "", nil
	}
	fs := make(map[string]bool, len(files))
	for k, v := range files {
		fs[k] = v
	}
	sh := newShell(in, fs)
	sh.raw, sh.stderr = &strings.Builder{}, &strings.Builder{}
	if script, trace, ok := shellScript(argv); ok {
		sh.name, sh.script, sh.trace = argv[0], true, trace
		r = sh.runScript(script)
		if sh.parseErr != nil {
			return Run{}, "", "", sh.parseErr
		}
		return r, sh.raw.String(), sh.stderr.String(), nil
	}
	r = sh.execute([]simple{{argv: argv}})
	return r, sh.raw.String(), "", nil
}

// shellScript returns the script of argv when it is a shell's -c SCRIPT,
// and whether -x (before -c) asks the shell to trace the commands it runs.
func shellScript(argv []string) (script string, trace, ok bool) {
	if len(argv) < 3 || !isShell(argv[0]) {
		return "", false, false
	}
	for i := 1; i < len(argv)-1; i++ {
		switch argv[i] {
		case "-x":
			trace = true
		case "-c":
			return argv[i+1], trace, true
		default:
			return "", false, false
		}
	}
	return "", false, false
}

// ExecResult is what a command that `kubectl exec` runs in a container
// answers: what it wrote on its stdout and stderr, and its exit code.
type ExecResult struct {
	Stdout, Stderr string
	ExitCode       int32
	// Files are the changes the command made to the container's files,
	// in order (their At is 0), for the kubelet to keep those that land
	// in a shared volume.
	Files []FileChange
}

// simulated is what the simulator adds to a shell's error for a command
// it does not run, so that nobody takes it for a missing binary.
const simulated = "miniplane's containers are simulated: exec runs a command through the simulated kubelet's command grammar (echo, cat, ls, env, test, touch, rm, mv, id, sysctl, wc, awk, sh -c with ;, &&, ||, | and if), which does not know this one"

// Execute runs argv as `kubectl exec` runs it in the container d into the
// run r, over its files as they are then (FilesAt), and returns what it
// answers. What the grammar cannot run answers as a shell would, with the
// simulator's word on stderr: a command it does not know exits 127 ("not
// found"), a script it cannot parse 126. A command that does not end by
// itself (sleep infinity) answers at once with what it printed and 0:
// nothing waits in a simulated container. Unlike Exec (the probes'), no
// command passes by default.
func (r *Run) Execute(argv []string, d time.Duration) ExecResult {
	return ExecuteIn(argv, r.FilesAt(d), r.in)
}

// ExecuteIn is Execute in a container handed in whose commands have made
// or removed files (by path; nil for none), for a container the kubelet
// keeps no run of.
func ExecuteIn(argv []string, files map[string]bool, in Input) ExecResult {
	r, printed, traced, err := runArgv(argv, files, in)
	if err != nil {
		return ExecResult{Stderr: fmt.Sprintf("%s: cannot run the script: %v (%s)\n", path.Base(argv[0]), err, simulated), ExitCode: 126}
	}
	res := ExecResult{Stdout: printed, Stderr: traced, ExitCode: r.ExitCode, Files: r.Files}
	for i := range res.Files {
		res.Files[i].At = 0
	}
	if r.unknown != "" {
		shell := "sh"
		if isShell(argv[0]) {
			shell = path.Base(argv[0])
		}
		res.Stderr += fmt.Sprintf("%s: %s: not found (%s)\n", shell, r.unknown, simulated)
		res.ExitCode = 127
	}
	return res
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
	op     string
	argv   []string
	assign []EnvVar // NAME=VALUE words before it: its environment's, not the shell's
	// redirect is the file its output goes to (> FILE), appended to with
	// appendTo (>> FILE); "" for the log.
	redirect string
	appendTo bool
	// kw, when set, makes this no command but a keyword of an if
	// statement ("if", "then", "else" or "fi"); jump is where "then"
	// goes when the condition failed (past its "else", or its "fi") and
	// "else" goes when the branch before it ran (its "fi").
	kw   string
	jump int
}

// shell runs simple commands as a shell runs them, keeping what they print
// and the files they touch.
type shell struct {
	in Input
	// files are the files the commands made (true) or removed (false),
	// over in.FS.
	files  map[string]bool
	script bool   // run by sh -c: the shell's own variables are in env
	name   string // the shell's argv[0], which its errors start with
	// assign are the variables the running command's NAME=VALUE words
	// set in its environment, and argv its words.
	assign []EnvVar
	argv   []string
	r      Run
	at     time.Duration
	// partial is printed text not yet ended by a newline.
	partial strings.Builder
	// capture, when set, takes what the running command prints instead
	// of the log: its output is redirected to a file, or piped.
	capture *strings.Builder
	// stdin is what the running command reads: the output of the command
	// piped into it; nil when none is.
	stdin *string
	// vars are the shell's variables its script assigned (NAME=VALUE
	// alone), which its $NAME expansions see before the environment's.
	vars map[string]string
	// parseErr is why runScript could not parse the script, if it could
	// not.
	parseErr error
	// raw, when set, keeps what goes to the log as printed, for exec.
	raw *strings.Builder
	// trace says the shell runs with -x: it prints each command it runs,
	// "+ " and its words, on its stderr (stderr when set, else the log).
	trace  bool
	stderr *strings.Builder
}

func newShell(in Input, files map[string]bool) *shell {
	return &shell{in: in, files: files, vars: map[string]string{}}
}

// lookup is a variable's value for the script's $NAME: the container's
// environment, and what sh sets itself.
func (sh *shell) lookup(name string) (string, bool) {
	if v, ok := sh.vars[name]; ok {
		return v, true
	}
	if v, ok := sh.in.lookup(name); ok {
		return v, true
	}
	for _, v := range shellVars {
		if v.Name == name {
			return v.Value, true
		}
	}
	return "", false
}

// substitute runs script as $(script) runs it, in a subshell over the
// files as they are, and returns what it printed without its trailing
// newlines. A script that takes time or does not end is not simulated.
func (sh *shell) substitute(script string) (string, error) {
	files := make(map[string]bool, len(sh.files))
	for k, v := range sh.files {
		files[k] = v
	}
	sub := newShell(sh.in, files)
	sub.name, sub.script = sh.name, true
	for k, v := range sh.vars {
		sub.vars[k] = v
	}
	r := sub.runScript(script)
	if r.Forever && r.Why != "" {
		return "", errors.New(r.Why)
	}
	if r.Forever || r.Duration > 0 {
		return "", fmt.Errorf("$(%s) takes time, which a substitution is not simulated to", script)
	}
	for _, ch := range r.Files { // the subshell's files are the shell's
		if ch.Exists {
			sh.write(ch.Path, ch.File)
		} else {
			sh.remove(ch.Path)
		}
	}
	texts := make([]string, len(r.Output))
	for i, l := range r.Output {
		texts[i] = l.Text
	}
	return strings.TrimRight(strings.Join(texts, "\n"), "\n"), nil
}

// print writes text to the run's output: each newline ends a line, at the
// current time; text after the last one waits for the next newline (or the
// end of the run).
func (sh *shell) print(text string) {
	if sh.capture != nil {
		sh.capture.WriteString(text)
		return
	}
	if sh.raw != nil {
		sh.raw.WriteString(text)
	}
	for {
		i := strings.IndexByte(text, '\n')
		if i < 0 {
			sh.partial.WriteString(text)
			return
		}
		sh.partial.WriteString(text[:i])
		sh.r.Output = append(sh.r.Output, Line{At: sh.at, Text: sh.partial.String()})
		sh.partial.Reset()
		text = text[i+1:]
	}
}

// flush ends the output's last line, if text waits.
func (sh *shell) flush() {
	if sh.partial.Len() > 0 { // the line ends in the log, not in what was printed
		sh.r.Output = append(sh.r.Output, Line{At: sh.at, Text: sh.partial.String()})
		sh.partial.Reset()
	}
}

// exists reports whether the file p is there: made by a command, or
// mounted and not removed.
func (sh *shell) exists(p string) (File, bool) {
	if made, ok := sh.files[p]; ok {
		if !made {
			return File{}, false
		}
		if f, ok := sh.in.FS[p]; ok {
			return f, true
		}
		return File{Mode: 0o644}, true
	}
	return sh.in.FS.Lookup(p)
}

// end ends the run with status.
func (sh *shell) end(status int32) Run {
	sh.flush()
	sh.r.Duration, sh.r.ExitCode = sh.at, status
	sh.r.in = sh.in
	return sh.r
}

// forever ends the run as one that does not end by itself.
func (sh *shell) forever(why string) Run {
	sh.flush()
	return Run{Output: sh.r.Output, Files: sh.r.Files, Forever: true, Why: why, in: sh.in, unknown: sh.r.unknown}
}

// execute runs a list of simple commands as a shell runs them: a command
// after && runs only if the status so far is 0, after || only if it is
// not, after ; always; exit ends the list.
func (sh *shell) execute(list []simple) Run {
	status, ended := sh.run(list, 0)
	if ended != nil {
		return *ended
	}
	return sh.end(status)
}

// run runs list as execute does, the status so far being status, and
// returns the status after it; or the run, when the list ended it (exit,
// or a command that does not end). A command piped into the next (|)
// hands it what it prints as its input; the pipeline's status is its last
// command's. NAME=VALUE alone sets a shell variable. while true; do sleep
// N; done sleeps for ever.
func (sh *shell) run(list []simple, status int32) (int32, *Run) {
	var piped *string // what the command before printed into a pipe
	for i := 0; i < len(list); i++ {
		s := list[i]
		switch s.kw {
		case "then":
			if status != 0 {
				i, status = s.jump-1, 0 // an if without a branch taken is 0
			}
			continue
		case "else":
			i = s.jump - 1
			continue
		case "if", "fi", "do", "done":
			continue
		case "while": // only while true; do ...; done of echo and sleep parses
			return sh.loop(list[i+3:])
		}
		if i > 0 && (s.op == "&&" && status != 0 || s.op == "||" && status == 0) {
			continue // skipped: the status stays
		}
		s = withStatus(s, status)
		if sh.trace {
			sh.traceCommand(s)
		}
		if len(s.argv) == 0 { // NAME=VALUE alone
			for _, a := range s.assign {
				sh.vars[a.Name] = a.Value
			}
			status = 0
			continue
		}
		sh.stdin, piped = piped, nil
		if s.op != "|" {
			sh.stdin = nil
		}
		intoPipe := i+1 < len(list) && list[i+1].op == "|" && s.redirect == ""
		name, args := path.Base(s.argv[0]), s.argv[1:]
		switch name {
		case "sleep":
			d, err := sleepFor(args)
			switch {
			case err != nil:
				sh.print("sleep: " + err.Error() + "\n")
				status = 1
			case d < 0 || d > maxRun-sh.at:
				r := sh.forever("")
				return 0, &r
			default:
				sh.at += d
				status = 0
			}
		case "exit":
			if len(args) > 0 {
				n, err := strconv.ParseInt(args[0], 10, 64)
				if err != nil {
					sh.print("exit: " + args[0] + ": numeric argument required\n")
					n = 2
				}
				status = int32(n & 0xff)
			}
			r := sh.end(status)
			return status, &r
		default:
			if s.redirect != "" && !sh.in.writable(resolve(s.redirect)) {
				sh.print(sh.name + ": can't create " + s.redirect + ": Read-only file system\n")
				status = 1
				continue
			}
			if isAgnhost(name) && len(args) > 0 && args[0] == "pause" {
				sh.print("Paused\n") // then waits for a signal
				r := sh.forever("")
				return 0, &r
			}
			sh.assign, sh.argv = s.assign, s.argv
			if s.redirect != "" || intoPipe {
				sh.capture = &strings.Builder{}
			}
			code, ok := sh.builtin(name, args)
			sh.assign, sh.stdin = nil, nil
			if out := sh.capture; out != nil && intoPipe {
				sh.capture = nil
				text := out.String()
				piped = &text
			} else if out != nil {
				sh.capture = nil
				p := resolve(s.redirect)
				data := out.String()
				if old, there := sh.exists(p); there && s.appendTo {
					data = old.Data + data
				}
				sh.write(p, File{Data: data, Mode: 0o644})
			}
			if !ok {
				sh.r.unknown = s.argv[0]
				r := sh.forever(fmt.Sprintf(
					"%q is not a command the simulator runs (it runs echo, sleep, exit, true, false, env, cat, ls, touch, rm, mv, test, hexdump -C, id, whoami, sysctl, wc, awk '{print $N}' and some of agnhost's, alone or joined by ;, &&, || and | in sh -c): it runs until the container is stopped",
					strings.Join(s.argv, " ")))
				return 0, &r
			}
			status = code
		}
	}
	return status, nil
}

// traceCommand prints s as sh -x traces it before running it: "+ ", its
// assignments and words.
func (sh *shell) traceCommand(s simple) {
	words := make([]string, 0, len(s.assign)+len(s.argv))
	for _, a := range s.assign {
		words = append(words, a.Name+"="+a.Value)
	}
	line := "+ " + strings.Join(append(words, s.argv...), " ") + "\n"
	if sh.stderr != nil {
		sh.stderr.WriteString(line)
		return
	}
	sh.print(line)
}

// builtin runs a command that takes no time, and reports whether it knows
// it.
func (sh *shell) builtin(name string, args []string) (status int32, ok bool) {
	switch name {
	case "echo":
		newline := true
		if len(args) > 0 && args[0] == "-n" {
			args, newline = args[1:], false
		}
		text := strings.Join(args, " ")
		if newline {
			text += "\n"
		}
		sh.print(text)
	case "true", ":":
	case "false":
		return 1, true
	case "env", "printenv":
		return sh.env(name, args), true
	case "touch":
		for _, f := range args {
			if !sh.in.writable(resolve(f)) {
				sh.print("touch: " + f + ": Read-only file system\n")
				status = 1
				continue
			}
			f = resolve(f)
			file, there := sh.exists(f)
			if !there {
				file = File{Mode: 0o644}
			}
			sh.files[f] = true
			sh.r.Files = append(sh.r.Files, FileChange{At: sh.at, Path: f, Exists: true, File: file})
		}
	case "rm":
		force := len(args) > 0 && (args[0] == "-f" || args[0] == "-rf" || args[0] == "-fr")
		if force || len(args) > 0 && args[0] == "--" {
			args = args[1:]
		}
		for _, f := range args {
			p := resolve(f)
			if _, there := sh.exists(p); !there {
				if !force {
					sh.print("rm: can't remove '" + f + "': No such file or directory\n")
					status = 1
				}
				continue
			}
			sh.remove(p)
		}
	case "mv":
		return sh.mv(args)
	case "cat":
		if len(args) == 0 && sh.stdin != nil {
			sh.print(*sh.stdin)
		}
		for _, f := range args {
			file, there := sh.exists(resolve(f))
			switch {
			case !there:
				sh.print("cat: can't open '" + f + "': No such file or directory\n")
				status = 1
			case file.IsDir():
				sh.print("cat: read error: Is a directory\n")
				status = 1
			default:
				sh.print(file.Data)
			}
		}
	case "ls":
		return sh.ls(args)
	case "hexdump":
		if len(args) == 0 || args[0] != "-C" {
			return 0, false
		}
		for _, f := range args[1:] {
			file, there := sh.exists(resolve(f))
			if !there || file.IsDir() {
				sh.print("hexdump: " + f + ": No such file or directory\n")
				status = 1
				continue
			}
			sh.print(hexdumpC(file.Data))
		}
	case "test", "[", "[[":
		if end := map[string]string{"[": "]", "[[": "]]"}[name]; end != "" && len(args) > 0 && args[len(args)-1] == end {
			args = args[:len(args)-1]
		}
		status = 1
		if len(args) == 3 && slices.Contains(binaryOps, args[1]) {
			return sh.compare(args), true
		}
		if len(args) == 2 {
			f, there := sh.exists(resolve(args[1]))
			switch args[0] {
			case "-e":
				status = boolStatus(there)
			case "-f":
				status = boolStatus(there && !f.IsDir())
			case "-d":
				status = boolStatus(there && f.IsDir())
			case "-s":
				status = boolStatus(there && len(f.Data) > 0)
			case "-r": // root reads any file; a user, one its mode lets others read
				status = boolStatus(there && (sh.in.User.UID == 0 || f.Mode&0o004 != 0))
			case "-w":
				status = boolStatus(there && sh.in.writable(resolve(args[1])) && (sh.in.User.UID == 0 || f.Mode&0o002 != 0))
			case "-x":
				status = boolStatus(there && f.Mode&0o111 != 0)
			}
		}
	case "mounttest":
		return sh.mounttest(args)
	case "agnhost", "agnhost-2":
		return sh.agnhost(args)
	case "id":
		return sh.id(args)
	case "whoami":
		return sh.whoami(), true
	case "sysctl":
		return sh.sysctl(args)
	case "wc":
		return sh.wc(args)
	case "awk":
		return sh.awk(args)
	case "ip":
		return sh.ip(args)
	case "nnp":
		// nonewprivs' setuid-root program: root's uid unless no_new_privs
		// keeps the setuid bit from taking effect.
		euid := int64(0)
		if sh.in.NoNewPrivs {
			euid = sh.in.User.UID
		}
		sh.print("Effective uid: " + strconv.FormatInt(euid, 10) + "\n")
	default:
		return 0, false
	}
	return status, true
}

func boolStatus(b bool) int32 {
	if b {
		return 0
	}
	return 1
}

// shellVars are the variables busybox sh adds to the environment of the
// commands it runs.
var shellVars = []EnvVar{{"SHLVL", "1"}, {"PWD", "/"}}

// env prints the environment (env), or the values of the variables named
// (printenv NAME...).
func (sh *shell) env(name string, args []string) int32 {
	vars := sh.in.Env
	if sh.script {
		vars = append(slices.Clip(vars), shellVars...)
	}
	for _, a := range sh.assign {
		if i := slices.IndexFunc(vars, func(v EnvVar) bool { return v.Name == a.Name }); i >= 0 {
			vars = slices.Clone(vars)
			vars[i] = a
		} else {
			vars = append(slices.Clip(vars), a)
		}
	}
	if name == "printenv" && len(args) > 0 {
		var status int32
		for _, a := range args {
			v, ok := lookupIn(vars, a)
			if !ok {
				status = 1
				continue
			}
			sh.print(v + "\n")
		}
		return status
	}
	for _, v := range vars {
		sh.print(v.Name + "=" + v.Value + "\n")
	}
	return 0
}

func lookupIn(vars []EnvVar, name string) (string, bool) {
	for i := len(vars) - 1; i >= 0; i-- {
		if vars[i].Name == name {
			return vars[i].Value, true
		}
	}
	return "", false
}

// ls lists directories (one name a line, sorted, as busybox ls prints when
// its output is not a terminal) and names files; with several operands,
// each directory's list follows a "DIR:" header. -1, -a and -A are taken
// (the kubelet's hidden ..data entries are not simulated); other options
// are not, and the command then counts as unknown.
func (sh *shell) ls(args []string) (int32, bool) {
	var operands []string
	for _, a := range args {
		if strings.HasPrefix(a, "-") && len(a) > 1 {
			if strings.Trim(a[1:], "1aA") != "" {
				return 0, false
			}
			continue
		}
		operands = append(operands, a)
	}
	if len(operands) == 0 {
		operands = []string{"."}
	}
	var status int32
	var files, dirs []string
	for _, op := range operands {
		f, there := sh.exists(resolve(op))
		switch {
		case !there:
			sh.print("ls: " + op + ": No such file or directory\n")
			status = 1
		case f.IsDir():
			dirs = append(dirs, op)
		default:
			files = append(files, op)
		}
	}
	slices.Sort(files)
	slices.Sort(dirs)
	for _, f := range files {
		sh.print(f + "\n")
	}
	for i, d := range dirs {
		if len(operands) > 1 {
			if i > 0 || len(files) > 0 {
				sh.print("\n")
			}
			sh.print(d + ":\n")
		}
		for _, name := range sh.list(resolve(d)) {
			sh.print(name + "\n")
		}
	}
	return status, true
}

// list is the entries of directory dir: mounted and made ones, less the
// removed ones.
func (sh *shell) list(dir string) []string {
	names := sh.in.FS.List(dir)
	for p, made := range sh.files {
		if path.Dir(p) != dir || p == "/" {
			continue
		}
		name := path.Base(p)
		i, found := slices.BinarySearch(names, name)
		switch {
		case made && !found:
			names = slices.Insert(names, i, name)
		case !made && found:
			names = slices.Delete(names, i, i+1)
		}
	}
	return names
}

// mounttest is agnhost's mounttest, which Kubernetes' volume conformance
// tests run: --fs_type, --new_file_0644 (0666, 0660, 0777), --file_mode,
// --file_perm, --file_owner, --file_content and --file_content_in_loop,
// done in that order, printed as agnhost prints them.
func (sh *shell) mounttest(args []string) (int32, bool) {
	flags := map[string]string{"retry_time": "180", "break_on_expected_content": "true"}
	for _, a := range args {
		k, v, ok := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") {
			return 0, false
		}
		switch {
		case !ok && k == "break_on_expected_content":
			v = "true" // a bool flag alone is true
		case !ok:
			return 0, false
		}
		switch k {
		case "fs_type", "new_file_0644", "new_file_0666", "new_file_0660", "new_file_0777", "file_mode", "file_perm", "file_owner", "file_content",
			"file_content_in_loop", "retry_time", "break_on_expected_content":
			flags[k] = v
		default:
			return 0, false
		}
	}
	retry, err := strconv.Atoi(flags["retry_time"])
	breakOnExpected, errB := strconv.ParseBool(flags["break_on_expected_content"])
	if err != nil || errB != nil {
		return 0, false // cobra refuses the flag: not simulated
	}
	var status int32
	stat := func(p string) (File, bool) {
		f, ok := sh.exists(resolve(p))
		if !ok {
			sh.print(fmt.Sprintf("error from Stat(%q): stat %s: no such file or directory\n", p, p))
			status = 1
		}
		return f, ok
	}
	content := func(p string) {
		f, ok := sh.exists(resolve(p))
		if !ok {
			sh.print(fmt.Sprintf("error reading file content for %q: open %s: no such file or directory\n", p, p))
			status = 1
			return
		}
		sh.print(fmt.Sprintf("content of file %q: %v\n", p, f.Data))
	}
	if p := flags["fs_type"]; p != "" {
		if f, ok := stat(p); ok {
			if f.Tmpfs {
				sh.print(fmt.Sprintf("mount type of %q: tmpfs\n", p))
			} else {
				sh.print(fmt.Sprintf("mount type of %q: %v\n", p, ext4Magic))
			}
		}
	}
	for _, perm := range []string{"0644", "0666", "0660", "0777"} {
		if p := flags["new_file_"+perm]; p != "" {
			mode, _ := strconv.ParseUint(perm, 8, 32)
			sh.write(resolve(p), File{Data: mountTestContent, Mode: iofs.FileMode(mode)})
			content(p)
		}
	}
	if p := flags["file_mode"]; p != "" {
		if f, ok := stat(p); ok {
			sh.print(fmt.Sprintf("mode of file %q: %v\n", p, f.Mode))
		}
	}
	if p := flags["file_perm"]; p != "" {
		if f, ok := stat(p); ok {
			sh.print(fmt.Sprintf("perms of file %q: %v\n", p, f.Mode.Perm()))
		}
	}
	if p := flags["file_owner"]; p != "" {
		if _, ok := stat(p); ok {
			sh.print(fmt.Sprintf("owner UID of %q: 0\nowner GID of %q: 0\n", p, p))
		}
	}
	if p := flags["file_content"]; p != "" {
		content(p)
	}
	if p := flags["file_content_in_loop"]; p != "" {
		status = sh.readLoop(p, time.Duration(retry)*time.Second, breakOnExpected)
	}
	return status, true
}

// readLoop is mounttest's --file_content_in_loop: it reads the file at p
// every two seconds for retry, reporting each read, and returns 1 when the
// last read failed. With breakOnExpected it stops at the first read of
// mountTestContent; it then takes the files as they are when the run
// starts. Without, the reads carry their path (Line.Reads) so that what
// they print can follow the files. Kubernetes: agnhost's testFileContent.
func (sh *shell) readLoop(p string, retry time.Duration, breakOnExpected bool) int32 {
	const every = 2 * time.Second
	sh.flush()
	var status int32
	for start := sh.at; sh.at-start < retry; sh.at += every {
		f, ok := sh.exists(resolve(p))
		status = boolStatus(ok)
		if !breakOnExpected {
			sh.r.Output = append(sh.r.Output, Line{At: sh.at, Text: ReadReport(p, f, ok), Reads: p})
			continue
		}
		sh.print(ReadReport(p, f, ok) + "\n")
		if ok && f.Data == mountTestContent {
			break
		}
		if ok {
			sh.print("Unexpected content. Expected: " + mountTestContent + ". Retrying\n")
		}
	}
	return status
}

// ReadReport is what agnhost's read loop prints of the file at p (f, if
// it is there): its content, or the error, without the newline agnhost
// ends it with. A content of several lines (or ending in a newline) makes
// several.
func ReadReport(p string, f File, there bool) string {
	switch {
	case !there:
		return fmt.Sprintf("Error reading file %s: open %s: no such file or directory, retrying", p, p)
	case f.IsDir():
		return fmt.Sprintf("Error reading file %s: read %s: is a directory, retrying", p, p)
	}
	return fmt.Sprintf("content of file %q: %v", p, f.Data)
}

// hexdumpC is data as hexdump -C prints it: each line the offset, sixteen
// bytes in hex (a gap after the eighth) and as ASCII ('.' for what is not
// printable); a line equal to the one before is "*", once; last, the
// length.
func hexdumpC(data string) string {
	var b strings.Builder
	prev, starred := "", false
	for off := 0; off < len(data); off += 16 {
		chunk := data[off:min(off+16, len(data))]
		if chunk == prev && len(chunk) == 16 {
			if !starred {
				b.WriteString("*\n")
				starred = true
			}
			continue
		}
		prev, starred = chunk, false
		fmt.Fprintf(&b, "%08x  ", off)
		for i := 0; i < 16; i++ {
			if i < len(chunk) {
				fmt.Fprintf(&b, "%02x ", chunk[i])
			} else {
				b.WriteString("   ")
			}
			if i == 7 {
				b.WriteByte(' ')
			}
		}
		b.WriteString(" |")
		for i := 0; i < len(chunk); i++ {
			if c := chunk[i]; c >= 0x20 && c < 0x7f {
				b.WriteByte(c)
			} else {
				b.WriteByte('.')
			}
		}
		b.WriteString("|\n")
	}
	fmt.Fprintf(&b, "%08x\n", len(data))
	return b.String()
}

// write makes the file at the clean absolute path p: in a copy of the
// filesystem the run was handed (shared, never changed), and among the
// files the run made.
func (sh *shell) write(p string, f File) {
	fs := make(FS, len(sh.in.FS)+1)
	for k, v := range sh.in.FS {
		fs[k] = v
	}
	fs.Put(p, f)
	sh.in.FS = fs
	sh.files[p] = true
	sh.r.Files = append(sh.r.Files, FileChange{At: sh.at, Path: p, Exists: true, File: f})
}

// remove removes the file at the clean absolute path p.
func (sh *shell) remove(p string) {
	sh.files[p] = false
	sh.r.Files = append(sh.r.Files, FileChange{At: sh.at, Path: p})
}

// mv moves files as busybox mv does: mv [-fv] SRC DST renames SRC to
// DST, or into DST when DST is a directory (as it must be for several
// sources); -v prints "'SRC' -> 'DEST'" for each file moved. A directory
// as a source is not simulated (the command counts as unknown).
func (sh *shell) mv(args []string) (int32, bool) {
	verbose := false
	for len(args) > 0 && strings.HasPrefix(args[0], "-") && len(args[0]) > 1 {
		if args[0] == "--" {
			args = args[1:]
			break
		}
		if strings.Trim(args[0][1:], "fv") != "" {
			return 0, false
		}
		verbose = verbose || strings.Contains(args[0], "v")
		args = args[1:]
	}
	if len(args) < 2 {
		sh.print("mv: missing operand\n")
		return 1, true
	}
	srcs, dst := args[:len(args)-1], args[len(args)-1]
	for _, src := range srcs {
		if f, ok := sh.exists(resolve(src)); ok && f.IsDir() {
			return 0, false
		}
	}
	d, there := sh.exists(resolve(dst))
	into := there && d.IsDir()
	if len(srcs) > 1 && !into {
		sh.print("mv: '" + dst + "' is not a directory\n")
		return 1, true
	}
	var status int32
	for _, src := range srcs {
		dest := dst
		if into { // busybox's concat_path_file
			dest = strings.TrimSuffix(dst, "/") + "/" + path.Base(resolve(src))
		}
		from, to := resolve(src), resolve(dest)
		f, ok := sh.exists(from)
		parent, dirThere := sh.exists(path.Dir(to))
		switch {
		case !ok:
			sh.print("mv: can't rename '" + src + "': No such file or directory\n")
		case !into && strings.HasSuffix(dst, "/"):
			sh.print("mv: can't rename '" + src + "': Not a directory\n")
		case !dirThere || !parent.IsDir():
			sh.print("mv: can't rename '" + src + "': No such file or directory\n")
		case !sh.in.writable(from) || !sh.in.writable(to):
			sh.print("mv: can't rename '" + src + "': Read-only file system\n")
		default:
			if from != to {
				sh.remove(from)
				sh.write(to, f)
			}
			if verbose {
				sh.print("'" + src + "' -> '" + dest + "'\n")
			}
			continue
		}
		status = 1
	}
	return status, true
}

// FileAtEnd returns the content of the file at p when the run ends: one
// it was handed or made, unless it removed it. The kubelet reads a
// container's termination message file so.
func (r *Run) FileAtEnd(p string) (string, bool) {
	p = resolve(p)
	for i := len(r.Files) - 1; i >= 0; i-- {
		if r.Files[i].Path == p {
			if !r.Files[i].Exists {
				return "", false
			}
			break
		}
	}
	f, ok := r.in.FS.Lookup(p)
	if !ok || f.IsDir() {
		return "", false
	}
	return f.Data, true
}

// mountTestContent is what agnhost mounttest writes in a new file.
const mountTestContent = "mount-tester new file\n"

// ext4Magic is the filesystem type agnhost prints for a volume not on a
// tmpfs (the node's disk, as statfs reports ext4).
const ext4Magic = 61267

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
// why it cannot. $NAME and ${NAME} are replaced by lookup's value (empty
// when unset); unquoted, the value is split into words at blanks. It stops
// after a variable assignment alone outside if and while statements, and
// returns the rest of the script, to be parsed once the assignment has
// run.
func parseScript(s string, lookup func(string) (string, bool), subst func(string) (string, error)) (list []simple, rest string, err error) {
	list, rest, err = parseScriptPart(s, lookup, subst)
	if err == nil {
		err = linkIfs(list)
	}
	return list, rest, err
}

func parseScriptPart(s string, lookup func(string) (string, bool), subst func(string) (string, error)) ([]simple, string, error) {
	var (
		list  []simple
		depth int  // if and while statements open
		stop  bool // an assignment alone ended the part
		// start is where the command being read starts, after a ";" or
		// a newline at depth 0; -1 elsewhere.
		start   = 0
		words   []string
		word    strings.Builder
		inWord  bool
		op      string
		pending bool // an operator was read and wants a command after it
		// redirect is the command's > or >> target; redirecting says the
		// next word is it.
		redirect    string
		appendTo    bool
		redirecting bool
	)
	endWord := func() {
		if inWord {
			if redirecting {
				redirect, redirecting = word.String(), false
			} else {
				words = append(words, word.String())
			}
			word.Reset()
			inWord = false
		}
	}
	endCommand := func(next string) error {
		endWord()
		if redirecting {
			return fmt.Errorf("syntax error: no file after %q", ">")
		}
		if len(words) == 0 {
			if next == ";" && !pending && op != "&&" && op != "||" && op != "|" {
				return nil // an empty line, or a trailing ;
			}
			return fmt.Errorf("syntax error near %q", next)
		}
		for len(words) > 0 && slices.Contains(keywords, words[0]) {
			switch words[0] {
			case "if", "while":
				depth++
			case "fi", "done":
				depth--
			}
			list = append(list, simple{kw: words[0]})
			words, op = words[1:], ";"
		}
		if len(words) == 0 && redirect == "" && list != nil && list[len(list)-1].kw != "" && next == ";" {
			return nil // a keyword alone on its line
		}
		var assign []EnvVar
		for len(words) > 0 {
			name, value, ok := strings.Cut(words[0], "=")
			if !ok || !isName(name) {
				break
			}
			assign, words = append(assign, EnvVar{name, value}), words[1:]
		}
		if len(words) == 0 && (depth > 0 || next != ";" || redirect != "") {
			return errors.New("variable assignments alone are simulated outside if and while statements only, ended by ; or a newline")
		}
		stop = len(words) == 0
		list = append(list, simple{op: op, argv: words, assign: assign, redirect: redirect, appendTo: appendTo})
		words, op, pending = nil, next, next == "&&" || next == "||" || next == "|"
		redirect, appendTo = "", false
		return nil
	}
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, "", errors.New("unterminated quote")
			}
			word.WriteString(s[i+1 : i+1+j])
			inWord, i = true, i+1+j
		case ch == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				switch c := s[i]; {
				case c == '$':
					v, n, err := expandAt(s[i:], lookup, subst)
					if err != nil {
						return nil, "", err
					}
					word.WriteString(v)
					i += n - 1
				case c == '`':
					return nil, "", fmt.Errorf("%q expansions are not simulated", string(c))
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
				return nil, "", errors.New("unterminated quote")
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
				return nil, "", err
			}
			if stop {
				return list, s[i+1:], nil
			}
			start = -1
			if depth == 0 {
				start = i + 1
			}
		case (ch == '&' || ch == '|') && i+1 < len(s) && s[i+1] == ch:
			if err := endCommand(s[i : i+2]); err != nil {
				return nil, "", err
			}
			i, start = i+1, -1
		case ch == '|':
			if err := endCommand("|"); err != nil {
				return nil, "", err
			}
			start = -1
		case ch == '$' && strings.HasPrefix(s[i:], "$(") && start >= 0 && len(list) > 0:
			// A substitution runs when its command does: the commands
			// before it run first.
			return list, s[start:], nil
		case ch == '$':
			v, n, err := expandAt(s[i:], lookup, subst)
			if err != nil {
				return nil, "", err
			}
			i += n - 1
			if n == 1 { // a lone $
				word.WriteByte('$')
				inWord = true
				continue
			}
			for j, field := range strings.Fields(v) {
				if j > 0 || strings.IndexByte(" \t\n", v[0]) >= 0 {
					endWord()
				}
				word.WriteString(field)
				inWord = true
			}
			if v != "" && strings.IndexByte(" \t\n", v[len(v)-1]) >= 0 {
				endWord()
			}
		case ch == '>' && !redirecting && redirect == "" && !(inWord && isDigits(word.String())):
			endWord()
			redirecting, appendTo = true, i+1 < len(s) && s[i+1] == '>'
			if appendTo {
				i++
			}
		case (ch == '[' || ch == ']') && !inWord && bracketWord(s[i:]) > 0: // test's [ ], [[ ]]
			n := bracketWord(s[i:])
			word.WriteString(s[i : i+n])
			inWord, i = true, i+n-1
		case (ch == '{' || ch == '}') && (inWord || i+1 < len(s) && strings.IndexByte(" \t\n;", s[i+1]) < 0): // in a word, not a group
			word.WriteByte(ch)
			inWord = true
		case strings.IndexByte("|&<>()`{}*?[]~!", ch) >= 0 && !(ch == '!' && strings.HasPrefix(s[i:], "!=")): // test's != is a word
			return nil, "", fmt.Errorf("%q is not simulated", string(ch))
		default:
			word.WriteByte(ch)
			inWord = true
		}
	}
	endWord()
	if len(words) > 0 || redirecting {
		if err := endCommand(";"); err != nil {
			return nil, "", err
		}
	} else if pending {
		return nil, "", fmt.Errorf("syntax error: nothing after %q", op)
	}
	return list, "", nil
}

// keywords are the shell's reserved words the grammar reads: those of if
// statements (elif is not simulated) and of while loops.
var keywords = []string{"if", "then", "else", "fi", "elif", "while", "do", "done"}

// bracketWord is the length of the word "[", "[[", "]" or "]]" at the
// start of s, followed by a blank, ";" or the end; 0 if there is none.
func bracketWord(s string) int {
	n := 1
	if len(s) > 1 && s[1] == s[0] {
		n = 2
	}
	if len(s) == n || strings.IndexByte(" \t\n;", s[n]) >= 0 {
		return n
	}
	return 0
}

// linkIfs checks the if statements of list (if COND; then LIST; [else
// LIST;] fi, nested or not) and sets where each "then" and "else" jumps.
func linkIfs(list []simple) error {
	var open []int // the "if" or "then" or "else" of each statement not closed
	for i := range list {
		switch kw := list[i].kw; kw {
		case "if":
			open = append(open, i)
		case "then", "else":
			want := map[string]string{"then": "if", "else": "then"}[kw]
			if len(open) == 0 || list[open[len(open)-1]].kw != want {
				return fmt.Errorf("syntax error: unexpected %q", kw)
			}
			if kw == "else" {
				list[open[len(open)-1]].jump = i + 1
			}
			open[len(open)-1] = i
		case "fi":
			if len(open) == 0 || list[open[len(open)-1]].kw == "if" {
				return errors.New(`syntax error: unexpected "fi"`)
			}
			list[open[len(open)-1]].jump = i // the last then or else
			open = open[:len(open)-1]
		case "elif":
			return errors.New("elif is not simulated")
		case "while":
			if !foreverLoop(list[i:]) {
				return errors.New("while loops are simulated only as while true; do sleep N; done, with echo in the body")
			}
		}
	}
	if len(open) > 0 {
		return errors.New(`syntax error: no "fi"`)
	}
	return nil
}

// foreverLoop reports whether list starts with while true (or :); do
// ...; done whose body is echo and sleep N commands, at least one N > 0:
// a loop that runs for ever, printing or not.
func foreverLoop(list []simple) bool {
	if len(list) < 4 || list[1].kw != "" || len(list[1].argv) != 1 || list[1].argv[0] != "true" && list[1].argv[0] != ":" || list[2].kw != "do" {
		return false
	}
	sleeps := false
	for _, s := range list[3:] {
		switch {
		case s.kw == "done":
			return sleeps
		case s.kw != "" || len(s.argv) == 0 || s.redirect != "" || s.op == "|" || s.op == "&&" || s.op == "||":
			return false
		case s.argv[0] == "echo":
			continue
		case s.argv[0] != "sleep" || len(s.argv) < 2:
			return false
		}
		d, err := sleepFor(s.argv[1:])
		if err != nil {
			return false
		}
		sleeps = sleeps || d > 0
	}
	return false
}

// loop runs a forever loop's body, body being what follows its do: once,
// its lines then repeated every pass (Run.Loop). A body that prints
// nothing just sleeps for ever.
func (sh *shell) loop(body []simple) (int32, *Run) {
	for i := range body {
		if body[i].kw == "done" {
			body = body[:i]
			break
		}
	}
	sh.flush()
	from, start := len(sh.r.Output), sh.at
	if _, r := sh.run(body, 0); r != nil {
		return 0, r // a sleep past the longest run timed
	}
	sh.flush()
	r := sh.forever("")
	if len(r.Output) > from {
		r.Loop = &Loop{From: from, Period: sh.at - start}
	}
	return 0, &r
}

// expandAt reads the expansion at the start of s ("$NAME", "${NAME}" or
// the command substitution "$(COMMAND)", which subst runs): its value and
// how many bytes it takes. A "$" not followed by a name is itself (one
// byte); the shell's other expansions are not simulated.
func expandAt(s string, lookup func(string) (string, bool), subst func(string) (string, error)) (value string, n int, err error) {
	if len(s) < 2 {
		return "$", 1, nil
	}
	if s[1] == '(' {
		end := strings.IndexByte(s, ')')
		if end < 0 || strings.ContainsAny(s[2:end], "()`") || strings.HasPrefix(s, "$((") {
			return "", 0, errors.New("$(( and nested substitutions are not simulated")
		}
		v, err := subst(s[2:end])
		return v, end + 1, err
	}
	isName := func(c byte, first bool) bool {
		return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || !first && '0' <= c && c <= '9'
	}
	switch c := s[1]; {
	case c == '{':
		end := strings.IndexByte(s, '}')
		if end < 0 {
			return "", 0, errors.New("unterminated ${")
		}
		name := s[2:end]
		if name == "" || !isName(name[0], true) || strings.IndexFunc(name, func(r rune) bool { return r > 127 || !isName(byte(r), false) }) >= 0 {
			return "", 0, fmt.Errorf("${%s} is not simulated", name)
		}
		v, _ := lookup(name)
		return v, end + 1, nil
	case isName(c, true):
		end := 2
		for end < len(s) && isName(s[end], false) {
			end++
		}
		v, _ := lookup(s[1:end])
		return v, end, nil
	case c == '?':
		return statusMark, 2, nil
	case c == ' ' || c == '\t' || c == '\n' || c == '"' || c == ';':
		return "$", 1, nil
	}
	return "", 0, fmt.Errorf("%q expansions are not simulated", s[:2])
}

// statusMark stands for $?, the status of the last command, in a parsed
// script: the script is expanded when it is parsed, and the status is
// known only when the command runs (withStatus).
const statusMark = "\x00?"

// withStatus is s with $? replaced by status.
func withStatus(s simple, status int32) simple {
	code := strconv.Itoa(int(status))
	replace := func(w string) string { return strings.ReplaceAll(w, statusMark, code) }
	if !strings.Contains(strings.Join(s.argv, " ")+s.redirect, statusMark) &&
		!slices.ContainsFunc(s.assign, func(v EnvVar) bool { return strings.Contains(v.Value, statusMark) }) {
		return s
	}
	argv := make([]string, len(s.argv))
	for i, w := range s.argv {
		argv[i] = replace(w)
	}
	assign := slices.Clone(s.assign)
	for i := range assign {
		assign[i].Value = replace(assign[i].Value)
	}
	s.argv, s.assign, s.redirect = argv, assign, replace(s.redirect)
	return s
}

// isDigits reports whether s is a number, as the file descriptor of a
// redirection ("2>") is, which the grammar does not take.
func isDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// isName reports whether s is a shell variable's name.
func isName(s string) bool {
	if s == "" || '0' <= s[0] && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c != '_' && !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}
