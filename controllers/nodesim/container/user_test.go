package container

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestIdentityAndPrivileges runs the commands of the security context
// conformance tests with the users and privileges the kubelet hands a
// container.
func TestIdentityAndPrivileges(t *testing.T) {
	root := Input{}
	user := Input{User: User{UID: 1001, GID: 2002, Extra: []int64{1234, 2002}}}
	readOnly := Input{ReadOnlyRoot: true, Writable: []string{"/data"}, FS: FS{"/data": Dir(0o777)}}
	for _, tc := range []struct {
		name     string
		argv     []string
		in       Input
		want     []string
		wantCode int32
	}{
		{"id of root", []string{"id"}, root, []string{"uid=0(root) gid=0(root) groups=0(root),10(wheel)"}, 0},
		{"id of a user", []string{"sh", "-c", "id"}, user, []string{"uid=1001 gid=2002 groups=2002,1234"}, 0},
		{"id of nobody", []string{"id"}, Input{User: User{UID: 65534, GID: 65534}}, []string{"uid=65534(nobody) gid=65534(nogroup) groups=65534(nogroup)"}, 0},
		{"id -u", []string{"id", "-u"}, user, []string{"1001"}, 0},
		{"id -g", []string{"id", "-g"}, user, []string{"2002"}, 0},
		{"id -G", []string{"id", "-G"}, user, []string{"2002 1234"}, 0},
		{"id -un", []string{"id", "-un"}, root, []string{"root"}, 0},
		{"id -u -g", []string{"id", "-u", "-g"}, root, []string{"id: only one of -u, -g, -G may be given"}, 1},
		{"whoami", []string{"whoami"}, root, []string{"root"}, 0},
		{"whoami unknown", []string{"whoami"}, user, []string{"whoami: unknown uid 1001"}, 1},
		{"test the uid", []string{"sh", "-c", "test $(id -u) -eq 1001"}, user, nil, 0},
		{"test another uid", []string{"sh", "-c", "test $(id -u) -eq 65534"}, user, nil, 1},
		{"comparisons", []string{"sh", "-c", `test 2 -lt 10 && test a != b && test "$(echo x)" = x && echo yes`}, root, []string{"yes"}, 0},
		{"bad number", []string{"test", "a", "-eq", "1"}, root, []string{"sh: a: bad number"}, 2},
		{"last status", []string{"sh", "-c", "test -d /nope; echo $?; true; echo \"$?\""}, root, []string{"1", "0"}, 0},
		{"read-only root", []string{"/bin/sh", "-c", "echo test > /file; echo done"}, readOnly, []string{"/bin/sh: can't create /file: Read-only file system", "done"}, 0},
		{"read-only root, writable volume", []string{"sh", "-c", "echo test > /data/f && cat /data/f"}, readOnly, []string{"test"}, 0},
		{"touch on a read-only root", []string{"sh", "-c", "touch checkfile"}, readOnly, []string{"touch: checkfile: Read-only file system"}, 1},
		{"touch on a writable root", []string{"sh", "-c", "touch checkfile"}, root, nil, 0},
		{"ip link add unprivileged", []string{"sh", "-c", "ip link add dummy0 type dummy || true"}, root, []string{"ip: RTNETLINK answers: Operation not permitted"}, 0},
		{"ip link add privileged", []string{"ip", "link", "add", "dummy0", "type", "dummy"}, Input{Privileged: true}, nil, 0},
		{"ip link add with NET_ADMIN", []string{"ip", "link", "add", "d"}, Input{CapAdd: []string{"NET_ADMIN"}}, nil, 0},
		{"nnp escalates", []string{"nnp"}, Input{User: User{UID: 1000}}, []string{"Effective uid: 0"}, 0},
		{"nnp with no_new_privs", []string{"nnp"}, Input{User: User{UID: 1000}, NoNewPrivs: true}, []string{"Effective uid: 1000"}, 0},
		{"entrypoint-tester", []string{"/agnhost-2", "entrypoint-tester", "override", "arguments"}, root, []string{"[/agnhost-2 entrypoint-tester override arguments]"}, 0},
		{"if then else", []string{"sh", "-c", "\n\tif [[ -r /data/foo ]]\n\tthen\n\t\techo there\n\telse\n\t\ttouch /data/foo; echo made\n\tfi\n\tif [ -r /data/foo ]; then echo now; fi"},
			readOnly, []string{"made", "now"}, 0},
		{"if without a branch taken", []string{"sh", "-c", "if false; then echo no; fi; echo $?"}, root, []string{"0"}, 0},
		{"nested if", []string{"sh", "-c", "if true; then if false; then echo a; else echo b; fi; else echo c; fi"}, root, []string{"b"}, 0},
		{"etc-hosts", []string{"/agnhost", "etc-hosts"}, Input{FS: FS{"/etc/hosts": {Data: "127.0.0.1\tlocalhost\n"}}}, []string{"127.0.0.1\tlocalhost", ""}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := PlanIn(tc.argv[:1], tc.argv[1:], tc.in)
			assert.False(t, r.Forever, r.Why)
			var got []string
			for _, l := range r.Output {
				got = append(got, l.Text)
			}
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.wantCode, r.ExitCode)
		})
	}
}

// TestIfSyntaxErrors: an if statement the grammar cannot match runs until
// stopped, its log saying why.
func TestIfSyntaxErrors(t *testing.T) {
	for _, script := range []string{"if true; echo a; fi", "then echo a; fi", "if true; then echo a", "fi", "if a; then b; elif c; then d; fi", "if true; then echo a; else echo b; else echo c; fi"} {
		r := Plan([]string{"sh", "-c", script}, nil)
		assert.True(t, r.Forever, script)
		assert.NotEmpty(t, r.Why, script)
	}
}

// TestAgnhostPause: pause prints "Paused" and waits to be stopped.
func TestAgnhostPause(t *testing.T) {
	r := Plan([]string{"/agnhost"}, []string{"pause"})
	assert.Equal(t, Run{Output: []Line{{Text: "Paused"}}, Forever: true}, r)
}

// TestImageArgv follows the runtime's rule for an image's entrypoint and
// cmd.
func TestImageArgv(t *testing.T) {
	agnhost, ok := ImageConfig("registry.k8s.io/e2e-test-images/agnhost:2.53")
	assert.True(t, ok)
	for _, tc := range []struct {
		name                  string
		command, args         []string
		wantCommand, wantArgs []string
	}{
		{"image defaults", nil, nil, []string{"/agnhost"}, []string{"pause"}},
		{"args replace cmd", nil, []string{"entrypoint-tester", "a"}, []string{"/agnhost"}, []string{"entrypoint-tester", "a"}},
		{"command drops cmd", []string{"/agnhost-2"}, nil, []string{"/agnhost-2"}, nil},
		{"command and args", []string{"/agnhost-2"}, []string{"x"}, []string{"/agnhost-2"}, []string{"x"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			command, args := agnhost.Argv(tc.command, tc.args)
			assert.Equal(t, tc.wantCommand, command)
			assert.Equal(t, tc.wantArgs, args)
		})
	}
	_, ok = ImageConfig("nginx")
	assert.False(t, ok, "an image the simulator does not know")
}
