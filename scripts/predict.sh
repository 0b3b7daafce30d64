#!/usr/bin/env bash
# Regenerates results/predicted/sm_XX.json (docs/sass.md "Predicted slopes") from a build's kernel
# facts: BUILD (default build-ci, the preset with every architecture nvcc 13 knows) must be built;
# sm_61/sm_70 come from LEGACY (default build-legacy-ci: the legacy-ci preset built with CUDA 11.8,
# bash scripts/ci-legacy.sh), else from the NVRTC facts of a build with -DDIVBENCH_NVRTC_LEGACY_FACTS=ON.
# Constants: results/h200/loop_cost.json (refit after a --sweep cost run, see docs/sass.md).
# CPU only; CTest predicted_regenerate checks the committed files against the same command.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD:-build-ci}
[ -x "$build/divbench" ] || { echo "predict.sh: $build/divbench not built (cmake --preset ci && cmake --build --preset ci)" >&2; exit 2; }
[ -f "$build/kernel_facts.json" ] || { echo "predict.sh: $build/kernel_facts.json missing (nvdisasm not found at build time)" >&2; exit 2; }
facts=("$build/kernel_facts.json")
legacy=${LEGACY:-build-legacy-ci}
nvrtc="$build/tests/sass/kernel_facts_nvrtc.json"
if [ -f "$legacy/kernel_facts.json" ]; then facts+=("$legacy/kernel_facts.json")
elif [ -f "$nvrtc" ]; then facts+=("$nvrtc")
else echo "predict.sh: neither $legacy/kernel_facts.json nor $nvrtc: no sm_61/sm_70" >&2; fi
exec "$build/divbench" kernels predict --facts "${facts[@]}" --constants results/h200/loop_cost.json \
  --out-dir results/predicted "$@"
