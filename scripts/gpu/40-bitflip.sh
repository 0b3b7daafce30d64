#!/usr/bin/env bash
# Stage: the cubin bit-flip experiment (docs/bitflip.md) on the GPU at hand (sm_90 on the H200).
#   1. positive control: each STG of the test kernel predicated off (guard bits 12-15 := !PT) —
#      the output must change, proving the driver runs the patched bytes;
#   2. bits 72-73 (Blackwell's barrier-class field) set to each value 0..3 on every BSSY/BSYNC of the
#      sm_90 test kernel, one instruction at a time and all at once.
# Every variant is verified by disassembly and run in its own process (fresh context); every launch
# is bounded (device-side spin cap, host-side timeout). Writes $GPU_RESULTS/bitflip.json (one warp,
# as in the paper) and $GPU_RESULTS/bitflip-8warps.json (one block of 8 warps).
set -euo pipefail
G="${GPU_RESULTS:?set by scripts/run_on_gpu.sh}"
mkdir -p "$G"
# The GPU's own architecture (sm_90 on the H200; the workflow runs this on whatever GPU it has).
arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d '. ')
arch=${arch:-90}
cubin="${BUNDLE:-.gpubundle}/share/flip_test.sm_$arch.cubin"   # built by prepare.sh (sm_90, sm_100, sm_120)
if [ ! -f "$cubin" ]; then  # another architecture: compile the test kernel here, outside results/
  cubin="$(mktemp -d)/flip_test.sm_$arch.cubin"
  nvcc -cubin -O3 -lineinfo -arch="sm_$arch" -o "$cubin" kernels/flip/flip_test.cu
fi
run() {  # run OUT [extra flags]
  local out="$1"; shift
  "$DIVBENCH" flip experiment --cubin "$cubin" --function flip_test \
    --match 'BSSY*,BSYNC*' --bits 72:2 --control 'STG*' \
    --reps 11 --timeout 10 --spin-cap 1000000 --out "$out" "$@"
}
t0=$(date +%s.%N)
run "$G/bitflip.json" --threads 32
run "$G/bitflip-8warps.json" --threads 256 --quiet
t1=$(date +%s.%N)
python3 -m divbench.stage_summary bitflip "$t0" "$t1" "$G/bitflip.json" "$G/bitflip-8warps.json" >>"$RESULTS/summary.txt"
