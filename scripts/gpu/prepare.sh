#!/usr/bin/env bash
# Run HERE (the CPU build machine): build the GPU's tree (CMake preset $DIVBENCH_PRESET, default h200:
# sm_90, build dir build-<preset>) and gather what the GPU machine needs into .gpubundle/ (ignored by
# git), which the device tool carries (packed as .gpubundle.tar.xz):
#   .gpubundle/bin/   divbench, its kernel_facts.json and the test executables (GPU tests run there)
#   .gpubundle/lib/   shared libraries the test machine lacks (Google Benchmark)
#   .gpubundle/share/ extra files stages need (e.g. standalone cubins), if any
# Set DIVBENCH_BUNDLE_CUPTI=1 to bundle CUPTI/NVPerf too (when the machine's toolkit lacks them).
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="/usr/local/cuda/bin:$PATH"
preset="${DIVBENCH_PRESET:-h200}"
build="build-$preset"
[ "$preset" = default ] && build=build   # the default preset's binaryDir (the GPU workflow's build)
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset"
b=.gpubundle
rm -rf "$b"
mkdir -p "$b/bin" "$b/lib" "$b/share"
cp "$build"/divbench "$b/bin/"
# The co-tenant of the disturbed-measurement stage and GPU test.
cp "$build"/divbench_cotenant "$b/bin/" 2>/dev/null || echo "prepare: no $build/divbench_cotenant"
# `divbench attribute`: its CUPTI injection library (loaded from beside divbench) and the programs it
# is validated on.
for f in libdivbench_inject.so libdivbench_pcsample.so divbench_attribute_targets divbench_attribute_thrust \
         divbench_diff_base divbench_diff_new divbench_diff_moved; do
  cp "$build/$f" "$b/bin/" 2>/dev/null || echo "prepare: no $build/$f"
done
# The compaction ground truth of attribute's estimate (tests/attribute/shapes.cu), the 128-kernel program and
# the misbehaving programs (hostile.cu), the ordinary programs (programs.cu) and the programs with their fixes
# (fixes.cu).
for f in divbench_attribute_shapes divbench_attribute_many divbench_attribute_hostile divbench_attribute_programs \
         divbench_attribute_fixes; do
  cp "$build/$f" "$b/bin/" 2>/dev/null || echo "prepare: no $build/$f"
done
# Its SASS facts (divbench kernels facts, written by the build), read at run time next to the binary.
cp "$build"/kernel_facts.json "$b/bin/" 2>/dev/null || echo "prepare: no $build/kernel_facts.json (nvdisasm missing)"
# Test executables that need or use a GPU (the static-pipeline tests read build-tree files and run in CI).
find "$build"/tests -maxdepth 2 -type f -executable \( -name 'divbench_*gpu_tests' -o -name divbench_cpu_tests \
  -o -name divbench_body_tests \) -exec cp {} "$b/bin/" \;
# Standalone cubins (the bit-flip stage patches the one of the GPU's architecture).
cp "$build"/cubins/*.cubin "$b/share/" 2>/dev/null || true
# Other artefacts stages need can be listed, one path a line, in $build/gpubundle-share.txt.
if [ -f "$build"/gpubundle-share.txt ]; then
  while read -r f; do [ -n "$f" ] && cp -r "$f" "$b/share/"; done < "$build"/gpubundle-share.txt
fi
copy_dep() {  # copy the shared library that $1 resolves for pattern $2
  local path
  path=$(ldd "$1" | awk -v n="$2" '$1 ~ n {print $3}' | head -1)
  if [ -n "$path" ] && [ -f "$path" ]; then cp -L "$path" "$b/lib/"; echo "bundled $(basename "$path")"; fi
}
copy_dep "$b/bin/divbench" libbenchmark
# The device tool carries at most 64 MiB with the tree: symbols nobody reads there are dropped.
find "$b/bin" -type f -executable -exec strip --strip-unneeded {} + 2>/dev/null || true
strip --strip-unneeded "$b/bin/libdivbench_inject.so" 2>/dev/null || true
strip --strip-unneeded "$b/bin/libdivbench_pcsample.so" 2>/dev/null || true
# CUPTI 13.4 from the nvidia-cuda-cupti wheel (scripts/deps/pip.txt): `divbench attribute` instruments every
# kernel of a run with it (divbench looks in bin/../lib first). DIVBENCH_BUNDLE_CUPTI=0 leaves it out.
wheel=$(python3 -c "import importlib.util as u, os; s = u.find_spec('nvidia'); print(next((os.path.join(d, 'cu13', 'lib') for d in (s.submodule_search_locations if s else []) if os.path.exists(os.path.join(d, 'cu13', 'lib', 'libcupti.so.13'))), ''))" 2>/dev/null)
if [ "${DIVBENCH_BUNDLE_CUPTI:-1}" != 0 ] && [ -n "$wheel" ]; then
  for l in libcupti.so.13 libnvperf_host.so libnvperf_target.so; do cp -L "$wheel/$l" "$b/lib/"; done
  echo "bundled CUPTI of the wheel ($wheel)"
elif [ "${DIVBENCH_BUNDLE_CUPTI:-0}" = 1 ]; then
  for l in libcupti.so.13 libnvperf_host.so libnvperf_target.so; do cp -L "/usr/local/cuda/lib64/$l" "$b/lib/"; done
fi
du -sh "$b" | awk '{print ".gpubundle: " $1}'
# The same, packed: what a remote GPU call carries (the device tool takes 64 MiB with the tracked tree);
# scripts/run_on_gpu.sh unpacks it when .gpubundle/ is not there.
rm -f .gpubundle.tar.xz
tar -C "$b" -cJf .gpubundle.tar.xz .
du -sh .gpubundle.tar.xz | awk '{print ".gpubundle.tar.xz: " $1}'
