package container

import (
	"strconv"
	"strings"
)

// isAgnhost reports whether the program named is agnhost: the image's
// /agnhost-2 is a copy of /agnhost, for the tests that replace the
// entrypoint.
func isAgnhost(name string) bool { return name == "agnhost" || name == "agnhost-2" }

// agnhost runs the subcommands of agnhost, the Kubernetes e2e tests'
// many-purpose image (test/images/agnhost), that the grammar knows:
// mounttest; logs-generator (logsgen.go); entrypoint-tester, which prints
// its argv as Go prints a []string; etc-hosts, which prints /etc/hosts (and the newline
// fmt.Println adds); and pause, which prints "Paused" and waits for a
// signal. Its servers (liveness, grpc-health-checking, netexec, ...) are
// not run: they count as unknown, and run until stopped.
func (sh *shell) agnhost(args []string) (int32, bool) {
	if len(args) == 0 {
		return 0, false
	}
	switch args[0] {
	case "mounttest":
		return sh.mounttest(args[1:])
	case "entrypoint-tester":
		sh.print("[" + strings.Join(sh.argv, " ") + "]\n")
	case "logs-generator":
		return sh.logsGenerator(args[1:])
	case "etc-hosts":
		f, ok := sh.exists("/etc/hosts")
		if !ok {
			sh.print("open /etc/hosts: no such file or directory\n")
			return 1, true
		}
		sh.print(f.Data + "\n")
	default:
		return 0, false
	}
	return 0, true
}

// binaryOps are the operators of test's three-operand forms.
var binaryOps = []string{"=", "==", "!=", "-eq", "-ne", "-lt", "-le", "-gt", "-ge"}

// compare runs test's three-operand forms: the integer comparisons -eq,
// -ne, -lt, -le, -gt and -ge, and the string ones = and !=; status 2, as
// busybox's, for a number that is not one or an operator it lacks.
func (sh *shell) compare(args []string) int32 {
	a, op, b := args[0], args[1], args[2]
	switch op {
	case "=", "==":
		return boolStatus(a == b)
	case "!=":
		return boolStatus(a != b)
	}
	x, errA := strconv.ParseInt(a, 10, 64)
	y, errB := strconv.ParseInt(b, 10, 64)
	if errA != nil || errB != nil {
		n := a
		if errA == nil {
			n = b
		}
		sh.print("sh: " + n + ": bad number\n")
		return 2
	}
	switch op {
	case "-eq":
		return boolStatus(x == y)
	case "-ne":
		return boolStatus(x != y)
	case "-lt":
		return boolStatus(x < y)
	case "-le":
		return boolStatus(x <= y)
	case "-gt":
		return boolStatus(x > y)
	}
	return boolStatus(x >= y) // -ge
}
