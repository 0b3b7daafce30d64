#!/usr/bin/env bash
# Runs every libFuzzer harness (tests/fuzz/) for longer than CI does, one after the other, and prints
# executions and time per harness. The corpus of each grows under BUILD/tests/fuzz/runs/<harness>
# (shared with the CTest runs); a finding stops with the crashing input in .../artifacts/.
#   bash scripts/fuzz.sh [SECONDS_PER_HARNESS (default 600)] [BUILD_DIR (default build)]
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-600}
build=${2:-build}
export PATH="/usr/local/cuda/bin:$PATH"
if [ ! -f "$build/build.ninja" ]; then
  cmake -S . -B "$build" -G Ninja -DDIVBENCH_FUZZ=ON >/dev/null
fi
cmake --build "$build" --target divbench_fuzzers divbench_fuzz_seeds_made -j "${JOBS:-2}" >/dev/null
fz="$build/tests/fuzz"
declare -A kind=([fuzz_elf]=elf [fuzz_inspect]=inspect [fuzz_nvdisasm_json]=json [fuzz_nvdisasm_text]=text [fuzz_merge]=merge [fuzz_kernels_json]=kernels [fuzz_counts]=counts)
failed=0
for h in fuzz_elf fuzz_inspect fuzz_nvdisasm_json fuzz_nvdisasm_text fuzz_merge fuzz_kernels_json fuzz_counts; do
  echo "[fuzz] $h for $secs s" >&2
  bash tests/fuzz/run_fuzzer.sh "$fz/project/$h" "$fz/seeds/${kind[$h]}" "$fz/runs/$h" "$secs" || failed=1
done
exit $failed
