// Package csrcleaner is kube-controller-manager's csrcleaner controller
// (Kubernetes: pkg/controller/certificates/cleaner): every hour of the
// injected clock it sweeps the CertificateSigningRequest cache and deletes
// the requests that are done or stale:
//
//   - approved and issued, an hour after the Approved condition's
//     lastUpdateTime;
//   - denied or failed, an hour after that condition's lastUpdateTime;
//   - pending (no condition at all), a day after their creation;
//   - approved and issued with a certificate whose notAfter has passed.
//
// It is a loop.NewPeriodic controller: the sweep is one key of its queue,
// queued again an hour after each sweep, so the manager and the simulator
// step it as any controller (a Periodic descriptor). Which requests go is expired, a pure
// function of a request and the time; Kubernetes' cleaner_test.go cases are
// ported in controller_test.go. The other certificate controllers of
// kube-controller-manager (csrapproving, csrsigning) do not run in miniplane.
//
// It imports api, client, informer and the controllers' loop; its sweep
// runs on one worker.
package csrcleaner
