// Command createbench measures an API server's create path the way a
// controller sees it: client-go creates pods from several workers with no
// client-side rate limit while a shared informer watches the same pods. It
// is what bench-create.sh runs against kube-apiserver+etcd and against
// `miniplane serve`; it works against any Kubernetes API server.
//
//	createbench --kubeconfig=FILE --content-type=json|protobuf \
//	    --pods=10000 --workers=8 [--server-pids=PID,PID]
//
// It prints one line of key=value figures (see result.String): the
// creates per second, the time until the informer had seen every pod, the
// time of a LIST of them all, and, with --server-pids, the CPU time those
// processes spent during the creates (utime+stime from /proc/PID/stat) per
// create. It exits non-zero if any create fails or the informer misses a pod.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "createbench:", err)
		os.Exit(1)
	}
}

// options are createbench's flags.
type options struct {
	kubeconfig  string
	contentType string // "json" or "protobuf"
	namespace   string
	pods        int
	workers     int
	lists       int
	serverPIDs  []int
	clkTck      int
	timeout     time.Duration
}

func parseOptions(args []string) (options, error) {
	var o options
	fs := flag.NewFlagSet("createbench", flag.ContinueOnError)
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "kubeconfig of the API server to measure (required)")
	fs.StringVar(&o.contentType, "content-type", "protobuf", "what the client sends and asks for: json (application/json) or protobuf (client-go's default for built-in kinds)")
	fs.StringVar(&o.namespace, "namespace", "createbench", "namespace to create the pods in; created if missing, and must hold no pod named like ours")
	fs.IntVar(&o.pods, "pods", 10000, "pods to create")
	fs.IntVar(&o.workers, "workers", 8, "goroutines creating pods at once")
	fs.IntVar(&o.lists, "lists", 3, "LISTs of every pod to time after the creates (the median is reported)")
	pids := fs.String("server-pids", "", "comma-separated pids of the server's processes, whose CPU time during the creates is reported")
	fs.IntVar(&o.clkTck, "clk-tck", 100, "the kernel's clock ticks per second (getconf CLK_TCK), the unit of /proc/PID/stat's times")
	fs.DurationVar(&o.timeout, "timeout", 10*time.Minute, "give up after this long")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	switch {
	case fs.NArg() != 0:
		return o, fmt.Errorf("unexpected arguments %q", fs.Args())
	case o.kubeconfig == "":
		return o, errors.New("--kubeconfig is required")
	case o.contentType != "json" && o.contentType != "protobuf":
		return o, fmt.Errorf("--content-type must be json or protobuf, got %q", o.contentType)
	case o.pods < 1 || o.workers < 1 || o.lists < 1:
		return o, fmt.Errorf("--pods, --workers and --lists must be at least 1, got %d, %d and %d", o.pods, o.workers, o.lists)
	case o.clkTck < 1:
		return o, fmt.Errorf("--clk-tck must be positive, got %d", o.clkTck)
	}
	for _, f := range strings.Split(*pids, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		pid, err := strconv.Atoi(f)
		if err != nil || pid < 1 {
			return o, fmt.Errorf("--server-pids: %q is not a pid", f)
		}
		o.serverPIDs = append(o.serverPIDs, pid)
	}
	return o, nil
}

// result is what one run measured.
type result struct {
	contentType   string
	pods          int
	createTime    time.Duration // first create sent to last create answered
	informerTime  time.Duration // first create sent to the informer holding every pod
	listTime      time.Duration // median LIST of every pod
	listed        int           // pods the last LIST returned
	serverCPU     time.Duration // the server processes' CPU time during the creates
	haveServerCPU bool
	clientCPU     time.Duration // this process's CPU time during the creates (client-go and its informer)
	p50, p99      time.Duration // per-create latency
}

func (r result) String() string {
	s := fmt.Sprintf("content_type=%s pods=%d create_s=%.2f creates_per_s=%.0f create_p50_ms=%.2f create_p99_ms=%.2f informer_synced_s=%.2f list_ms=%.1f listed=%d",
		r.contentType, r.pods, r.createTime.Seconds(), float64(r.pods)/r.createTime.Seconds(),
		ms(r.p50), ms(r.p99), r.informerTime.Seconds(), ms(r.listTime), r.listed)
	if r.haveServerCPU {
		s += fmt.Sprintf(" server_cpu_s=%.2f server_cpu_us_per_create=%.0f",
			r.serverCPU.Seconds(), float64(r.serverCPU.Microseconds())/float64(r.pods))
	}
	s += fmt.Sprintf(" client_cpu_s=%.2f client_cpu_us_per_create=%.0f",
		r.clientCPU.Seconds(), float64(r.clientCPU.Microseconds())/float64(r.pods))
	return s
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func run(ctx context.Context, args []string) error {
	o, err := parseOptions(args)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	cfg, err := clientcmd.BuildConfigFromFlags("", o.kubeconfig)
	if err != nil {
		return err
	}
	// No client-side rate limit: QPS < 0 turns client-go's token bucket off.
	cfg.QPS, cfg.Burst = -1, 0
	if o.contentType == "json" {
		cfg.ContentType = "application/json"
		cfg.AcceptContentTypes = "application/json"
	}
	// Else client-go's typed clientset's default: protobuf for built-in kinds.
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	if err := ensureNamespace(ctx, cs, o.namespace); err != nil {
		return err
	}

	// The informer watches the namespace's pods, as a controller would.
	var seen atomic.Int64
	allSeen := make(chan struct{})
	factory := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace(o.namespace))
	inf := factory.Core().V1().Pods().Informer()
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(any) {
			if seen.Add(1) == int64(o.pods) {
				close(allSeen)
			}
		},
	}); err != nil {
		return err
	}
	factory.Start(ctx.Done())
	// Shutdown waits for the informer's goroutines, which end once ctx does.
	defer func() { cancel(); factory.Shutdown() }()
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		return errors.New("the pod informer did not sync")
	}
	if n := seen.Load(); n != 0 {
		return fmt.Errorf("namespace %s already holds %d pods: use a fresh one", o.namespace, n)
	}

	res := result{contentType: o.contentType, pods: o.pods}
	cpu0, err := cpuOf(o.serverPIDs, o.clkTck)
	if err != nil {
		return err
	}
	client0, err := selfCPU()
	if err != nil {
		return err
	}
	latencies := make([]time.Duration, o.pods)
	next := atomic.Int64{}
	errs := make(chan error, o.workers)
	var wg sync.WaitGroup
	start := time.Now()
	for range o.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= o.pods || ctx.Err() != nil {
					return
				}
				t := time.Now()
				if _, err := cs.CoreV1().Pods(o.namespace).Create(ctx, newPod(i), metav1.CreateOptions{}); err != nil {
					errs <- fmt.Errorf("create pod %d: %w", i, err)
					cancel()
					return
				}
				latencies[i] = time.Since(t)
			}
		}()
	}
	wg.Wait()
	res.createTime = time.Since(start)
	client1, err := selfCPU()
	if err != nil {
		return err
	}
	res.clientCPU = client1 - client0
	cpu1, err := cpuOf(o.serverPIDs, o.clkTck)
	if err != nil {
		return err
	}
	close(errs)
	if err := <-errs; err != nil {
		return err
	}
	if len(o.serverPIDs) > 0 {
		res.serverCPU, res.haveServerCPU = cpu1-cpu0, true
	}
	select {
	case <-allSeen:
		res.informerTime = time.Since(start)
	case <-ctx.Done():
		return fmt.Errorf("the informer saw %d of %d pods: %w", seen.Load(), o.pods, ctx.Err())
	}
	sort.Slice(latencies, func(i, j int) bool { return latencies[i] < latencies[j] })
	res.p50, res.p99 = latencies[len(latencies)/2], latencies[len(latencies)*99/100]

	lists := make([]time.Duration, o.lists)
	for i := range lists {
		t := time.Now()
		l, err := cs.CoreV1().Pods(o.namespace).List(ctx, metav1.ListOptions{})
		if err != nil {
			return fmt.Errorf("list: %w", err)
		}
		lists[i] = time.Since(t)
		res.listed = len(l.Items)
	}
	sort.Slice(lists, func(i, j int) bool { return lists[i] < lists[j] })
	res.listTime = lists[len(lists)/2]
	if res.listed != o.pods {
		return fmt.Errorf("a LIST returned %d pods, want %d", res.listed, o.pods)
	}
	fmt.Println(res)
	return nil
}

// ensureNamespace creates the namespace unless it exists.
func ensureNamespace(ctx context.Context, cs kubernetes.Interface, name string) error {
	_, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}

// newPod is the i-th pod: one container, a label, small requests — what a
// ReplicationController's template typically holds.
func newPod(i int) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name:   fmt.Sprintf("bench-%05d", i),
			Labels: map[string]string{"app": "createbench"},
		},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{
				Name:  "pause",
				Image: "registry.k8s.io/pause:3.10",
				Ports: []corev1.ContainerPort{{ContainerPort: 8080, Protocol: corev1.ProtocolTCP}},
			}},
		},
	}
}

// cpuOf sums utime+stime of the processes, from /proc/PID/stat.
func cpuOf(pids []int, clkTck int) (time.Duration, error) {
	var ticks int64
	for _, pid := range pids {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return 0, err
		}
		t, err := statTicks(string(b))
		if err != nil {
			return 0, fmt.Errorf("/proc/%d/stat: %w", pid, err)
		}
		ticks += t
	}
	return time.Duration(ticks) * time.Second / time.Duration(clkTck), nil
}

// statTicks is utime+stime (fields 14 and 15) of a /proc/PID/stat line. The
// command name (field 2) is in parentheses and may hold spaces, so the
// fields are counted after its closing parenthesis.
func statTicks(stat string) (int64, error) {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, errors.New("no command name")
	}
	f := strings.Fields(stat[i+1:])
	// f[0] is field 3 (state): utime is field 14, f[11]; stime f[12].
	if len(f) < 13 {
		return 0, fmt.Errorf("%d fields after the command name, want at least 13", len(f))
	}
	var sum int64
	for _, s := range f[11:13] {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, err
		}
		sum += n
	}
	return sum, nil
}

// selfCPU returns this process's CPU time so far, user and system: the
// client's share of the machine, which bounds the creates/s any server can
// be measured at when both share its cores.
func selfCPU() (time.Duration, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, fmt.Errorf("getrusage: %w", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), nil
}
