#!/usr/bin/env bash
# run-kcm.sh runs Kubernetes' own kube-controller-manager v1.32, unmodified,
# against `miniplane serve` with miniplane's controllers switched off, and
# drives it with kubectl through a replication controller's life. It prints
# one PASS, FAIL or SKIP line per step and exits 1 if any step failed.
#
# Not part of CI: the first build of the controller manager takes about five
# minutes on two cores (later runs reuse the build directory and Go's cache).
#
#   interop/realk8s/run-kcm.sh                        # KCM's default client: protobuf
#   KCM_CONTENT_TYPE=json interop/realk8s/run-kcm.sh  # a JSON comparison run only: --kube-api-content-type=application/json
#
# Settings (environment):
#   KCM_CONTENT_TYPE  protobuf (default: no flag, KCM's own default) or json
#   STEP_TIMEOUT      seconds each step may wait (default 60)
#   KCM_BUILD_DIR     where kcm/ is built (default ~/.cache/miniplane-realk8s)
#   KCM_BIN           a kube-controller-manager to run instead of building one
#   KEEP_WORK=1       keep the temporary directory (logs, kubeconfig) after the run
#   KEEP_GOING=1      run every step after a failure too (each may then wait
#                     STEP_TIMEOUT), instead of skipping them
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd) # the main module
content_type=${KCM_CONTENT_TYPE:-protobuf}
step_timeout=${STEP_TIMEOUT:-60}
build_dir=${KCM_BUILD_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/miniplane-realk8s}
kube_version=v1.32.13 # keep in step with kcm/go.mod

case $content_type in
protobuf) content_flag=() ;; # the default: KCM's stock settings, the run that counts
json) content_flag=(--kube-api-content-type=application/json) ;; # a JSON comparison run only, to tell a protobuf failure from any other; it proves nothing of stock clients
*)
	echo "run-kcm.sh: KCM_CONTENT_TYPE must be protobuf or json, got '$content_type'" >&2
	exit 2
	;;
esac
command -v kubectl >/dev/null || {
	echo "run-kcm.sh: kubectl is not on PATH" >&2
	exit 2
}

work=$(mktemp -d "${TMPDIR:-/tmp}/realk8s.XXXXXX")
serve_pid=
kcm_pid=

# cleanup stops what this script started, by pid, and removes its files.
cleanup() {
	local pid
	for pid in $kcm_pid $serve_pid; do
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
		echo "run-kcm.sh: logs kept in $work" >&2
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

k() { kubectl --kubeconfig "$work/kubeconfig" --cache-dir "$work/kube-cache" --request-timeout=10s "$@"; }

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
state() { echo "readyReplicas=$(ready_replicas) pods=[$(live_pods | xargs)] endpoints=[$(endpoint_ips)]"; }

# kcm_hint is the first line of the controller manager's log that says what
# went wrong, if any.
kcm_hint() {
	grep -m1 -E '^E[0-9]{4}|Unsupported Media Type|unable to|failed' "$work/kcm.log" 2>/dev/null | cut -c1-300
}

# --- build ---------------------------------------------------------------

step=build-kcm
if [[ -n ${KCM_BIN:-} ]]; then
	kcm=$KCM_BIN
	pass "$step" "using KCM_BIN=$kcm"
else
	kcm=$build_dir/kube-controller-manager
	mkdir -p "$build_dir"
	start=$SECONDS
	# go.sum is made here, not committed: tidy again whenever go.mod changed.
	if ! cmp -s "$here/kcm/go.mod" "$build_dir/go.mod.src" || [[ ! -f $build_dir/go.sum ]]; then
		cp "$here/kcm/go.mod" "$build_dir/go.mod"
		cp "$here/kcm/go.mod" "$build_dir/go.mod.src"
		rm -f "$build_dir/go.sum"
	fi
	cp "$here/kcm/main.go" "$build_dir/main.go"
	ldflags="-X k8s.io/component-base/version.gitVersion=$kube_version -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=32 -X k8s.io/component-base/version.gitTreeState=clean"
	if (cd "$build_dir" && { [[ -f go.sum ]] || go mod tidy; } && go build -ldflags "$ldflags" -o "$kcm" .) >"$work/build.log" 2>&1; then
		pass "$step" "k8s.io/kubernetes $kube_version from the module proxy in $((SECONDS - start))s: $("$kcm" --version 2>&1)"
	else
		fail "$step" "see below"
		tail -20 "$work/build.log" >&2
		exit 1
	fi
fi

# --- miniplane serve, its controllers off -----------------------------------

step=serve-ready
if ! (cd "$root" && go build -o "$work/miniplane" ./cmd/miniplane) >"$work/build-miniplane.log" 2>&1; then
	fail "$step" "building miniplane failed"
	cat "$work/build-miniplane.log" >&2
	exit 1
fi
# The simulated kubelets and scheduler (nodesim) keep running: they bind and
# start the pods the real controller manager creates. Port 0: the kernel
# picks a free one, and serve prints it.
"$work/miniplane" serve --addr=127.0.0.1:0 --nodes=3 \
	--controllers=-replicationcontroller,-endpoint,-garbagecollector \
	--leader-elect-resource-name=miniplane-controller-manager \
	>"$work/serve.out" 2>"$work/serve.log" &
serve_pid=$!
if wait_for "grep -q '^ready: ' '$work/serve.out'"; then
	url=$(sed -n 's/.*serving the Kubernetes API on \(http:[^ ]*\).*/\1/p' "$work/serve.out")
	pass "$step" "$url: $(grep '^ready: ' "$work/serve.out")"
else
	fail "$step" "no ready line within ${step_timeout}s: $(tr '\n' ' ' <"$work/serve.out")"
	cat "$work/serve.log" >&2
	exit 1
fi

cat >"$work/kubeconfig" <<EOF
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

# --- the real kube-controller-manager --------------------------------------

"$kcm" --kubeconfig="$work/kubeconfig" \
	--controllers=replicationcontroller,endpoint,garbagecollector \
	--leader-elect=true --use-service-account-credentials=false \
	--secure-port=0 "${content_flag[@]}" --v=2 \
	>"$work/kcm.log" 2>&1 &
kcm_pid=$!

step=kcm-leads
holder() { k get lease -n kube-system kube-controller-manager -o 'jsonpath={.spec.holderIdentity}' 2>/dev/null; }
start=$SECONDS
if wait_for '[[ -n $(holder) ]]'; then
	pass "$step" "kube-system/kube-controller-manager held by $(holder) (content type: $content_type) [$((SECONDS - start))s]"
elif ! kill -0 "$kcm_pid" 2>/dev/null; then
	fail "$step" "kube-controller-manager exited: $(kcm_hint)"
else
	fail "$step" "no lease within ${step_timeout}s: $(kcm_hint)"
fi

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

run_step create-rc-and-service "k apply -f '$root/examples/web.yaml'" \
	'[[ $(count "$(live_pods | xargs)") == 3 ]]' \
	'echo "3 pods owned by $(owners | xargs): $(live_pods | xargs)"'
run_step pods-ready "" 'serving_n 3' 'echo "3 ready, the endpoints follow: $(endpoint_ips)"'
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

if ((failed)); then
	{
		echo "--- the kube-controller-manager log's last errors and warnings (KEEP_WORK=1 keeps all of it):"
		grep -E '^[EW][0-9]{4}' "$work/kcm.log" | tail -15
	} >&2
	exit 1
fi
