#!/usr/bin/env bash
# Stage: efficiency counters, checked against Nsight Compute, and what they cost. divbench reads its eight --metrics counters in-process
# (CUPTI range profiler; the efficiency ratio, its predication-aware form and branch uniformity, each
# with the sums it is made of) for the k-way sweep (k = 1,2,4,8,16,32), the calibration kernels and,
# where its points define metric launches, the predication sweep; then ncu --clock-control none reads
# the same counters for the same launches of the same binary in a second run (DIVBENCH_CUPTI=off
# there, so ncu owns the counters; the launch sequence is the same: every point's launch, then every
# point's full metric launch and zero-work twin, profiled by divbench in one session after the timed
# points). divbench.merge_kway_metrics (scripts/divbench/) writes both side by side to
# $GPU_RESULTS/kway_metrics.json (summary: agree_within_2pct over every metric).
# Then the cost of counters: `divbench --all` and `divbench --all --metrics`, wall time of each process,
# three of each alternated (goal: the second at most 1.3x the first, medians), in $GPU_RESULTS/metrics_cost.json; the --metrics run's
# results (with counters and run conditions) stay in $GPU_RESULTS/all_metrics/.
# GPU time: ~2 s timed sweeps + their profiled launches + ncu runs of 18 launches each + eight --all runs (~90 s).
set -euo pipefail
out="${GPU_RESULTS:?set by scripts/run_on_gpu.sh}"
mkdir -p "$out"
KS=1,2,4,8,16,32
METRICS=smsp__thread_inst_executed_per_inst_executed.ratio,smsp__inst_executed.sum,smsp__thread_inst_executed.sum
METRICS+=,smsp__thread_inst_executed_pred_on_per_inst_executed.ratio,smsp__thread_inst_executed_pred_on.sum
METRICS+=,smsp__sass_average_branch_targets_threads_uniform.pct,smsp__sass_branch_targets.sum
METRICS+=,smsp__sass_branch_targets_threads_uniform.sum
NCU=${NCU:-ncu}
command -v "$NCU" >/dev/null || { echo "metrics: ncu not found" | tee -a "$RESULTS/summary.txt"; exit 1; }
secs() { awk "BEGIN{printf \"%.2f\", $2 - $1}"; }

# 1. divbench alone: timed points (201 samples each), then every point's profiled launch and twin.
t0=$(date +%s.%N)
timeout 180 "$DIVBENCH" --sweep k --k "$KS" --metrics --quiet --out "$out/kway_metrics_divbench.json"
t1=$(date +%s.%N)
timeout 120 "$DIVBENCH" --sweep calibration --metrics --quiet --out "$out/calibration.json"
t2=$(date +%s.%N)
timeout 120 "$DIVBENCH" --sweep predication --metrics --quiet --out "$out/predication_metrics_divbench.json"
echo "metrics: divbench --sweep k --metrics $(secs "$t0" "$t1") s, calibration $(secs "$t1" "$t2") s"
# The predication experiment reports counters only where its points define metric launches.
pred_has_metrics=$(python3 -m divbench.metrics_cost has-metrics "$out/predication_metrics_divbench.json")

# 2. The same sweeps under ncu, one point launch each (timed sweeps: --reps 1 --warmup 0; the calibration
# kernels run one untimed launch per point and take neither option), every launch of the kernel.
ncu_run() {  # ncu_run KERNEL-REGEX CSV DIVBENCH-ARGS...
  local regex=$1 csv=$2
  shift 2
  DIVBENCH_CUPTI=off timeout 240 "$NCU" --clock-control none --metrics "$METRICS" --csv --print-units base \
    --kernel-name "regex:$regex" "$DIVBENCH" "$@" --metrics --quiet >"$csv"
}
t3=$(date +%s.%N)
ncu_run kway_kernel "$out/kway_metrics_ncu.csv" --sweep k --k "$KS" --reps 1 --warmup 0 --out "$out/.kway_under_ncu.json"
t4=$(date +%s.%N)
ncu_run calibration_kernel "$out/calibration_ncu.csv" --sweep calibration --out "$out/.calibration_under_ncu.json"
t5=$(date +%s.%N)
merge_args=(--divbench "$out/kway_metrics_divbench.json" --ncu "$out/kway_metrics_ncu.csv"
            --divbench "$out/calibration.json" --ncu "$out/calibration_ncu.csv")
if [ "$pred_has_metrics" = 1 ]; then
  ncu_run 'pred_' "$out/predication_metrics_ncu.csv" --sweep predication --reps 1 --warmup 0 \
    --out "$out/.predication_under_ncu.json"
  merge_args+=(--divbench "$out/predication_metrics_divbench.json" --ncu "$out/predication_metrics_ncu.csv")
else
  echo "predication-metrics: its points define no metric launch (launch_once); not compared" |
    tee -a "$RESULTS/summary.txt"
fi
rm -f "$out/.kway_under_ncu.json" "$out/.calibration_under_ncu.json" "$out/.predication_under_ncu.json"
echo "metrics: ncu runs $(secs "$t3" "$t4") s + $(secs "$t4" "$t5") s"

# 3. Side by side.
python3 -m divbench.merge_kway_metrics "${merge_args[@]}" \
  --ncu-version "$("$NCU" --version | tail -1)" \
  --note "divbench sweep wall $(secs "$t0" "$t1") s with --metrics; ncu runs $(secs "$t3" "$t4") s and $(secs "$t4" "$t5") s" \
  --out "$out/kway_metrics.json" | tee -a "$RESULTS/summary.txt"

# 4. What counters cost: the whole reproduction without and with --metrics (process wall time), each run
# METRICS_COST_REPEATS times (default 3), alternated, so that the ratio of the medians comes with the
# spread of the pairs; the last --metrics run's results are kept.
repeats=${METRICS_COST_REPEATS:-3}
mkdir -p "$out/.all_plain" "$out/all_metrics"
plain_runs="" metrics_runs=""
for ((i = 1; i <= repeats; i++)); do
  a0=$(date +%s.%N)
  timeout 300 "$DIVBENCH" --all --no-samples --quiet --out "$out/.all_plain/"
  a1=$(date +%s.%N)
  timeout 300 "$DIVBENCH" --all --no-samples --metrics --quiet --out "$out/all_metrics/"
  a2=$(date +%s.%N)
  plain_runs+="${plain_runs:+,}$(secs "$a0" "$a1")"
  metrics_runs+="${metrics_runs:+,}$(secs "$a1" "$a2")"
  echo "metrics-cost: run $i of $repeats: --all $(secs "$a0" "$a1") s, --all --metrics $(secs "$a1" "$a2") s" >&2
done
# The hardware counters alone (no SASS-instrumented branch counters): what those cost.
DIVBENCH_CUPTI=basic timeout 300 "$DIVBENCH" --all --no-samples --metrics --quiet --out "$out/.all_basic/"
a3=$(date +%s.%N)
# The same counters with CUPTI replaying each kernel itself (kernel replay, memory saved and restored per
# launch) instead of divbench running the launches once per pass (user replay, the default): its cost,
# and every counter compared with the user-replay run's (its results stay in all_metrics_kernel_replay/,
# so that the comparison can be made again from the committed files).
mkdir -p "$out/all_metrics_kernel_replay"
DIVBENCH_CUPTI_REPLAY=kernel timeout 300 "$DIVBENCH" --all --no-samples --metrics --quiet --out "$out/all_metrics_kernel_replay/"
a4=$(date +%s.%N)
python3 -m divbench.metrics_cost write --all-s "$plain_runs" --all-metrics-s "$metrics_runs" \
  --all-metrics-basic-s "$(secs "$a2" "$a3")" \
  --other-replay-s "$(secs "$a3" "$a4")" --other-replay-results "$out/all_metrics_kernel_replay" \
  --results "$out/all_metrics" --out "$out/metrics_cost.json" |
  tee -a "$RESULTS/summary.txt"
rm -rf "$out/.all_plain" "$out/.all_basic"
