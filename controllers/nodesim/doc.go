// Package nodesim is miniplane's simulated kubelets, in the spirit of kwok
// (kubernetes-sigs/kwok): it creates a configurable number of Node
// objects, gives each pod bound to one an IP from its node's range, and
// moves pods Pending → Running → Ready after delays on the injected clock.
// It honours graceful deletion the way a kubelet does: once a terminating
// pod's containers have "stopped" it writes the pod's terminal phase
// (Succeeded when they all exited 0, else Failed; KEP-3329), then
// confirms its deletion (grace 0), and it offers hooks to crash a pod,
// flip its readiness, or take a node down. Pods are bound to its nodes by the scheduler
// (controllers/scheduler, kube-scheduler's counterpart) or by another (a
// real kube-scheduler, with the plane's --scheduler=none); a pod is
// nodesim's once it is bound. NoExecute taints evict running pods through
// controllers/tainteviction, as kube-controller-manager's do.
//
// It mirrors the kubelet, reduced to its essentials: it accepts a bound
// pod at once (phase Pending, hostIP, containers ContainerCreating),
// starts its containers after StartDelay (phase Running, pod IP), restarts
// crashed containers, and deletes a terminating pod with grace 0 once
// TerminationDelay has passed. As a real kubelet does, it counts a
// container without a readiness probe as ready as soon as it runs, so such
// a pod goes Running and Ready in one status write; a pod whose readiness
// probe cannot fail (to a port its container declares) becomes Ready
// ReadyDelay after it starts. Any other probe is run, on the life path
// (probe.go).
//
// A node taken down (NodeDown) has its Ready condition Unknown and a
// kubelet that does nothing: it takes no new pods and confirms no
// deletions (the API server's Sweep removes terminating pods there when
// their grace period ends). What happens to its pods is the node lifecycle
// controller's (controllers/nodelifecycle, run beside the kubelets):
// marked not ready, then Failed (NodeLost). NodeUp brings the kubelet
// back.
//
// With Config.NodeLeases the kubelets also keep a Lease per node that is
// up in kube-node-lease, renewed every 10s (leases.go), their heartbeat in
// Kubernetes; it is off by default because every renewal is a write that
// would change the simulator's recorded runs.
//
// A pod whose containers have a command, or an image the image rule says
// does not exist, lives the life its commands and images give it instead
// (life.go, on the pure rules of package container): pulls that fail and
// back off, runs that print and exit, restarts on the kubelet's back-off
// (CrashLoopBackOff), and the phases Succeeded and Failed. Each node's
// kubelet records its events as itself (Config.Recorders).
//
// The kubelets also keep a log per container run (logs.go): what its
// command printed, or for a pod on the fast path the lines saying what
// they did to it, which ContainerLog serves for kubectl logs (and
// --previous, the run before).
//
// Every timed transition is a delayed add of the pod's key to the
// controller's workqueue, on the injected clock, asked for once per due
// time — and again after a failed sync, whose rate-limited retry takes its
// place (the queue keeps one ready time per key). The delivery of the kubelet's own status write is not queued when
// the sync it would cause has nothing to do (kubelet.go, foresee): a real
// kubelet's pod config takes a change of status alone for a reconcile, not
// an update that syncs the pod (checkAndUpdatePod).
// The decisions are pure functions (nextPodIP, decide and the status
// builders), so a run on a fake clock is a pure function of the steps
// taken. The pod cache has an index of pods by node (informer.NodeNameIndex).
//
// What nodesim keeps of a pod is one entry of one map (podState): the pod
// as the handler last delivered it, which a sync reads instead of the
// cache whenever that is the cache's pod (keptPodLocked), as the kubelet's
// pod manager keeps the pods its sources delivered; the kubelet's memory
// of it; and its containers' logs. A sync looks the pod up once.
//
// The statuses the kubelets write are handed over to the server
// (client.Handover) and made of immutable pieces, shared with the pod's old
// status and with the statuses of pods that reached the same stage in the
// same second (share.go): a stored status owns only its container statuses
// and pod IPs.
//
// A pod on the life path has its volumes mounted before its containers
// start, and each container is handed its environment and files
// (package podenv) from the ConfigMap, Secret and Service caches; a
// missing one holds it back (FailedMount, CreateContainerConfigError) and
// is tried again every 10s.
//
// The package imports api, client, informer, controllers/workqueue,
// controllers/loop, controllers/nodesim/container, controllers/nodesim/podenv,
// controllers/scheduler/fit (quantities), clock and zap. Controller is safe for concurrent use: one mutex
// guards its in-memory state, and the workqueue guarantees that a pod's key
// is synced by one worker at a time.
package nodesim
