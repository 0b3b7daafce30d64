#!/usr/bin/env bash
# Run HERE (the CPU build machine): build the sm_90 tree (preset h200) and gather what the H200
# machine needs into .gpubundle/ (ignored by git), which the device tool carries:
#   .gpubundle/bin/   divbench, its kernel_facts.json and the test executables (GPU tests run there)
#   .gpubundle/lib/   shared libraries the test machine lacks (Google Benchmark)
#   .gpubundle/share/ extra files stages need (e.g. standalone cubins), if any
# Set DIVBENCH_BUNDLE_CUPTI=1 to bundle CUPTI/NVPerf too (when the machine's toolkit lacks them).
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="/usr/local/cuda/bin:$PATH"
cmake --preset h200 >/dev/null
cmake --build --preset h200
b=.gpubundle
rm -rf "$b"
mkdir -p "$b/bin" "$b/lib" "$b/share"
cp build-h200/divbench "$b/bin/"
# Its SASS facts (divbench kernels facts, written by the build), read at run time next to the binary.
cp build-h200/kernel_facts.json "$b/bin/" 2>/dev/null || echo "prepare: no build-h200/kernel_facts.json (nvdisasm missing)"
# Test executables that need or use a GPU (the static-pipeline tests read build-tree files and run in CI).
find build-h200/tests -maxdepth 2 -type f -executable \( -name 'divbench_*gpu_tests' -o -name divbench_cpu_tests \
  -o -name divbench_body_tests \) -exec cp {} "$b/bin/" \;
# Standalone cubins (the bit-flip stage patches the sm_90 ones).
cp build-h200/cubins/*.sm_90.cubin "$b/share/" 2>/dev/null || true
# Other artefacts stages need can be listed, one path a line, in build-h200/gpubundle-share.txt.
if [ -f build-h200/gpubundle-share.txt ]; then
  while read -r f; do [ -n "$f" ] && cp -r "$f" "$b/share/"; done < build-h200/gpubundle-share.txt
fi
copy_dep() {  # copy the shared library that $1 resolves for pattern $2
  local path
  path=$(ldd "$1" | awk -v n="$2" '$1 ~ n {print $3}' | head -1)
  if [ -n "$path" ] && [ -f "$path" ]; then cp -L "$path" "$b/lib/"; echo "bundled $(basename "$path")"; fi
}
copy_dep "$b/bin/divbench" libbenchmark
if [ "${DIVBENCH_BUNDLE_CUPTI:-0}" = 1 ]; then
  for l in libcupti.so.13 libnvperf_host.so libnvperf_target.so; do cp -L "/usr/local/cuda/lib64/$l" "$b/lib/"; done
fi
du -sh "$b" | awk '{print ".gpubundle: " $1}'
