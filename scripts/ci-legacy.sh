#!/usr/bin/env bash
# CI's Pascal/Volta stage (issue 24): the whole dynamic suite (divbench: every timed kernel and probe,
# CPU only) compiled for sm_61 and sm_70 by a real pre-13 toolkit, Debian's CUDA 11.8 in a private
# prefix (scripts/setup-cuda11.sh; host compiler g++-11), then the SASS self-check on that build's own
# SASS (ctest preset legacy-ci: every timed kernel branches, both clock reads bracket the region, equal
# loop shapes, probe arm layouts, results/predicted/sm_61.json and sm_70.json regenerated and compared).
# scripts/test.sh runs it beside the main build; alone: bash scripts/ci-legacy.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
phase() { local t0=$SECONDS; "$@"; echo "[ci-legacy] $(printf '%-34s' "${*:1:3}") $((SECONDS - t0)) s" >&2; }
t0=$SECONDS
prefix=$(bash scripts/setup-cuda11.sh)
echo "[ci-legacy] $(printf '%-34s' setup-cuda11.sh) $((SECONDS - t0)) s" >&2
phase cmake --preset legacy-ci -DCMAKE_CUDA_COMPILER="$prefix/bin/nvcc" -DCMAKE_CUDA_HOST_COMPILER=g++-11 >/dev/null
phase cmake --build --preset legacy-ci
phase ctest --preset legacy-ci
