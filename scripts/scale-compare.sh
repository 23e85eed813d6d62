#!/usr/bin/env bash
# scale-compare.sh runs the scale benchmark (BenchmarkControlPlaneScale:
# 1,000 RCs x 100 replicas on 1,000 simulated nodes, then a scale-down to 50
# each) for two builds alternately, and prints each build's medians and the
# ratio of the working tree's to the base's.
#
# Why alternate: the 2-core VMs this project is measured on swing by 2-3x
# from one hour to the next (the same binary has measured 10 and 18 CPU-s
# two minutes apart, and issue 18's starting commit 17.5 CPU-s on the day it
# was filed and 48 CPU-s three days later). A figure is only comparable with
# one measured in the same minutes; the ratio is what carries over.
#
#   scripts/scale-compare.sh                 # issue 18's start (cc42bb4) vs the working tree, 3 pairs
#   BASE=956228b PAIRS=4 scripts/scale-compare.sh
#
# Settings (environment):
#   BASE    commit to compare against (default cc42bb4: main when issue 18 was filed)
#   PAIRS   runs of each build (default 3)
#   RCS     replication controllers of 100 pods (default 1000)
#   OUT     directory for each run's full output (default: a new temporary one)
#
# Not part of CI: each pair takes about a minute at the default size (the
# base build of cc42bb4 alone takes about 45 s).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
base=${BASE:-cc42bb4}
pairs=${PAIRS:-3}
rcs=${RCS:-1000}
out=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/scale-compare.XXXXXX")}
mkdir -p "$out"

src=$(mktemp -d "${TMPDIR:-/tmp}/scale-compare-src.XXXXXX")
trap 'rm -rf "$src"' EXIT
git -C "$root" archive "$base" | tar -x -C "$src"
echo "building the benchmark at $base and in the working tree (runs in $out)"
(cd "$src" && go test -c -o "$out/base.test" ./controllers/manager/)
(cd "$root" && go test -c -o "$out/head.test" ./controllers/manager/)

metrics="cpu-s-up s-up cpu-s-scale-to-50 s-scale-to-50 MiB-peak-heap"
run() { # run NAME I: one benchmark run, its figures appended to NAME.tsv
	local name=$1 i=$2
	"$out/$name.test" -test.run='^$' -test.bench=ControlPlaneScale -test.benchtime=1x \
		-rcs="$rcs" -test.v >"$out/$name-$i.txt" 2>&1 || {
		echo "$name run $i failed; see $out/$name-$i.txt" >&2
		exit 1
	}
	awk -v want="$metrics" -v name="$name" -v t="$(date +%H:%M:%S)" '
		/^BenchmarkControlPlaneScale.*ns\/op/ {
			n = split(want, w, " ")
			for (i = 1; i < NF; i++) got[$(i + 1)] = $i
			line = name "\t" t
			for (j = 1; j <= n; j++) line = line "\t" got[w[j]]
			print line
		}' "$out/$name-$i.txt" | tee -a "$out/$name.tsv"
}

printf 'build\ttime\t%s\n' "${metrics// /$'\t'}"
for i in $(seq "$pairs"); do
	run base "$i"
	run head "$i"
done

# Medians per build, and head / base.
median() { # median FILE COLUMN
	cut -f"$2" "$1" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
printf '\n%-20s %12s %14s %8s\n' median "$base" "working tree" ratio
col=3
for m in $metrics; do
	b=$(median "$out/base.tsv" $col)
	h=$(median "$out/head.tsv" $col)
	awk -v m="$m" -v b="$b" -v h="$h" 'BEGIN { printf "%-20s %12.2f %14.2f %8.2f\n", m, b, h, h / b }'
	col=$((col + 1))
done
