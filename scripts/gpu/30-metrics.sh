#!/usr/bin/env bash
# Stage: efficiency counters (issues 6, 16.4, 14.4). divbench reads its eight --metrics counters in-process
# (CUPTI range profiler; the efficiency ratio, its predication-aware form and branch uniformity, each
# with the sums it is made of) for the k-way sweep (k = 1,2,4,8,16,32), the calibration kernels and,
# where its points define metric launches, the predication sweep; then ncu --clock-control none reads
# the same counters for the same launches of the same binary in a second run (DIVBENCH_CUPTI=off
# there, so ncu owns the counters; the launch sequence is the same: every point's launch, then every
# point's full metric launch and zero-work twin, profiled by divbench in one session after the timed
# points). divbench.merge_kway_metrics (scripts/divbench/) writes both side by side to
# $GPU_RESULTS/kway_metrics.json (summary: agree_within_2pct over every metric).
# Then the cost of counters: `divbench --all` and `divbench --all --metrics`, wall time of each process
# (goal: the second at most 1.3x the first), in $GPU_RESULTS/metrics_cost.json; the --metrics run's
# results (with counters and run conditions) stay in $GPU_RESULTS/all_metrics/.
# GPU time: ~2 s timed sweeps + their profiled launches + ncu runs of 18 launches each + two --all runs.
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
pred_has_metrics=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
print(int(any("metrics" in p for p in d.get("points", []))))' "$out/predication_metrics_divbench.json")

# 2. The same sweeps under ncu, one point launch each (--reps 1 --warmup 0), every launch of the kernel.
ncu_run() {  # ncu_run KERNEL-REGEX CSV DIVBENCH-ARGS...
  local regex=$1 csv=$2
  shift 2
  DIVBENCH_CUPTI=off timeout 240 "$NCU" --clock-control none --metrics "$METRICS" --csv --print-units base \
    --kernel-name "regex:$regex" "$DIVBENCH" "$@" --reps 1 --warmup 0 --metrics --quiet >"$csv"
}
t3=$(date +%s.%N)
ncu_run kway_kernel "$out/kway_metrics_ncu.csv" --sweep k --k "$KS" --out "$out/.kway_under_ncu.json"
t4=$(date +%s.%N)
ncu_run calibration_kernel "$out/calibration_ncu.csv" --sweep calibration --out "$out/.calibration_under_ncu.json"
t5=$(date +%s.%N)
merge_args=(--divbench "$out/kway_metrics_divbench.json" --ncu "$out/kway_metrics_ncu.csv"
            --divbench "$out/calibration.json" --ncu "$out/calibration_ncu.csv")
if [ "$pred_has_metrics" = 1 ]; then
  ncu_run 'pred_' "$out/predication_metrics_ncu.csv" --sweep predication --out "$out/.predication_under_ncu.json"
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

# 4. What counters cost: the whole reproduction without and with --metrics (process wall time).
mkdir -p "$out/.all_plain" "$out/all_metrics"
a0=$(date +%s.%N)
timeout 300 "$DIVBENCH" --all --no-samples --quiet --out "$out/.all_plain/"
a1=$(date +%s.%N)
timeout 300 "$DIVBENCH" --all --no-samples --metrics --quiet --out "$out/all_metrics/"
a2=$(date +%s.%N)
rm -rf "$out/.all_plain"
python3 - "$(secs "$a0" "$a1")" "$(secs "$a1" "$a2")" "$out/all_metrics" "$out/metrics_cost.json" <<'EOF' |
import glob, json, os, sys
plain, metrics, folder, dst = float(sys.argv[1]), float(sys.argv[2]), sys.argv[3], sys.argv[4]
docs = [json.load(open(f)) for f in sorted(glob.glob(os.path.join(folder, "*.json")))]
session = next(((d.get("timing") or {}).get("metrics") for d in docs if (d.get("timing") or {}).get("metrics")), None)
# Run conditions of the same run: every point read before and after (NVML), and throttling reasons.
points = sum(len(d.get("points") or []) + len(d.get("points_extra") or []) for d in docs)
cond = {"points": points,
        "points_with_conditions": sum(d["summary"].get("points_with_conditions", 0) for d in docs),
        "points_with_throttle_reasons": sum(d["summary"].get("points_with_throttle_reasons", 0) for d in docs),
        "points_with_metrics": sum(1 for d in docs for p in (d.get("points") or []) + (d.get("points_extra") or [])
                                   if (p.get("metrics") or {}).get("available"))}
first = docs[0] if docs else {}
doc = {"schema": "divbench.metrics_cost/1", "git": first.get("git"), "created": first.get("created"),
       "device": (first.get("device") or {}).get("name"), "all_s": plain, "all_metrics_s": metrics,
       "ratio": metrics / plain, "goal_ratio": 1.3, "within_goal": metrics / plain <= 1.3,
       "metrics_session": session, "conditions": cond,
       "method": "wall time of `divbench --all` and `divbench --all --metrics` "
       "processes, one after the other on the same GPU (scripts/gpu/30-metrics.sh)"}
tmp = dst + ".tmp"
with open(tmp, "w") as f:
    json.dump(doc, f, indent=2)
    f.write("\n")
os.replace(tmp, dst)
print(f"metrics-cost: --all {plain:.1f} s, --all --metrics {metrics:.1f} s, ratio {metrics / plain:.3f} "
      f"(<=1.3: {metrics / plain <= 1.3}); counter session: {json.dumps(session)}; conditions: {json.dumps(cond)}")
EOF
  tee -a "$RESULTS/summary.txt"
