package clientgo

// BenchmarkCreateUntilSeen: end to end (reference §4.3, fake clientset
// rows). One goroutine creates N pods (N = 1,000 and 10,000) through an API
// while a synced informer with one handler runs; the time runs from the
// first create until the handler has seen every create that was delivered.
// creates/s is N per that time; lost-% is the share of creates whose watch
// event never reached the informer.
//
//   - clientgo: k8s.io/client-go/kubernetes/fake.NewSimpleClientset (its
//     plain object tracker; NewClientset adds field management and is
//     slower) and the shared informer factory's pod informer, with the fake
//     watch buffer raised from 100 to 131,072 events (watch.DefaultChanSize),
//     as the reference did, so nothing is lost.
//   - clientgo-buffer100: the same with the default buffer of 100 events.
//     The fake watcher panics "channel full" when the informer falls 100
//     events behind; the panic surfaces in Create, is recovered here and
//     counted as a lost event (the object is stored, its event is not sent).
//   - miniplane: miniplane's API server (real clock) and informer.Run.
//     Nothing may be lost.

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/informer"
)

// raisedFakeWatchBuffer is the fake watch buffer of the clientgo rows.
const raisedFakeWatchBuffer = 1 << 17

func BenchmarkCreateUntilSeen(b *testing.B) {
	for _, n := range []int{1_000, 10_000} {
		b.Run(fmt.Sprintf("pods=%d/clientgo", n), func(b *testing.B) { benchClientGoCreates(b, n, raisedFakeWatchBuffer) })
		b.Run(fmt.Sprintf("pods=%d/clientgo-buffer100", n), func(b *testing.B) { benchClientGoCreates(b, n, 0) })
		b.Run(fmt.Sprintf("pods=%d/miniplane", n), func(b *testing.B) { benchMiniplaneCreates(b, n) })
	}
}

// benchClientGoCreates runs the client-go side with a fake watch buffer of
// buffer events (0: client-go's default).
func benchClientGoCreates(b *testing.B, n, buffer int) {
	input := make([]*corev1.Pod, n)
	for i := range input {
		input[i] = ClientGoPod(i)
	}
	lost := 0
	for b.Loop() {
		b.StopTimer()
		lost += clientGoCreates(b, input, buffer)
		b.StartTimer()
	}
	reportCreates(b, n, lost)
}

// clientGoCreates is one round of the client-go side, entered and left with
// the timer stopped. It returns the events lost.
func clientGoCreates(b *testing.B, input []*corev1.Pod, buffer int) (lost int) {
	if buffer > 0 {
		// The fake tracker sizes each watch's channel from this variable
		// when the watch starts; nothing else runs in this process now.
		defer func(old int32) { watch.DefaultChanSize = old }(watch.DefaultChanSize)
		watch.DefaultChanSize = int32(buffer)
	}
	cs := fake.NewSimpleClientset()
	watching := watchStarted(cs)
	factory := informers.NewSharedInformerFactory(cs, 0)
	inf := factory.Core().V1().Pods().Informer()
	r, err := startClientGo(inf, len(input), 1, func(ctx context.Context) { factory.Start(ctx.Done()); <-ctx.Done() })
	if err != nil {
		b.Fatal(err)
	}
	defer factory.Shutdown() // after r.stop has closed the factory's stop channel
	defer r.stop()
	timeout := time.After(waitTimeout)
	for _, c := range []<-chan struct{}{r.regs[0].HasSyncedChecker().Done(), watching} {
		select {
		case <-c:
		case <-timeout:
			b.Fatal("informer never synced and watched")
		}
	}

	ctx := context.Background()
	pods := cs.CoreV1()
	b.StartTimer()
	for _, p := range input {
		sent, err := createRecovering(ctx, pods.Pods(p.Namespace), p)
		if err != nil {
			b.Fatal(err)
		}
		if !sent {
			lost++
		}
	}
	r.counters[0].setWant(len(input) - lost)
	err = r.wait()
	b.StopTimer()
	if err == nil {
		err = r.check(len(input) - lost)
	}
	if err != nil {
		b.Fatal(err)
	}
	stored, err := pods.Pods("").List(ctx, metav1.ListOptions{})
	if err != nil {
		b.Fatal(err)
	}
	if len(stored.Items) != len(input) {
		b.Fatalf("fake clientset holds %d pods, want %d", len(stored.Items), len(input))
	}
	return lost
}

// watchStarted returns a channel closed once the informer's watch has
// reached cs. The fake runs its watch reactors under the lock every Create
// takes, so a Create made after that is ordered after the watch is
// registered. Without this wait, pods created between the informer's LIST
// and its WATCH are replayed into the new watch when it starts — and with
// more than 100 of them the fake watcher panics "channel full" in the
// reflector's goroutine, not in Create: the resourceVersion replay that
// closed that gap (kubernetes/kubernetes#135959, for #95372) overflows the
// same buffer.
func watchStarted(cs *fake.Clientset) <-chan struct{} {
	started := make(chan struct{})
	var once sync.Once
	cs.PrependWatchReactor("pods", func(clienttesting.Action) (bool, watch.Interface, error) {
		once.Do(func() { close(started) })
		return false, nil, nil // not handled: the tracker's reactor makes the watch
	})
	return started
}

// podCreator is the part of client-go's typed pod client a create uses.
type podCreator interface {
	Create(ctx context.Context, pod *corev1.Pod, opts metav1.CreateOptions) (*corev1.Pod, error)
}

// createRecovering creates p and reports whether its watch event was sent:
// false when the fake watcher panicked "channel full" (recovered here).
func createRecovering(ctx context.Context, pods podCreator, p *corev1.Pod) (sent bool, err error) {
	defer func() {
		if v := recover(); v != nil {
			if e, ok := v.(error); !ok || !strings.Contains(e.Error(), "channel full") {
				panic(v)
			}
			sent, err = false, nil
		}
	}()
	_, err = pods.Create(ctx, p, metav1.CreateOptions{})
	return err == nil, err
}

func benchMiniplaneCreates(b *testing.B, n int) {
	input := make([]*api.Pod, n)
	for i := range input {
		input[i] = MiniplanePod(i)
	}
	for b.Loop() {
		b.StopTimer()
		miniplaneCreates(b, input)
		b.StartTimer()
	}
	reportCreates(b, n, 0)
}

// miniplaneCreates is one round of the miniplane side, entered and left
// with the timer stopped.
func miniplaneCreates(b *testing.B, input []*api.Pod) {
	s, err := newServer(2*len(input) + 1000)
	if err != nil {
		b.Fatal(err)
	}
	r := startMiniplane(informer.Source{Client: s, Resource: client.Pods}, len(input), 1)
	defer r.stop()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	if !r.inf.WaitForHandlers(ctx) {
		b.Fatal("informer never synced")
	}

	pods := client.For[*api.Pod](s)
	b.StartTimer()
	for _, p := range input {
		if _, err := pods.Create(ctx, p); err != nil {
			b.Fatal(err)
		}
	}
	err = r.wait()
	b.StopTimer()
	if err == nil {
		err = r.check(len(input))
	}
	if err != nil {
		b.Fatal(err)
	}
}

// reportCreates reports creates/s over the timed part and the share of
// events lost. (ns/op is per round of N creates.)
func reportCreates(b *testing.B, n, lost int) {
	total := float64(b.N * n)
	b.ReportMetric(total/b.Elapsed().Seconds(), "creates/s")
	b.ReportMetric(100*float64(lost)/total, "lost-%")
}
