#!/usr/bin/env bash
# run-conformance.sh runs Kubernetes' own [Conformance] tests, v1.32.13's
# e2e.test unmodified, against `miniplane serve` with its controllers and
# simulated nodes on. It prints a PASS or FAIL line per test and a summary,
# records the results in conformance-results.tsv and conformance-runs.tsv,
# and writes CONFORMANCE.md again: every [Conformance] test of the suite
# with its last result (see conformance/main.go).
#
# Not part of CI: the first build of e2e.test takes about fifteen minutes
# on two cores (later runs reuse the build directory and Go's cache), and
# the tests poll in real time.
#
#   interop/realk8s/run-conformance.sh                          # every [Conformance] test
#   interop/realk8s/run-conformance.sh 'sig-api-machinery'      # those whose name matches the focus too
#   interop/realk8s/run-conformance.sh 'sig-apps' 'Deployment'  # ... and not the skip
#   interop/realk8s/run-conformance.sh --table                  # only write CONFORMANCE.md again
#   interop/realk8s/run-conformance.sh --build                  # only build e2e.test and its test list
#
# The focus and skip are Ginkgo regular expressions matched against the
# test's full name, among the [Conformance] tests.
#
# Settings (environment):
#   E2E_BUILD_DIR   where e2e/ is built (default ~/.cache/miniplane-e2e)
#   E2E_BIN         an e2e.test to run instead of building one
#   SUITE_TIMEOUT   Ginkgo's --ginkgo.timeout for the run (default 1h)
#   E2E_ARGS        more flags for e2e.test, e.g. '--ginkgo.v'
#   KEEP_WORK=1     keep the temporary directory (serve's and e2e's logs, the
#                   kubeconfig, the report) after the run
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# kcm-lib.sh gives the work directory, the cleanup trap, build_miniplane
# and start_serve; nothing of the controller manager is used here.
# shellcheck source=kcm-lib.sh
source "$here/kcm-lib.sh"

e2e_dir=${E2E_BUILD_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/miniplane-e2e}
suite_timeout=${SUITE_TIMEOUT:-1h}
conformance_focus='\[Conformance\]'

# build_e2e builds e2e/ into e2e_dir with `go test -c` (or takes E2E_BIN)
# and sets e2e to the binary; it exits on failure. Unchanged sources and
# an existing binary skip the build.
build_e2e() {
	local step=build-e2e start ldflags
	if [[ -n ${E2E_BIN:-} ]]; then
		e2e=$E2E_BIN
		pass "$step" "using E2E_BIN=$e2e"
		return
	fi
	e2e=$e2e_dir/e2e.test
	mkdir -p "$e2e_dir"
	if [[ -x $e2e ]] && cmp -s "$here/e2e/go.mod" "$e2e_dir/go.mod.src" && cmp -s "$here/e2e/e2e_test.go" "$e2e_dir/e2e_test.go"; then
		pass "$step" "$e2e is up to date: $("$e2e" --version 2>&1)"
		return
	fi
	start=$SECONDS
	# go.sum is made here, not committed: tidy again whenever go.mod changed.
	if ! cmp -s "$here/e2e/go.mod" "$e2e_dir/go.mod.src" || [[ ! -f $e2e_dir/go.sum ]]; then
		cp "$here/e2e/go.mod" "$e2e_dir/go.mod"
		cp "$here/e2e/go.mod" "$e2e_dir/go.mod.src"
		rm -f "$e2e_dir/go.sum"
	fi
	cp "$here/e2e/e2e_test.go" "$e2e_dir/e2e_test.go"
	ldflags="-X k8s.io/component-base/version.gitVersion=$kube_version -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=32 -X k8s.io/component-base/version.gitTreeState=clean"
	echo "building e2e.test in $e2e_dir (about fifteen minutes on two cores the first time) ..." >&2
	if (cd "$e2e_dir" && { [[ -f go.sum ]] || go mod tidy; } && nice -n 10 go test -c -vet=off -ldflags "$ldflags" -o "$e2e.new" . && mv "$e2e.new" "$e2e") >"$work/build-e2e.log" 2>&1; then
		pass "$step" "k8s.io/kubernetes/test/e2e $kube_version from the module proxy in $((SECONDS - start))s"
	else
		fail "$step" "see below"
		tail -20 "$work/build-e2e.log" >&2
		exit 1
	fi
}

# list_tests writes e2e_dir/conformance-list.json, the dry run's report
# of every [Conformance] test, unless it is newer than the binary.
list_tests() {
	list=$e2e_dir/conformance-list.json
	[[ -n ${E2E_BIN:-} ]] && list=$work/conformance-list.json
	if [[ -s $list && $list -nt $e2e ]]; then
		return
	fi
	if ! "$e2e" --ginkgo.dry-run --ginkgo.focus="$conformance_focus" --ginkgo.json-report="$list" \
		--ginkgo.no-color >"$work/list.log" 2>&1; then
		fail list-tests "the dry run failed; see below"
		tail -20 "$work/list.log" >&2
		exit 1
	fi
}

# table writes CONFORMANCE.md from the list and the recorded results, after
# recording the report of a run when one is given (with its focus, skip
# and wall time).
table() {
	(cd "$root/interop" && go run ./realk8s/conformance -list "$list" -dir "$here" -table "$here/CONFORMANCE.md" "$@")
}

case ${1:-} in
--build)
	build_e2e
	list_tests
	exit 0
	;;
--table)
	build_e2e
	list_tests
	table
	exit
	;;
esac
focus=${1:-}
skip_re=${2:-}

build_e2e
list_tests
build_miniplane
run_start=$SECONDS
# Every controller on, the simulated kubelets and scheduler on three nodes.
start_serve serve-ready

# Ginkgo ORs repeated --ginkgo.focus flags, so the conformance tests are
# chosen by their label (the framework's ConformanceIt gives each both
# the [Conformance] tag and the Conformance label), which is ANDed with
# the focus and skip.
filter_flags=(--ginkgo.label-filter=Conformance)
[[ -n $focus ]] && filter_flags+=(--ginkgo.focus="$focus")
[[ -n $skip_re ]] && filter_flags+=(--ginkgo.skip="$skip_re")
echo "running e2e.test ${focus:+(focus: $focus) }${skip_re:+(skip: $skip_re) }with --ginkgo.timeout=$suite_timeout; log: $work/e2e.log" >&2
# shellcheck disable=SC2086 # E2E_ARGS is split on purpose
"$e2e" --provider=skeleton --kubeconfig="$kube_dir/kubeconfig" \
	"${filter_flags[@]}" \
	--ginkgo.timeout="$suite_timeout" --ginkgo.no-color \
	--ginkgo.json-report="$work/report.json" --report-dir="$work" \
	${E2E_ARGS:-} >"$work/e2e.log" 2>&1
e2e_rc=$?
wall=$((SECONDS - run_start))
if [[ ! -s $work/report.json ]]; then
	fail e2e "e2e.test exited $e2e_rc without a report; its log's end:"
	tail -30 "$work/e2e.log" >&2
	exit 1
fi
table -report "$work/report.json" -focus "$focus" -skip "$skip_re" -wall "$wall"
echo "wall time: ${wall}s; e2e.test exited $e2e_rc; CONFORMANCE.md written"
((e2e_rc == 0)) || exit 1
