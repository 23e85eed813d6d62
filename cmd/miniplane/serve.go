package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/controllers/manager"
	"github.com/miniplane/miniplane/controllers/nodesim"
)

// runServe runs the control plane until SIGINT or SIGTERM, then shuts it
// down cleanly: watches end, the leader releases its lease.
func runServe(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("serve", stderr)
	addr := fs.String("addr", "127.0.0.1:8080", "address of the HTTP API; keep it on 127.0.0.1 unless other machines must reach it")
	instances := fs.Int("instances", 3, "controller-manager instances competing for the leader lease")
	token := fs.String("token", "", "bearer token every API request must carry (empty: no authentication)")
	seed := fs.Uint64("seed", 1, "seed for generated names and uids")
	verbose := fs.Bool("v", false, "log what every component does (structured, to stderr)")
	opts := manager.DefaultOptions()
	opts.AddFlags(fs)
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if err := opts.Validate(controllerNames()); err != nil {
		return usageError{err.Error()}
	}
	if opts.Nodes < 1 || opts.Nodes > nodesim.MaxNodes {
		return usageError{fmt.Sprintf("--nodes must be between 1 and %d, got %d", nodesim.MaxNodes, opts.Nodes)}
	}
	p, err := newPlane(planeConfig{
		Addr: *addr, Token: *token, Instances: *instances, Options: opts, Seed: *seed,
		Clock: clock.Real{}, Logger: newLogger(stderr, *verbose), ReleaseOnCancel: true,
	})
	if err != nil {
		return err
	}
	if err := p.listen(); err != nil {
		return err
	}
	ctx, stop := signalContext()
	defer stop()
	runErr := make(chan error, 1)
	go func() { runErr <- p.Run(ctx) }()

	fmt.Fprintf(stdout, "miniplane is serving the Kubernetes API on %s\n", p.URL())
	auth := ""
	if *token != "" {
		auth = " --token " + *token
	}
	fmt.Fprintf(stdout, "  kubectl --server %s%s get pods,rc,svc -A\n", p.URL(), auth)
	select {
	case <-p.Ready():
		fmt.Fprintf(stdout, "ready: %d nodes, %d controller-manager instances, leader %s (Ctrl-C stops)\n", opts.Nodes, *instances, p.leader())
	case err := <-runErr:
		return fmt.Errorf("serve: stopped before it was ready: %w", err)
	}
	err = <-runErr
	if ctx.Err() != nil && err == nil {
		fmt.Fprintln(stdout, "stopped: watches closed, lease released")
	}
	if errors.Is(err, context.Canceled) {
		err = nil
	}
	return err
}

// controllerNames are the controllers --controllers may name.
func controllerNames() []string {
	var names []string
	for _, d := range manager.DefaultDescriptors() {
		names = append(names, d.Name)
	}
	return names
}
