#!/usr/bin/env bash
# GPU test (label gpu): the flip experiment on this GPU's flip-test cubin, reduced (BSYNC only,
# 3 launches). Passes when the baseline matches the host model (the experiment checks that) and the
# positive control changed the output of every disabled store; the flips' outcomes are the
# measurement, not asserted. Exit 77 (skip) without a GPU/driver or without a cubin for its SM.
#   usage: flip_gpu.sh DIVBENCH CUBIN_DIR WORK_DIR
set -uo pipefail
divbench="$1"; cubins="$2"; work="$3"
cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d '. ')
[ -n "$cc" ] || { echo "no GPU visible: skipped"; exit 77; }
cubin="$cubins/flip_test.sm_${cc}.cubin"
[ -f "$cubin" ] || { echo "no flip_test cubin for sm_$cc (add $cc to DIVBENCH_FLIP_ARCHS): skipped"; exit 77; }
mkdir -p "$work"
"$divbench" flip experiment --cubin "$cubin" --function flip_test --match 'BSYNC*' --bits 72:2 \
  --control 'STG*' --reps 3 --timeout 10 --out "$work/bitflip.json" --quiet
rc=$?
[ "$rc" = 3 ] && { echo "no CUDA driver/device: skipped"; exit 77; }
[ "$rc" = 0 ] || { echo "divbench flip experiment failed ($rc)"; exit 1; }
python3 - "$work/bitflip.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); s = d["summary"]
print("summary:", json.dumps(s))
assert d["baseline"]["comparison"]["matches_model"], "baseline does not match the host model"
assert s["positive_control_ok"], "the positive control did not change the output: patched bytes not executed?"
PY
