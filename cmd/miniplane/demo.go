package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/controllers/manager"
	"github.com/miniplane/miniplane/controllers/nodelifecycle"
	"github.com/miniplane/miniplane/controllers/nodesim"
	"github.com/miniplane/miniplane/election"
	"github.com/miniplane/miniplane/plane"
	"github.com/miniplane/miniplane/ui"
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
	etcd := fs.String("etcd", "", "comma-separated members (`URL[,URL]`) of an empty etcd to keep the objects in; the story then restarts the control plane mid-way")
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
	if *etcd != "" {
		o.etcd = strings.Split(*etcd, ",")
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
	// etcd, when set, are the members of the etcd the objects are kept
	// in, across the restart the story then tells.
	etcd []string
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
	cfg := plane.Config{
		Listen: "127.0.0.1:0", Instances: 3, Options: &opts, Seed: o.seed, Clock: clk,
		Logger: newLogger(stderr, o.verbose),
		NodeSim: nodesim.Config{
			StartDelay: step(500 * time.Millisecond), ReadyDelay: step(700 * time.Millisecond),
			TerminationDelay: step(300 * time.Millisecond),
		},
		NodeLifecycle: nodelifecycle.Config{
			// At least 100 ms even with no pace: the scheduler learns that the
			// node is down from its node cache, as kube-scheduler does, and a
			// replacement created a millisecond after the plug is pulled
			// could be bound there before the cache has the news.
			EvictionTimeout: max(step(2*time.Second), 100*time.Millisecond),
		},
	}
	if len(o.etcd) > 0 {
		// The restarted process's instances take the Lease the first
		// one's released, and are told apart from them by name.
		cfg.EtcdServers, cfg.ReleaseOnCancel, cfg.Identity = o.etcd, true, "serve-1"
	}
	p, err := plane.New(cfg)
	if err != nil {
		return err
	}
	if len(o.etcd) > 0 {
		if err := refuseUsedEtcd(ctx, p, o.etcd); err != nil {
			runStopped(p)
			return err
		}
	}
	rv, err := currentRV(ctx, p.Server()) // before anything runs: the narrator sees every write
	if err != nil {
		runStopped(p)
		return err
	}
	start := clk.Now()
	n := newNarrator(stdout, o.colour, start)
	proc, err := startProcess(ctx, p, n, rv)
	if err != nil {
		return err
	}
	// stopped collects what each process's run returned.
	var stopped []error
	defer func() { proc.stop() }()

	s := &story{p: p, n: n, c: p.Server(), pace: o.pace, wait: 30 * time.Second}
	s.chapter("miniplane demo: the Kubernetes control loop, narrated")
	s.plain("One process: an API server on %s, 3 controller-manager instances,", p.URL())
	s.plain("%d simulated nodes; started at %s UTC. Every line below is something", opts.Nodes, start.UTC().Format("15:04:05.0"))
	s.plain("one of them did, or you did, in the order the store recorded it.")
	if len(o.etcd) > 0 {
		s.plain("The objects are kept in etcd (%s), not in the process's memory.", strings.Join(o.etcd, ","))
		s.restart = func(ctx context.Context) (int64, error) {
			told := proc.stop()
			stopped = append(stopped, proc.runErr, proc.toldErr)
			cfg.Identity = "serve-2"
			next, err := plane.New(cfg)
			if err != nil {
				return 0, err
			}
			// The narration goes on from the revision it reached, which
			// the stopped process handed out; held until the story has
			// told the restart.
			n.hold()
			if proc, err = startProcess(ctx, next, n, strconv.FormatInt(told, 10)); err != nil {
				n.unhold()
				return 0, err
			}
			s.p, s.c = next, next.Server()
			return told, nil
		}
	}

	storyErr := s.run(ctx)
	if storyErr == nil {
		storyErr = s.summary(ctx, clk.Since(start))
	}
	if storyErr == nil && o.inspect != nil {
		o.inspect(s.p)
	}
	if storyErr == nil && o.keep {
		s.chapter("Still serving. Try:")
		s.plain("kubectl --server %s get pods,rc,svc,endpoints -o wide", s.p.URL())
		s.plain("kubectl --server %s get lease -n kube-system", s.p.URL())
		s.plain("kubectl --server %s rollout history deployment shop", s.p.URL())
		if u := uiURL(s.p, proc.page); u != "" {
			s.plain("open %s", u)
		}
		s.plain("Stop with Ctrl-C.")
		<-ctx.Done()
	}
	proc.stop()
	err = errors.Join(append(stopped, storyErr, proc.runErr)...)
	if proc.toldErr != nil && storyErr == nil {
		err = errors.Join(err, proc.toldErr)
	}
	return err
}

// demoProcess is one run of the control plane, as one `serve` process is:
// the plane and its page, and the narrator watching its API server.
type demoProcess struct {
	page   *ui.Handler
	cancel context.CancelFunc
	n      *narrator
	ran    chan error
	told   chan error
	// runErr and toldErr are what the run and the narration returned,
	// once stop has.
	runErr, toldErr error
	stopped         bool
}

// startProcess serves p and narrates its writes after revision rv.
func startProcess(ctx context.Context, p *plane.Plane, n *narrator, rv string) (*demoProcess, error) {
	page, err := mountUI(p, "")
	if err != nil {
		runStopped(p)
		return nil, err
	}
	if err := p.Listen(); err != nil {
		runStopped(p)
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	d := &demoProcess{page: page, cancel: cancel, n: n, ran: make(chan error, 1), told: make(chan error, 1)}
	go func() { d.told <- n.Run(ctx, p.Server(), p.Clock().Now, rv) }()
	go func() { d.ran <- runPlane(ctx, p, page) }()
	return d, nil
}

// stop stops the process and its narration, and returns the revision the
// narrator has told through. A second stop does nothing.
func (d *demoProcess) stop() int64 {
	if !d.stopped {
		d.stopped = true
		d.cancel()
		d.runErr, d.toldErr = <-d.ran, <-d.told
	}
	return d.n.toldThrough()
}

// refuseUsedEtcd fails when the etcd already holds a story's objects: the
// demo tells what happens to an empty cluster.
func refuseUsedEtcd(ctx context.Context, p *plane.Plane, members []string) error {
	for _, res := range []string{client.Pods, client.ReplicationControllers, "deployments"} {
		l, err := p.Server().List(ctx, res, "", client.ListOptions{Limit: 1})
		if err != nil {
			return err
		}
		if len(l.Items) > 0 {
			m := l.Items[0].GetObjectMeta()
			return fmt.Errorf("demo: the etcd at %s already holds %s %s/%s: give the demo an empty etcd", strings.Join(members, ","), res, m.Namespace, m.Name)
		}
	}
	return nil
}

// storedObjects lists every object srv serves, each once, by
// "resource namespace/name", with its resourceVersion: at revision rv
// exactly, or now when rv is "".
func storedObjects(ctx context.Context, srv *apiserver.Server, rv string) (map[string]string, string, error) {
	opts := client.ListOptions{}
	if rv != "" {
		opts = client.ListOptions{ResourceVersion: rv, ResourceVersionMatch: client.MatchExact}
	}
	out := map[string]string{}
	for _, res := range srv.Resources() {
		if res.StoredAs != "" {
			continue // the same objects as another version's
		}
		l, err := srv.List(ctx, res.Name(), "", opts)
		if err != nil {
			return nil, "", err
		}
		// Every list reads at one revision: the first's.
		opts = client.ListOptions{ResourceVersion: l.Metadata.ResourceVersion, ResourceVersionMatch: client.MatchExact}
		for _, o := range l.Items {
			m := o.GetObjectMeta()
			out[res.Name()+" "+m.Namespace+"/"+m.Name] = m.ResourceVersion
		}
	}
	return out, opts.ResourceVersion, nil
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
