package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/controllers/manager"
	"github.com/miniplane/miniplane/controllers/nodesim"
	"github.com/miniplane/miniplane/election"
	"github.com/miniplane/miniplane/plane"
)

// demoElection is fast leader election, so that the failover chapter takes
// seconds: a lease of 2s, a renew deadline of 1s (the dead leader's guard
// closes a full second before anyone may take over), a retry every 0.5s.
var demoElection = manager.LeaderElectionOptions{
	LeaderElect: true, LeaseDuration: 2 * time.Second, RenewDeadline: time.Second, RetryPeriod: 500 * time.Millisecond,
	ResourceName: election.DefaultName, ResourceNamespace: election.DefaultNamespace,
}

// runDemo starts a whole control plane in this process and tells the story
// of the control loop as it happens.
func runDemo(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("demo", stderr)
	var o demoOptions
	fs.Float64Var(&o.pace, "pace", 1, "how slowly the story is told: 2 is twice as slow, 0.5 twice as fast, 0 as fast as the control plane goes")
	fs.Uint64Var(&o.seed, "seed", 1, "seed for generated names and uids: the same seed names the same pods")
	fs.BoolVar(&o.keep, "keep-running", false, "keep serving after the story, and print the kubectl command to connect (stop with Ctrl-C)")
	fs.BoolVar(&o.verbose, "v", false, "log what every component does (structured, to stderr)")
	colour := fs.String("color", "auto", "colour the narration: auto (only on a terminal), always or never")
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if o.pace < 0 || o.pace > 20 {
		return usageError{fmt.Sprintf("--pace must be between 0 and 20, got %v", o.pace)}
	}
	var err error
	if o.colour, err = wantColour(*colour, stdout); err != nil {
		return err
	}
	ctx, stop := signalContext()
	defer stop()
	return demo(ctx, o, stdout, stderr)
}

// demoOptions are the demo's flags, and a seam for tests.
type demoOptions struct {
	pace          float64
	seed          uint64
	keep, verbose bool
	colour        bool
	// inspect, if set, runs once the story is told, before the control
	// plane stops: tests read what the components wrote.
	inspect func(p *plane.Plane)
}

// demo runs the demo until the story ends (or, with keep, until ctx does).
func demo(ctx context.Context, o demoOptions, stdout, stderr io.Writer) error {
	opts := manager.DefaultOptions()
	opts.Nodes = 5
	opts.LeaderElection = demoElection
	step := func(d time.Duration) time.Duration {
		if o.pace == 0 {
			return -1 // nodesim: no delay at all
		}
		return time.Duration(float64(d) * o.pace)
	}
	clk := clock.Real{}
	p, err := plane.New(plane.Config{
		Listen: "127.0.0.1:0", Instances: 3, Options: &opts, Seed: o.seed, Clock: clk,
		Logger: newLogger(stderr, o.verbose),
		NodeSim: nodesim.Config{
			StartDelay: step(500 * time.Millisecond), ReadyDelay: step(700 * time.Millisecond),
			TerminationDelay: step(300 * time.Millisecond), EvictionTimeout: max(step(2*time.Second), time.Millisecond),
		},
	})
	if err != nil {
		return err
	}
	page, err := mountUI(p, "")
	if err != nil {
		return err
	}
	if err := p.Listen(); err != nil {
		return err
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	start := clk.Now()
	n := newNarrator(stdout, o.colour, start)
	rv, err := currentRV(ctx, p.Server()) // before anything runs: the narrator sees every write
	if err != nil {
		runStopped(p) // closes the listener
		return err
	}
	narrated := make(chan error, 1)
	go func() { narrated <- n.Run(ctx, p.Server(), clk.Now, rv) }()
	runErr := make(chan error, 1)
	go func() { runErr <- runPlane(ctx, p, page) }()

	s := &story{p: p, n: n, c: p.Server(), pace: o.pace, wait: 30 * time.Second}
	s.chapter("miniplane demo: the Kubernetes control loop, narrated")
	s.plain("One process: an API server on %s, 3 controller-manager instances,", p.URL())
	s.plain("%d simulated nodes; started at %s UTC. Every line below is something", opts.Nodes, start.UTC().Format("15:04:05.0"))
	s.plain("one of them did, or you did, in the order the store recorded it.")

	storyErr := s.run(ctx)
	if storyErr == nil {
		storyErr = s.summary(ctx, clk.Since(start))
	}
	if storyErr == nil && o.inspect != nil {
		o.inspect(p)
	}
	if storyErr == nil && o.keep {
		s.chapter("Still serving. Try:")
		s.plain("kubectl --server %s get pods,rc,svc,endpoints -o wide", p.URL())
		s.plain("kubectl --server %s get lease -n kube-system", p.URL())
		s.plain("kubectl --server %s rollout history deployment shop", p.URL())
		if u := uiURL(p, page); u != "" {
			s.plain("open %s", u)
		}
		s.plain("Stop with Ctrl-C.")
		<-ctx.Done()
	}
	cancel()
	err = errors.Join(storyErr, <-runErr)
	if nerr := <-narrated; nerr != nil && storyErr == nil {
		err = errors.Join(err, nerr)
	}
	return err
}

// currentRV is the store's revision now: the narrator watches from there.
func currentRV(ctx context.Context, srv *apiserver.Server) (string, error) {
	l, err := srv.List(ctx, client.Namespaces, "", client.ListOptions{})
	if err != nil {
		return "", err
	}
	return l.Metadata.ResourceVersion, nil
}

// wantColour decides whether to colour output: "auto" colours a terminal
// only, and never when NO_COLOR is set or TERM is dumb.
func wantColour(mode string, out io.Writer) (bool, error) {
	switch mode {
	case "always":
		return true, nil
	case "never":
		return false, nil
	case "auto":
	default:
		return false, usageError{fmt.Sprintf("--color must be auto, always or never, got %q", mode)}
	}
	if os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb" {
		return false, nil
	}
	f, ok := out.(*os.File)
	if !ok {
		return false, nil
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0, nil
}
