#!/usr/bin/env bash
# diff-deployment.sh runs one rolling update twice against `miniplane serve`:
# once with miniplane's own deployment and replicaset controllers, once with
# the real kube-controller-manager v1.32's (miniplane's off), and compares the
# deployment controller's decisions: each write of a ReplicaSet's
# spec.replicas, which set (old or new), from what to what.
#
#   interop/realk8s/diff-deployment.sh
#
# The scenario: a Deployment of REPLICAS (default 10) pods, maxSurge 25%,
# maxUnavailable 25%, image nginx:1.27; wait until all are available; set
# the image to nginx:1.28; wait until the rollout completes.
#
# Two records per run, each a watch started before the Deployment is made:
# the ReplicaSets (name, revision, spec.replicas, availableReplicas: every
# change, in the API server's order) and the ScalingReplicaSet events the
# deployment controller emits ("Scaled up replica set web-xxx from 0 to 3").
# The decisions are the changes of spec.replicas in the first; the script
# checks the events say the same, in the same order.
#
# Pods become ready at moments that differ from run to run, so the two
# sequences may differ without either controller being wrong. The script
# therefore also checks each decision against a model of upstream's
# pkg/controller/deployment/rolling.go (reconcileNewReplicaSet,
# reconcileOldReplicaSets: cleanupUnhealthyReplicas, then
# scaleDownOldReplicaSetsForRollingUpdate) applied to the state the watch
# showed before it: the last state before the write, or an earlier one
# since the previous decision (the controller acts on its informer's cache,
# which may lag the watch). A decision no such state explains is a
# disagreement with upstream; the verdict says which run made it.
#
# Settings (environment): REPLICAS, and kcm-lib.sh's KCM_CONTENT_TYPE,
# STEP_TIMEOUT (default here 120), KCM_BUILD_DIR, KCM_BIN, KEEP_WORK.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
STEP_TIMEOUT=${STEP_TIMEOUT:-120}
# shellcheck source=kcm-lib.sh
source "$here/kcm-lib.sh"
replicas=${REPLICAS:-10}

# The rolling update's bounds, as upstream's MaxUnavailable and MaxSurge
# resolve 25%: surge rounds up, unavailability down.
max_surge=$(((replicas * 25 + 99) / 100))
max_unavailable=$((replicas * 25 / 100))

manifest() {
	cat <<EOF
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web}
spec:
  replicas: $replicas
  selector:
    matchLabels: {app: web}
  strategy:
    type: RollingUpdate
    rollingUpdate: {maxSurge: 25%, maxUnavailable: 25%}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: nginx
        image: nginx:1.27
EOF
}

# run_scenario runs the scenario against the plane in kube_dir, recording
# the ReplicaSet watch in kube_dir/rs.watch (with a "#set-image" line where
# the image changed) and the events in kube_dir/events.watch.
run_scenario() {
	local who=$1 w1 w2 rollout
	rollout="kw rollout status deployment/web --timeout=${step_timeout}s"
	if ! wait_for 'k get serviceaccount default -n default'; then
		fail "$who-serviceaccount" "no default ServiceAccount in default within ${step_timeout}s"
		return 1
	fi
	# Appended by both the watch and the script (the marker): O_APPEND keeps
	# each line whole.
	: >"$kube_dir/rs.watch"
	kw get rs -w -l app=web -o 'jsonpath={.metadata.name},{.metadata.annotations.deployment\.kubernetes\.io/revision},{.spec.replicas},{.status.availableReplicas},{.metadata.resourceVersion}{"\n"}' \
		>>"$kube_dir/rs.watch" 2>"$kube_dir/rs.watch.err" &
	w1=$!
	started+=("$w1")
	kw get events -w -o 'jsonpath={.reason},{.source.component},{.message}{"\n"}' \
		>"$kube_dir/events.watch" 2>"$kube_dir/events.watch.err" &
	w2=$!
	started+=("$w2")
	sleep 1 # both watches are open before the Deployment exists

	local start=$SECONDS out
	if out=$(manifest | k apply -f - 2>&1 && $rollout 2>&1) &&
		wait_for '[[ $(k get rs -l app=web -o "jsonpath={.items[*].status.availableReplicas}") == '"$replicas"' ]]'; then
		pass "$who-create" "rollout status ok, $replicas available [$((SECONDS - start))s]"
	else
		fail "$who-create" "$(tr '\n' ' ' <<<"$out" | cut -c1-300)"
		return 1
	fi
	sleep 2 # settled: nothing more to decide
	start=$SECONDS
	echo "#set-image" >>"$kube_dir/rs.watch"
	if out=$(k set image deployment/web nginx=nginx:1.28 2>&1 && $rollout 2>&1) &&
		wait_for '[[ $(k get rs -l app=web -o "jsonpath={range .items[*]}{.spec.replicas}/{.status.availableReplicas} {end}" | xargs -n1 | sort | xargs) == "0/ '"$replicas/$replicas"'" ]]'; then
		pass "$who-set-image" "rollout status ok, the old set at 0, the new at $replicas available [$((SECONDS - start))s]"
	else
		fail "$who-set-image" "$(tr '\n' ' ' <<<"$out" | cut -c1-300)"
		return 1
	fi
	sleep 2 # the last events reach the watch
	stop_pid "$w1"
	stop_pid "$w2"
}

# decisions reads a run's rs.watch and prints one line per write of a
# set's spec.replicas, with the state the watch showed before it and the
# model's verdict (see the header):
#   N ROLE FROM TO | old SPEC/AVAIL new SPEC/AVAIL | VERDICT
# ROLE is old (revision 1) or new (revision 2).
decisions() {
	awk -F, -v R="$replicas" -v S="$max_surge" -v U="$max_unavailable" '
	# model prints the first write upstream makes in one sync from the state
	# (ns, na: the new set; os, oa: the old one, hasold: it exists), as
	# "new FROM TO", "old FROM TO" or "none".
	function model(ns, na, os, oa, hasold,    up, to, all, maxsd, d, avail) {
		if (ns > R) return "new " ns " " R
		if (ns < R) {
			up = R + S - (ns + os)
			if (up > 0) { to = ns + (up < R - ns ? up : R - ns); return "new " ns " " to }
		}
		if (!hasold || os == 0) return "none"
		all = os + ns
		maxsd = all - (R - U) - (ns - na)
		if (maxsd <= 0) return "none"
		if (os != oa) { # cleanupUnhealthyReplicas
			d = (maxsd < os - oa) ? maxsd : os - oa
			if (d < 0) return "none" # "invalid request to scale down": the status is behind
			return "old " os " " (os - d)
		}
		avail = oa + na # scaleDownOldReplicaSetsForRollingUpdate
		if (avail <= R - U) return "none"
		d = avail - (R - U)
		if (d > os) d = os
		return "old " os " " (os - d)
	}
	# Each snapshot is the raw state after a watch line: spec and available
	# of revision 1 and 2, and whether revision 2 exists; snapshot 0 is
	# the empty state before the first line.
	function snap() { nsnap++; s1[nsnap] = spec[1]; a1[nsnap] = avail[1]; s2[nsnap] = spec[2]; a2[nsnap] = avail[2]; e2[nsnap] = has[2] }
	# view applies the model to snapshot i, with revision 2 as the new set
	# (phase 2, after the image changed) or revision 1 (before).
	function view(i, phase2) { return phase2 ? model(s2[i], a2[i], s1[i], a1[i], 1) : model(s1[i], a1[i], 0, 0, 0) }
	BEGIN { marker = 0; nsnap = 0; s1[0] = a1[0] = s2[0] = a2[0] = e2[0] = 0; from = 0; n = 0; spec[1] = spec[2] = avail[1] = avail[2] = has[1] = has[2] = 0 }
	/^#set-image/ { marker = 1; next }
	NF >= 4 {
		rev = $2 + 0; sp = $3 + 0; av = $4 + 0
		if (rev < 1 || rev > 2) next
		prev = spec[rev]
		if (sp != prev) {
			phase2 = (rev == 2 || marker || has[2])
			role = (phase2 && rev == 1) ? "old" : "new"
			want = role " " prev " " sp
			verdict = "NOT EXPLAINED by rolling.go"
			# the latest state first, then earlier ones back to the last decision
			for (i = nsnap; i >= from; i--) {
				if (view(i, phase2) == want) {
					verdict = (i == nsnap) ? "as rolling.go, last state" : "as rolling.go, state " (nsnap - i) " back"
					break
				}
			}
			n++
			before = phase2 ? sprintf("old %d/%d new %d/%d", s1[nsnap], a1[nsnap], s2[nsnap], a2[nsnap]) : sprintf("new %d/%d", s1[nsnap], a1[nsnap])
			printf "%d %s %d %d | %s | %s\n", n, role, prev, sp, before, verdict
			spec[rev] = sp; avail[rev] = av; has[rev] = 1
			snap()
			from = nsnap # the state right after this write, and later ones
			next
		}
		spec[rev] = sp; avail[rev] = av; has[rev] = 1
		snap()
	}' "$1"
}

# event_decisions prints the ScalingReplicaSet events of a run as
# "ROLE FROM TO", naming the sets by the revision rs.watch gave them.
event_decisions() {
	local dir=$1
	awk -F, 'FNR == NR { if (NF >= 2 && $1 !~ /^#/) rev[$1] = $2; next }
		$1 == "ScalingReplicaSet" {
			# "Scaled up replica set web-xxx from 0 to 3"
			nw = split($3, w, " ")
			for (i = 1; i < nw; i++) {
				if (w[i] == "set") name = w[i + 1]
				if (w[i] == "from") f = w[i + 1]
				if (w[i] == "to") t = w[i + 1]
			}
			r = rev[name]
			if (r == 2) seen2 = 1 # the new set is made before any old one shrinks
			print ((r == 1 && seen2) ? "old" : "new"), f, t, "(" $2 ")"
		}' "$dir/rs.watch" "$dir/events.watch"
}

build_kcm
build_miniplane

for mode in miniplane kcm; do
	kube_dir=$work/run-$mode
	mkdir -p "$kube_dir"
	if [[ $mode == miniplane ]]; then
		start_serve "$mode-serve" # every controller of miniplane's on
		lease=kube-controller-manager
		if wait_for '[[ -n $(holder kube-controller-manager) ]]'; then
			pass "$mode-leads" "kube-system/kube-controller-manager held by $(holder kube-controller-manager)"
		else
			fail "$mode-leads" "no lease within ${step_timeout}s"
		fi
	else
		start_serve "$mode-serve" --controllers="$serve_all_off" --leader-elect-resource-name=miniplane-controller-manager
		start_kcm "$mode-leads"
	fi
	: >"$kube_dir/rs.watch"
	: >"$kube_dir/events.watch"
	((skipping)) || run_scenario "$mode"
	# Stop this run's processes (the last two started: serve, then KCM if any).
	for pid in ${kcm_pid:-} $serve_pid; do stop_pid "$pid"; done
	kcm_pid=
	decisions "$kube_dir/rs.watch" >"$kube_dir/decisions"
	event_decisions "$kube_dir" >"$kube_dir/events"
done

echo
echo "Decisions (ReplicaSet spec.replicas writes, in the API server's order), R=$replicas maxSurge=$max_surge maxUnavailable=$max_unavailable:"
for mode in miniplane kcm; do
	echo "--- $mode: # set from to | state before (spec/available) | against rolling.go"
	cat "$work/run-$mode/decisions"
	echo "    its ScalingReplicaSet events: $(awk '{printf "%s %s->%s %s; ", $1, $2, $3, $4}' "$work/run-$mode/events")"
done
echo
echo "--- side by side (set from->to):"
paste -d'|' <(awk '{printf "%-4s %2d -> %2d\n", $2, $3, $4}' "$work/run-miniplane/decisions") \
	<(awk '{printf "%-4s %2d -> %2d\n", $2, $3, $4}' "$work/run-kcm/decisions") |
	awk -F'|' 'BEGIN { printf "  %-18s %-18s\n", "miniplane", "kube-controller-manager" }
		{ printf "  %-18s %-18s %s\n", $1, $2, ($1 == $2 ? "" : "<- differs") }'

# The decisions both runs made from the same observed state (the last one
# before the write): there the two controllers must agree.
echo
echo "--- the same state before a decision in both runs:"
awk -F' [|] ' 'FNR == NR { split($1, d, " "); mp[$2] = d[2] " " d[3] " -> " d[4]; next }
	{ split($1, d, " "); k = d[2] " " d[3] " -> " d[4]
	  if ($2 in mp) { same++; printf "  %-24s miniplane %-14s kcm %-14s %s\n", $2, mp[$2], k, (mp[$2] == k ? "same" : "DIFFERENT"); if (mp[$2] != k) differ++ } }
	END { if (!same) print "  (none)"; exit differ > 0 }' "$work/run-miniplane/decisions" "$work/run-kcm/decisions"
shared=$?

verdict=0
if ((shared)); then
	echo "the two controllers decided differently from the same observed state"
	verdict=1
fi
for mode in miniplane kcm; do
	if [[ $(awk '{print $2, $3, $4}' "$work/run-$mode/decisions") != $(awk '{print $1, $2, $3}' "$work/run-$mode/events") ]]; then
		echo "$mode: its events do not say what its ReplicaSet writes did"
		verdict=1
	fi
	if grep -q 'NOT EXPLAINED' "$work/run-$mode/decisions"; then
		echo "$mode: a decision rolling.go does not make from any state the watch showed before it"
		verdict=1
	fi
done
if ((failed)); then
	echo "INCOMPLETE: a run failed (above), nothing to compare"
elif [[ $(awk '{print $2, $3, $4}' "$work/run-miniplane/decisions") == $(awk '{print $2, $3, $4}' "$work/run-kcm/decisions") ]]; then
	echo "AGREE: the same decisions in the same order"
elif ((verdict == 0)); then
	echo "AGREE given the observed state: the sequences differ, but each decision of each run is rolling.go's for a state that run observed"
else
	echo "DISAGREE: see above"
fi
((failed == 0 && verdict == 0))
