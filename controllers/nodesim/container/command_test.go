package container

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestPlan(t *testing.T) {
	lines := func(ls ...Line) []Line { return ls }
	for _, tc := range []struct {
		name          string
		command, args []string
		want          Run
	}{
		{"echo", []string{"echo", "hello"}, nil, Run{Output: lines(Line{0, "hello"})}},
		{"echo in args", nil, []string{"echo", "hello", "world"}, Run{Output: lines(Line{0, "hello world"})}},
		{"path", []string{"/bin/echo"}, []string{"hi"}, Run{Output: lines(Line{0, "hi"})}},
		{"sleep", []string{"sleep", "30"}, nil, Run{Duration: 30 * time.Second}},
		{"sleep units", []string{"sleep", "1m", "0.5"}, nil, Run{Duration: 60500 * time.Millisecond}},
		{"sleep infinity", []string{"sleep", "infinity"}, nil, Run{Forever: true}},
		{"sleep bad", []string{"sleep", "x"}, nil, Run{Output: lines(Line{0, "sleep: invalid number 'x'"}), ExitCode: 1}},
		{"exit", []string{"exit", "3"}, nil, Run{ExitCode: 3}},
		{"exit wraps", []string{"exit", "300"}, nil, Run{ExitCode: 44}},
		{"true", []string{"true"}, nil, Run{}},
		{"false", []string{"false"}, nil, Run{ExitCode: 1}},
		{"sh -c", []string{"sh", "-c", "echo a; sleep 5; echo b"}, nil,
			Run{Output: lines(Line{0, "a"}, Line{5 * time.Second, "b"}), Duration: 5 * time.Second}},
		{"/bin/sh -c in args", []string{"/bin/sh"}, []string{"-c", "sleep 2 && exit 3"}, Run{Duration: 2 * time.Second, ExitCode: 3}},
		{"and skips", []string{"sh", "-c", "false && echo no"}, nil, Run{ExitCode: 1}},
		{"or runs", []string{"sh", "-c", "false || echo yes"}, nil, Run{Output: lines(Line{0, "yes"})}},
		{"and-or", []string{"sh", "-c", "false && echo no || echo yes"}, nil, Run{Output: lines(Line{0, "yes"})}},
		{"exit stops", []string{"sh", "-c", "echo a; exit 7; echo b"}, nil, Run{Output: lines(Line{0, "a"}), ExitCode: 7}},
		{"last status", []string{"sh", "-c", "echo a; false"}, nil, Run{Output: lines(Line{0, "a"}), ExitCode: 1}},
		{"quotes", []string{"sh", "-c", `echo "a  b" 'c;d' e\;f # comment`}, nil, Run{Output: lines(Line{0, "a  b c;d e;f"})}},
		{"newlines", []string{"sh", "-c", "echo a\nexit 2\n"}, nil, Run{Output: lines(Line{0, "a"}), ExitCode: 2}},
		{"empty script", []string{"sh", "-c", ""}, nil, Run{}},
		{"sleep forever in script", []string{"sh", "-c", "echo up; sleep infinity"}, nil, Run{Output: lines(Line{0, "up"}), Forever: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, Plan(tc.command, tc.args))
		})
	}
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
		{"variable", []string{"sh", "-c", "echo $HOME"}, nil},
		{"loop", []string{"sh", "-c", "while true; do echo hi; sleep 1; done"}, nil},
		{"unterminated", []string{"sh", "-c", "echo 'a"}, nil},
		{"dangling and", []string{"sh", "-c", "echo a &&"}, nil},
		{"assignment", []string{"sh", "-c", "A=1 echo a"}, nil},
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
	for _, s := range []string{"echo a; sleep 5 && exit 3 || true", `echo "x" 'y' \z`, "sleep 1e300", "exit -1", "sleep inf", "a &&& b", "#"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, script string) {
		for _, r := range []Run{Plan([]string{"sh", "-c", script}, nil), Plan([]string{"sleep"}, []string{script}), Plan(nil, []string{"exit", script})} {
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
