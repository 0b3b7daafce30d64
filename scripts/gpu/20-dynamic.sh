#!/usr/bin/env bash
# Stage: the dynamic suite (docs/dynamic.md). Runs on the GPU machine with the contract of run_on_gpu.sh
# (DIVBENCH, BIN, RESULTS, GPU_RESULTS). Writes under $GPU_RESULTS (results/<gpu>/):
#   predication.json occupancy.json lock.json peer_wait.json producer_consumer.json order.json  (from --all)
#   all/                    the whole `divbench --all` output (its wall and region time in summary)
#   kway_<body>.json        k = 1,2,4,8,16,32 for every work body, 8 code placements (memory: 4)
#   kway_<map>.json         the same for the contiguous, permuted and unbalanced lane maps
#   kernel_facts.json       this binary's kernel facts (docs/sass.md), made at build time
#   sanitizer_<tool>.log    compute-sanitizer memcheck/racecheck/synccheck over every kernel
# (the GPU GoogleTest suite, the experiment folders' tests/gpu/ included, runs in 05-tests.sh)
# and appends one-line summaries to $RESULTS/summary.txt. Every spin in every kernel is capped
# (<= 2 s per launch), so no step needs a host-side timeout; `timeout` below is only a backstop.
STAGE=dynamic
# shellcheck source=scripts/gpu/lib.sh
source "$(dirname "$0")/lib.sh"
mkdir -p "$G/all"

# 1. The SASS facts of this very binary (probe arm layout, loops, clock bracketing), written next to
# divbench at build time (`divbench kernels facts`, carried by prepare.sh): what --probe
# producer-consumer reads to name the orders. The CPU self-check (tests/sass) already checked them.
if [ -f "$BIN/kernel_facts.json" ]; then
  cp "$BIN/kernel_facts.json" "$G/kernel_facts.json"
  note "dynamic sass: kernel_facts.json of this binary copied"
else
  note "dynamic sass: no kernel_facts.json next to $DIVBENCH (built without nvdisasm): probe layouts unknown"
fi

# 2. The whole reproduction in one command: its wall time is part of the result.
t0=$(date +%s.%N)
step all timeout 300 "$DIVBENCH" --all --no-samples --out "$G/all/" 2>"$G/all/stderr.log"
t1=$(date +%s.%N)
for f in predication occupancy lock peer_wait producer_consumer order; do
  [ -f "$G/all/$f.json" ] && cp "$G/all/$f.json" "$G/$f.json"
done

# 3. One k sweep per work body and per lane map (6 values of k, 201 launches each), every one at 8
# code placements (mem_divergent at 4: its loads make a placement cost ~10x more): s is reported
# with its spread over placements, not as one layout's number.
KS=1,2,4,8,16,32
for b in fma_chain fma_indep int_alu sfu mem_divergent; do
  iters=10000 placements=8
  [ "$b" = mem_divergent ] && iters=1000 placements=4   # ~0.5 us of dependent loads per iteration
  step "kway_$b" timeout 300 "$DIVBENCH" --sweep k --body "$b" --k "$KS" --iters "$iters" \
    --placements "$placements" --no-samples --quiet --out "$G/kway_$b.json"
done
for m in contiguous permuted unbalanced; do
  step "kway_$m" timeout 300 "$DIVBENCH" --sweep k --map "$m" --k "$KS" --placements 8 --no-samples --quiet \
    --out "$G/kway_$m.json"
done

# 4. One-line summaries (compute-sanitizer runs in its own stage, 60-sanitizer.sh).
python3 -m divbench.stage_summary dynamic "$G" "$t0" "$t1" >>"$RESULTS/summary.txt"
exit $fail
