#!/usr/bin/env bash
# Regenerates results/predicted/sm_XX.json (docs/sass.md "Predicted slopes") from a build's kernel
# facts: BUILD (default build-ci, the preset with every architecture nvcc 13 knows) must be built,
# with the NVRTC sm_61/sm_70 facts when the cu12 prefix is installed (scripts/study/setup-cu12.sh).
# Constants: results/h200/loop_cost.json (refit after a --sweep cost run, see docs/sass.md).
# CPU only; CTest predicted_regenerate checks the committed files against the same command.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD:-build-ci}
[ -x "$build/divbench" ] || { echo "predict.sh: $build/divbench not built (cmake --preset ci && cmake --build --preset ci)" >&2; exit 2; }
[ -f "$build/kernel_facts.json" ] || { echo "predict.sh: $build/kernel_facts.json missing (nvdisasm not found at build time)" >&2; exit 2; }
facts=("$build/kernel_facts.json")
nvrtc="$build/tests/sass/kernel_facts_nvrtc.json"
if [ -f "$nvrtc" ]; then facts+=("$nvrtc"); else echo "predict.sh: $nvrtc missing: no sm_61/sm_70" >&2; fi
exec "$build/divbench" kernels predict --facts "${facts[@]}" --constants results/h200/loop_cost.json \
  --out-dir results/predicted "$@"
