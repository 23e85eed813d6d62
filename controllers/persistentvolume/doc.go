// Package persistentvolume is miniplane's persistent volume binder, with a
// simulated provisioner inside it: a claim that names a class whose
// provisioner is miniplane.io/simulated (the default class "standard" the
// API server makes, apiserver.Config.DefaultStorageClass) gets a volume
// "pvc-<claim uid>" of the size, access modes and volume mode it asks,
// with the class's reclaim policy, on a host path nothing mounts; then
// claim and volume are bound: the volume's claimRef and phase Bound, the
// claim's spec.volumeName, its pv.kubernetes.io/bind-completed and
// bound-by-controller annotations, and its phase Bound with the volume's
// capacity and access modes. A claim binds first to a volume already
// naming it, else to the smallest free volume of its class, access
// modes, volume mode and selector big enough for it (volumes made by
// hand bind too). A claim with no class and no volume to bind stays
// Pending with Kubernetes' FailedBinding event ("no persistent volumes
// available for this claim and no storage class is set"), one whose class
// does not exist with ProvisioningFailed, one whose class another
// provisioner serves with ExternalProvisioning. A volume naming no claim
// is Available; one whose claim is gone is Released, and deleted when its
// policy is Delete and this provisioner made it. A bound claim whose
// volume is gone is Lost.
//
// It mirrors kube-controller-manager's pkg/controller/volume/persistentvolume
// (the "persistentvolume-binder" controller, v1.32): pv_controller.go's
// syncClaim, syncUnboundClaim, syncBoundClaim, bind, bindVolumeToClaim,
// bindClaimToVolume, syncVolume, reclaimVolume and
// provisionClaimOperation (decide.go DecideClaim, BindVolume, BindClaim,
// DecideVolume, NewVolume; controller.go syncClaim, bind, syncVolume), and
// index.go's findBestMatchForClaim (FindVolume). Not here: the
// WaitForFirstConsumer binding mode (such a class's claims are bound at
// once, as Immediate), volume expansion, recycling, the attach-detach
// controller and the real provisioners' plugins; the periodic resync
// (every change of a claim, volume or class queues what it concerns).
//
// It may import api, client, informer, its controllers siblings (loop,
// workqueue) and scheduler/fit (quantities). Concurrency: handlers only
// queue keys ("claim/<ns>/<name>", "volume/<name>"); the manager runs it
// with one worker, as kube-controller-manager runs its claim and volume
// workers one each, so that two claims never race for one volume.
package persistentvolume
