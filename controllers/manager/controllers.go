package manager

import (
	"github.com/miniplane/miniplane/client/record"
	"github.com/miniplane/miniplane/controllers/clusterroleaggregation"
	"github.com/miniplane/miniplane/controllers/cronjob"
	"github.com/miniplane/miniplane/controllers/csrcleaner"
	"github.com/miniplane/miniplane/controllers/daemon"
	"github.com/miniplane/miniplane/controllers/deployment"
	"github.com/miniplane/miniplane/controllers/disruption"
	"github.com/miniplane/miniplane/controllers/endpoints"
	"github.com/miniplane/miniplane/controllers/endpointslice"
	"github.com/miniplane/miniplane/controllers/endpointslicemirroring"
	"github.com/miniplane/miniplane/controllers/garbagecollector"
	"github.com/miniplane/miniplane/controllers/job"
	"github.com/miniplane/miniplane/controllers/persistentvolume"
	"github.com/miniplane/miniplane/controllers/podautoscaler"
	"github.com/miniplane/miniplane/controllers/podgc"
	"github.com/miniplane/miniplane/controllers/replication"
	"github.com/miniplane/miniplane/controllers/resourcequota"
	"github.com/miniplane/miniplane/controllers/rootcacertpublisher"
	"github.com/miniplane/miniplane/controllers/serviceaccount"
	"github.com/miniplane/miniplane/controllers/statefulset"
	"github.com/miniplane/miniplane/controllers/tainteviction"
	"github.com/miniplane/miniplane/controllers/ttlafterfinished"
)

// DefaultDescriptors registers kube-controller-manager's controllers that
// miniplane has, in the order they are built and started: the replication
// controller, the replica set controller (the same controller, for
// apps/v1 ReplicaSets), the deployment controller, the daemon set
// controller, the stateful set controller, the job controller, the
// cronjob controller, the ttl-after-finished controller, the pod garbage
// collector, the persistent volume binder, the disruption controller, the resourcequota controller, the
// endpoints controller, the
// garbage collector, the service account controller, the root CA
// certificate publisher, the clusterrole-aggregation controller and the
// CSR cleaner. These run under leader election (Instance): in
// one instance at a time.
func DefaultDescriptors() []Descriptor {
	return []Descriptor{
		{Name: ReplicationController, Init: initReplication},
		{Name: ReplicaSet, Init: initReplicaSet},
		{Name: Deployment, Init: initDeployment},
		{Name: DaemonSet, Init: initDaemonSet},
		{Name: StatefulSet, Init: initStatefulSet},
		{Name: Job, Init: initJob},
		{Name: CronJob, Init: initCronJob},
		{Name: TTLAfterFinished, Init: initTTLAfterFinished},
		{Name: PodGC, Init: initPodGC, Periodic: true},
		{Name: TaintEviction, Init: initTaintEviction},
		{Name: PersistentVolumeBinder, Init: initPersistentVolumeBinder},
		{Name: Disruption, Init: initDisruption},
		{Name: Endpoint, Init: initEndpoints},
		{Name: EndpointSlice, Init: initEndpointSlice},
		{Name: EndpointSliceMirroring, Init: initEndpointSliceMirroring},
		{Name: GarbageCollector, Init: initGarbageCollector},
		{Name: ServiceAccount, Init: initServiceAccount},
		{Name: RootCACertificatePublisher, Init: initRootCACertPublisher},
		{Name: ResourceQuota, Init: initResourceQuota, Periodic: true},
		{Name: ClusterRoleAggregation, Init: initClusterRoleAggregation},
		{Name: CSRCleaner, Init: initCSRCleaner, Periodic: true},
		{Name: HorizontalPodAutoscaling, Init: initHorizontalPodAutoscaling},
	}
}

// recorder returns an event recorder for a controller, reporting as
// Kubernetes' controllers do (component name, manager instance).
func (ic InitContext) recorder(component string) *record.EventRecorder {
	return record.NewEventRecorder(ic.Client, ic.Clock, component, ic.Instance)
}

func initReplication(ic InitContext) (Controller, int, error) {
	c, err := replication.New(replication.Config{
		Client: ic.Client, Factory: ic.Factory, Clock: ic.Clock, Logger: ic.Logger,
		Recorder: ic.recorder("replication-controller"), WithoutExpectations: ic.Options.ReplicationWithoutExpectations,
	})
	return c, ic.Options.ConcurrentRCSyncs, err
}

func initReplicaSet(ic InitContext) (Controller, int, error) {
	c, err := replication.NewReplicaSet(replication.Config{
		Client: ic.Client, Factory: ic.Factory, Clock: ic.Clock, Logger: ic.Logger,
		Recorder: ic.recorder("replicaset-controller"), WithoutExpectations: ic.Options.ReplicationWithoutExpectations,
	})
	return c, ic.Options.ConcurrentRSSyncs, err
}

func initDeployment(ic InitContext) (Controller, int, error) {
	c, err := deployment.New(deployment.Config{
		Client: ic.Client, Factory: ic.Factory, Clock: ic.Clock, Logger: ic.Logger,
		Recorder: ic.recorder("deployment-controller"),
	})
	return c, ic.Options.ConcurrentDeploymentSyncs, err
}

func initDaemonSet(ic InitContext) (Controller, int, error) {
	c, err := daemon.New(daemon.Config{
		Client: ic.Client, Factory: ic.Factory, Clock: ic.Clock, Logger: ic.Logger,
		Recorder: ic.recorder("daemonset-controller"),
	})
	return c, ic.Options.ConcurrentDaemonSetSyncs, err
}

func initStatefulSet(ic InitContext) (Controller, int, error) {
	c, err := statefulset.New(statefulset.Config{
		Client: ic.Client, Factory: ic.Factory, Clock: ic.Clock, Logger: ic.Logger,
		Recorder: ic.recorder("statefulset-controller"),
	})
	return c, ic.Options.ConcurrentStatefulSetSyncs, err
}

func initJob(ic InitContext) (Controller, int, error) {
	c, err := job.New(job.Config{
		Client: ic.Client, Factory: ic.Factory, Clock: ic.Clock, Logger: ic.Logger,
		Recorder: ic.recorder("job-controller"),
	})
	return c, ic.Options.ConcurrentJobSyncs, err
}

func initCronJob(ic InitContext) (Controller, int, error) {
	c, err := cronjob.New(cronjob.Config{
		Client: ic.Client, Factory: ic.Factory, Clock: ic.Clock, Logger: ic.Logger,
		Recorder: ic.recorder("cronjob-controller"),
	})
	return c, ic.Options.ConcurrentCronJobSyncs, err
}

func initResourceQuota(ic InitContext) (Controller, int, error) {
	c, err := resourcequota.New(resourcequota.Config{Client: ic.Client, Factory: ic.Factory, Clock: ic.Clock,
		Resync: ic.Options.ResourceQuotaSyncPeriod, Logger: ic.Logger})
	return c, ic.Options.ConcurrentResourceQuotaSyncs, err
}

func initTTLAfterFinished(ic InitContext) (Controller, int, error) {
	c, err := ttlafterfinished.New(ttlafterfinished.Config{Client: ic.Client, Factory: ic.Factory, Clock: ic.Clock, Logger: ic.Logger})
	return c, ic.Options.ConcurrentTTLAfterFinishedSyncs, err
}

// initPodGC builds the pod garbage collector, which sweeps on one worker.
func initPodGC(ic InitContext) (Controller, int, error) {
	c, err := podgc.New(podgc.Config{
		Client: ic.Client, Factory: ic.Factory, Clock: ic.Clock, Logger: ic.Logger,
		TerminatedPodThreshold: ic.Options.TerminatedPodGCThreshold,
	})
	return c, 1, err
}

// initCSRCleaner builds the CSR cleaner, which sweeps on one worker.
func initCSRCleaner(ic InitContext) (Controller, int, error) {
	c, err := csrcleaner.New(csrcleaner.Config{Client: ic.Client, Factory: ic.Factory, Clock: ic.Clock, Logger: ic.Logger})
	return c, 1, err
}

// initTaintEviction builds the taint eviction controller, with one worker.
func initTaintEviction(ic InitContext) (Controller, int, error) {
	c, err := tainteviction.New(tainteviction.Config{
		Client: ic.Client, Factory: ic.Factory, Clock: ic.Clock, Logger: ic.Logger,
		Recorder: ic.recorder("taint-eviction-controller"),
	})
	return c, 1, err
}

// initPersistentVolumeBinder builds the persistent volume binder and its
// simulated provisioner, with one worker so that two claims never race
// for one volume.
func initPersistentVolumeBinder(ic InitContext) (Controller, int, error) {
	c, err := persistentvolume.New(persistentvolume.Config{
		Client: ic.Client, Factory: ic.Factory, Clock: ic.Clock, Logger: ic.Logger,
		Recorder: ic.recorder("persistentvolume-controller"),
	})
	return c, 1, err
}

// initHorizontalPodAutoscaling builds the horizontal-pod-autoscaler
// controller, with kube-controller-manager's five workers.
func initHorizontalPodAutoscaling(ic InitContext) (Controller, int, error) {
	c, err := podautoscaler.New(podautoscaler.Config{
		Client: ic.Client, Factory: ic.Factory, Clock: ic.Clock, Logger: ic.Logger,
		Recorder: ic.recorder("horizontal-pod-autoscaler"),
	})
	return c, 5, err
}

// initDisruption builds the disruption controller, with one worker as
// kube-controller-manager runs it.
func initDisruption(ic InitContext) (Controller, int, error) {
	c, err := disruption.New(disruption.Config{
		Client: ic.Client, Factory: ic.Factory, Clock: ic.Clock, Logger: ic.Logger,
		Recorder: ic.recorder("controllermanager"),
	})
	return c, 1, err
}

func initEndpoints(ic InitContext) (Controller, int, error) {
	c, err := endpoints.New(endpoints.Config{
		Client: ic.Client, Factory: ic.Factory, Clock: ic.Clock, Logger: ic.Logger,
		Recorder: ic.recorder("endpoint-controller"), BatchPeriod: ic.Options.EndpointUpdatesBatchPeriod,
	})
	return c, ic.Options.ConcurrentEndpointSyncs, err
}

func initEndpointSlice(ic InitContext) (Controller, int, error) {
	c, err := endpointslice.New(endpointslice.Config{
		Client: ic.Client, Factory: ic.Factory, Clock: ic.Clock, Logger: ic.Logger,
		Recorder: ic.recorder("endpoint-slice-controller"), MaxEndpointsPerSlice: ic.Options.MaxEndpointsPerSlice,
	})
	return c, ic.Options.ConcurrentServiceEndpointSyncs, err
}

func initEndpointSliceMirroring(ic InitContext) (Controller, int, error) {
	c, err := endpointslicemirroring.New(endpointslicemirroring.Config{
		Client: ic.Client, Factory: ic.Factory, Clock: ic.Clock, Logger: ic.Logger,
		Recorder: ic.recorder("endpoint-slice-mirroring-controller"), MaxEndpointsPerSubset: ic.Options.MirroringMaxEndpointsPerSubset,
	})
	return c, ic.Options.MirroringConcurrentServiceEndpointSyncs, err
}

func initGarbageCollector(ic InitContext) (Controller, int, error) {
	c, err := garbagecollector.New(garbagecollector.Config{
		Client: ic.Client, Factory: ic.Factory, Clock: ic.Clock, Logger: ic.Logger,
		Recorder:        ic.recorder("garbage-collector-controller"),
		CustomResources: ic.Options.GCCustomResources,
	})
	return c, ic.Options.ConcurrentGCSyncs, err
}

// initServiceAccount builds the service account controller, with one worker
// as kube-controller-manager runs it.
func initServiceAccount(ic InitContext) (Controller, int, error) {
	c, err := serviceaccount.New(serviceaccount.Config{Client: ic.Client, Factory: ic.Factory, Clock: ic.Clock, Logger: ic.Logger})
	return c, 1, err
}

// initRootCACertPublisher builds the root CA publisher over
// Options.RootCA, with one worker as kube-controller-manager runs it.
func initRootCACertPublisher(ic InitContext) (Controller, int, error) {
	c, err := rootcacertpublisher.New(rootcacertpublisher.Config{
		Client: ic.Client, Factory: ic.Factory, Clock: ic.Clock, Logger: ic.Logger, RootCA: ic.Options.RootCA,
	})
	return c, 1, err
}

// initClusterRoleAggregation builds the clusterrole-aggregation
// controller, with five workers as kube-controller-manager runs it.
func initClusterRoleAggregation(ic InitContext) (Controller, int, error) {
	c, err := clusterroleaggregation.New(clusterroleaggregation.Config{Client: ic.Client, Factory: ic.Factory, Clock: ic.Clock, Logger: ic.Logger})
	return c, 5, err
}
