#!/usr/bin/env bash
# Stage: the cubin bit-flip experiment (issue 7) on the H200 (sm_90).
#   1. positive control: each STG of the test kernel predicated off (guard bits 12-15 := !PT) —
#      the output must change, proving the driver runs the patched bytes;
#   2. bits 72-73 (Blackwell's barrier-class field) set to each value 0..3 on every BSSY/BSYNC of the
#      sm_90 test kernel, one instruction at a time and all at once.
# Every variant is verified by disassembly and run in its own process (fresh context); every launch
# is bounded (device-side spin cap, host-side timeout). Writes $RESULTS/h200/bitflip.json (one warp,
# as in the paper) and $RESULTS/h200/bitflip-8warps.json (one block of 8 warps).
set -euo pipefail
mkdir -p "$RESULTS/h200"
cubin="${BUNDLE:-.gpubundle}/share/flip_test.sm_90.cubin"   # built here by prepare.sh
if [ ! -f "$cubin" ]; then  # an older build tree: compile the test kernel here
  mkdir -p "$RESULTS/h200/cubins"
  cubin="$RESULTS/h200/cubins/flip_test.sm_90.cubin"
  nvcc -cubin -O3 -lineinfo -arch=sm_90 -o "$cubin" kernels/flip/flip_test.cu
fi
run() {  # run OUT [extra flags]
  local out="$1"; shift
  "$DIVBENCH" flip experiment --cubin "$cubin" --function flip_test \
    --match 'BSSY*,BSYNC*' --bits 72:2 --control 'STG*' \
    --reps 11 --timeout 10 --spin-cap 1000000 --out "$out" "$@"
}
t0=$(date +%s.%N)
run "$RESULTS/h200/bitflip.json" --threads 32
run "$RESULTS/h200/bitflip-8warps.json" --threads 256 --quiet
t1=$(date +%s.%N)
python3 - "$t0" "$t1" "$RESULTS/h200/bitflip.json" "$RESULTS/h200/bitflip-8warps.json" >>"$RESULTS/summary.txt" <<'PY'
import json, sys
wall = float(sys.argv[2]) - float(sys.argv[1])
for path in sys.argv[3:]:
    d = json.load(open(path)); s = d["summary"]; c = d["config"]
    flips = [v for v in d["variants"] if v["kind"] != "control"]
    ratios = [v["comparison"]["cycles_ratio"] for v in flips if v["comparison"]["completed"]]
    statuses = sorted({v["run"]["status"] for v in flips})
    rng = f"{min(ratios):.3f}..{max(ratios):.3f}" if ratios else "n/a"
    print(f"bitflip: sm_{d['cubin']['sm']} {d['device']['name']} threads={c['threads']} "
          f"control_ok={s['positive_control_ok']} ({s['positive_controls_changed_output']}/{s['positive_controls']} stores) "
          f"flips={s['flips']} completed={s['flips_completed']} equal={s['flips_output_and_exchange_equal']} "
          f"status={','.join(statuses)} cycles_ratio={rng} base_cycles={s['baseline_cycles_median']:.0f} "
          f"verified={s['verified']}/{s['variants']} wall={wall:.1f}s")
PY
