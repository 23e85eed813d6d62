#!/usr/bin/env bash
# run-scheduler.sh runs Kubernetes' own kube-scheduler v1.32, unmodified and
# in its default configuration, against `miniplane serve --scheduler=none`
# on 100 simulated nodes (their kubelets still run what it binds), and with
# SCHED_MODE=both also the real kube-controller-manager, miniplane's own
# controllers off. It prints one PASS, FAIL or SKIP line per step, then the
# figures, and exits 1 if any step failed.
#
# Not part of CI: see README.md for build times and results.
#
#   interop/realk8s/run-scheduler.sh                  # scheduler: 10 RCs x 100 pods
#   SCHED_MODE=both interop/realk8s/run-scheduler.sh  # KCM + scheduler: 100 RCs x 100 pods + Services
#   MISSING_KINDS=empty interop/realk8s/run-scheduler.sh
#
# Settings (environment):
#   SCHED_MODE        scheduler (default) or both
#   MISSING_KINDS     fail (default): a kind the scheduler watches that miniplane
#                     does not serve fails the run; empty: the emptykinds
#                     stand-in answers those kinds with empty lists (the run
#                     then says so), to see the scheduler work past its cache sync
#   RCS, REPLICAS     how many RCs and replicas each (defaults 10x100, both: 100x100)
#   NODES             simulated nodes (default 100)
#   KUBE_API_QPS      if set, --kube-api-qps=N --kube-api-burst=2N for KCM and the
#                     scheduler (default: unset, their own defaults 20 and 50)
#   STEP_TIMEOUT      seconds a small step may wait (default 60)
#   BIG_TIMEOUT       seconds the pods may take to run (default 1200)
#   SCHED_V           the scheduler's and KCM's --v (default 2)
#   KCM_BUILD_DIR     where kcm/ is built, and sched/ under it (default ~/.cache/miniplane-realk8s)
#   SCHED_BIN, KCM_BIN  binaries to run instead of building them
#   MINIPLANE_BIN     a miniplane to run instead of building this tree's (e.g. one
#                     built from another branch)
#   APPLY_FLAGS       extra flags for the workload's kubectl apply (e.g.
#                     --validate=false when serve's OpenAPI documents fail)
#   KEEP_WORK=1       keep the temporary directory (logs, kubeconfigs)
#   KEEP_GOING=1      run every step after a failure too
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd) # the main module
mode=${SCHED_MODE:-scheduler}
missing_kinds=${MISSING_KINDS:-fail}
nodes=${NODES:-100}
step_timeout=${STEP_TIMEOUT:-60}
big_timeout=${BIG_TIMEOUT:-1200}
verbosity=${SCHED_V:-2}
build_dir=${KCM_BUILD_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/miniplane-realk8s}
kube_version=v1.32.13 # keep in step with kcm/go.mod and sched/go.mod

case $mode in
scheduler) rcs=${RCS:-10} replicas=${REPLICAS:-100} ;;
both) rcs=${RCS:-100} replicas=${REPLICAS:-100} ;;
*)
	echo "run-scheduler.sh: SCHED_MODE must be scheduler or both, got '$mode'" >&2
	exit 2
	;;
esac
case $missing_kinds in
fail | empty) ;;
*)
	echo "run-scheduler.sh: MISSING_KINDS must be fail or empty, got '$missing_kinds'" >&2
	exit 2
	;;
esac
qps_flags=()
if [[ -n ${KUBE_API_QPS:-} ]]; then
	[[ $KUBE_API_QPS =~ ^[1-9][0-9]*$ ]] || {
		echo "run-scheduler.sh: KUBE_API_QPS must be a positive integer, got '$KUBE_API_QPS'" >&2
		exit 2
	}
	qps_flags=(--kube-api-qps="$KUBE_API_QPS" --kube-api-burst=$((2 * KUBE_API_QPS)))
fi
command -v kubectl >/dev/null || {
	echo "run-scheduler.sh: kubectl is not on PATH" >&2
	exit 2
}
total=$((rcs * replicas))

work=$(mktemp -d "${TMPDIR:-/tmp}/realk8s-sched.XXXXXX")
serve_pid= proxy_pid= kcm_pid= sched_pid=

# cleanup stops what this script started, by pid, and removes its files.
cleanup() {
	local pid
	for pid in $sched_pid $kcm_pid $proxy_pid $serve_pid; do
		if kill -0 "$pid" 2>/dev/null; then
			kill -TERM "$pid" 2>/dev/null
			for _ in $(seq 50); do
				kill -0 "$pid" 2>/dev/null || break
				sleep 0.1
			done
			kill -KILL "$pid" 2>/dev/null
			wait "$pid" 2>/dev/null
		fi
	done
	if [[ ${KEEP_WORK:-} == 1 ]]; then
		echo "run-scheduler.sh: logs kept in $work" >&2
	else
		rm -rf "$work"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

failed=0
skipping=0
pass() { printf 'PASS %-22s %s\n' "$1" "$2"; }
fail() {
	printf 'FAIL %-22s %s\n' "$1" "$2"
	failed=1
	[[ ${KEEP_GOING:-} == 1 ]] || skipping=1
}
skip() { printf 'SKIP %-22s %s\n' "$1" "after an earlier failure"; }

# wait_for polls a condition every interval (default half a second) until
# it holds or the timeout (default step_timeout) passes.
wait_for() {
	local cond=$1 timeout=${2:-$step_timeout} every=${3:-0.5}
	local deadline=$((SECONDS + timeout))
	while ((SECONDS < deadline)); do
		if eval "$cond" >/dev/null 2>&1; then
			return 0
		fi
		sleep "$every"
	done
	return 1
}

k() { kubectl --kubeconfig "$work/kubeconfig" --cache-dir "$work/kube-cache" --request-timeout=60s "$@"; }

# free_port prints a port free on 127.0.0.1 now (the kernel's pick).
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# build builds one of the realk8s modules (kcm or sched) into dir, as
# run-kcm.sh does: go.sum is made there by go mod tidy, not committed.
build() {
	local module=$1 dir=$2 bin=$3
	mkdir -p "$dir"
	if ! cmp -s "$here/$module/go.mod" "$dir/go.mod.src" || [[ ! -f $dir/go.sum ]]; then
		cp "$here/$module/go.mod" "$dir/go.mod"
		cp "$here/$module/go.mod" "$dir/go.mod.src"
		rm -f "$dir/go.sum"
	fi
	cp "$here/$module/main.go" "$dir/main.go"
	local ldflags="-X k8s.io/component-base/version.gitVersion=$kube_version -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=32 -X k8s.io/component-base/version.gitTreeState=clean"
	(cd "$dir" && { [[ -f go.sum ]] || nice -n 10 go mod tidy; } && nice -n 10 go build -ldflags "$ldflags" -o "$bin" .) >>"$work/build.log" 2>&1
}

# cpu_seconds and peak_rss_mib read a live process's CPU time
# (utime+stime) and peak resident set (VmHWM).
clk_tck=$(getconf CLK_TCK)
cpu_seconds() {
	awk -v t="$clk_tck" '{ sub(/^.*\) /, ""); printf "%.1f", ($12 + $13) / t }' "/proc/$1/stat" 2>/dev/null
}
peak_rss_mib() { awk '/^VmHWM:/ { printf "%d", $2 / 1024 }' "/proc/$1/status" 2>/dev/null; }

# --- build ---------------------------------------------------------------

step=build-scheduler
start=$SECONDS
if [[ -n ${SCHED_BIN:-} ]]; then
	sched=$SCHED_BIN
	pass "$step" "using SCHED_BIN=$sched"
else
	sched=$build_dir/kube-scheduler
	if build sched "$build_dir/sched" "$sched"; then
		pass "$step" "k8s.io/kubernetes $kube_version from the module proxy in $((SECONDS - start))s: $("$sched" --version 2>&1)"
	else
		fail "$step" "see below"
		tail -20 "$work/build.log" >&2
		exit 1
	fi
fi
if [[ $mode == both ]]; then
	step=build-kcm
	start=$SECONDS
	if [[ -n ${KCM_BIN:-} ]]; then
		kcm=$KCM_BIN
		pass "$step" "using KCM_BIN=$kcm"
	else
		kcm=$build_dir/kube-controller-manager
		if build kcm "$build_dir" "$kcm"; then
			pass "$step" "k8s.io/kubernetes $kube_version from the module proxy in $((SECONDS - start))s: $("$kcm" --version 2>&1)"
		else
			fail "$step" "see below"
			tail -20 "$work/build.log" >&2
			exit 1
		fi
	fi
fi

# --- miniplane serve, without its scheduler ---------------------------------

step=serve-ready
miniplane=${MINIPLANE_BIN:-$work/miniplane}
if ! (cd "$root" && { [[ -n ${MINIPLANE_BIN:-} ]] || go build -o "$miniplane" ./cmd/miniplane; } && cd interop && go build -o "$work/emptykinds" ./realk8s/emptykinds) >"$work/build-miniplane.log" 2>&1; then
	fail "$step" "building miniplane failed"
	cat "$work/build-miniplane.log" >&2
	exit 1
fi
serve_flags=(--addr=127.0.0.1:0 --nodes="$nodes" --scheduler=none)
if [[ $mode == both ]]; then
	# The real controller manager replaces miniplane's: with every controller
	# off serve runs no controller-manager instance.
	serve_flags+=(--controllers=-replicationcontroller,-endpoint,-garbagecollector)
else
	# miniplane's own replication and endpoints controllers make the pods;
	# one instance is enough.
	serve_flags+=(--instances=1)
fi
"$miniplane" serve "${serve_flags[@]}" >"$work/serve.out" 2>"$work/serve.log" &
serve_pid=$!
if wait_for "grep -q '^ready: ' '$work/serve.out'"; then
	url=$(sed -n 's/.*serving the Kubernetes API on \(http:[^ ]*\).*/\1/p' "$work/serve.out")
	pass "$step" "$url: $(grep '^ready: ' "$work/serve.out")"
else
	fail "$step" "no ready line within ${step_timeout}s: $(tr '\n' ' ' <"$work/serve.out")"
	cat "$work/serve.log" >&2
	exit 1
fi

kubeconfig() { # a kubeconfig for a server URL and a user name, no credentials
	cat <<EOF
apiVersion: v1
kind: Config
clusters:
- name: miniplane
  cluster:
    server: $1
users:
- name: $2
  user: {}
contexts:
- name: miniplane
  context:
    cluster: miniplane
    user: $2
current-context: miniplane
EOF
}
kubeconfig "$url" kubectl >"$work/kubeconfig"
kubeconfig "$url" kube-controller-manager >"$work/kcm.kubeconfig"

# --- the kinds the scheduler lists and watches ------------------------------

# Every kind kube-scheduler v1.32's default plugins and queue list and watch
# beyond pods, nodes, namespaces, services and replicationcontrollers (which
# miniplane serves): found by running it against serve with --v=6.
watched_kinds="v1/persistentvolumes v1/persistentvolumeclaims storage.k8s.io/v1/storageclasses
storage.k8s.io/v1/csinodes storage.k8s.io/v1/csidrivers storage.k8s.io/v1/csistoragecapacities
storage.k8s.io/v1/volumeattachments policy/v1/poddisruptionbudgets apps/v1/replicasets apps/v1/statefulsets"
step=served-kinds
missing=()
for gvr in $watched_kinds; do
	case $gvr in
	v1/*) path=/api/$gvr ;;
	*) path=/apis/$gvr ;;
	esac
	k get --raw "$path?limit=1" >/dev/null 2>&1 || missing+=("$gvr")
done
sched_url=$url
if ((${#missing[@]} == 0)); then
	pass "$step" "miniplane serves every kind the scheduler watches"
elif [[ $missing_kinds == empty ]]; then
	kinds_csv=$(
		IFS=,
		echo "${missing[*]}"
	)
	"$work/emptykinds" --upstream="$url" --kinds="$kinds_csv" --addr=127.0.0.1:0 >"$work/proxy.out" 2>"$work/proxy.log" &
	proxy_pid=$!
	if wait_for "grep -q '^emptykinds is serving on ' '$work/proxy.out'"; then
		sched_url=$(sed -n 's/^emptykinds is serving on //p' "$work/proxy.out")
		pass "$step" "STAND-IN: miniplane does not serve ${#missing[@]} kinds; emptykinds answers them empty: ${missing[*]}"
	else
		fail "$step" "the emptykinds stand-in did not start: $(cat "$work/proxy.log")"
	fi
else
	# The scheduler still runs, so that its log shows what it asks for.
	printf 'FAIL %-22s %s\n' "$step" "miniplane does not serve ${#missing[@]} kinds the scheduler waits for: ${missing[*]} (MISSING_KINDS=empty runs a stand-in)"
	failed=1
fi
kubeconfig "$sched_url" kube-scheduler >"$work/sched.kubeconfig"

# --- the real controller manager (both) and scheduler ----------------------

if [[ $mode == both ]]; then
	"$kcm" --kubeconfig="$work/kcm.kubeconfig" \
		--controllers=replicationcontroller,endpoint,garbagecollector \
		--leader-elect=true --use-service-account-credentials=false \
		--secure-port=0 "${qps_flags[@]}" --v="$verbosity" \
		>"$work/kcm.log" 2>&1 &
	kcm_pid=$!
fi

# The flags kubeadm gives kube-scheduler, and nothing else: its default
# configuration (every default plugin, protobuf, leader election on), serving
# /healthz and /metrics on a free port, delegating authentication and
# authorization of those requests to the API server it schedules for.
sched_port=$(free_port)
"$sched" --kubeconfig="$work/sched.kubeconfig" \
	--authentication-kubeconfig="$work/sched.kubeconfig" \
	--authorization-kubeconfig="$work/sched.kubeconfig" \
	--bind-address=127.0.0.1 --secure-port="$sched_port" \
	--leader-elect=true "${qps_flags[@]}" --v="$verbosity" \
	>"$work/sched.log" 2>&1 &
sched_pid=$!

# sched_hint is what the scheduler's log says went wrong: the kinds it
# failed to list, else its first error line.
sched_hint() {
	local kinds
	kinds=$(grep -oE 'failed to list \*v1\.[A-Za-z]+' "$work/sched.log" 2>/dev/null | sort -u | sed 's/failed to list \*v1\.//' | xargs)
	if [[ -n $kinds ]]; then
		echo "it waits for its caches; lists refused: $kinds"
	else
		grep -m1 -E '^E[0-9]{4}' "$work/sched.log" 2>/dev/null | cut -c1-300
	fi
}

holder() { k get lease -n kube-system "$1" -o 'jsonpath={.spec.holderIdentity}' 2>/dev/null; }
if [[ $mode == both ]]; then
	step=kcm-leads
	start=$SECONDS
	if wait_for '[[ -n $(holder kube-controller-manager) ]]'; then
		pass "$step" "kube-system/kube-controller-manager held by $(holder kube-controller-manager) [$((SECONDS - start))s]"
	else
		fail "$step" "no lease within ${step_timeout}s: $(grep -m1 -E '^E[0-9]{4}' "$work/kcm.log" | cut -c1-300)"
	fi
fi

step=scheduler-leads
start=$SECONDS
healthz() { curl -sk --max-time 5 "https://127.0.0.1:$sched_port/healthz"; }
if wait_for '[[ -n $(holder kube-scheduler) && $(healthz) == ok ]]'; then
	pass "$step" "kube-system/kube-scheduler held by $(holder kube-scheduler), /healthz ok on :$sched_port [$((SECONDS - start))s]"
elif ! kill -0 "$sched_pid" 2>/dev/null; then
	fail "$step" "kube-scheduler exited: $(sched_hint)"
else
	fail "$step" "no lease within ${step_timeout}s: $(sched_hint)"
fi

# --- the workload ----------------------------------------------------------

# rcs RCs of replicas pods each (label app=sched-N), small requests so that
# NodeResourcesFit counts them, and in both mode a Service for each.
workload() {
	local i
	for ((i = 0; i < rcs; i++)); do
		cat <<EOF
apiVersion: v1
kind: ReplicationController
metadata:
  name: sched-$i
spec:
  replicas: $replicas
  selector:
    app: sched-$i
  template:
    metadata:
      labels:
        app: sched-$i
    spec:
      containers:
      - name: web
        image: nginx:1.27
        ports:
        - name: http
          containerPort: 80
        resources:
          requests:
            cpu: 10m
            memory: 32Mi
---
EOF
		if [[ $mode == both ]]; then
			cat <<EOF
apiVersion: v1
kind: Service
metadata:
  name: sched-$i
spec:
  selector:
    app: sched-$i
  ports:
  - name: http
    port: 80
    targetPort: http
---
EOF
		fi
	done
}
workload >"$work/workload.yaml"

# pod_table prints "node|phase|ready" for every pod not being deleted.
pod_table() {
	k get pods --chunk-size=1000 -o 'jsonpath={range .items[*]}{.spec.nodeName}|{.status.phase}|{.status.conditions[?(@.type=="Ready")].status}|{.metadata.deletionTimestamp}{"\n"}{end}' 2>/dev/null |
		awk -F'|' 'NF == 4 && $4 == "" { print $1 "|" $2 "|" $3 }'
}
progress() { # pods, bound, running, ready
	pod_table | awk -F'|' '{ n++; if ($1 != "") b++; if ($2 == "Running") r++; if ($3 == "True") y++ } END { printf "%d %d %d %d", n, b, r, y }'
}
# ready_sum is the RCs' readyReplicas added up: a cheap poll (one small
# object per RC) before the full look at every pod.
ready_sum() {
	k get rc -o 'jsonpath={range .items[*]}{.status.readyReplicas}{"\n"}{end}' 2>/dev/null | awk '{ s += $1 } END { print s + 0 }'
}
all_running() {
	local p
	p="ready per the RCs: $(ready_sum)"
	echo "$p" >"$work/progress"
	[[ $p == "ready per the RCs: $total" ]] || return 1
	p=$(progress)
	echo "pods, bound, running, ready = $p" >"$work/progress"
	[[ $p == "$total $total $total $total" ]]
}

run_start=
step=create-workload
if ((skipping)); then
	skip "$step"
else
	run_start=$SECONDS
	# shellcheck disable=SC2086 # APPLY_FLAGS is words
	if out=$(k apply ${APPLY_FLAGS:-} -f "$work/workload.yaml" 2>&1); then
		pass "$step" "$rcs RCs x $replicas replicas$([[ $mode == both ]] && echo ", a Service each")"
	else
		fail "$step" "$(tr '\n' ' ' <<<"$out" | cut -c1-300)"
	fi
fi

step=all-running
running_secs=
if ((skipping)); then
	skip "$step"
elif wait_for all_running "$big_timeout" 2; then
	running_secs=$((SECONDS - run_start))
	pass "$step" "$total pods bound by kube-scheduler and Running and Ready in ${running_secs}s"
else
	fail "$step" "not within ${big_timeout}s: $(cat "$work/progress" 2>/dev/null); $(sched_hint)"
fi

step=spread
if ((skipping)); then
	skip "$step"
else
	pod_table | awk -F'|' '$1 != "" { print $1 }' | sort | uniq -c | awk '{ print $1 }' >"$work/per-node"
	used=$(wc -l <"$work/per-node")
	max=$(sort -n "$work/per-node" | tail -1)
	min=$(sort -n "$work/per-node" | head -1)
	((used < nodes)) && min=0
	# Every node is equal and scored (100 nodes is the scheduler's floor for
	# scoring all of them), so LeastAllocated, BalancedAllocation and the
	# default topology spread (maxSkew 3 per hostname) keep them even.
	even=$((total / nodes))
	if ((max - min <= 6)); then
		pass "$step" "pods per node: min $min, max $max over $used of $nodes nodes (even would be $even)"
	else
		fail "$step" "uneven: pods per node min $min, max $max over $used of $nodes nodes (even would be $even)"
	fi
fi

if [[ $mode == both ]]; then
	step=endpoints-complete
	# complete: every Service's Endpoints lists exactly its pods' ready IPs.
	endpoints_complete() {
		local counts
		counts=$(k get endpoints -o 'jsonpath={range .items[*]}{.metadata.name} {range .subsets[*].addresses[*]}{.ip} {end}{"\n"}{end}' 2>/dev/null |
			awk '$1 ~ /^sched-/ { print NF - 1 }' | sort | uniq -c | xargs)
		echo "$counts" >"$work/ep-counts"
		[[ $counts == "$rcs $replicas" ]]
	}
	start=$SECONDS
	if ((skipping)); then
		skip "$step"
	elif wait_for endpoints_complete "$big_timeout" 5; then
		pass "$step" "all $rcs Services list their $replicas ready addresses, $((SECONDS - run_start))s after the create [$((SECONDS - start))s]"
	else
		fail "$step" "not within ${big_timeout}s: (count addresses) = $(cat "$work/ep-counts")"
	fi
fi

# --- figures ---------------------------------------------------------------

echo "--- figures (CPU seconds user+system since each process started; peak RSS)"
sum=0
for who in serve:$serve_pid kcm:$kcm_pid scheduler:$sched_pid emptykinds:$proxy_pid; do
	pid=${who#*:}
	[[ -n $pid ]] && kill -0 "$pid" 2>/dev/null || continue
	c=$(cpu_seconds "$pid")
	printf '  %-11s cpu %6ss  peak RSS %5s MiB\n' "${who%%:*}" "$c" "$(peak_rss_mib "$pid")"
	sum=$(awk -v a="$sum" -v b="$c" 'BEGIN { print a + b }')
	[[ ${who%%:*} == serve ]] && serve_cpu=$c
done
awk -v s="${serve_cpu:-0}" -v t="$sum" 'BEGIN { if (t > 0) printf "  miniplane serve: %.0f%% of the CPU these processes used\n", 100 * s / t }'
[[ -n $running_secs ]] && echo "  wall time, create to all $total Running and Ready: ${running_secs}s"
[[ -n $proxy_pid ]] && echo "  NOTE: the emptykinds stand-in answered: ${missing[*]}"

if ((failed)); then
	{
		echo "--- the kube-scheduler log's last errors and warnings (KEEP_WORK=1 keeps all of it):"
		grep -E '^[EW][0-9]{4}' "$work/sched.log" | tail -15 | cut -c1-400
	} >&2
	exit 1
fi
