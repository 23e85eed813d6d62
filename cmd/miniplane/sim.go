package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/miniplane/miniplane/sim"
	"github.com/miniplane/miniplane/ui"
)

// errViolated is what runSim returns when an invariant failed; the report
// is printed already.
var errViolated = errors.New("an invariant was violated")

// simOptions are the flags of `miniplane sim`.
type simOptions struct {
	seed         uint64
	first, last  uint64 // --seeds A..B; last == 0: one run of seed
	duration     time.Duration
	faults       sim.FaultSet
	faultsText   string
	scenario     sim.Scenario
	tracePath    string
	traceDetail  sim.TraceDetail
	ui           bool
	uiAddr       string
	verbose      bool
	plantBug     bool
	instances    int
	parallel     int
	convergeWait time.Duration
}

func parseSimFlags(args []string, stderr io.Writer) (opts simOptions, help bool, err error) {
	fs := newFlagSet("sim", stderr)
	seed := fs.Uint64("seed", 1, "the seed: one seed, one trace")
	seeds := fs.String("seeds", "", "sweep the seeds `A..B` (inclusive) and report the violations")
	fs.DurationVar(&opts.duration, "duration", 10*time.Minute, "virtual time to run with faults, before converging")
	faults := fs.String("faults", "all", "faults to inject: all, none, or a comma-separated list of "+faultNames())
	scenario := fs.String("scenario", "default", "the scenario to run: "+scenarioNames())
	fs.StringVar(&opts.tracePath, "trace", "", "write the trace, JSON lines, to `FILE`")
	detail := fs.String("trace-detail", "folded", "how much the trace shows: folded (informers' pops and dispatches counted, not written) or full; the fingerprint is the sha256 of the full trace")
	fs.BoolVar(&opts.ui, "ui", false, "after the run, serve its trace in the browser (the URL is printed) until interrupted")
	fs.StringVar(&opts.uiAddr, "ui-addr", "127.0.0.1:0", "with --ui, the `ADDRESS` to serve on (port 0: a free one)")
	fs.IntVar(&opts.parallel, "parallel", runtime.GOMAXPROCS(0), "with --seeds, how many runs at once")
	fs.IntVar(&opts.instances, "instances", sim.DefaultInstances, "controller-manager instances electing a leader")
	fs.DurationVar(&opts.convergeWait, "converge-within", sim.DefaultConvergeWithin, "virtual time allowed to converge after the last fault")
	fs.BoolVar(&opts.verbose, "v", false, "log the components' debug output to stderr")
	fs.BoolVar(&opts.plantBug, "plant-bug", false, "run the replication controller without its expectations, a known bug, to see what a violation looks like")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `Usage: miniplane sim [flags]

Runs the control plane in the deterministic simulator: one goroutine, a
virtual clock, every step and fault drawn from the seed, invariants checked
at every step. The last line is
  seed=N steps=S virtual=D fingerprint=sha256:HEX invariants=ok
and the exit status is 0 when every invariant held, 1 otherwise.

Flags:
`)
		fs.PrintDefaults()
	}
	if help, err = parseFlags(fs, args); help || err != nil {
		return opts, help, err
	}
	opts.seed = *seed
	if opts.traceDetail, err = sim.ParseTraceDetail(*detail); err != nil {
		return opts, false, usageError{"--trace-detail: " + err.Error()}
	}
	if opts.duration <= 0 {
		return opts, false, usageError{fmt.Sprintf("--duration must be positive, not %v", opts.duration)}
	}
	if opts.instances < 1 || opts.instances > 16 {
		return opts, false, usageError{fmt.Sprintf("--instances must be between 1 and 16, not %d", opts.instances)}
	}
	if opts.parallel < 1 {
		return opts, false, usageError{fmt.Sprintf("--parallel must be at least 1, not %d", opts.parallel)}
	}
	if opts.convergeWait <= 0 {
		return opts, false, usageError{fmt.Sprintf("--converge-within must be positive, not %v", opts.convergeWait)}
	}
	if opts.faults, err = sim.ParseFaults(*faults); err != nil {
		return opts, false, usageError{"--faults: " + err.Error()}
	}
	opts.faultsText = opts.faults.String()
	if opts.scenario, err = sim.ScenarioByName(*scenario); err != nil {
		return opts, false, usageError{"--scenario: " + err.Error()}
	}
	if *seeds != "" {
		if opts.first, opts.last, err = parseSeedRange(*seeds); err != nil {
			return opts, false, usageError{"--seeds: " + err.Error()}
		}
		if opts.tracePath != "" {
			return opts, false, usageError{"--trace takes one run: use --seed with it, not --seeds"}
		}
		if opts.ui {
			return opts, false, usageError{"--ui takes one run: use --seed with it, not --seeds"}
		}
	}
	return opts, false, nil
}

func parseSeedRange(s string) (first, last uint64, err error) {
	a, b, ok := strings.Cut(s, "..")
	if !ok {
		return 0, 0, fmt.Errorf("want A..B, got %q", s)
	}
	if first, err = strconv.ParseUint(a, 10, 64); err != nil {
		return 0, 0, fmt.Errorf("bad first seed %q", a)
	}
	if last, err = strconv.ParseUint(b, 10, 64); err != nil {
		return 0, 0, fmt.Errorf("bad last seed %q", b)
	}
	if last < first {
		return 0, 0, fmt.Errorf("%d..%d is empty", first, last)
	}
	return first, last, nil
}

func faultNames() string {
	var names []string
	for _, f := range sim.AllFaults.List() {
		names = append(names, f.String())
	}
	return strings.Join(names, ", ")
}

func scenarioNames() string {
	var names []string
	for _, sc := range sim.Scenarios() {
		names = append(names, sc.Name)
	}
	return strings.Join(names, ", ")
}

// replayCommand is the command line that replays one seed.
func (o simOptions) replayCommand(seed uint64) string {
	cmd := fmt.Sprintf("miniplane sim --seed %d --duration %v --faults %s --scenario %s", seed, o.duration, o.faultsText, o.scenario.Name)
	if o.instances != sim.DefaultInstances {
		cmd += fmt.Sprintf(" --instances %d", o.instances)
	}
	if o.convergeWait != sim.DefaultConvergeWithin {
		cmd += fmt.Sprintf(" --converge-within %v", o.convergeWait)
	}
	if o.plantBug {
		cmd += " --plant-bug"
	}
	return cmd
}

func (o simOptions) config(seed uint64, stderr io.Writer) sim.Config {
	cfg := sim.Config{Seed: seed, Faults: o.faults, Instances: o.instances, ConvergeWithin: o.convergeWait, ReplicationWithoutExpectations: o.plantBug, TraceDetail: o.traceDetail}
	if o.verbose {
		cfg.Logger = newLogger(stderr, true)
	}
	return cfg
}

// runSim is `miniplane sim`.
func runSim(args []string, stdout, stderr io.Writer) error {
	opts, help, err := parseSimFlags(args, stderr)
	if help || err != nil {
		return err
	}
	ctx := context.Background()
	if opts.last != 0 || opts.first != 0 {
		return sweepSeeds(ctx, opts, stdout, stderr)
	}
	cfg := opts.config(opts.seed, stderr)
	var traceFile *os.File
	var traceCopy bytes.Buffer // for --ui
	var sinks []io.Writer
	if opts.tracePath != "" {
		if traceFile, err = os.Create(opts.tracePath); err != nil {
			return err
		}
		defer traceFile.Close()
		sinks = append(sinks, traceFile)
	}
	if opts.ui {
		sinks = append(sinks, &traceCopy)
	}
	if len(sinks) > 0 {
		cfg.Trace = io.MultiWriter(sinks...)
	}
	start := time.Now()
	res, err := sim.RunScenario(ctx, cfg, opts.scenario, opts.duration)
	if err != nil {
		return err
	}
	wall := time.Since(start)
	fmt.Fprintf(stdout, "scenario %s (%s)\ninstances %d, faults %s; %d steps in %v of wall time for %v of virtual time\n",
		opts.scenario.Name, opts.scenario.Description, opts.instances, opts.faultsText, res.Steps, wall.Round(time.Millisecond), res.Virtual.Round(time.Millisecond))
	if traceFile != nil {
		if err := traceFile.Close(); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "trace written to %s\n", opts.tracePath)
	}
	runErr := error(nil)
	if v := res.Violation; v != nil {
		v.Replay = opts.replayCommand(opts.seed)
		fmt.Fprint(stdout, v.Report())
		runErr = errViolated
	}
	fmt.Fprintln(stdout, res)
	if opts.ui {
		ctx, stop := signalContext()
		defer stop()
		if err := serveTrace(ctx, opts.uiAddr, traceCopy.Bytes(), stdout); err != nil {
			return err
		}
	}
	return runErr
}

// serveTrace serves the trace view of one run's trace on addr until ctx
// ends, after printing its URL.
func serveTrace(ctx context.Context, addr string, trace []byte, stdout io.Writer) error {
	h, err := ui.NewTraceHandler(trace)
	if err != nil {
		return fmt.Errorf("the run's trace: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/ui/", h)
	mux.Handle("/{$}", http.RedirectHandler(ui.TracePage, http.StatusFound))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	fmt.Fprintf(stdout, "trace view: http://%s%s (Ctrl-C stops)\n", ln.Addr(), ui.TracePage)
	select {
	case err = <-served:
		return err
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return err
	}
	<-served
	return nil
}

// sweepSeeds runs every seed of the range, opts.parallel at a time (each
// run is one goroutine and shares nothing), and reports the violations in
// seed order.
func sweepSeeds(ctx context.Context, opts simOptions, stdout, stderr io.Writer) error {
	start := time.Now()
	n := opts.last - opts.first + 1
	results := make([]sim.Result, n)
	errs := make([]error, n)
	next := make(chan uint64)
	var wg sync.WaitGroup
	for range min(uint64(opts.parallel), n) {
		wg.Go(func() {
			for i := range next {
				results[i], errs[i] = sim.RunScenario(ctx, opts.config(opts.first+i, stderr), opts.scenario, opts.duration)
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()

	var violations, steps int
	var virtual time.Duration
	for i, res := range results {
		seed := opts.first + uint64(i)
		if errs[i] != nil {
			return fmt.Errorf("seed %d: %w", seed, errs[i])
		}
		steps += res.Steps
		virtual += res.Virtual
		if v := res.Violation; v != nil {
			violations++
			v.Replay = opts.replayCommand(seed)
			fmt.Fprint(stdout, v.Report())
		}
	}
	wall := time.Since(start)
	fmt.Fprintf(stdout, "seeds=%d..%d runs=%d violations=%d steps=%d virtual=%v wall=%v\n",
		opts.first, opts.last, n, violations, steps, virtual.Round(time.Second), wall.Round(time.Millisecond))
	if violations > 0 {
		return errViolated
	}
	return nil
}
