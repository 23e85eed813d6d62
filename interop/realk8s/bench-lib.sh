# bench-lib.sh holds what bench-stacks.sh and bench-create.sh share: building
# the real components, starting etcd, kube-apiserver and `miniplane serve`,
# measuring processes from /proc, and stopping what was started. It is
# sourced, not run; the caller sets `here`, `root` and `work` first and
# calls bench_cleanup on exit.
#
# Settings (environment) the functions read:
#   KCM_BUILD_DIR   where the modules are built (default ~/.cache/miniplane-realk8s):
#                   kcm/ there as run-kcm.sh does, stack/ and etcd/ under it
#   APISERVER_BIN, SCHED_BIN, KCM_BIN, ETCD_BIN, MINIPLANE_BIN
#                   binaries to run instead of building them
#   STEP_TIMEOUT    seconds a start-up may take (default 120)

build_dir=${KCM_BUILD_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/miniplane-realk8s}
kube_version=v1.32.13 # keep in step with kcm/go.mod and stack/go.mod
step_timeout=${STEP_TIMEOUT:-120}
clk_tck=$(getconf CLK_TCK)
started_pids=()

log() { printf '%s %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() {
	log "FAIL: $*"
	exit 1
}

# wait_for polls a condition (a shell command) every 0.2 s until it holds or
# the timeout (seconds, default step_timeout) passes.
wait_for() {
	local deadline=$((SECONDS + ${2:-$step_timeout}))
	while ((SECONDS < deadline)); do
		if eval "$1" >/dev/null 2>&1; then
			return 0
		fi
		sleep 0.2
	done
	return 1
}

now_ms() { date +%s%3N; }

# free_port prints a TCP port on 127.0.0.1 that nothing listens on now.
free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

# build_module builds the main package pkg of one of the realk8s modules
# (src, a directory under here) into bin, in a build directory of its own:
# go.sum is made there by go mod tidy, not committed.
build_module() {
	local src=$1 dir=$2 pkg=$3 bin=$4 ldflags=${5:-}
	# Built already, from these sources: relinking takes a minute, skip it.
	if [[ -x $bin && -z $(find "$here/$src" \( -name '*.go' -o -name go.mod \) -newer "$bin") ]]; then
		return 0
	fi
	mkdir -p "$dir"
	if ! cmp -s "$here/$src/go.mod" "$dir/go.mod.src" || [[ ! -f $dir/go.sum ]]; then
		cp "$here/$src/go.mod" "$dir/go.mod"
		cp "$here/$src/go.mod" "$dir/go.mod.src"
		rm -f "$dir/go.sum"
	fi
	(cd "$here/$src" && find . -name '*.go' -print0 | xargs -0 -I{} cp --parents {} "$dir/")
	log "building $bin (the first build takes many minutes)"
	(cd "$dir" && { [[ -f go.sum ]] || nice -n 10 go mod tidy; } && nice -n 10 go build -ldflags "$ldflags" -o "$bin" "$pkg") >>"$work/build.log" 2>&1 ||
		{
			tail -20 "$work/build.log" >&2
			die "building $bin failed"
		}
}

kube_ldflags="-X k8s.io/component-base/version.gitVersion=$kube_version -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=32 -X k8s.io/component-base/version.gitTreeState=clean"

# build_kube sets apiserver, sched and kcm, building what is not given.
build_kube() {
	apiserver=${APISERVER_BIN:-$build_dir/stack/kube-apiserver.bin}
	sched=${SCHED_BIN:-$build_dir/stack/kube-scheduler.bin}
	kcm=${KCM_BIN:-$build_dir/kube-controller-manager}
	[[ -n ${APISERVER_BIN:-} ]] || build_module stack "$build_dir/stack" ./kube-apiserver "$apiserver" "$kube_ldflags"
	[[ -n ${SCHED_BIN:-} ]] || build_module stack "$build_dir/stack" ./kube-scheduler "$sched" "$kube_ldflags"
	[[ -n ${KCM_BIN:-} ]] || build_module kcm "$build_dir" . "$kcm" "$kube_ldflags"
}

# build_etcd sets etcd, building it unless ETCD_BIN is given.
build_etcd() {
	etcd=${ETCD_BIN:-$build_dir/etcd/etcd}
	[[ -n ${ETCD_BIN:-} ]] || build_module etcd "$build_dir/etcd" . "$etcd"
}

# build_miniplane sets miniplane, building this tree's unless MINIPLANE_BIN is given.
build_miniplane() {
	miniplane=${MINIPLANE_BIN:-$work/miniplane}
	[[ -n ${MINIPLANE_BIN:-} ]] || (cd "$root" && nice -n 10 go build -o "$miniplane" ./cmd/miniplane) >>"$work/build.log" 2>&1 ||
		die "building miniplane failed: $(tail -5 "$work/build.log")"
}

# start runs a command in the background with its output in $work/NAME.log
# and sets the variable NAME_pid.
start() {
	local name=$1
	shift
	"$@" >"$work/$name.log" 2>&1 &
	local pid=$!
	started_pids+=("$pid")
	printf -v "${name}_pid" '%s' "$pid"
}

# stop_pid stops one process this script started: SIGTERM, then SIGKILL
# after 10 s.
stop_pid() {
	local pid=$1
	kill -0 "$pid" 2>/dev/null || return 0
	kill -TERM "$pid" 2>/dev/null
	for _ in $(seq 100); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	return 0
}

# stop_all stops every process started so far, the last started first.
stop_all() {
	local i
	for ((i = ${#started_pids[@]} - 1; i >= 0; i--)); do
		stop_pid "${started_pids[i]}"
	done
	started_pids=()
}

bench_cleanup() {
	stop_all
	if [[ ${KEEP_WORK:-} == 1 ]]; then
		log "logs kept in $work"
	else
		rm -rf "$work"
	fi
}

# cpu_s prints a running process's CPU time so far, utime+stime from
# /proc/PID/stat, in seconds. The command name (field 2) may hold spaces,
# so the fields are counted after its closing parenthesis.
cpu_s() {
	local stat
	stat=$(cat "/proc/$1/stat" 2>/dev/null) || {
		echo "NaN"
		return
	}
	stat=${stat##*) }
	awk -v t="$clk_tck" '{printf "%.2f", ($12 + $13) / t}' <<<"$stat"
}

# hwm_mb prints a running process's peak resident set (VmHWM) in MiB.
hwm_mb() { awk '/^VmHWM:/ {printf "%.0f", $2 / 1024}' "/proc/$1/status" 2>/dev/null || echo NaN; }

# sample NAME PID writes the process's CPU seconds and peak RSS to
# $work/NAME.sample every half second until it exits, so the last figures
# before an exit are kept.
sample() {
	local name=$1 pid=$2
	(
		while kill -0 "$pid" 2>/dev/null; do
			local c h
			c=$(cpu_s "$pid")
			h=$(hwm_mb "$pid")
			[[ $c == NaN || -z $h ]] || echo "$c $h" >"$work/$name.sample.tmp" && mv -f "$work/$name.sample.tmp" "$work/$name.sample" 2>/dev/null
			sleep 0.5
		done
	) &
	started_pids+=("$!")
}

# figures NAME PID prints "CPU_S HWM_MB" now if the process runs, else its
# last sample.
figures() {
	local c h
	c=$(cpu_s "$2")
	h=$(hwm_mb "$2")
	if [[ $c != NaN && -n $h ]]; then
		echo "$c $h"
	else
		cat "$work/$1.sample" 2>/dev/null || echo "NaN NaN"
	fi
}

# --- etcd and kube-apiserver ------------------------------------------------

# start_kube_apiserver starts etcd and kube-apiserver v1.32 on free loopback
# ports and writes $work/kube.kubeconfig (token auth, the self-signed
# serving certificate not verified). It sets etcd_pid, apiserver_pid and
# kube_url. The admission plugins ServiceAccount and TaintNodesByCondition
# are off: no service-account controller or node lifecycle controller runs
# (the same three controllers run on either API server), so pods would be
# refused for want of a default ServiceAccount and new nodes would keep
# their not-ready taint. Every other default admission plugin is on.
start_kube_apiserver() {
	local etcd_port peer_port port token try
	token=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
	openssl genrsa -out "$work/sa.key" 2048 2>/dev/null || die "openssl genrsa failed"
	echo "$token,bench-admin,bench-admin,system:masters" >"$work/tokens.csv"
	# A free port may be taken by another process before etcd binds it (the
	# machine is shared): then etcd exits, and it is started again on others.
	for try in 1 2 3; do
		etcd_port=$(free_port)
		peer_port=$(free_port)
		rm -rf "$work/etcd-data" # a fresh, empty store at each start
		mkdir -p -m 700 "$work/etcd-data" "$work/certs"
		start etcd "$etcd" --name=bench --data-dir="$work/etcd-data" \
			--listen-client-urls="http://127.0.0.1:$etcd_port" --advertise-client-urls="http://127.0.0.1:$etcd_port" \
			--listen-peer-urls="http://127.0.0.1:$peer_port" --initial-advertise-peer-urls="http://127.0.0.1:$peer_port" \
			--initial-cluster="bench=http://127.0.0.1:$peer_port" --log-level=warn
		if wait_for "! kill -0 $etcd_pid || curl -sf http://127.0.0.1:$etcd_port/health" 30 && kill -0 "$etcd_pid" 2>/dev/null; then
			break
		fi
		((try < 3)) || die "etcd did not start: $(grep -m1 '"level":"fatal"' "$work/etcd.log" | cut -c1-300)"
		log "etcd did not start (try $try): $(grep -m1 '"level":"fatal"' "$work/etcd.log" | cut -c1-200)"
	done
	sample etcd "$etcd_pid"
	port=$(free_port)
	start apiserver "$apiserver" --etcd-servers="http://127.0.0.1:$etcd_port" \
		--bind-address=127.0.0.1 --advertise-address=127.0.0.1 --secure-port="$port" \
		--cert-dir="$work/certs" --token-auth-file="$work/tokens.csv" --authorization-mode=AlwaysAllow \
		--service-account-issuer=https://kubernetes.default.svc.cluster.local \
		--service-account-key-file="$work/sa.key" --service-account-signing-key-file="$work/sa.key" \
		--service-cluster-ip-range=10.96.0.0/16 \
		--disable-admission-plugins=ServiceAccount,TaintNodesByCondition --v=1
	sample apiserver "$apiserver_pid"
	kube_url=https://127.0.0.1:$port
	cat >"$work/kube.kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: kube
  cluster:
    server: $kube_url
    insecure-skip-tls-verify: true
users:
- name: bench-admin
  user:
    token: $token
contexts:
- name: kube
  context:
    cluster: kube
    user: bench-admin
current-context: kube
EOF
	kube_token=$token
	wait_for "! kill -0 $apiserver_pid || [[ \$(curl -sk -o /dev/null -w '%{http_code}' -H 'Authorization: Bearer $token' $kube_url/readyz) == 200 ]]" && kill -0 "$apiserver_pid" 2>/dev/null ||
		die "kube-apiserver's /readyz is not 200 within ${step_timeout}s: $(grep -E '^[EF][0-9]{4}' "$work/apiserver.log" | tail -3)"
}

# start_miniplane starts `miniplane serve` with the given flags on a free
# loopback port, writes $work/mp.kubeconfig, waits for /readyz 200 and sets
# serve_pid and mp_url.
start_miniplane() {
	start serve "$miniplane" serve --addr=127.0.0.1:0 --kubeconfig="$work/mp.kubeconfig" "$@"
	sample serve "$serve_pid"
	wait_for "grep -q 'serving the Kubernetes API on ' '$work/serve.log'" ||
		die "serve printed no address: $(tail -5 "$work/serve.log")"
	mp_url=$(sed -n 's/.*serving the Kubernetes API on \(http[^ ]*\).*/\1/p' "$work/serve.log")
	wait_for "! kill -0 $serve_pid || [[ \$(curl -s -o /dev/null -w '%{http_code}' $mp_url/readyz) == 200 ]]" && kill -0 "$serve_pid" 2>/dev/null ||
		die "serve's /readyz is not 200 within ${step_timeout}s: $(tail -5 "$work/serve.log")"
}

# machine prints what the figures were measured on.
machine() {
	echo "machine: $(nproc) cores, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1); $(uptime | sed 's/^ *//')"
}
