package container

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
)

// logsGenerator is agnhost's logs-generator: --log-lines-total N lines
// spread evenly over --run-duration D (one every D/N, the first at once),
// then it exits 0, at D. Each line is klog's: "I", the date and time, the
// pid (1, agnhost being the container's init) and the source line, then
// "ID METHOD /api/v1/namespaces/NS/pods/NAME STATUS", the method, namespace,
// a pod name of 3 or 4 characters and a status between 200 and 599 drawn
// at random from a source seeded by Input.Seed. A missing or bad count or
// duration, which agnhost refuses with klog.Fatalf, or more than
// maxGeneratedLines lines, is not simulated.
// Kubernetes: test/images/agnhost/logs-generator.
func (sh *shell) logsGenerator(args []string) (int32, bool) {
	var total int
	var duration time.Duration
	for i := 0; i < len(args); i++ {
		name, value, inline := strings.Cut(strings.TrimLeft(args[i], "-"), "=")
		if !strings.HasPrefix(args[i], "-") {
			return 0, false
		}
		if !inline {
			if i+1 >= len(args) {
				return 0, false
			}
			i++
			value = args[i]
		}
		var err error
		switch name {
		case "log-lines-total", "t":
			total, err = strconv.Atoi(value)
		case "run-duration", "d":
			duration, err = time.ParseDuration(value)
		default:
			return 0, false
		}
		if err != nil {
			return 0, false
		}
	}
	if total <= 0 || total > maxGeneratedLines || duration <= 0 || duration > maxRun {
		return 0, false
	}
	rng := rand.New(rand.NewPCG(sh.in.Seed, 0x6c6f6773)) // "logs"
	delay := duration / time.Duration(total)
	sh.flush()
	start := sh.at
	for id := range total {
		sh.at = start + time.Duration(id)*delay
		sh.print(klogInfo(sh.in.Start.Add(sh.at), "logs_generator.go:76", logLine(rng, id)) + "\n")
	}
	sh.at = start + time.Duration(total)*delay
	return 0, true
}

// maxGeneratedLines is the most lines logs-generator is simulated to
// print: a run's output is worked out, and kept, before it starts.
const maxGeneratedLines = 100_000

// logLine is logs-generator's generateLogLine.
func logLine(rng *rand.Rand, id int) string {
	methods := []string{"GET", "POST", "PUT"}
	namespaces := []string{"kube-system", "default", "ns"}
	method := methods[rng.IntN(len(methods))]
	namespace := namespaces[rng.IntN(len(namespaces))]
	name := make([]byte, 3+rng.IntN(2))
	for i := range name {
		name[i] = alphanums[rng.IntN(len(alphanums))]
	}
	status := 200 + rng.IntN(400)
	return fmt.Sprintf("%d %s /api/v1/namespaces/%s/pods/%s %d", id, method, namespace, name, status)
}

// alphanums are the characters of apimachinery's rand.String: no vowels,
// nor the digits and letters easily confused.
const alphanums = "bcdfghjklmnpqrstvwxz2456789"

// klogInfo is msg as klog's Info writes it at t from the source line at:
// "Immdd hh:mm:ss.uuuuuu PID file:line] msg", the pid 1 padded to seven.
func klogInfo(t time.Time, at, msg string) string {
	t = t.UTC()
	return fmt.Sprintf("I%02d%02d %02d:%02d:%02d.%06d %7d %s] %s",
		int(t.Month()), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond()/1000, 1, at, msg)
}
