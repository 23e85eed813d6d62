package container

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMv checks mv as busybox runs it over the httpd image's files: -v's
// line, moving into a directory and back, and its failures.
func TestMv(t *testing.T) {
	const index = "/usr/local/apache2/htdocs/index.html"
	image := FS{}
	for p, f := range ImageFiles("registry.k8s.io/e2e-test-images/httpd:2.4.38-4") {
		image.Put(p, f)
	}
	in := Input{FS: image}
	for _, tc := range []struct {
		name       string
		script     string
		wantOut    string
		wantStderr string
		wantCode   int32
		wantThere  []string
		wantGone   []string
	}{
		{"into a directory, verbose", "mv -v " + index + " /tmp/", "'" + index + "' -> '/tmp/index.html'\n", "", 0,
			[]string{"/tmp/index.html"}, []string{index}},
		{"renamed", "mv " + index + " /tmp/page.html && cat /tmp/page.html", httpdPage, "", 0, []string{"/tmp/page.html"}, []string{index}},
		{"a directory is not simulated", "mv /tmp /x", "", "sh: mv: not found (" + simulated + ")\n", 127, []string{"/tmp"}, nil},
		{"there and back", "mv " + index + " /tmp/ && mv /tmp/index.html /usr/local/apache2/htdocs/", "", "", 0, []string{index}, []string{"/tmp/index.html"}},
		{"a missing file, idempotent with || true", "mv -v /tmp/index.html /usr/local/apache2/htdocs/ || true",
			"mv: can't rename '/tmp/index.html': No such file or directory\n", "", 0, []string{index}, nil},
		{"traced under sh -x", "mv -v /nope /tmp/ || true", "mv: can't rename '/nope': No such file or directory\n",
			"+ mv -v /nope /tmp/\n+ true\n", 0, nil, nil},
		{"into a directory that is not there", "mv " + index + " /nodir/", "mv: can't rename '" + index + "': Not a directory\n", "", 1, []string{index}, nil},
		{"several into a file", "touch /tmp/a; mv /tmp/a " + index + " /tmp/b", "mv: '/tmp/b' is not a directory\n", "", 1, []string{index, "/tmp/a"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			argv := []string{"/bin/sh", "-c", tc.script}
			if strings.HasPrefix(tc.wantStderr, "+") {
				argv = []string{"/bin/sh", "-x", "-c", tc.script}
			}
			res := ExecuteIn(argv, nil, in)
			assert.Equal(t, tc.wantOut, res.Stdout)
			assert.Equal(t, tc.wantStderr, res.Stderr)
			assert.Equal(t, tc.wantCode, res.ExitCode)
			after := Run{in: in}.Overlay(res.Files)
			fs := after.FSAt(0)
			for _, p := range tc.wantThere {
				_, ok := fs.Lookup(p)
				assert.True(t, ok, "%s is there", p)
			}
			for _, p := range tc.wantGone {
				_, ok := fs.Lookup(p)
				assert.False(t, ok, "%s is gone", p)
			}
		})
	}
}

// TestOverlayKeepsExecWrites checks that an exec's changes to the
// container's own files, kept over its run, are seen from their time on by
// later execs and by its server: httpd answers 404 once index.html is
// moved away, and its page again once it is back.
func TestOverlayKeepsExecWrites(t *testing.T) {
	const e2eHttpd = "registry.k8s.io/e2e-test-images/httpd:2.4.38-4"
	image := FS{}
	for p, f := range ImageFiles(e2eHttpd) {
		image.Put(p, f)
	}
	r := PlanIn(nil, nil, Input{FS: image})
	at := func(changes []FileChange, d time.Duration) []FileChange {
		for i := range changes {
			changes[i].At = d
		}
		return changes
	}
	get := Request{Method: "GET", Path: "/index.html"}
	code := func(r Run, d time.Duration) int {
		resp, err := r.ProgramAt(e2eHttpd, nil, nil, d).Serve(80, get)
		require.NoError(t, err)
		return resp.Code
	}
	broke := r.Execute([]string{"/bin/sh", "-x", "-c", "mv -v /usr/local/apache2/htdocs/index.html /tmp/ || true"}, 10*time.Second)
	require.Equal(t, int32(0), broke.ExitCode)
	kept := at(broke.Files, 10*time.Second)
	r1 := r.Overlay(kept)
	assert.Equal(t, 200, code(r1, 9*time.Second), "before the exec")
	assert.Equal(t, 404, code(r1, 10*time.Second), "from the exec on")
	again := r1.Execute([]string{"test", "-e", "/tmp/index.html"}, 11*time.Second)
	assert.Equal(t, int32(0), again.ExitCode, "a later exec sees the move")

	fixed := r1.Execute([]string{"/bin/sh", "-x", "-c", "mv -v /tmp/index.html /usr/local/apache2/htdocs/ || true"}, 20*time.Second)
	assert.Equal(t, "'/tmp/index.html' -> '/usr/local/apache2/htdocs/index.html'\n", fixed.Stdout)
	r2 := r.Overlay(append(kept, at(fixed.Files, 20*time.Second)...))
	assert.Equal(t, 404, code(r2, 15*time.Second))
	assert.Equal(t, 200, code(r2, 20*time.Second), "back in place")
	assert.Equal(t, 200, code(r, 30*time.Second), "a new run (a restart) has the image's files")
}
