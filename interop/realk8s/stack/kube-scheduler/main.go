// Command kube-scheduler is Kubernetes' own kube-scheduler v1.32,
// unmodified: the same command its cmd/kube-scheduler builds, here built
// from the module proxy so that bench-stacks.sh and bench-create.sh can
// measure miniplane against it. Nothing of miniplane is imported.
package main

import (
	"os"

	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register"          // --logging-format=json, as the real binary offers
	_ "k8s.io/component-base/metrics/prometheus/clientgo" // client-go's metrics on /metrics
	_ "k8s.io/component-base/metrics/prometheus/version"  // the build's version on /metrics
	"k8s.io/kubernetes/cmd/kube-scheduler/app"
)

func main() {
	os.Exit(cli.Run(app.NewSchedulerCommand()))
}
