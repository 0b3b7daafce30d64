#!/usr/bin/env bash
# Regenerates the committed static study (results/static/) from a real run:
#   installs the pinned CUDA 12 pieces for sm_61/sm_70 (setup-cu12.sh), builds divbench
#   (BUILD, default build-study, configured for one architecture: the study compiles its own corpus),
#   and runs the study (python3 -m divbench.study, scripts/divbench/study/) for every architecture.
#   Extra arguments go to the study (e.g. --arch sm_90 --out /tmp/x). Cubins are cached under
#   ~/.cache/divbench/study-cubins.
#   DIVBENCH_STUDY_PREPARE_ONLY=1: stop after the preparation and print the divbench path and the CUDA 12
#   prefix, one per line (scripts/slurm/submit.sh --study prepares this way, then runs the study per task).
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="/usr/local/cuda/bin:$PATH"
prefix=$(bash scripts/study/setup-cu12.sh)
build=${BUILD:-build-study}
if [ ! -f "$build/build.ninja" ]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DDIVBENCH_BUILD_TESTS=OFF >/dev/null
fi
cmake --build "$build" --target divbench -j "${JOBS:-2}" >/dev/null
if [ "${DIVBENCH_STUDY_PREPARE_ONLY:-0}" = 1 ]; then echo "$(cd "$build" && pwd)/divbench"; echo "$prefix"; exit 0; fi
export PYTHONPATH="$PWD/scripts${PYTHONPATH:+:$PYTHONPATH}"   # the package divbench lives in scripts/
exec python3 -m divbench.study --divbench "$build/divbench" --cu12-prefix "$prefix" --jobs "${JOBS:-2}" "$@"
