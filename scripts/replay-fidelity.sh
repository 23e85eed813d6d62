#!/usr/bin/env bash
# replay-fidelity.sh measures how well a failing seed of the examples in
# interop/examples replays: it sweeps each example's planted bug
# (TestBuggySweep, 50 seeds) with the test binary go test would
# build (<example>.test), takes the seeds that failed, and replays each of
# them REPLAYS times, each replay a process of its own, from three builds
# of the same test:
#
#   same    the binary the sweep ran
#   renamed the same package built as other.test
#   386     the same package built with GOARCH=386 (the kernel runs i386
#           binaries natively; other GOOS or GOARCH values cannot run on
#           this machine, so they are not measured)
#
# and prints, per example and build, the share of failing seeds that
# failed on every replay and the share of all replays that failed.
#
#   scripts/replay-fidelity.sh
#   REPLAYS=10 EXAMPLES=clientgo scripts/replay-fidelity.sh
#
# Settings (environment):
#   REPLAYS   replays of each failing seed per build (default 5)
#   EXAMPLES  examples to measure (default "clientgo ctrlruntime")
#   OUT       directory for the binaries and every run's output (default: a
#             new temporary one)
#
# Not part of CI: a run takes a few minutes on two cores.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
seeds=50
replays=${REPLAYS:-5}
examples=${EXAMPLES:-clientgo ctrlruntime}
out=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/replay-fidelity.XXXXXX")}
mkdir -p "$out"
echo "output in $out; commit $(git -C "$root" rev-parse --short HEAD)"

for ex in $examples; do
  dir=$out/$ex
  mkdir -p "$dir"
  (
    cd "$root/interop"
    go test -c -o "$dir/$ex.test" "./examples/$ex/"
    go test -c -o "$dir/other.test" "./examples/$ex/"
    GOARCH=386 go test -c -o "$dir/$ex-386.test" "./examples/$ex/"
  )
  # The binaries run in the package's directory, as go test runs them.
  cd "$root/interop/examples/$ex"
  MINIPLANE_EXAMPLE_BUGGY_SWEEP=1 "$dir/$ex.test" -test.run '^TestBuggySweep$' -test.v >"$dir/sweep.out" 2>&1 || true
  failing=$(grep -oE -- '--- FAIL: TestBuggySweep/seed=[0-9]+' "$dir/sweep.out" | grep -oE '[0-9]+$' || true)
  nfail=$(echo "$failing" | grep -c . || true)
  echo "$ex: $nfail of $seeds seeds failed in the sweep: $(echo $failing)"
  for build in same renamed 386; do
    case $build in
      same) bin=$dir/$ex.test ;;
      renamed) bin=$dir/other.test ;;
      386) bin=$dir/$ex-386.test ;;
    esac
    always=0 runs=0 fails=0
    for s in $failing; do
      n=$("$bin" -test.run "^TestBuggySweep\$/^seed=$s\$" -miniplane.seed="$s" -test.count="$replays" -test.v 2>&1 |
        tee "$dir/replay-$build-$s.out" | grep -cE -- "--- FAIL: TestBuggySweep/seed=$s " || true)
      runs=$((runs + replays)) fails=$((fails + n))
      if [ "$n" -eq "$replays" ]; then always=$((always + 1)); fi
      echo "  $build seed $s: failed $n of $replays" >>"$dir/summary"
    done
    if [ "$nfail" -gt 0 ]; then
      printf '%s %-8s failing seeds that failed on every replay: %d of %d (%d%%); replays that failed: %d of %d (%d%%)\n' \
        "$ex" "$build" "$always" "$nfail" $((100 * always / nfail)) "$fails" "$runs" $((100 * fails / runs))
    fi
  done
done
