#!/usr/bin/env bash
# Stage: the k-way sweep (default run, code placements, a rerun for the gate).
#   kway_default.json  the plain `divbench --sweep k` a user runs (warp-per-SM sampling, one placement):
#                      the timing goals (process wall, GPU time) are read from it
#   kway.json          k = 1..32 at all 8 code placements: s with its placement spread (medians only,
#                      --no-samples: 8 x 32 points of 201 x 132 samples would be ~50 MB)
#   kway_rerun.json    the default command again, raw samples kept: the gate's "same build, no change"
#   gate/              scripts/compare.py --gate on kway_default/kway_rerun (exit 0 expected; the
#                      Mann-Whitney test on the raw samples) and on a copy of the rerun with every
#                      sample and median scaled by 1.05 (exit 1 expected)
STAGE=kway
# shellcheck source=scripts/gpu/lib.sh
source "$(dirname "$0")/lib.sh"
mkdir -p "$G/gate"

t0=$(date +%s.%N)
step kway_default "$DIVBENCH" --sweep k --out "$G/kway_default.json"
t1=$(date +%s.%N)
echo "kway_default process wall $(python3 -c "print(f'{$t1 - $t0:.3f}')") s" >"$G/kway_default.wall.txt"
step kway "$DIVBENCH" --sweep k --k 1-32 --placements 8 --no-samples --out "$G/kway.json" --benchmark_out="$G/kway.gbench.json"
t2=$(date +%s.%N)
step kway_rerun "$DIVBENCH" --sweep k --quiet --out "$G/kway_rerun.json"
python3 -m divbench.stage_summary kway "$G/kway.json" "$t1" "$t2" >>"$RESULTS/summary.txt"
python3 -m divbench.stage_summary kway_default "$G/kway_default.json" "$t0" "$t1" >>"$RESULTS/summary.txt"

# The gate on two real runs of the same build, and on a copy scaled by 1.05.
python3 -m divbench.compare --gate "$G/kway_default.json" "$G/kway_rerun.json" --report "$G/gate/same.md" \
  --benchmark-json "$G/gate/same.benchmark.json" >"$G/gate/same.txt" 2>&1
echo "rc=$?" >>"$G/gate/same.txt"
python3 -m divbench.scaled_copy "$G/kway_rerun.json" "$G/gate/scaled_1.05.json" --factor 1.05
python3 -m divbench.compare --gate "$G/kway_default.json" "$G/gate/scaled_1.05.json" --report "$G/gate/scaled.md" \
  >"$G/gate/scaled.txt" 2>&1
echo "rc=$?" >>"$G/gate/scaled.txt"
rm -f "$G/gate/scaled_1.05.json"
note "gate: same build $(tail -1 "$G/gate/same.txt") (expect rc=0); scaled x1.05 $(tail -1 "$G/gate/scaled.txt") (expect rc=1)"
exit $fail
