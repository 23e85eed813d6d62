#!/usr/bin/env bash
# bench-stacks.sh runs one workload on three control planes, one after the
# other, on this machine (issue 17):
#   kube:      etcd v3.5.16 + kube-apiserver + kube-controller-manager +
#              kube-scheduler (all v1.32.13) + kwok v0.7.0 as the kubelets
#   miniplane+kube: `miniplane serve --scheduler=none --nodes=N` with its
#              controllers off, and the same real KCM and kube-scheduler
#   miniplane: `miniplane serve --nodes=N` with its own controllers
# The workload: RCS ReplicationControllers of REPLICAS replicas, each with a
# Service, on NODES nodes, from `kubectl create` to every Endpoints holding
# REPLICAS ready addresses. For each stack it prints the start-up time to a
# ready API (/readyz 200), the workload's wall time, and each process's CPU
# seconds (utime+stime, /proc/PID/stat) during the workload and since its
# start, and its peak RSS (VmHWM, /proc/PID/status, sampled until it ends);
# then the ratios.
#
# Not part of CI: see README.md for the builds and the figures.
#
#   interop/realk8s/bench-stacks.sh
#   STACKS=miniplane RCS=10 interop/realk8s/bench-stacks.sh
#
# Settings (environment):
#   STACKS          which stacks, in order (default "kube miniplane+kube miniplane")
#   RCS, REPLICAS, NODES   the workload (default 100, 100, 100)
#   KUBE_API_QPS    KCM's and the scheduler's --kube-api-qps (default 1000;
#                   --kube-api-burst is twice it); "default" leaves their own (20/50, 50/100)
#   BIG_TIMEOUT     seconds the workload may take (default 1800)
#   KWOK_BIN        a kwok to run instead of building one
#   KEEP_WORK=1     keep the temporary directory (logs, kubeconfigs)
#   and bench-lib.sh's: KCM_BUILD_DIR, APISERVER_BIN, SCHED_BIN, KCM_BIN, ETCD_BIN,
#   MINIPLANE_BIN (the real scheduler needs a serve that serves the kinds it
#   watches: PVs, PVCs, storage.k8s.io, PDBs, ReplicaSets, StatefulSets), STEP_TIMEOUT
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd) # the main module
work=$(mktemp -d "${TMPDIR:-/tmp}/bench-stacks.XXXXXX")
# shellcheck source=bench-lib.sh
source "$here/bench-lib.sh"
trap bench_cleanup EXIT
trap 'exit 130' INT TERM

stacks=${STACKS:-kube miniplane+kube miniplane}
rcs=${RCS:-100}
replicas=${REPLICAS:-100}
nodes=${NODES:-100}
big_timeout=${BIG_TIMEOUT:-1800}
kwok_version=v0.7.0
qps=${KUBE_API_QPS:-1000}
for s in $stacks; do
	case $s in kube | miniplane+kube | miniplane) ;; *) die "STACKS: $s is not kube, miniplane+kube or miniplane" ;; esac
done
for v in rcs replicas nodes big_timeout; do
	[[ ${!v} =~ ^[1-9][0-9]*$ ]] || die "${v^^} must be a positive integer, got '${!v}'"
done
qps_flags=()
if [[ $qps != default ]]; then
	[[ $qps =~ ^[1-9][0-9]*$ ]] || die "KUBE_API_QPS must be a positive integer or default, got '$qps'"
	qps_flags=(--kube-api-qps="$qps" --kube-api-burst=$((2 * qps)))
fi
command -v kubectl >/dev/null || die "kubectl is not on PATH"
command -v jq >/dev/null || die "jq is not on PATH"

# --- build ------------------------------------------------------------------

[[ " $stacks " == *kube* ]] && build_kube
[[ " $stacks " == *" kube "* ]] && {
	build_etcd
	kwok=${KWOK_BIN:-$build_dir/kwok/kwok}
	if [[ -z ${KWOK_BIN:-} && ! -x $kwok ]]; then
		log "building kwok $kwok_version from the module proxy"
		mkdir -p "$build_dir/kwok"
		GOBIN=$build_dir/kwok nice -n 10 go install "sigs.k8s.io/kwok/cmd/kwok@$kwok_version" >>"$work/build.log" 2>&1 ||
			die "building kwok failed: $(tail -5 "$work/build.log")"
	fi
}
[[ " $stacks " == *miniplane* ]] && build_miniplane

# --- the workload -----------------------------------------------------------

# The RCs and Services, web-1 ... web-RCS, in one file.
for i in $(seq "$rcs"); do
	cat <<EOF
apiVersion: v1
kind: ReplicationController
metadata: {name: web-$i, namespace: default}
spec:
  replicas: $replicas
  selector: {app: web-$i}
  template:
    metadata: {labels: {app: web-$i}}
    spec:
      containers:
      - name: web
        image: registry.k8s.io/pause:3.10
        ports: [{containerPort: 8080}]
---
apiVersion: v1
kind: Service
metadata: {name: web-$i, namespace: default}
spec:
  selector: {app: web-$i}
  ports: [{port: 80, targetPort: 8080}]
---
EOF
done >"$work/workload.yaml"

# kwok_nodes prints the NODES nodes kwok runs in the kube stack: the
# capacity nodesim gives its simulated nodes (4 CPUs, 16Gi, 110 pods), a
# pod CIDR each; kwok sets their conditions and leases.
kwok_nodes() {
	local i
	for i in $(seq 0 $((nodes - 1))); do
		cat <<EOF
apiVersion: v1
kind: Node
metadata:
  name: node-$i
  annotations: {kwok.x-k8s.io/node: fake, node.alpha.kubernetes.io/ttl: "0"}
  labels: {kubernetes.io/hostname: node-$i, kubernetes.io/os: linux, kubernetes.io/arch: amd64, type: kwok}
spec:
  podCIDR: 10.$((244 + i / 256)).$((i % 256)).0/24
  podCIDRs: [10.$((244 + i / 256)).$((i % 256)).0/24]
status:
  capacity: {cpu: "4", memory: 16Gi, pods: "110"}
  allocatable: {cpu: "4", memory: 16Gi, pods: "110"}
---
EOF
	done
}

# workload_done holds when every RC has its replicas ready and every
# Endpoints of the workload lists that many ready addresses. The RCs are
# polled first: their list is small, the Endpoints' is not.
workload_done() {
	local kc=$1 ready
	ready=$(kubectl --kubeconfig "$kc" get rc -n default -o json 2>/dev/null |
		jq --argjson n "$replicas" '[.items[] | select(.metadata.name | startswith("web-")) | select(.status.readyReplicas == $n)] | length')
	[[ $ready == "$rcs" ]] || return 1
	ready=$(kubectl --kubeconfig "$kc" get endpoints -n default -o json 2>/dev/null |
		jq --argjson n "$replicas" '[.items[] | select(.metadata.name | startswith("web-")) | select(([.subsets[]?.addresses[]?] | length) == $n)] | length')
	[[ $ready == "$rcs" ]]
}

# progress says how far the workload got.
progress() {
	kubectl --kubeconfig "$1" get rc -n default -o json 2>/dev/null |
		jq -r '[.items[] | select(.metadata.name | startswith("web-")) | (.status.readyReplicas // 0)] | "ready replicas: \(add // 0) in \(length) RCs"'
}

# component_kubeconfig URL [TOKEN [INSECURE]] prints a kubeconfig for the components.
component_kubeconfig() {
	cat <<EOF
apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: "$1", insecure-skip-tls-verify: ${3:-false}}
users:
- name: u
  user: {token: "${2:-}"}
contexts:
- name: c
  context: {cluster: c, user: u}
current-context: c
EOF
}

# start_components starts the real KCM and kube-scheduler against kubeconfig
# kc: the three controllers miniplane has, leader election on, the flags
# kubeadm gives the scheduler and its default configuration.
start_components() {
	local kc=$1
	start kcm "$kcm" --kubeconfig="$kc" \
		--controllers=replicationcontroller,endpoint,garbagecollector \
		--leader-elect=true --use-service-account-credentials=false \
		--secure-port=0 "${qps_flags[@]}" --v=1
	sample kcm "$kcm_pid"
	start sched "$sched" --kubeconfig="$kc" \
		--authentication-kubeconfig="$kc" --authorization-kubeconfig="$kc" \
		--bind-address=127.0.0.1 --secure-port="$(free_port)" \
		--leader-elect=true "${qps_flags[@]}" --v=1
	sample sched "$sched_pid"
}

# --- the runs ---------------------------------------------------------------

machine
echo "workload: $rcs RCs x $replicas replicas + a Service each, on $nodes nodes; KCM and kube-scheduler QPS: $qps"
declare -A wall cpu
for s in $stacks; do
	echo "--- $s; $(uptime | sed 's/^ *//')"
	t0=$(now_ms)
	procs=()
	case $s in
	kube)
		start_kube_apiserver
		kc=$work/kube.kubeconfig
		ready_ms=$(($(now_ms) - t0))
		component_kubeconfig "$kube_url" "$kube_token" true >"$work/components.kubeconfig"
		kubectl --kubeconfig "$kc" create -f <(kwok_nodes) >/dev/null || die "creating the nodes failed"
		start kwok "$kwok" --kubeconfig="$work/components.kubeconfig" --manage-all-nodes=true \
			--cidr=10.0.0.1/16 --node-lease-duration-seconds=40 --server-address=127.0.0.1:"$(free_port)"
		sample kwok "$kwok_pid"
		start_components "$work/components.kubeconfig"
		procs=(etcd:etcd:$etcd_pid kube-apiserver:apiserver:$apiserver_pid kube-controller-manager:kcm:$kcm_pid kube-scheduler:sched:$sched_pid kwok:kwok:$kwok_pid)
		server=(etcd kube-apiserver)
		;;
	miniplane+kube)
		start_miniplane --nodes="$nodes" --scheduler=none \
			--controllers=-replicationcontroller,-endpoint,-garbagecollector \
			--leader-elect-resource-name=miniplane-controller-manager
		kc=$work/mp.kubeconfig
		ready_ms=$(($(now_ms) - t0))
		component_kubeconfig "$mp_url" >"$work/components.kubeconfig"
		start_components "$work/components.kubeconfig"
		procs=(miniplane:serve:$serve_pid kube-controller-manager:kcm:$kcm_pid kube-scheduler:sched:$sched_pid)
		server=(miniplane)
		;;
	miniplane)
		start_miniplane --nodes="$nodes"
		kc=$work/mp.kubeconfig
		ready_ms=$(($(now_ms) - t0))
		procs=(miniplane:serve:$serve_pid)
		server=(miniplane)
		;;
	esac
	echo "API ready (/readyz 200) $ready_ms ms after start"
	# Every node Ready before the clock starts, and, with the real
	# components, their leases taken.
	wait_for "[[ \$(kubectl --kubeconfig '$kc' get nodes --no-headers 2>/dev/null | grep -cw Ready) == $nodes ]]" ||
		die "$s: not every node is Ready within ${step_timeout}s"
	if [[ $s != miniplane ]]; then
		for l in kube-controller-manager kube-scheduler; do
			wait_for "[[ -n \$(kubectl --kubeconfig '$kc' get lease -n kube-system $l -o jsonpath='{.spec.holderIdentity}' 2>/dev/null) ]]" ||
				die "$s: $l took no lease within ${step_timeout}s: $(grep -h -m1 -E '^E[0-9]{4}' "$work/kcm.log" "$work/sched.log" 2>/dev/null | head -1 | cut -c1-300)"
		done
	fi
	declare -A cpu0=()
	for p in "${procs[@]}"; do cpu0[${p%%:*}]=$(cpu_s "${p##*:}"); done
	t1=$(now_ms)
	kubectl --kubeconfig "$kc" create -f "$work/workload.yaml" >/dev/null || die "$s: kubectl create failed"
	if ! wait_for "workload_done '$kc'" "$big_timeout"; then
		die "$s: not done within ${big_timeout}s: $(progress "$kc")"
	fi
	w=$(($(now_ms) - t1))
	wall[$s]=$w
	total=0 total_all=0 server_cpu=0
	printf '  %-24s %10s %12s %12s\n' process "cpu_s" "cpu_s_start" "peak_rss_mb"
	for p in "${procs[@]}"; do
		IFS=: read -r name file pid <<<"$p"
		read -r c h <<<"$(figures "$file" "$pid")"
		d=$(awk -v a="$c" -v b="${cpu0[$name]}" 'BEGIN {printf "%.2f", a - b}')
		printf '  %-24s %10s %12s %12s\n' "$name" "$d" "$c" "$h"
		total=$(awk -v a="$total" -v b="$d" 'BEGIN {printf "%.2f", a + b}')
		total_all=$(awk -v a="$total_all" -v b="$c" 'BEGIN {printf "%.2f", a + b}')
		[[ " ${server[*]} " == *" $name "* ]] && server_cpu=$(awk -v a="$server_cpu" -v b="$d" 'BEGIN {printf "%.2f", a + b}')
	done
	cpu[$s]=$total
	awk -v w="$w" -v t="$total" -v s="$server_cpu" -v ta="$total_all" 'BEGIN {
		printf "  wall %.2f s; CPU %.2f s during the workload (%.2f s since start); the API server%s share %.1f %%; CPU/2 cores = %.2f s, wall is %.2fx that\n",
			w / 1000, t, ta, "'"'"'s", 100 * s / t, t / 2, (w / 1000) / (t / 2) }'
	stop_all
done

if [[ -n ${wall[kube]:-} && -n ${wall[miniplane]:-} ]]; then
	awk -v wk="${wall[kube]}" -v wm="${wall[miniplane]}" -v ck="${cpu[kube]}" -v cm="${cpu[miniplane]}" 'BEGIN {
		printf "miniplane vs kube: wall %.1fx faster, CPU %.1fx less (goal: 40x)\n", wk / wm, ck / cm }'
fi
if [[ -n ${wall[kube]:-} && -n ${wall[miniplane+kube]:-} ]]; then
	awk -v wk="${wall[kube]}" -v wm="${wall[miniplane+kube]}" -v ck="${cpu[kube]}" -v cm="${cpu[miniplane+kube]}" 'BEGIN {
		printf "miniplane+kube vs kube: wall %.1fx faster, CPU %.1fx less\n", wk / wm, ck / cm }'
fi
