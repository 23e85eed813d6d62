package apiserver

// actedOnBy names, by resource, the kube-controller-manager controller
// that acts on a kind's objects in Kubernetes, as KCM's --controllers flag
// names it: a Deployment is nothing until "deployment" makes its replica
// sets. A resource absent here is data (ConfigMaps, Secrets, Leases), or
// what the API server or the simulated nodes act on themselves (pods,
// namespaces, nodes). The HTTP front warns at the creation of an object
// whose controller does not run (httpapi.Config.Idle), so that a
// learner's "created" is never followed by nothing, unexplained
// (DESIGN.md, "Deliberately left out").
var actedOnBy = map[string]string{
	"replicationcontrollers": "replicationcontroller",
	"replicasets":            "replicaset",
	"deployments":            "deployment",
	"statefulsets":           "statefulset",
	"daemonsets":             "daemonset",
	"jobs":                   "job",
	"resourcequotas":         "resourcequota",
	"cronjobs":               "cronjob",
	"services":               "endpoint",
	"poddisruptionbudgets":   "disruption",
	"persistentvolumeclaims": "persistentvolume-binder",
	"persistentvolumes":      "persistentvolume-binder",
}
