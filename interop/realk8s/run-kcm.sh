#!/usr/bin/env bash
# run-kcm.sh runs Kubernetes' own kube-controller-manager v1.32, unmodified,
# against `miniplane serve` with miniplane's controllers switched off, and
# drives it with kubectl through a replication controller's life and a
# Deployment's (create, set image, undo, scale, delete). It prints one PASS,
# FAIL or SKIP line per step and exits 1 if any step failed.
#
# Not part of CI: the first build of the controller manager takes about five
# minutes on two cores (later runs reuse the build directory and Go's cache).
#
#   interop/realk8s/run-kcm.sh                        # KCM's default client: protobuf
#   KCM_CONTENT_TYPE=json interop/realk8s/run-kcm.sh  # a JSON comparison run only: --kube-api-content-type=application/json
#
# Settings (environment): KCM_CONTENT_TYPE, STEP_TIMEOUT, KCM_BUILD_DIR,
# KCM_BIN, KEEP_WORK, KEEP_GOING; kcm-lib.sh says what each does.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=kcm-lib.sh
source "$here/kcm-lib.sh"

# The objects the steps look at.
ready_replicas() { k get rc web -o 'jsonpath={.status.readyReplicas}' 2>/dev/null; }
live_pods() { # names of the RC's pods not being deleted, one a line
	k get pods -l app=web -o 'jsonpath={range .items[*]}{.metadata.name} {.metadata.deletionTimestamp}{"\n"}{end}' 2>/dev/null |
		awk 'NF == 1 {print $1}'
}
owners() { # the owners of the RC's pods, kind/name, one a line
	k get pods -l app=web -o 'jsonpath={range .items[*].metadata.ownerReferences[*]}{.kind}/{.name}{"\n"}{end}' 2>/dev/null | sort -u
}
all_pods() { k get pods -l app=web -o name 2>/dev/null; }
endpoint_ips() { # the web Service's ready addresses, sorted, space-separated
	k get endpoints web -o 'jsonpath={range .subsets[*].addresses[*]}{.ip}{"\n"}{end}' 2>/dev/null | sort | xargs
}
pod_ips() { # the IPs of the RC's ready pods, sorted, space-separated
	k get pods -l app=web -o 'jsonpath={range .items[*]}{.status.podIP} {.metadata.deletionTimestamp} {.status.conditions[?(@.type=="Ready")].status}{"\n"}{end}' 2>/dev/null |
		awk '$2 == "True" {print $1}' | sort | xargs
}
count() { [[ -z $1 ]] && echo 0 || wc -w <<<"$1"; }
# serving_n holds when n pods are ready, their RC says so, and the
# endpoints list exactly their addresses.
serving_n() {
	local want=$1 pods eps
	[[ $(ready_replicas) == "$want" ]] || return 1
	[[ $(count "$(live_pods | xargs)") == "$want" ]] || return 1
	pods=$(pod_ips)
	eps=$(endpoint_ips)
	[[ $(count "$pods") == "$want" && "$pods" == "$eps" ]]
}
rc_state() { echo "readyReplicas=$(ready_replicas) pods=[$(live_pods | xargs)] endpoints=[$(endpoint_ips)]"; }

# The Deployment web2's objects: its ReplicaSets, one a line: name,
# revision, spec.replicas, readyReplicas, image, controller (kind/name).
d_sets() {
	k get rs -l app=web2 -o 'jsonpath={range .items[*]}{.metadata.name} {.metadata.annotations.deployment\.kubernetes\.io/revision} {.spec.replicas} {.status.readyReplicas} {.spec.template.spec.containers[0].image} {.metadata.ownerReferences[?(@.controller==true)].kind}/{.metadata.ownerReferences[?(@.controller==true)].name}{"\n"}{end}' 2>/dev/null |
		awk '{ if (NF == 5) { $6 = $5; $5 = $4; $4 = 0 } print }' # readyReplicas is omitted when 0
}
d_pods() { # web2's pods not being deleted: name, image, controller (kind/name)
	k get pods -l app=web2 -o 'jsonpath={range .items[*]}{.metadata.name} {.spec.containers[0].image} {.metadata.ownerReferences[?(@.controller==true)].kind}/{.metadata.ownerReferences[?(@.controller==true)].name} {.metadata.deletionTimestamp}{"\n"}{end}' 2>/dev/null |
		awk 'NF == 3'
}
d_field() { k get deployment web2 -o "jsonpath=$1" 2>/dev/null; }
# d_serving holds when web2 has n pods of image, all owned by the one set of
# that image, which its Deployment owns, that set wants n and has n ready,
# and every other set wants 0.
d_serving() {
	local n=$1 image=$2 sets pods
	sets=$(d_sets)
	pods=$(d_pods)
	[[ $(awk -v i="$image" -v n="$n" '$5 == i && $3 == n && $4 == n && $6 == "Deployment/web2"' <<<"$sets" | wc -l) == 1 ]] || return 1
	[[ -z $(awk -v i="$image" '$5 != i && $3 != 0' <<<"$sets") ]] || return 1
	local rs
	rs=$(awk -v i="$image" '$5 == i {print $1}' <<<"$sets")
	[[ $(awk -v i="$image" -v o="ReplicaSet/$rs" '$2 == i && $3 == o' <<<"$pods" | wc -l) == "$n" ]] || return 1
	[[ $(wc -l <<<"$pods") == "$n" ]]
}
d_state() {
	echo "deployment: $(d_field '{.spec.template.spec.containers[0].image} rev={.metadata.annotations.deployment\.kubernetes\.io/revision} available={.status.availableReplicas}/{.spec.replicas}'); sets: [$(d_sets | paste -sd ';')]; pods: [$(d_pods | paste -sd ';')]"
}
state() {
	case ${stage:-rc} in
	rc) rc_state ;;
	deployment) d_state ;;
	*) k get jobs,ds,pods -o wide 2>&1 | tr '\n' ';' | cut -c1-400 ;;
	esac
}
d_summary() { # "set NAME (rev R) N pods of IMAGE, old sets at 0: ..."
	local image=$1 sets
	sets=$(d_sets)
	awk -v i="$image" '$5 == i {printf "%s (rev %s, %s) has %s ready; ", $1, $2, $5, $4}
		$5 != i {printf "%s (rev %s, %s) at %s; ", $1, $2, $5, $3}' <<<"$sets"
	echo "pods: $(d_pods | awk '{print $1}' | xargs)"
}

# --- the controller manager, the API server -----------------------------------

build_kcm
build_miniplane
# Every controller of miniplane's that the real controller manager runs is
# off: serve starts no controller-manager instance, only the API server and
# nodesim (passed a lease name of its own anyway).
start_serve serve-ready --controllers="$serve_all_off" --leader-elect-resource-name=miniplane-controller-manager
start_kcm kcm-leads

# step runs one step: its name, what it does (a command, run once unless it
# is empty), what must then hold (a condition, waited for), and what to say.
run_step() {
	local name=$1 action=$2 cond=$3 ok=$4 out
	if ((skipping)); then
		skip "$name"
		return
	fi
	local start=$SECONDS
	if [[ -n $action ]] && ! out=$(eval "$action" 2>&1); then
		fail "$name" "$(tr '\n' ' ' <<<"$out" | cut -c1-300)"
		return
	fi
	if wait_for "$cond"; then
		pass "$name" "$(eval "$ok") [$((SECONDS - start))s]"
	else
		local hint
		hint=$(kcm_hint)
		fail "$name" "not within ${step_timeout}s: $(state)${hint:+; KCM log: $hint}"
	fi
}

# The controllers that make what every namespace needs: the default
# ServiceAccount (without it miniplane's ServiceAccount admission refuses
# every pod, after waiting 2 s for it) and the root CA ConfigMap.
run_step serviceaccount-default "" \
	'k get serviceaccount default -n default && k get serviceaccount default -n kube-system' \
	'echo "the serviceaccount controller made default in default and kube-system"'
run_step root-ca-published "" \
	'k get configmap kube-root-ca.crt -n default && k get configmap kube-root-ca.crt -n kube-system' \
	'echo "kube-root-ca.crt in default and kube-system (ca.crt: $(k get configmap kube-root-ca.crt -n default -o "jsonpath={.data.ca\.crt}" | wc -c) bytes: serve is plain http, KCM has no CA to publish)"'

stage=rc
run_step create-rc-and-service "k apply -f '$root/examples/web.yaml'" \
	'[[ $(count "$(live_pods | xargs)") == 3 ]]' \
	'echo "3 pods owned by $(owners | xargs): $(live_pods | xargs)"'
run_step pods-ready "" 'serving_n 3' 'echo "3 ready, the endpoints follow: $(endpoint_ips)"'
# The endpointslice controller: the web Service's slice lists its ready pods.
slice_ips() { k get endpointslices -l kubernetes.io/service-name=web -o 'jsonpath={range .items[*].endpoints[*]}{.addresses[0]} {end}' 2>/dev/null | xargs -n1 | sort | xargs; }
run_step endpointslice-for-service "" '[[ -n $(slice_ips) && $(slice_ips) == "$(endpoint_ips)" ]]' \
	'echo "slice $(k get endpointslices -l kubernetes.io/service-name=web -o name | xargs) holds $(slice_ips)"'
run_step scale-up "k scale rc web --replicas=5" 'serving_n 5' 'echo "5 ready behind $(endpoint_ips)"'
run_step scale-down "k scale rc web --replicas=2" 'serving_n 2' 'echo "2 left: $(live_pods | xargs), endpoints $(endpoint_ips)"'

victim=$(live_pods | head -1)
run_step delete-pod-replaced "k delete pod '$victim' --wait=false" \
	'serving_n 2 && ! live_pods | grep -qx "$victim"' \
	'echo "$victim deleted; now $(live_pods | xargs), endpoints $(endpoint_ips)"'
run_step delete-rc-gc "k delete rc web --cascade=background --wait=false" \
	'[[ -z $(all_pods) ]] && ! k get rc web' \
	'echo "the garbage collector deleted every pod of the RC"'
run_step endpoints-empty "" '[[ -z $(endpoint_ips) ]] && k get endpoints web' \
	'echo "the Service web has no addresses left"'

# A Deployment's life: the deployment controller makes and scales the
# ReplicaSets, the replicaset controller their pods, the garbage collector
# deletes them when the Deployment goes. `rollout status` is kubectl's own
# verdict; the conditions then check the sets and pods behind it.
stage=deployment
rollout="kw rollout status deployment/web2 --timeout=${step_timeout}s"
run_step deploy-create "k create deployment web2 --image=nginx:1.27 --replicas=3 && $rollout" \
	'd_serving 3 nginx:1.27' \
	'echo "rollout status ok; $(d_sets | awk "{print \$1\" owned by \"\$6}") owns $(d_pods | awk "{print \$1}" | xargs)"'
run_step deploy-set-image "k set image deployment/web2 nginx=nginx:1.28 && $rollout" \
	'd_serving 3 nginx:1.28' \
	'echo "rollout status ok; $(d_summary nginx:1.28)"'
run_step deploy-undo "k rollout undo deployment/web2 && $rollout" \
	'd_serving 3 nginx:1.27 && [[ $(d_field "{.metadata.annotations.deployment\.kubernetes\.io/revision}") == 3 && $(d_sets | wc -l) == 2 ]]' \
	'echo "back to $(d_field "{.spec.template.spec.containers[0].image}"), deployment revision $(d_field "{.metadata.annotations.deployment\.kubernetes\.io/revision}"); $(d_summary nginx:1.27)"'
run_step deploy-scale "k scale deployment web2 --replicas=5 && $rollout" \
	'd_serving 5 nginx:1.27 && [[ $(d_field "{.status.availableReplicas}") == 5 ]]' \
	'echo "5 available: $(d_pods | awk "{print \$1}" | xargs)"'
run_step deploy-delete-gc "k delete deployment web2 --cascade=background --wait=false" \
	'! k get deployment web2 && [[ -z $(d_sets) && -z $(k get pods -l app=web2 -o name 2>/dev/null) ]]' \
	'echo "the garbage collector deleted both ReplicaSets and every pod"'

# The workload controllers: a Job runs its pod to completion (the simulated
# kubelet runs `echo`, and `kubectl logs` reads what it printed), a Job made
# from a CronJob by kubectl does too, a finished Job with a zero TTL is
# deleted by the ttl-after-finished controller, a DaemonSet puts a pod on
# each of the three nodes, and a NoExecute taint on one node makes the taint
# eviction controller delete the DaemonSet's pod there (its pods tolerate
# only the not-ready and unreachable taints), which the daemonset
# controller then does not put back. (KCM's taint eviction controller logs
# "Index with name spec.nodeName does not exist" when a node's taints
# change: the node lifecycle controller, not run here, adds that index to
# the shared pod informer. It falls back on pod events, and the step passes.)
stage=workloads
job_field() { k get job "$1" -o "jsonpath=$2" 2>/dev/null; }
ds_pods() { k get pods -l app=agent -o 'jsonpath={range .items[*]}{.spec.nodeName} {.metadata.deletionTimestamp}{"\n"}{end}' 2>/dev/null | awk 'NF == 1 {print $1}' | sort | xargs; }
first_node=$(k get nodes -o 'jsonpath={.items[0].metadata.name}' 2>/dev/null)
run_step job-complete "k create job hello --image=busybox -- echo hello from a job" \
	'[[ $(job_field hello "{.status.succeeded}") == 1 ]] && k wait --for=condition=complete job/hello --timeout=1s' \
	'echo "complete; kubectl logs job/hello: $(k logs job/hello 2>&1 | tail -1)"'
run_step cronjob-manual "k create cronjob tick --image=busybox --schedule='*/5 * * * *' -- echo tick && k create job tick-now --from=cronjob/tick" \
	'[[ $(job_field tick-now "{.status.succeeded}") == 1 ]]' \
	'echo "the job made from the cronjob completed; owner $(job_field tick-now "{.metadata.ownerReferences[0].kind}")"'
run_step job-ttl "k apply -f - <<<'{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\",\"metadata\":{\"name\":\"brief\"},\"spec\":{\"ttlSecondsAfterFinished\":0,\"template\":{\"spec\":{\"restartPolicy\":\"Never\",\"containers\":[{\"name\":\"c\",\"image\":\"busybox\",\"command\":[\"true\"]}]}}}}'" \
	'! k get job brief' \
	'echo "the finished job was deleted after its zero TTL"'
run_step daemonset-fills-nodes "k apply -f - <<<'{\"apiVersion\":\"apps/v1\",\"kind\":\"DaemonSet\",\"metadata\":{\"name\":\"agent\"},\"spec\":{\"selector\":{\"matchLabels\":{\"app\":\"agent\"}},\"template\":{\"metadata\":{\"labels\":{\"app\":\"agent\"}},\"spec\":{\"containers\":[{\"name\":\"a\",\"image\":\"nginx\"}]}}}}' && kw rollout status ds/agent --timeout=${step_timeout}s" \
	'[[ $(count "$(ds_pods)") == 3 ]]' \
	'echo "one pod on each of $(ds_pods)"'
run_step taint-evicts "k taint node '$first_node' evict=now:NoExecute" \
	'[[ $(count "$(ds_pods)") == 2 && " $(ds_pods) " != *" $first_node "* ]]' \
	'echo "the pod on $first_node was evicted and not put back; left on $(ds_pods)"'
sts_pods() { k get pods -l app=db -o 'jsonpath={range .items[*]}{.metadata.name}={.status.phase} {end}' 2>/dev/null; }
run_step statefulset-in-order "k apply -f - <<<'{\"apiVersion\":\"apps/v1\",\"kind\":\"StatefulSet\",\"metadata\":{\"name\":\"db\"},\"spec\":{\"replicas\":3,\"serviceName\":\"db\",\"selector\":{\"matchLabels\":{\"app\":\"db\"}},\"template\":{\"metadata\":{\"labels\":{\"app\":\"db\"}},\"spec\":{\"containers\":[{\"name\":\"pg\",\"image\":\"postgres:16\"}]}}}}' && kw rollout status sts/db --timeout=${step_timeout}s" \
	'[[ $(sts_pods) == "db-0=Running db-1=Running db-2=Running " ]]' \
	'echo "rollout status ok: $(sts_pods)"'
run_step statefulset-scale-down "k scale sts db --replicas=1" \
	'[[ $(k get pods -l app=db -o name 2>/dev/null | xargs) == "pod/db-0" ]]' \
	'echo "db-2 and db-1 went, from the highest ordinal; db-0 stays"'
run_step workloads-delete "k taint node '$first_node' evict- && k delete ds agent --wait=false && k delete job hello tick-now --wait=false && k delete cronjob tick && k delete sts db --wait=false" \
	'[[ -z $(k get pods -l app=agent -o name 2>/dev/null) && -z $(k get pods -l app=db -o name 2>/dev/null) && -z $(k get jobs -o name 2>/dev/null) ]]' \
	'echo "the garbage collector deleted the daemonset and jobs pods"'

# The endpointslice-mirroring controller: a selectorless Service's
# hand-written Endpoints mirrored into a slice it manages.
mirrored() { k get endpointslices -l kubernetes.io/service-name=ext,endpointslice.kubernetes.io/managed-by=endpointslicemirroring-controller.k8s.io -o 'jsonpath={.items[*].endpoints[*].addresses[0]}' 2>/dev/null; }
run_step endpointslice-mirroring "k apply -f - <<<'{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":\"ext\"},\"spec\":{\"ports\":[{\"port\":80}]}}' && k apply -f - <<<'{\"apiVersion\":\"v1\",\"kind\":\"Endpoints\",\"metadata\":{\"name\":\"ext\"},\"subsets\":[{\"addresses\":[{\"ip\":\"192.0.2.7\"}],\"ports\":[{\"port\":80}]}]}'" \
	'[[ $(mirrored) == "192.0.2.7" ]]' 'echo "mirrored into $(k get endpointslices -l kubernetes.io/service-name=ext -o name | xargs)"'
# The clusterrole-aggregation controller: an aggregating role takes the
# rules of the roles its selector matches.
agg_rules() { k get clusterrole agg-parent -o 'jsonpath={.rules[*].resources[*]}' 2>/dev/null; }
run_step clusterrole-aggregation "k apply -f - <<<'{\"apiVersion\":\"rbac.authorization.k8s.io/v1\",\"kind\":\"ClusterRole\",\"metadata\":{\"name\":\"agg-parent\"},\"aggregationRule\":{\"clusterRoleSelectors\":[{\"matchLabels\":{\"agg\":\"yes\"}}]}}' && k apply -f - <<<'{\"apiVersion\":\"rbac.authorization.k8s.io/v1\",\"kind\":\"ClusterRole\",\"metadata\":{\"name\":\"agg-child\",\"labels\":{\"agg\":\"yes\"}},\"rules\":[{\"apiGroups\":[\"\"],\"resources\":[\"configmaps\"],\"verbs\":[\"get\"]}]}'" \
	'[[ $(agg_rules) == "configmaps" ]]' 'echo "agg-parent aggregated: $(agg_rules)"'
# The resourcequota controller: a quota's usage is counted by the real
# one (miniplane's admission only charges it), objects created before the
# quota included.
quota_used() { k get resourcequota counted -o 'jsonpath={.status.used.configmaps}/{.status.used.count/secrets}' 2>/dev/null; }
run_step resourcequota-counted "k create configmap before-quota --from-literal=a=b && k create quota counted --hard=configmaps=50,count/secrets=50" \
	'[[ $(quota_used) =~ ^[0-9]+/[0-9]+$ ]]' 'echo "used configmaps/secrets: $(quota_used)"'
# The namespace controller: a namespace deleted with objects in it is
# emptied and removed (miniplane's API server empties namespaces itself
# too, apiserver/sweep.go: both run here, the first to act wins).
run_step namespace-deleted "k create namespace doomed && k create configmap c -n doomed --from-literal=a=b && k create serviceaccount s -n doomed && k delete namespace doomed --wait=false" \
	'! k get namespace doomed >/dev/null 2>&1' 'echo "namespace doomed and its objects are gone"'

# Errors in the controller manager's log are worth reading even when every
# step passed: a controller that failed to start says so only there. Known:
# the taint-eviction-controller's "Index with name spec.nodeName does not
# exist" is KCM's own, here because its node-lifecycle-controller (which
# adds that pod index, node_lifecycle_controller.go) does not run: nodesim
# plays the node lifecycle. And replica_set.go's "Unhandled Error" on the
# RC's scale-down is Kubernetes' "ReplicaSet has no controller" (README).
kcm_errors=$(grep -cE '^E[0-9]{4}' "$work/kcm.log")
echo "kcm.log: $kcm_errors error lines; controllers started: $(grep -oE 'Started controller" controller="[^"]+"' "$work/kcm.log" | sed 's/.*controller="//; s/"$//' | sort -u | xargs)"
if ((failed)); then
	{
		echo "--- the kube-controller-manager log's last errors and warnings (KEEP_WORK=1 keeps all of it):"
		grep -E '^[EW][0-9]{4}' "$work/kcm.log" | tail -15
	} >&2
	exit 1
fi
