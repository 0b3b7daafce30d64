#!/usr/bin/env bash
# Stage: efficiency counters (issue 6). divbench reads smsp__thread_inst_executed_per_inst_executed.ratio,
# smsp__inst_executed.sum and smsp__thread_inst_executed.sum in-process (CUPTI range profiler) for the
# k-way sweep (k = 1,2,4,8,16,32) and the calibration kernels; then ncu --clock-control none reads the
# same counters for the same launches of the same binary in a second run (DIVBENCH_CUPTI=off there,
# so ncu owns the counters; every point still launches: point launch, full metrics launch, zero-work
# twin). divbench.merge_kway_metrics (scripts/divbench/) writes both side by side to
# $GPU_RESULTS/kway_metrics.json.
# GPU time: ~2 s timed sweep + a few s of profiled launches + two ncu runs of 18 launches each.
set -euo pipefail
out="${GPU_RESULTS:?set by scripts/run_on_gpu.sh}"
mkdir -p "$out"
KS=1,2,4,8,16,32
METRICS=smsp__thread_inst_executed_per_inst_executed.ratio,smsp__inst_executed.sum,smsp__thread_inst_executed.sum
NCU=${NCU:-ncu}
command -v "$NCU" >/dev/null || { echo "metrics: ncu not found" | tee -a "$RESULTS/summary.txt"; exit 1; }

# 1. divbench alone: timed points (201 launches each) plus one profiled launch and one twin per point.
t0=$(date +%s.%N)
timeout 180 "$DIVBENCH" --sweep k --k "$KS" --metrics --quiet --out "$out/kway_metrics_divbench.json"
t1=$(date +%s.%N)
timeout 120 "$DIVBENCH" --sweep calibration --metrics --quiet --out "$out/calibration.json"
t2=$(date +%s.%N)
echo "metrics: divbench --sweep k --metrics $(awk "BEGIN{printf \"%.1f\", $t1 - $t0}") s, calibration $(awk "BEGIN{printf \"%.1f\", $t2 - $t1}") s"

# 2. The same sweeps under ncu, one point launch each (--reps 1 --warmup 0), every launch of the kernel.
ncu_run() {  # ncu_run KERNEL-REGEX CSV DIVBENCH-ARGS...
  local regex=$1 csv=$2
  shift 2
  DIVBENCH_CUPTI=off timeout 240 "$NCU" --clock-control none --metrics "$METRICS" --csv --print-units base \
    --kernel-name "regex:$regex" "$DIVBENCH" "$@" --reps 1 --warmup 0 --metrics --quiet >"$csv"
}
ncu_run kway_kernel "$out/kway_metrics_ncu.csv" --sweep k --k "$KS" --out "$out/.kway_under_ncu.json"
t3=$(date +%s.%N)
ncu_run calibration_kernel "$out/calibration_ncu.csv" --sweep calibration --out "$out/.calibration_under_ncu.json"
t4=$(date +%s.%N)
rm -f "$out/.kway_under_ncu.json" "$out/.calibration_under_ncu.json"
echo "metrics: ncu runs $(awk "BEGIN{printf \"%.1f\", $t3 - $t2}") s + $(awk "BEGIN{printf \"%.1f\", $t4 - $t3}") s"

# 3. Side by side.
python3 -m divbench.merge_kway_metrics \
  --divbench "$out/kway_metrics_divbench.json" --ncu "$out/kway_metrics_ncu.csv" \
  --divbench "$out/calibration.json" --ncu "$out/calibration_ncu.csv" \
  --ncu-version "$("$NCU" --version | tail -1)" \
  --note "divbench sweep wall $(awk "BEGIN{printf \"%.1f\", $t1 - $t0}") s with --metrics; ncu runs $(awk "BEGIN{printf \"%.1f\", $t3 - $t2}") s and $(awk "BEGIN{printf \"%.1f\", $t4 - $t3}") s" \
  --out "$out/kway_metrics.json" | tee -a "$RESULTS/summary.txt"
