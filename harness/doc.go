// Package harness is what a test of a client-go or controller-runtime
// controller needs to run against miniplane's plane inside a
// testing/synctest bubble, with none of the workarounds a bubble otherwise
// asks for copied into the test:
//
//	harness.Sweep(t, 200, plane.Config{Faults: faults.All, FaultRate: 0.1}, func(t *testing.T, p *harness.Plane) {
//		mgr, err := harness.NewManager(p, harness.ManagerOptions())
//		require.NoError(t, err)
//		require.NoError(t, (&MyReconciler{Client: mgr.GetClient()}).SetupWithManager(mgr))
//		harness.StartManager(t, mgr)
//		cs := p.Clientset() // set up and judge in corev1, past the faults
//		...
//	})
//
// What it takes care of:
//
//   - apimachinery's error rate limiter (the second of
//     utilruntime.ErrorHandlers) sleeps relative to the wall-clock time the
//     process started at, which in a bubble (whose clock starts in 2000) is
//     decades: Start drops it once, keeping the logging handler.
//   - controller-runtime's metrics server, health probes and pprof listen on
//     real sockets, which a bubble cannot wait on: virtual time stops and
//     the test hangs until -timeout. ManagerOptions turns them off;
//     NewManager refuses options that turn one on, naming it; and Test and
//     Sweep watch the bubble from outside it, and when its virtual time has
//     stood still for StallTimeout of real time while a goroutine waits on
//     one of those sockets, end the test binary with a message naming the
//     option — within a second or so instead of ten minutes.
//   - controller-runtime refuses a second controller of the same name in
//     one process, and a sweep builds one per seed: ManagerOptions sets
//     SkipNameValidation.
//   - the test's own client: RESTConfig reaches the plane through the fault
//     injector, with a User-Agent of the test's (ControllerUserAgent, so the
//     faults a seed draws do not depend on the binary's name or platform);
//     DirectConfig and Clientset reach it past the faults, for set-up and
//     judging in client-go's own types.
//
// The package lives in a module of its own because it imports client-go
// and controller-runtime, which miniplane's main module does not; it
// imports plane, plane/planetest and clock from it.
//
// Concurrency: the functions are safe for concurrent use. The package's one
// piece of state is the Once that installs the error-handler fix.
package harness
