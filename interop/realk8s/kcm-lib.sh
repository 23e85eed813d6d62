# kcm-lib.sh: what run-kcm.sh and diff-deployment.sh share. Source it after
# `set -uo pipefail`; it reads the settings below from the environment and
# defines the helpers. It starts nothing until a helper is called, and its
# EXIT trap stops, by pid, every process the helpers started.
#
# Settings (environment):
#   KCM_CONTENT_TYPE  protobuf (default: no flag, KCM's own default) or json
#   STEP_TIMEOUT      seconds each step may wait (default 60)
#   KCM_BUILD_DIR     where kcm/ is built (default ~/.cache/miniplane-realk8s)
#   KCM_BIN           a kube-controller-manager to run instead of building one
#   KEEP_WORK=1       keep the temporary directory (logs, kubeconfig) after the run
#   KEEP_GOING=1      run every step after a failure too (each may then wait
#                     STEP_TIMEOUT), instead of skipping them

lib_here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$lib_here/../.." && pwd) # the main module
content_type=${KCM_CONTENT_TYPE:-protobuf}
step_timeout=${STEP_TIMEOUT:-60}
build_dir=${KCM_BUILD_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/miniplane-realk8s}
kube_version=v1.32.13 # keep in step with kcm/go.mod

# kcm_controllers are the controllers the real controller manager runs, under
# kube-controller-manager v1.32's names (it still takes the older ones,
# "replicationcontroller", "deployment" and so on, as aliases, but knows the
# root CA publisher only as root-ca-certificate-publisher-controller or
# root-ca-cert-publisher); serve_all_off switches every one of miniplane's
# off (serve's --controllers takes the older names, the root CA publisher's
# alias root-ca-cert-publisher among them). With every controller off serve runs no
# controller-manager instance at all.
kcm_controllers=replicationcontroller-controller,replicaset-controller,deployment-controller,endpoints-controller,garbage-collector-controller,serviceaccount-controller,root-ca-certificate-publisher-controller,job-controller,cronjob-controller,daemonset-controller,statefulset-controller,ttl-after-finished-controller,pod-garbage-collector-controller,taint-eviction-controller,namespace-controller,endpointslice-controller,endpointslice-mirroring-controller,clusterrole-aggregation-controller,resourcequota-controller
serve_all_off=-replicationcontroller,-replicaset,-deployment,-daemonset,-statefulset,-persistentvolume-binder,-job,-cronjob,-ttl-after-finished,-podgc,-taint-eviction-controller,-disruption,-resourcequota,-endpoint,-endpointslice,-endpointslice-mirroring,-garbagecollector,-serviceaccount,-root-ca-cert-publisher,-clusterrole-aggregation,-horizontalpodautoscaling

case $content_type in
protobuf) content_flag=() ;; # the default: KCM's stock settings, the run that counts
json) content_flag=(--kube-api-content-type=application/json) ;; # a JSON comparison run only, to tell a protobuf failure from any other; it proves nothing of stock clients
*)
	echo "$(basename "$0"): KCM_CONTENT_TYPE must be protobuf or json, got '$content_type'" >&2
	exit 2
	;;
esac
command -v kubectl >/dev/null || {
	echo "$(basename "$0"): kubectl is not on PATH" >&2
	exit 2
}

work=$(mktemp -d "${TMPDIR:-/tmp}/realk8s.XXXXXX")
# started holds the pids of the processes to stop on exit, the last started
# first.
started=()

# stop_pid stops one process this script started: TERM, five seconds, KILL.
stop_pid() {
	local pid=$1
	if kill -0 "$pid" 2>/dev/null; then
		kill -TERM "$pid" 2>/dev/null
		for _ in $(seq 50); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	fi
}

# cleanup stops what this script started, by pid, and removes its files.
cleanup() {
	local i
	for ((i = ${#started[@]} - 1; i >= 0; i--)); do
		stop_pid "${started[i]}"
	done
	if [[ ${KEEP_WORK:-} == 1 ]]; then
		echo "$(basename "$0"): logs kept in $work" >&2
	else
		rm -rf "$work"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

failed=0
skipping=0

# pass, fail and skip print a step's line; after a failure the later steps,
# which build on it, are skipped rather than each waiting out its timeout,
# unless KEEP_GOING=1.
pass() { printf 'PASS %-22s %s\n' "$1" "$2"; }
fail() {
	printf 'FAIL %-22s %s\n' "$1" "$2"
	failed=1
	[[ ${KEEP_GOING:-} == 1 ]] || skipping=1
}
skip() { printf 'SKIP %-22s %s\n' "$1" "after an earlier failure"; }

# wait_for polls a condition (a shell command) every half second until it
# holds or step_timeout seconds pass.
wait_for() {
	local deadline=$((SECONDS + step_timeout))
	while ((SECONDS < deadline)); do
		if eval "$1" >/dev/null 2>&1; then
			return 0
		fi
		sleep 0.5
	done
	return 1
}

# k runs kubectl against the plane of the current run (kube_dir); kw is k
# without a request timeout, for watches and `rollout status`, which a
# client timeout would cut short.
kube_dir=$work
k() { kubectl --kubeconfig "$kube_dir/kubeconfig" --cache-dir "$kube_dir/kube-cache" --request-timeout=10s "$@"; }
kw() { kubectl --kubeconfig "$kube_dir/kubeconfig" --cache-dir "$kube_dir/kube-cache" "$@"; }

# kcm_hint is the first line of the controller manager's log that says what
# went wrong, if any.
kcm_hint() {
	grep -m1 -E '^E[0-9]{4}|Unsupported Media Type|unable to|failed' "$kube_dir/kcm.log" 2>/dev/null | cut -c1-300
}

# build_kcm builds kcm/ into build_dir (or takes KCM_BIN), sets kcm to the
# binary and prints the build-kcm step's line; it exits on failure.
build_kcm() {
	local step=build-kcm start ldflags
	if [[ -n ${KCM_BIN:-} ]]; then
		kcm=$KCM_BIN
		pass "$step" "using KCM_BIN=$kcm"
		return
	fi
	kcm=$build_dir/kube-controller-manager
	mkdir -p "$build_dir"
	start=$SECONDS
	# go.sum is made here, not committed: tidy again whenever go.mod changed.
	if ! cmp -s "$lib_here/kcm/go.mod" "$build_dir/go.mod.src" || [[ ! -f $build_dir/go.sum ]]; then
		cp "$lib_here/kcm/go.mod" "$build_dir/go.mod"
		cp "$lib_here/kcm/go.mod" "$build_dir/go.mod.src"
		rm -f "$build_dir/go.sum"
	fi
	cp "$lib_here/kcm/main.go" "$build_dir/main.go"
	ldflags="-X k8s.io/component-base/version.gitVersion=$kube_version -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=32 -X k8s.io/component-base/version.gitTreeState=clean"
	if (cd "$build_dir" && { [[ -f go.sum ]] || go mod tidy; } && go build -ldflags "$ldflags" -o "$kcm" .) >"$work/build.log" 2>&1; then
		pass "$step" "k8s.io/kubernetes $kube_version from the module proxy in $((SECONDS - start))s: $("$kcm" --version 2>&1)"
	else
		fail "$step" "see below"
		tail -20 "$work/build.log" >&2
		exit 1
	fi
}

# build_miniplane builds this module's miniplane into $work/miniplane; it
# exits on failure.
build_miniplane() {
	if ! (cd "$root" && go build -o "$work/miniplane" ./cmd/miniplane) >"$work/build-miniplane.log" 2>&1; then
		fail serve-ready "building miniplane failed"
		cat "$work/build-miniplane.log" >&2
		exit 1
	fi
}

# start_serve starts `miniplane serve` with the given extra flags, logging
# to kube_dir, waits for its ready line, writes kube_dir/kubeconfig and
# prints the serve-ready step's line (step name $1); it exits on failure.
# The simulated kubelets and scheduler (nodesim) keep running: they bind and
# start the pods the controllers create. Port 0: the kernel picks a free
# one, and serve prints it.
start_serve() {
	local step=$1
	shift
	"$work/miniplane" serve --addr=127.0.0.1:0 --nodes=3 "$@" \
		>"$kube_dir/serve.out" 2>"$kube_dir/serve.log" &
	started+=($!)
	serve_pid=$!
	if wait_for "grep -q '^ready: ' '$kube_dir/serve.out'"; then
		url=$(sed -n 's/.*serving the Kubernetes API on \(http:[^ ]*\).*/\1/p' "$kube_dir/serve.out")
		pass "$step" "$url: $(grep '^ready: ' "$kube_dir/serve.out")"
	else
		fail "$step" "no ready line within ${step_timeout}s: $(tr '\n' ' ' <"$kube_dir/serve.out")"
		cat "$kube_dir/serve.log" >&2
		exit 1
	fi
	cat >"$kube_dir/kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: miniplane
  cluster:
    server: $url
users:
- name: kube-controller-manager
  user: {}
contexts:
- name: miniplane
  context:
    cluster: miniplane
    user: kube-controller-manager
current-context: miniplane
EOF
}

# start_kcm starts the real controller manager against kube_dir's plane,
# running kcm_controllers, and waits for it to take its lease, printing the
# step's line (step name $1).
start_kcm() {
	local step=$1 start
	"$kcm" --kubeconfig="$kube_dir/kubeconfig" \
		--controllers="$kcm_controllers" \
		--leader-elect=true --use-service-account-credentials=false \
		--secure-port=0 "${content_flag[@]}" --v=2 \
		>"$kube_dir/kcm.log" 2>&1 &
	started+=($!)
	kcm_pid=$!
	start=$SECONDS
	if wait_for '[[ -n $(holder kube-controller-manager) ]]'; then
		pass "$step" "kube-system/kube-controller-manager held by $(holder kube-controller-manager) (content type: $content_type) [$((SECONDS - start))s]"
	elif ! kill -0 "$kcm_pid" 2>/dev/null; then
		fail "$step" "kube-controller-manager exited: $(kcm_hint)"
	else
		fail "$step" "no lease within ${step_timeout}s: $(kcm_hint)"
	fi
}

holder() { k get lease -n kube-system "$1" -o 'jsonpath={.spec.holderIdentity}' 2>/dev/null; }
