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
	"replicationcontrollers":   "replicationcontroller",
	"replicasets":              "replicaset",
	"deployments":              "deployment",
	"statefulsets":             "statefulset",
	"daemonsets":               "daemonset",
	"jobs":                     "job",
	"resourcequotas":           "resourcequota",
	"cronjobs":                 "cronjob",
	"services":                 "endpoint",
	"poddisruptionbudgets":     "disruption",
	"persistentvolumeclaims":   "persistentvolume-binder",
	"persistentvolumes":        "persistentvolume-binder",
	"horizontalpodautoscalers": "horizontalpodautoscaling",
}

// notCalled is, by resource, the warning at the creation of an object that
// kube-apiserver itself would act on and miniplane does not: a webhook
// configuration is stored and validated, but no webhook is ever called
// (DESIGN.md, "Deliberately left out"). The HTTP front adds it whatever
// runs.
var notCalled = map[string]string{
	"validatingwebhookconfigurations": "admission webhooks are not called here: this ValidatingWebhookConfiguration is stored and validated, but miniplane never calls its webhooks",
	"mutatingwebhookconfigurations":   "admission webhooks are not called here: this MutatingWebhookConfiguration is stored and validated, but miniplane never calls its webhooks",
	"apiservices":                     "API aggregation is not done here: an APIService naming a service is stored and validated, but miniplane never proxies to it",
}
