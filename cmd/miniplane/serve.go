package main

import (
	"cmp"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/apiserver/faults"
	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/controllers/manager"
	"github.com/miniplane/miniplane/controllers/nodesim"
	"github.com/miniplane/miniplane/plane"
)

// runServe runs the control plane until SIGINT or SIGTERM, then shuts it
// down cleanly: watches end, the leader releases its lease. A signal before
// the plane is ready is a clean stop too.
//
// --controllers switches kube-controller-manager's controllers off as the
// real one does ("-replicationcontroller,-endpoint,-garbagecollector"):
// with all of them off no controller-manager instance runs, and serve is
// the API server and the simulated nodes only, ready as soon as they are,
// for a real kube-controller-manager to drive (interop/realk8s).
func runServe(args []string, stdout, stderr io.Writer) (err error) {
	fs := newFlagSet("serve", stderr)
	addr := fs.String("addr", "127.0.0.1:8080", "address of the HTTP API; keep it on 127.0.0.1 unless other machines must reach it")
	instances := fs.Int("instances", 3, "controller-manager instances competing for the leader lease (none runs when --controllers switches every controller off)")
	allowRemote := fs.Bool("insecure-allow-unauthenticated-remote", false, "with no --token, serve on an --addr other machines can reach anyway: anyone who reaches it may do anything")
	token := fs.String("token", "", "bearer token every API request must carry; with one, the API is served over HTTPS with a certificate made at start (empty: plain http, no authentication)")
	authzMode := fs.String("authorization-mode", "AlwaysAllow", "AlwaysAllow: every request is allowed; RBAC: requests are checked against Roles, ClusterRoles and their bindings, and need --token (its user is in system:masters)")
	kubeconfigPath := fs.String("kubeconfig", "", "where to write a kubeconfig for kubectl (default: a file in a new temporary directory, removed at exit)")
	seed := fs.Uint64("seed", 1, "seed for generated names and uids, and for the injected faults")
	faultList := fs.String("faults", "none", "API-layer faults to inject, drawn from --seed: all, none, or a comma-separated list of "+faults.All.String())
	faultRate := fs.Float64("fault-rate", faults.DefaultRate, "with --faults, the chance of each one striking a request it applies to, in (0, 1]")
	faultTrace := fs.String("fault-trace", "", "with --faults, write every request and fault as one JSON line to `FILE`")
	verbose := fs.Bool("v", false, "log what every component does (structured, to stderr)")
	var crds []string
	fs.Func("crds", "install the CustomResourceDefinitions of `PATH`, a file or a directory of .yaml, .yml and .json files (as envtest's CRDDirectoryPaths), before serving; repeat for more", func(path string) error {
		crds = append(crds, path)
		return nil
	})
	compaction := fs.Duration("etcd-compaction-interval", 5*time.Minute, "how often the store is compacted, at the revision it had one interval before (kube-apiserver's flag and default; the in-memory store too): older resourceVersions then answer 410 Gone; 0: never, keeping the whole history window for the page's time travel (etcd is then compacted every 5m)")
	etcdServers := fs.String("etcd-servers", "", "comma-separated etcd members (`URL[,URL]`) to keep the objects in, as kube-apiserver's flag; empty: in memory, lost at exit")
	var etcdFiles etcdTLSFiles
	fs.StringVar(&etcdFiles.ca, "etcd-cafile", "", "SSL Certificate Authority `file` used to secure etcd communication (kube-apiserver's flag)")
	fs.StringVar(&etcdFiles.cert, "etcd-certfile", "", "SSL certification `file` used to secure etcd communication (kube-apiserver's flag)")
	fs.StringVar(&etcdFiles.key, "etcd-keyfile", "", "SSL key `file` used to secure etcd communication (kube-apiserver's flag)")
	nodePortRange := fs.String("service-node-port-range", "30000-32767", "the `A-B` (or A+N) port range NodePort and LoadBalancer services' node ports come from, as kube-apiserver's flag")
	cpuProfile := fs.String("cpuprofile", "", "profile serve's CPU from start to shutdown and write the profile (pprof format) to `FILE` on shutdown")
	opts := manager.DefaultOptions()
	opts.AddFlags(fs)
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if err := opts.Validate(plane.ControllerNames()); err != nil {
		return usageError{err.Error()}
	}
	portRange, err := apiserver.ParsePortRange(*nodePortRange)
	switch {
	case err != nil:
		return usageError{fmt.Sprintf("invalid argument %q for --service-node-port-range: %v", *nodePortRange, err)}
	case portRange.Size == 0:
		return usageError{"--service-node-port-range must not be empty"}
	}
	if *instances < 1 {
		return usageError{fmt.Sprintf("--instances must be at least 1, got %d", *instances)}
	}
	if !opts.LeaderElection.LeaderElect && *instances > 1 {
		return usageError{"--leader-elect=false runs the controllers unguarded: use --instances=1"}
	}
	if opts.Nodes > nodesim.MaxNodes {
		return usageError{fmt.Sprintf("--nodes must be between 0 and %d, got %d", nodesim.MaxNodes, opts.Nodes)}
	}
	switch *authzMode {
	case "AlwaysAllow", "RBAC":
	default:
		return usageError{fmt.Sprintf("--authorization-mode must be AlwaysAllow or RBAC, got %q", *authzMode)}
	}
	if *authzMode == "RBAC" && *token == "" {
		return usageError{"--authorization-mode=RBAC needs --token: without one every request is system:anonymous, whom RBAC allows almost nothing"}
	}
	if err := checkExposure(*addr, *token, *allowRemote); err != nil {
		return usageError{err.Error()}
	}
	var injected faults.Set
	injected, err = faults.Parse(*faultList)
	if err != nil {
		return usageError{"--faults: " + err.Error()}
	}
	if *faultRate <= 0 || *faultRate > 1 {
		return usageError{fmt.Sprintf("--fault-rate must be in (0, 1], got %v", *faultRate)}
	}
	if *cpuProfile != "" {
		stopProfile, err := startCPUProfile(*cpuProfile)
		if err != nil {
			return err
		}
		defer func() { err = errors.Join(err, stopProfile()) }()
	}
	var serving *servingTLS
	if *token != "" {
		var err error
		if serving, err = newServingTLS(*addr, time.Now()); err != nil {
			return err
		}
	}
	cfg := plane.Config{
		Listen: *addr, Token: *token, Instances: *instances, Options: &opts, Seed: *seed,
		Clock: clock.Real{}, Logger: newLogger(stderr, *verbose), ReleaseOnCancel: true,
		Faults: injected, FaultRate: *faultRate, CRDs: crds, RBAC: *authzMode == "RBAC",
		CompactEvery: *compaction, ServiceNodePortRange: portRange,
	}
	if cfg.EtcdTLS, err = etcdFiles.config(*etcdServers != ""); err != nil {
		return err
	}
	if *etcdServers != "" {
		cfg.EtcdServers = strings.Split(*etcdServers, ",")
		// Other serve processes may share the etcd and its Lease.
		host, _ := os.Hostname()
		cfg.Identity = fmt.Sprintf("%s-%d", host, os.Getpid())
	}
	if *faultTrace != "" && injected != 0 {
		f, err := os.Create(*faultTrace)
		if err != nil {
			return err
		}
		defer f.Close()
		cfg.FaultTrace = f
	}
	if serving != nil {
		cfg.TLS, cfg.CAPEM = serving.config, serving.caPEM
	}
	if cfg.ServiceAccountKey, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader); err != nil {
		return err
	}
	p, err := plane.New(cfg)
	if err != nil {
		return err
	}
	page, err := mountUI(p, *token)
	if err != nil {
		return err
	}
	if err := p.Listen(); err != nil {
		return err
	}
	kcPath, removeKubeconfig, err := writeKubeconfig(*kubeconfigPath, append([]byte(kubeconfigMarker), p.Kubeconfig()...))
	if err != nil {
		runStopped(p) // closes the listener
		return err
	}
	defer removeKubeconfig()
	ctx, stop := signalContext()
	defer stop()
	runErr := make(chan error, 1)
	go func() { runErr <- runPlane(ctx, p, page) }()

	fmt.Fprintf(stdout, "miniplane is serving the Kubernetes API on %s\n", p.URL())
	if injected != 0 {
		fmt.Fprintf(stdout, "  injecting API faults %s at rate %v, drawn from seed %d\n", injected, *faultRate, *seed)
	}
	fmt.Fprintf(stdout, "  export KUBECONFIG=%s\n  kubectl get pods,rc,svc -A\n", shellQuote(kcPath))
	if u := uiURL(p, page); u != "" {
		fmt.Fprintf(stdout, "  open %s\n", u)
	}
	select {
	case <-p.Ready():
		fmt.Fprintf(stdout, "ready: %s (Ctrl-C stops)\n", describe(p))
		err = <-runErr
	case err = <-runErr:
		if ctx.Err() == nil {
			// Run ends early only when a part of the plane failed.
			return fmt.Errorf("serve: stopped before it was ready: %w", cmp.Or(err, errors.New("the control plane ended")))
		}
		fmt.Fprintln(stdout, "stopped before it was ready")
	}
	if ctx.Err() != nil && err == nil {
		fmt.Fprintln(stdout, "stopped: "+stoppedWhat(p))
	}
	if errors.Is(err, context.Canceled) {
		err = nil
	}
	return err
}

// checkExposure refuses to serve without authentication on an address
// other machines can reach (any but a loopback IP or "localhost"), unless
// allowRemote says it is meant: kube-apiserver removed its insecure port
// (--insecure-port, gone in v1.20) because an unauthenticated API on a
// reachable address hands the cluster, and every secret in it, to anyone
// on the network.
func checkExposure(addr, token string, allowRemote bool) error {
	if token != "" || allowRemote {
		return nil
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--addr %q: %v", addr, err)
	}
	if ip, err := netip.ParseAddr(host); err == nil && ip.IsLoopback() || host == "localhost" {
		return nil
	}
	return fmt.Errorf("--addr %s can be reached from other machines, and without --token anyone who reaches it may do anything "+
		"(kube-apiserver removed its unauthenticated insecure port for this reason): set --token, listen on 127.0.0.1, "+
		"or pass --insecure-allow-unauthenticated-remote if that is really meant", addr)
}

// runStopped runs p with a context already ended, so that it releases
// what Listen bound and starts nothing that lasts.
func runStopped(p *plane.Plane) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_ = p.Run(ctx)
}

// startCPUProfile creates path and profiles the process's CPU into it until
// the returned function is called; that function stops the profile and
// closes the file, and says if either failed.
func startCPUProfile(path string) (stop func() error, err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	return func() error {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			return fmt.Errorf("--cpuprofile: %w", err)
		}
		return nil
	}, nil
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+=:,@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// describe says what the plane runs, for serve's ready line.
func describe(p *plane.Plane) string {
	opts := p.Options()
	nodes := fmt.Sprintf("%d nodes", opts.Nodes)
	if len(p.Instances()) == 0 {
		return nodes + ", no controller-manager instance (every controller is off)"
	}
	leader := "unelected"
	if opts.LeaderElection.LeaderElect {
		leader = "leader " + p.Leader()
	}
	return fmt.Sprintf("%s, %d controller-manager instances, %s", nodes, len(p.Instances()), leader)
}

// stoppedWhat says what a clean stop has done.
func stoppedWhat(p *plane.Plane) string {
	if len(p.Instances()) == 0 || !p.Options().LeaderElection.LeaderElect {
		return "watches closed"
	}
	return "watches closed, lease released"
}
