#!/usr/bin/env bash
# Run HERE (the CPU build machine): build the sm_90 tree for the H200 and bundle the shared
# libraries the test machine lacks (Google Benchmark; CUPTI and NVPerf travel too so the
# profiler matches the toolkit we built with). The result, build-h200/, is what the device
# tool carries.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="/usr/local/cuda/bin:$PATH"
cmake --preset h200 >/dev/null
cmake --build --preset h200
lib=build-h200/lib
mkdir -p "$lib"
copy_dep() {  # copy the resolved shared library (and keep its soname)
  local path
  path=$(ldd "$1" | awk -v n="$2" '$1 ~ n {print $3}' | head -1)
  [ -n "$path" ] && [ -f "$path" ] && cp -L "$path" "$lib/" && echo "bundled $(basename "$path")"
}
copy_dep build-h200/divbench libbenchmark
for l in libcupti.so libnvperf_host.so libnvperf_target.so; do
  for d in /usr/local/cuda/lib64 /usr/local/cuda/extras/CUPTI/lib64; do
    if compgen -G "$d/$l*" >/dev/null; then cp -L "$d"/$l* "$lib/" 2>/dev/null || true; break; fi
  done
done
du -sh build-h200 | awk '{print "build-h200: " $1}'
