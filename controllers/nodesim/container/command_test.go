package container

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPlan(t *testing.T) {
	lines := func(ls ...Line) []Line { return ls }
	for _, tc := range []struct {
		name          string
		command, args []string
		want          Run
	}{
		{"echo", []string{"echo", "hello"}, nil, Run{Output: lines(Line{At: 0, Text: "hello"})}},
		{"echo in args", nil, []string{"echo", "hello", "world"}, Run{Output: lines(Line{At: 0, Text: "hello world"})}},
		{"path", []string{"/bin/echo"}, []string{"hi"}, Run{Output: lines(Line{At: 0, Text: "hi"})}},
		{"sleep", []string{"sleep", "30"}, nil, Run{Duration: 30 * time.Second}},
		{"sleep units", []string{"sleep", "1m", "0.5"}, nil, Run{Duration: 60500 * time.Millisecond}},
		{"sleep infinity", []string{"sleep", "infinity"}, nil, Run{Forever: true}},
		{"sleep bad", []string{"sleep", "x"}, nil, Run{Output: lines(Line{At: 0, Text: "sleep: invalid number 'x'"}), ExitCode: 1}},
		{"exit", []string{"exit", "3"}, nil, Run{ExitCode: 3}},
		{"exit wraps", []string{"exit", "300"}, nil, Run{ExitCode: 44}},
		{"true", []string{"true"}, nil, Run{}},
		{"false", []string{"false"}, nil, Run{ExitCode: 1}},
		{"sh -c", []string{"sh", "-c", "echo a; sleep 5; echo b"}, nil,
			Run{Output: lines(Line{At: 0, Text: "a"}, Line{At: 5 * time.Second, Text: "b"}), Duration: 5 * time.Second}},
		{"/bin/sh -c in args", []string{"/bin/sh"}, []string{"-c", "sleep 2 && exit 3"}, Run{Duration: 2 * time.Second, ExitCode: 3}},
		{"and skips", []string{"sh", "-c", "false && echo no"}, nil, Run{ExitCode: 1}},
		{"or runs", []string{"sh", "-c", "false || echo yes"}, nil, Run{Output: lines(Line{At: 0, Text: "yes"})}},
		{"and-or", []string{"sh", "-c", "false && echo no || echo yes"}, nil, Run{Output: lines(Line{At: 0, Text: "yes"})}},
		{"exit stops", []string{"sh", "-c", "echo a; exit 7; echo b"}, nil, Run{Output: lines(Line{At: 0, Text: "a"}), ExitCode: 7}},
		{"last status", []string{"sh", "-c", "echo a; false"}, nil, Run{Output: lines(Line{At: 0, Text: "a"}), ExitCode: 1}},
		{"quotes", []string{"sh", "-c", `echo "a  b" 'c;d' e\;f # comment`}, nil, Run{Output: lines(Line{At: 0, Text: "a  b c;d e;f"})}},
		{"newlines", []string{"sh", "-c", "echo a\nexit 2\n"}, nil, Run{Output: lines(Line{At: 0, Text: "a"}), ExitCode: 2}},
		{"empty script", []string{"sh", "-c", ""}, nil, Run{}},
		{"sleep forever in script", []string{"sh", "-c", "echo up; sleep infinity"}, nil, Run{Output: lines(Line{At: 0, Text: "up"}), Forever: true}},
		{"loop that prints", []string{"sh", "-c", "echo up; while true; do echo polo; sleep 2; echo marco; done"}, nil,
			Run{Output: lines(Line{At: 0, Text: "up"}, Line{At: 0, Text: "polo"}, Line{At: 2 * time.Second, Text: "marco"}), Forever: true,
				Loop: &Loop{From: 1, Period: 2 * time.Second}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, Plan(tc.command, tc.args))
		})
	}
}

// TestRunLineRepeatsTheLoop: a printing loop's lines go on, pass after
// pass, for ever.
func TestRunLineRepeatsTheLoop(t *testing.T) {
	r := Plan([]string{"/bin/sh", "-c", "while true; do echo polo; sleep 2; done"}, nil)
	for i, want := range []Line{{At: 0, Text: "polo"}, {At: 2 * time.Second, Text: "polo"}, {At: 4 * time.Second, Text: "polo"}} {
		got, ok := r.Line(i)
		require.True(t, ok)
		assert.Equal(t, want, got, "line %d", i)
	}
	once := Plan([]string{"echo", "once"}, nil)
	_, ok := once.Line(1)
	assert.False(t, ok, "a run without a loop prints its output only")
}

func TestPlanRunsUntilStopped(t *testing.T) {
	for _, tc := range []struct {
		name          string
		command, args []string
	}{
		{"no command", nil, nil},
		{"a server", []string{"nginx", "-g", "daemon off;"}, nil},
		{"unknown in script", []string{"sh", "-c", "echo a; myserver --port 80"}, nil},
		{"pipe", []string{"sh", "-c", "echo a | grep a"}, nil},
		{"special parameter", []string{"sh", "-c", "echo $$"}, nil},
		{"unknown command substitution", []string{"sh", "-c", "echo $(date)"}, nil},
		{"bad braces", []string{"sh", "-c", "echo ${A:-b}"}, nil},
		{"ls option", []string{"ls", "-R", "/"}, nil},
		{"agnhost other", []string{"agnhost", "netexec"}, nil},
		{"loop that counts", []string{"sh", "-c", "while true; do i=$((i+1)); sleep 1; done"}, nil},
		{"unterminated", []string{"sh", "-c", "echo 'a"}, nil},
		{"dangling and", []string{"sh", "-c", "echo a &&"}, nil},
		{"assignment alone in an if", []string{"sh", "-c", "if true; then A=1; fi; echo a"}, nil},
		{"loop that never sleeps", []string{"sh", "-c", "while true; do echo hi; done"}, nil},
		{"awk program", []string{"sh", "-c", "echo a b | awk '{n++} END {print n}'"}, nil},
		{"shell without -c", []string{"sh"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Plan(tc.command, tc.args)
			assert.True(t, r.Forever)
			assert.NotEmpty(t, r.Why, "the log says why")
			assert.Zero(t, r.Duration)
		})
	}
}

func FuzzPlan(f *testing.F) {
	for _, s := range []string{"echo a; sleep 5 && exit 3 || true", `echo "x" 'y' \z`, "sleep 1e300", "exit -1", "sleep inf", "a &&& b", "#",
		"echo $A${B} \"$A\" $; env", "ls /etc /etc/config/a; cat /etc/config/a", "ls -1a /; printenv A Z", "echo ${", "agnhost mounttest --file_mode=/etc/config/a",
		"test $(id -u) -eq 0; echo $?", "echo x > /f; touch /g", "id -Gn; whoami", "agnhost entrypoint-tester $(echo a)",
		"if [[ -r /x ]]\nthen\nexit 0\nelse\ntouch /x; sleep 5\nfi", "if true; then fi; else",
		"f=/x\nc=$(echo a >> $f; wc -l $f | awk {'print $1'})\nif [ $c -eq 1 ]; then exit 1; fi\nwhile true; do sleep 1; done",
		"echo a b | awk '{print $2}' | wc -c; A=$B; echo {$A}", "sysctl -n kernel.shm_rmid_forced | cat",
		"agnhost logs-generator -t 3 -d 1s", "mv -v /etc/config/a /scratch/ || true; mv /scratch/a /scratch/b /etc", "mv -fv /scratch /x/"} {
		f.Add(s)
	}
	in := testInput()
	in.ReadOnlyRoot, in.User = true, User{UID: 1001, GID: 2002, Extra: []int64{5}}
	f.Fuzz(func(t *testing.T, script string) {
		for _, r := range []Run{PlanIn([]string{"sh", "-c", script}, nil, in), Plan([]string{"sleep"}, []string{script}), Plan(nil, []string{"exit", script}),
			PlanIn([]string{"ls"}, []string{script}, in), PlanIn([]string{"cat"}, []string{script}, in), PlanIn([]string{"sh", "-x", "-c", script}, nil, in),
			PlanIn([]string{"mv", "-v"}, []string{script, "/scratch/"}, in)} {
			if r.ExitCode < 0 || r.ExitCode > 255 || r.Duration < 0 || r.Duration > maxRun {
				t.Fatalf("%q: %+v", script, r)
			}
			if r.Forever && (r.Duration != 0 || r.ExitCode != 0) {
				t.Fatalf("%q: a run for ever with an end: %+v", script, r)
			}
			for _, l := range r.Output {
				if l.At < 0 || !r.Forever && l.At > r.Duration {
					t.Fatalf("%q: line after the end: %+v", script, r)
				}
			}
		}
	})
}

// testInput is an environment and a filesystem as the kubelet hands them:
// a ConfigMap's keys at /etc/config, a secret file of mode 0400 on a tmpfs.
func testInput() Input {
	fs := FS{}
	fs.Put("/etc/config", Dir(0o777))
	fs.Put("/etc/config/a", File{Data: "alpha", Mode: 0o644})
	fs.Put("/etc/config/b", File{Data: "line 1\nline 2\n", Mode: 0o644})
	fs.Put("/etc/secret/pass", File{Data: "s3cr3t", Mode: 0o400, Tmpfs: true})
	fs.Put("/scratch", Dir(0o777))
	return Input{Env: []EnvVar{{"PATH", "/bin"}, {"A", "one two"}, {"B", "b"}}, FS: fs}
}

func TestPlanIn(t *testing.T) {
	lines := func(texts ...string) []Line {
		ls := make([]Line, len(texts))
		for i, text := range texts {
			ls[i] = Line{Text: text}
		}
		return ls
	}
	for _, tc := range []struct {
		name        string
		command     []string
		wantOutput  []Line
		wantCode    int32
		wantForever bool
	}{
		{"env", []string{"env"}, lines("PATH=/bin", "A=one two", "B=b"), 0, false},
		{"env in sh adds the shell's variables", []string{"sh", "-c", "env"}, lines("PATH=/bin", "A=one two", "B=b", "SHLVL=1", "PWD=/"), 0, false},
		{"printenv", []string{"printenv", "B", "NOPE", "A"}, lines("b", "one two"), 1, false},
		{"cat joins partial lines", []string{"sh", "-c", "cat /etc/config/a; echo; cat /etc/config/a /etc/config/a"}, lines("alpha", "alphaalpha"), 0, false},
		{"cat of lines", []string{"cat", "/etc/config/b"}, lines("line 1", "line 2"), 0, false},
		{"cat missing", []string{"cat", "/etc/nope"}, lines("cat: can't open '/etc/nope': No such file or directory"), 1, false},
		{"cat a directory", []string{"cat", "/etc/config"}, lines("cat: read error: Is a directory"), 1, false},
		{"ls a directory", []string{"ls", "/etc/config/"}, lines("a", "b"), 0, false},
		{"ls the root", []string{"ls", "-1", "/"}, lines("etc", "scratch"), 0, false},
		{"ls several", []string{"ls", "/etc/secret", "/etc/config/a", "/etc"}, lines("/etc/config/a", "", "/etc:", "config", "secret", "", "/etc/secret:", "pass"), 0, false},
		{"ls missing", []string{"ls", "/nope"}, lines("ls: /nope: No such file or directory"), 1, false},
		{"ls an empty dir", []string{"ls", "/scratch"}, nil, 0, false},
		{"touch then ls", []string{"sh", "-c", "touch /scratch/x && ls /scratch && rm /etc/config/a && ls /etc/config"}, lines("x", "b"), 0, false},
		{"test -d", []string{"sh", "-c", "test -d /etc/config && test -f /etc/config/a && ! true"}, nil, 0, true},
		{"test -d of a file", []string{"test", "-d", "/etc/config/a"}, nil, 1, false},
		{"variables", []string{"sh", "-c", `echo $A "$A" ${B}x $NOPE. $`}, lines("one two one two bx . $"), 0, false},
		{"unquoted variable splits", []string{"sh", "-c", `test -e $A`}, nil, 1, false},
		{"assignments before a command", []string{"sh", "-c", `TEST_VAR=wrong echo "test-value"; B=new C=c printenv B C; B=x echo $B`}, lines("test-value", "new", "c", "b"), 0, false},
		{"assignments in env", []string{"sh", "-c", "A=1 Z=2 env"}, lines("PATH=/bin", "A=1", "B=b", "SHLVL=1", "PWD=/", "Z=2"), 0, false},
		{"mounttest content", []string{"agnhost", "mounttest", "--file_content=/etc/config/a"}, lines(`content of file "/etc/config/a": alpha`), 0, false},
		{"mounttest mode and perm", []string{"/agnhost", "mounttest", "--file_mode=/etc/secret/pass", "--file_perm=/etc/config", "--fs_type=/etc/secret"},
			lines(`mount type of "/etc/secret": 61267`, `mode of file "/etc/secret/pass": -r--------`, `perms of file "/etc/config": -rwxrwxrwx`), 0, false},
		{"mounttest tmpfs", []string{"mounttest", "--fs_type=/etc/secret/pass"}, lines(`mount type of "/etc/secret/pass": tmpfs`), 0, false},
		{"mounttest new file", []string{"agnhost", "mounttest", "--new_file_0644=/scratch/f", "--file_perm=/scratch/f"},
			lines(`content of file "/scratch/f": mount-tester new file`, "", `perms of file "/scratch/f": -rw-r--r--`), 0, false},
		{"mounttest missing", []string{"agnhost", "mounttest", "--file_content=/nope"},
			lines(`error reading file content for "/nope": open /nope: no such file or directory`), 1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := PlanIn(tc.command[:1], tc.command[1:], testInput())
			assert.Equal(t, tc.wantOutput, r.Output)
			assert.Equal(t, tc.wantForever, r.Forever, r.Why)
			assert.Equal(t, tc.wantCode, r.ExitCode)
		})
	}
}

func TestExecSeesTheVolumes(t *testing.T) {
	r := PlanIn([]string{"sh", "-c", "sleep 10; rm /etc/config/a; sleep infinity"}, nil, testInput())
	code, _ := r.Exec([]string{"cat", "/etc/config/a"}, 5*time.Second)
	assert.Equal(t, int32(0), code, "mounted and not yet removed")
	code, out := r.Exec([]string{"cat", "/etc/config/a"}, 15*time.Second)
	assert.Equal(t, int32(1), code)
	assert.Equal(t, "cat: can't open '/etc/config/a': No such file or directory", out)
	code, out = r.Exec([]string{"sh", "-c", "echo $B"}, 0)
	assert.Equal(t, int32(0), code)
	assert.Equal(t, "b", out)
}

// TestFileChangesCarryTheFiles: a run's changes say what each file holds
// after it (what the kubelet carries into a shared volume): a redirect's
// text, touch's empty file (or the file as it was), rm's removal.
func TestFileChangesCarryTheFiles(t *testing.T) {
	r := PlanIn([]string{"sh", "-c", "touch /scratch/t /etc/config/a; echo hi > /scratch/f; sleep 2; echo more >> /scratch/f; rm /scratch/t"}, nil, testInput())
	assert.Equal(t, []FileChange{
		{Path: "/scratch/t", Exists: true, File: File{Mode: 0o644}},
		{Path: "/etc/config/a", Exists: true, File: File{Data: "alpha", Mode: 0o644}},
		{Path: "/scratch/f", Exists: true, File: File{Data: "hi\n", Mode: 0o644}},
		{At: 2 * time.Second, Path: "/scratch/f", Exists: true, File: File{Data: "hi\nmore\n", Mode: 0o644}},
		{At: 2 * time.Second, Path: "/scratch/t"},
	}, r.Files)
}

// TestExecuteWithSharedVolumes: ExecuteWith sees, under the mount points it is
// given, the files as the kubelet holds them now (written by another
// container, or removed by one), and the run's own changes elsewhere.
func TestExecuteWithSharedVolumes(t *testing.T) {
	r := PlanIn([]string{"sh", "-c", "touch /scratch/mine /own; sleep infinity"}, nil, testInput())
	now := FS{}
	now.Put("/scratch", Dir(0o777))
	now.Put("/scratch/theirs", File{Data: "from the other container\n", Mode: 0o644})
	res := r.ExecuteWith([]string{"sh", "-c", "cat /scratch/theirs; ls /scratch; test -e /own"}, time.Second, now, []string{"/scratch"})
	assert.Equal(t, int32(0), res.ExitCode)
	assert.Equal(t, "from the other container\ntheirs\n", res.Stdout, "the volume as it is now: another removed mine")
	res = r.ExecuteWith([]string{"cat", "/etc/config/a"}, time.Second, now, []string{"/scratch"})
	assert.Equal(t, int32(0), res.ExitCode, "what lies outside the mount points is the run's")
}

func TestMounttestReadLoop(t *testing.T) {
	const s = time.Second
	a := `content of file "/etc/config/a": alpha`
	for _, tc := range []struct {
		name         string
		args         []string
		wantOutput   []Line
		wantDuration time.Duration
		wantCode     int32
	}{
		{"reads every two seconds until the retry time", []string{"--break_on_expected_content=false", "--retry_time=5", "--file_content_in_loop=/etc/config/a"},
			[]Line{{At: 0, Text: a, Reads: "/etc/config/a"}, {At: 2 * s, Text: a, Reads: "/etc/config/a"}, {At: 4 * s, Text: a, Reads: "/etc/config/a"}}, 6 * s, 0},
		{"a missing file fails the last read", []string{"--break_on_expected_content=false", "--retry_time=2", "--file_content_in_loop=/etc/nope"},
			[]Line{{At: 0, Text: "Error reading file /etc/nope: open /etc/nope: no such file or directory, retrying", Reads: "/etc/nope"}}, 2 * s, 1},
		{"no retry time reads nothing", []string{"--retry_time=0", "--file_content_in_loop=/etc/config/a"}, nil, 0, 0},
		{"breaks on the new file's content", []string{"--new_file_0644=/scratch/f", "--file_content_in_loop=/scratch/f"},
			[]Line{{At: 0, Text: `content of file "/scratch/f": mount-tester new file`}, {At: 0, Text: ""},
				{At: 0, Text: `content of file "/scratch/f": mount-tester new file`}, {At: 0, Text: ""}}, 0, 0},
		{"unexpected content retries until the default retry time", []string{"--break_on_expected_content", "--retry_time=3", "--file_content_in_loop=/etc/config/a"},
			[]Line{{At: 0, Text: a}, {At: 0, Text: "Unexpected content. Expected: mount-tester new file"}, {At: 0, Text: ". Retrying"},
				{At: 2 * s, Text: a}, {At: 2 * s, Text: "Unexpected content. Expected: mount-tester new file"}, {At: 2 * s, Text: ". Retrying"}}, 4 * s, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := PlanIn([]string{"/agnhost"}, append([]string{"mounttest"}, tc.args...), testInput())
			assert.Equal(t, tc.wantOutput, r.Output)
			assert.False(t, r.Forever, r.Why)
			assert.Equal(t, tc.wantDuration, r.Duration)
			assert.Equal(t, tc.wantCode, r.ExitCode)
		})
	}
}

func TestHexdumpC(t *testing.T) {
	for _, tc := range []struct {
		name, data, want string
	}{
		{"the conformance test's binary data", "\xde\xca\xfe\xba\xd0\xfe\xff",
			"00000000  de ca fe ba d0 fe ff                              |.......|\n00000007\n"},
		{"empty", "", "00000000\n"},
		{"a full line and text", "0123456789abcdefhi",
			"00000000  30 31 32 33 34 35 36 37  38 39 61 62 63 64 65 66  |0123456789abcdef|\n" +
				"00000010  68 69                                             |hi|\n00000012\n"},
		{"repeated lines are starred", strings.Repeat("a", 48) + "b",
			"00000000  61 61 61 61 61 61 61 61  61 61 61 61 61 61 61 61  |aaaaaaaaaaaaaaaa|\n*\n" +
				"00000030  62                                                |b|\n00000031\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, hexdumpC(tc.data))
		})
	}
}

func TestReadReport(t *testing.T) {
	for _, tc := range []struct {
		name  string
		f     File
		there bool
		want  string
	}{
		{"content", File{Data: "value-1"}, true, `content of file "/v/data-1": value-1`},
		{"lines", File{Data: "a\nb\n"}, true, "content of file \"/v/data-1\": a\nb\n"},
		{"missing", File{}, false, "Error reading file /v/data-1: open /v/data-1: no such file or directory, retrying"},
		{"directory", Dir(0o755), true, "Error reading file /v/data-1: read /v/data-1: is a directory, retrying"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, ReadReport("/v/data-1", tc.f, tc.there))
		})
	}
}

func TestRedirection(t *testing.T) {
	for _, tc := range []struct {
		name        string
		script      string
		file        string
		wantOutput  []string
		wantFile    string
		wantThere   bool
		wantForever bool
	}{
		{"echo -n to a file", "/bin/echo -n DONE > /dev/termination-log", "/dev/termination-log", nil, "DONE", true, false},
		{"then to the log", "/bin/echo -n OK > /dev/termination-log; /bin/echo DONE; /bin/true", "/dev/termination-log", []string{"DONE"}, "OK", true, false},
		{"appended", "echo a >/tmp/f; echo b >> /tmp/f", "/tmp/f", nil, "a\nb\n", true, false},
		{"overwritten", "echo a > /tmp/f; echo b>/tmp/f", "/tmp/f", nil, "b\n", true, false},
		{"removed", "echo a > /tmp/f; rm /tmp/f", "/tmp/f", nil, "", false, false},
		{"cat of a made file", "echo hi > /tmp/f && cat /tmp/f", "/tmp/f", []string{"hi"}, "hi\n", true, false},
		{"a handed file", "true", "/etc/config/a", nil, "alpha", true, false},
		{"a file descriptor is not simulated", "echo a 2> /tmp/f", "/tmp/f", nil, "", false, true},
		{"no file", "echo a >", "/tmp/f", nil, "", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := PlanIn([]string{"/bin/sh", "-c"}, []string{tc.script}, testInput())
			var out []string
			for _, l := range r.Output {
				out = append(out, l.Text)
			}
			assert.Equal(t, tc.wantOutput, out)
			assert.Equal(t, tc.wantForever, r.Forever, r.Why)
			data, there := r.FileAtEnd(tc.file)
			assert.Equal(t, tc.wantThere, there)
			assert.Equal(t, tc.wantFile, data)
		})
	}
}

// restartCounter is the script of the conformance test "Container Runtime
// blackbox test when starting a container that exits should run with the
// expected status" (common/node/runtime.go): it counts its runs in a file
// of an emptyDir, fails the first, succeeds the second, runs for ever
// after.
// testdata/restart-count.sh holds it as the test formats it (cmdScripts,
// with the volume's path); nodesim's test runs it too.
func restartCounter(t *testing.T) string {
	b, err := os.ReadFile("testdata/restart-count.sh")
	require.NoError(t, err)
	return string(b)
}

func TestRestartCounterScript(t *testing.T) {
	in := Input{FS: FS{"/": Dir(0o755), "/restart-count": Dir(0o777)}}
	for i, want := range []struct {
		code    int32
		forever bool
	}{{1, false}, {0, false}, {0, true}, {0, true}} {
		r := PlanIn([]string{"sh", "-c", restartCounter(t)}, nil, in)
		assert.Equal(t, want.code, r.ExitCode, "run %d", i+1)
		assert.Equal(t, want.forever, r.Forever, "run %d: %s", i+1, r.Why)
		assert.Empty(t, r.Why, "run %d", i+1)
		assert.Empty(t, r.Output, "run %d", i+1)
		require.Len(t, r.Files, 1)
		assert.Equal(t, strings.Repeat("hello\n", i+1), r.Files[0].File.Data)
		in.FS = FS{"/": Dir(0o755), "/restart-count": Dir(0o777), "/restart-count/restartCount": r.Files[0].File} // the kubelet carries it over
	}
}

func TestPipesAndVariables(t *testing.T) {
	for _, tc := range []struct {
		name, script string
		want         []string
		code         int32
	}{
		{"pipe", "echo 'a b c' | awk '{print $2, $3}'", []string{"b c"}, 0},
		{"pipe status is the last command's", "false | true", nil, 0},
		{"wc from a pipe", "echo x > /scratch/f; echo y >> /scratch/f; cat /scratch/f | wc -l", []string{"2"}, 0},
		{"wc of a file", "wc -c /etc/config/a", []string{"5 /etc/config/a"}, 0},
		{"awk of a missing file", "awk '{print}' /nope", []string{"awk: can't open '/nope': No such file or directory"}, 2},
		{"variables", "A=one; B=$A-two\necho $A $B; A=three; echo $A", []string{"one one-two", "three"}, 0},
		{"shell variables shadow the environment", "B=x; echo $B", []string{"x"}, 0},
		{"substitution sees what ran before", "echo 1 > /scratch/n; n=$(cat /scratch/n); echo got $n", []string{"got 1"}, 0},
		{"substitution writes files", "c=$(echo hi >> /scratch/g; wc -l /scratch/g | awk {'print $1'}); cat /scratch/g; echo $c", []string{"hi", "1"}, 0},
		{"braces in a word", "echo {a} x{", []string{"{a} x{"}, 0},
		{"loop for ever", "echo up; while :; do sleep 5; done", []string{"up"}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := PlanIn([]string{"sh", "-c", tc.script}, nil, testInput())
			assert.Empty(t, r.Why)
			var got []string
			for _, l := range r.Output {
				got = append(got, l.Text)
			}
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.code, r.ExitCode)
		})
	}
}

// TestLogsGenerator: agnhost logs-generator prints its lines as klog does,
// evenly over the run, drawn from the seed: the same seed draws the same.
func TestLogsGenerator(t *testing.T) {
	in := Input{Start: time.Date(2026, 11, 29, 16, 5, 0, 0, time.UTC), Seed: 42}
	r := PlanIn([]string{"/agnhost"}, []string{"logs-generator", "--log-lines-total", "100", "--run-duration", "20s"}, in)
	assert.Empty(t, r.Why)
	assert.False(t, r.Forever)
	assert.Equal(t, 20*time.Second, r.Duration)
	assert.Equal(t, int32(0), r.ExitCode)
	require.Len(t, r.Output, 100)
	assert.Equal(t, 200*time.Millisecond, r.Output[1].At)
	assert.Equal(t, 19800*time.Millisecond, r.Output[99].At)
	assert.Regexp(t, `^I1129 16:05:00\.000000       1 logs_generator\.go:76\] 0 (GET|POST|PUT) /api/v1/namespaces/(kube-system|default|ns)/pods/[bcdfghjklmnpqrstvwxz2456789]{3,4} [2-5]\d\d$`, r.Output[0].Text)
	assert.Regexp(t, `^I1129 16:05:19\.800000       1 logs_generator\.go:76\] 99 `, r.Output[99].Text)
	kubeSystem := 0
	for _, l := range r.Output {
		if strings.Contains(l.Text, "/api/v1/namespaces/kube-system/") {
			kubeSystem++
		}
	}
	assert.Positive(t, kubeSystem)
	assert.Equal(t, r, PlanIn([]string{"/agnhost"}, []string{"logs-generator", "-t=100", "-d=20s"}, in), "the same seed, the same lines")
	in.Seed++
	assert.NotEqual(t, r.Output, PlanIn([]string{"/agnhost"}, []string{"logs-generator", "-t", "100", "-d", "20s"}, in).Output)
	assert.True(t, PlanIn([]string{"/agnhost"}, []string{"logs-generator", "-t", "0", "-d", "20s"}, in).Forever, "klog.Fatalf is not simulated")
}

func TestExecute(t *testing.T) {
	r := PlanIn([]string{"sh", "-c", "sleep 10; touch /tmp/made; sleep infinity"}, nil, testInput())
	for _, tc := range []struct {
		name string
		argv []string
		at   time.Duration
		want ExecResult
	}{
		{"echo", []string{"/bin/echo", "marco"}, 0, ExecResult{Stdout: "marco\n"}},
		{"a volume's file", []string{"cat", "/etc/config/a"}, 0, ExecResult{Stdout: "alpha"}},
		{"exit code", []string{"sh", "-c", "exit 3"}, 0, ExecResult{ExitCode: 3}},
		{"the run's files, before", []string{"test", "-e", "/tmp/made"}, 5 * time.Second, ExecResult{ExitCode: 1}},
		{"the run's files, after", []string{"test", "-e", "/tmp/made"}, 15 * time.Second, ExecResult{}},
		{"the environment", []string{"sh", "-c", "echo $B"}, 0, ExecResult{Stdout: "b\n"}},
		{"unknown command", []string{"curl", "http://x"}, 0, ExecResult{Stderr: "sh: curl: not found (" + simulated + ")\n", ExitCode: 127}},
		{"unknown in a script, after output", []string{"bash", "-c", "echo a; nslookup x"}, 0, ExecResult{Stdout: "a\n", Stderr: "bash: nslookup: not found (" + simulated + ")\n", ExitCode: 127}},
		{"a script it cannot parse", []string{"sh", "-c", "echo \"unterminated"}, 0, ExecResult{ExitCode: 126}},
		{"does not end: answers at once", []string{"sh", "-c", "echo up; sleep infinity"}, 0, ExecResult{Stdout: "up\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := r.Execute(tc.argv, tc.at)
			if tc.want.ExitCode == 126 {
				assert.Equal(t, int32(126), got.ExitCode)
				assert.Contains(t, got.Stderr, simulated)
				return
			}
			assert.Equal(t, tc.want, got)
		})
	}
}
