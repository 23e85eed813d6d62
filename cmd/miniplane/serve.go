package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

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
	token := fs.String("token", "", "bearer token every API request must carry; with one, the API is served over HTTPS with a certificate made at start (empty: plain http, no authentication)")
	kubeconfigPath := fs.String("kubeconfig", "", "where to write a kubeconfig for kubectl (default: a file in a new temporary directory, removed at exit)")
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
	var serving *servingTLS
	if *token != "" {
		var err error
		if serving, err = newServingTLS(*addr, time.Now()); err != nil {
			return err
		}
	}
	cfg := planeConfig{
		Addr: *addr, Token: *token, Instances: *instances, Options: opts, Seed: *seed,
		Clock: clock.Real{}, Logger: newLogger(stderr, *verbose), ReleaseOnCancel: true,
	}
	if serving != nil {
		cfg.TLS = serving.config
	}
	p, err := newPlane(cfg)
	if err != nil {
		return err
	}
	if err := p.listen(); err != nil {
		return err
	}
	kcPath, removeKubeconfig, err := writeServeKubeconfig(*kubeconfigPath, p.URL(), serving, *token)
	if err != nil {
		_ = p.ln.Close()
		return err
	}
	defer removeKubeconfig()
	ctx, stop := signalContext()
	defer stop()
	runErr := make(chan error, 1)
	go func() { runErr <- p.Run(ctx) }()

	fmt.Fprintf(stdout, "miniplane is serving the Kubernetes API on %s\n", p.URL())
	fmt.Fprintf(stdout, "  export KUBECONFIG=%s\n  kubectl get pods,rc,svc -A\n", shellQuote(kcPath))
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

// writeServeKubeconfig writes the kubeconfig serve prints: the server's URL,
// the CA to trust when it serves HTTPS, and the token.
func writeServeKubeconfig(path, url string, serving *servingTLS, token string) (string, func(), error) {
	var caPEM []byte
	if serving != nil {
		caPEM = serving.caPEM
	}
	return writeKubeconfig(path, kubeconfig(url, caPEM, token))
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+=:,@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// controllerNames are the controllers --controllers may name.
func controllerNames() []string {
	var names []string
	for _, d := range manager.DefaultDescriptors() {
		names = append(names, d.Name)
	}
	return names
}
