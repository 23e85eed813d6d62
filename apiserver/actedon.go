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
	// csrapproving and csrsigning do not run here (notCalled says so);
	// csrcleaner does.
	"certificatesigningrequests": "csrcleaner",
}

// notCalled is, by resource, the warning at the creation of an object that
// something outside kube-controller-manager would act on and nothing here
// does: a webhook configuration is stored and validated, but no webhook is
// ever called; an Ingress waits for an ingress controller and a
// NetworkPolicy for a network plugin, and miniplane has neither (DESIGN.md,
// "Deliberately left out"). The HTTP front adds it whatever runs.
var notCalled = map[string]string{
	"ingresses":                       "nothing acts on this Ingress: no ingress controller runs here, so it is stored and validated but routes no traffic",
	"networkpolicies":                 "nothing acts on this NetworkPolicy: no network plugin runs here, so it is stored and validated but enforces nothing",
	"validatingwebhookconfigurations": "admission webhooks are not called here: this ValidatingWebhookConfiguration is stored and validated, but miniplane never calls its webhooks",
	"mutatingwebhookconfigurations":   "admission webhooks are not called here: this MutatingWebhookConfiguration is stored and validated, but miniplane never calls its webhooks",
	"certificatesigningrequests":      "certificates are not signed here: kube-controller-manager's csrapproving and csrsigning do not run in miniplane, so this CertificateSigningRequest is approved and issued only by whoever writes its approval and status",
	"flowschemas":                     "API Priority and Fairness is not done here: this FlowSchema is stored and validated, but miniplane never classifies, queues or refuses a request by it",
	"prioritylevelconfigurations":     "API Priority and Fairness is not done here: this PriorityLevelConfiguration is stored and validated, but miniplane never queues or refuses a request by it",
	"apiservices":                     "API aggregation is not done here: an APIService naming a service is stored and validated, but miniplane never proxies to it",
}
