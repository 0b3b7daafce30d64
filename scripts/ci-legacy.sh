#!/usr/bin/env bash
# CI's Pascal/Volta stage (CUDA 13 dropped sm_61/sm_70): the whole dynamic suite (divbench: every timed
# kernel and probe, CPU only) compiled for sm_61 and sm_70 by a real pre-13 toolkit, Debian's CUDA 11.8
# in a private prefix (scripts/setup-cuda11.sh; host compiler g++-11), then the SASS self-check on that
# build's own SASS (ctest preset legacy-ci: every timed kernel branches, both clock reads bracket the
# region, equal loop shapes, probe arm layouts, results/predicted/sm_61.json and sm_70.json regenerated
# and compared).
#
# Usage: bash scripts/ci-legacy.sh [all|setup|build]. all (the default): everything. setup: the toolkit
# and the configure step only; build: the build and the self-check of a tree setup configured.
# scripts/test.sh runs setup beside the main configure and build, and build once the main build is done,
# so that the .cpp files both builds compile alike (same g++, same flags, no CUDA header in them) come
# from the compiler cache the main build filled (CMAKE_CXX_COMPILER_LAUNCHER and CCACHE_* in the
# environment, set by test.sh) instead of being compiled twice.
set -euo pipefail
cd "$(dirname "$0")/.."
stage=${1:-all}
case $stage in all|setup|build) ;; *) echo "usage: $0 [all|setup|build]" >&2; exit 2;; esac
phase() { local t0=$SECONDS; "$@"; echo "[ci-legacy] $(printf '%-34s' "${*:1:3}") $((SECONDS - t0)) s" >&2; }
if [ "$stage" != build ]; then
  t0=$SECONDS
  prefix=$(bash scripts/setup-cuda11.sh)
  echo "[ci-legacy] $(printf '%-34s' setup-cuda11.sh) $((SECONDS - t0)) s" >&2
  phase cmake --preset legacy-ci -DCMAKE_CUDA_COMPILER="$prefix/bin/nvcc" -DCMAKE_CUDA_HOST_COMPILER=g++-11 >/dev/null
fi
if [ "$stage" != setup ]; then
  phase cmake --build --preset legacy-ci
  phase ctest --preset legacy-ci
fi
