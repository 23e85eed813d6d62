#!/usr/bin/env bash
# bench-create.sh measures the API server's create path (issue 18): client-go
# (createbench/) creates PODS pods from 8 workers with no client-side rate
# limit while a shared informer watches them, once with JSON and once with
# client-go's default (protobuf), against
#   kube: the real kube-apiserver v1.32.13 + etcd v3.5.16, and
#   miniplane: `miniplane serve --nodes=0 --scheduler=none` with every
#              controller off (the API server alone: kube's side runs no
#              scheduler either, and serve's built-in one would mark every
#              pod Unschedulable, a status write per pod),
# one after the other, each run on a freshly started server. For each run it
# prints createbench's figures: creates/s, the time of a LIST of every pod,
# and the server's CPU (all its processes: kube-apiserver and etcd) per
# create. With PROFILE=1 (the default) serve runs with --cpuprofile and the
# top of each profile is printed.
#
# Not part of CI: see README.md for how long the builds take and the figures.
#
#   interop/realk8s/bench-create.sh
#   TARGETS=miniplane CONTENT_TYPES=protobuf interop/realk8s/bench-create.sh
#
# Settings (environment):
#   TARGETS         which servers, in order (default "kube miniplane")
#   CONTENT_TYPES   which encodings, in order (default "json protobuf")
#   PODS, WORKERS   pods to create and workers (default 10000 and 8)
#   PROFILE         1 (default): profile serve and print its top functions; 0: don't
#   KEEP_WORK=1     keep the temporary directory (logs, profiles, kubeconfigs)
#   and bench-lib.sh's: KCM_BUILD_DIR, APISERVER_BIN, ETCD_BIN, MINIPLANE_BIN, STEP_TIMEOUT
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd) # the main module
work=$(mktemp -d "${TMPDIR:-/tmp}/bench-create.XXXXXX")
# shellcheck source=bench-lib.sh
source "$here/bench-lib.sh"
trap bench_cleanup EXIT
trap 'exit 130' INT TERM

targets=${TARGETS:-kube miniplane}
content_types=${CONTENT_TYPES:-json protobuf}
pods=${PODS:-10000}
workers=${WORKERS:-8}
profile=${PROFILE:-1}
for t in $targets; do
	[[ $t == kube || $t == miniplane ]] || die "TARGETS: $t is neither kube nor miniplane"
done
for c in $content_types; do
	[[ $c == json || $c == protobuf ]] || die "CONTENT_TYPES: $c is neither json nor protobuf"
done

# --- build ------------------------------------------------------------------

[[ " $targets " == *" kube "* ]] && {
	apiserver=${APISERVER_BIN:-$build_dir/stack/kube-apiserver.bin}
	[[ -n ${APISERVER_BIN:-} ]] || build_module stack "$build_dir/stack" ./kube-apiserver "$apiserver" "$kube_ldflags"
	build_etcd
}
[[ " $targets " == *" miniplane "* ]] && build_miniplane
(cd "$root/interop" && nice -n 10 go build -o "$work/createbench" ./realk8s/createbench) >>"$work/build.log" 2>&1 ||
	die "building createbench failed: $(tail -5 "$work/build.log")"

# --- the runs ---------------------------------------------------------------

machine
echo "workload: $pods pods created by $workers client-go workers, QPS unlimited, a shared informer watching"
for t in $targets; do
	for c in $content_types; do
		echo "--- $t, $c; $(uptime | sed 's/^ *//')"
		t0=$(now_ms)
		case $t in
		kube)
			start_kube_apiserver
			kc=$work/kube.kubeconfig
			pids=$apiserver_pid,$etcd_pid
			;;
		miniplane)
			prof=()
			[[ $profile == 1 ]] && prof=(--cpuprofile="$work/serve-$c.pprof")
			start_miniplane --nodes=0 --scheduler=none --controllers=-replicationcontroller,-endpoint,-garbagecollector "${prof[@]}"
			kc=$work/mp.kubeconfig
			pids=$serve_pid
			;;
		esac
		echo "ready (/readyz 200) $(($(now_ms) - t0)) ms after start"
		out=$("$work/createbench" --kubeconfig="$kc" --content-type="$c" --pods="$pods" --workers="$workers" \
			--server-pids="$pids" --clk-tck="$clk_tck" 2>&1)
		rc=$?
		echo "$out"
		if [[ $t == kube ]]; then
			read -r a_cpu a_hwm <<<"$(figures apiserver "$apiserver_pid")"
			read -r e_cpu e_hwm <<<"$(figures etcd "$etcd_pid")"
			echo "since start: kube-apiserver cpu_s=$a_cpu peak_rss_mb=$a_hwm; etcd cpu_s=$e_cpu peak_rss_mb=$e_hwm"
		else
			read -r s_cpu s_hwm <<<"$(figures serve "$serve_pid")"
			echo "since start: miniplane serve cpu_s=$s_cpu peak_rss_mb=$s_hwm"
		fi
		stop_all
		if [[ $t == miniplane && $profile == 1 && -s $work/serve-$c.pprof ]]; then
			echo "serve's profile, top 25 by cumulative time (the whole run: start, creates, LISTs):"
			go tool pprof -top -cum -nodecount=25 "$miniplane" "$work/serve-$c.pprof" 2>/dev/null | sed -n '1,32p'
			if [[ ${KEEP_WORK:-} == 1 ]]; then echo "profile kept: $work/serve-$c.pprof"; fi
		fi
		((rc == 0)) || die "createbench failed against $t ($c)"
	done
done
