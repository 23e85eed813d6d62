// Package container holds the pure rules by which miniplane's simulated
// kubelets give each container a life: what its command does (Plan, the
// command grammar), whether its image can be pulled (Images, the image
// rule), and Kubernetes' restart rules — which exits are restarted
// (ShouldRestart), the kubelet's back-off between restarts and between pulls
// (Backoff), the reason a run ended with (TerminatedReason) and the phase
// its containers give a pod (Phase). A run sees what the kubelet handed
// the container (Input: its environment and the simulated filesystem of
// its volumes, FS), which `env`, `cat`, `ls` and agnhost's mounttest
// print, as Kubernetes' volume conformance tests read them. What a
// container's program answers over HTTP follows the server rule
// (Program.Serve, serve.go).
//
// Nothing runs: a container's run is worked out from its command before it
// starts, so a simulated pod's life is a pure function of its spec and the
// injected clock, as the rules of (DESIGN.md, "Determinism") ask.
//
// It mirrors, reduced to what a learner reads in `kubectl get`, `describe`
// and `logs`: the kubelet's kuberuntime (computePodActions, doBackOff), its
// image manager (EnsureImageExists), client-go's flowcontrol.Backoff as the
// kubelet configures it (10s doubling to 5m, no jitter) and the kubelet's
// getPhase.
//
// The package imports api only (and the standard library); every function
// is pure and safe for concurrent use.
package container
