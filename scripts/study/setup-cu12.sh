#!/usr/bin/env bash
# Installs the CUDA 12.x pieces the static study needs for architectures CUDA 13 dropped
# (Pascal sm_61, Volta sm_70), pinned, into a private prefix that cannot clash with the 13.x packages:
#   compiler:     NVRTC 12.9 (nvidia-cuda-nvrtc-cu12) plus the 12.9 CUDA and CCCL headers it needs
#                 for cooperative_groups (nvidia-cuda-runtime-cu12, nvidia-cuda-cccl-cu12).
#                 The nvidia-cuda-nvcc-cu12 wheels (12.1, 12.4, 12.9 checked) carry only ptxas and
#                 libnvvm, no nvcc driver and no cicc front end, so NVRTC is the only PyPI front end.
#   disassembler: nvdisasm 12.8.55 (the last toolkit line that decodes SM61/SM70, with -json),
#                 taken out of the Triton 3.3.1 wheel (triton/backends/nvidia/bin/nvdisasm); there is
#                 no nvidia-cuda-nvdisasm-cu12 on PyPI and nvidia-cuda-nvdisasm 13.x refuses SM61/SM70.
# Prefix: $DIVBENCH_CU12_PREFIX, default ~/.cache/divbench/cu12-12.9. Prints the prefix on stdout.
# Idempotent: does nothing when the prefix is complete.
set -euo pipefail
PY=${PYTHON:-python3}
prefix=${DIVBENCH_CU12_PREFIX:-$HOME/.cache/divbench/cu12-12.9}
NVRTC=nvidia-cuda-nvrtc-cu12==12.9.86
RUNTIME=nvidia-cuda-runtime-cu12==12.9.79
CCCL=nvidia-cuda-cccl-cu12==12.9.27
TRITON=triton==3.3.1
NVDISASM_SHA256=1080bc909a3020761ff4c78a9b7bd9b4937bdb9c0978709cbe52381de612a1f2

stamp="$prefix/.complete-$NVRTC-$RUNTIME-$CCCL-$TRITON"
if [ -f "$stamp" ]; then echo "$prefix"; exit 0; fi
mkdir -p "$prefix/bin"
echo "[setup-cu12] pip install --target $prefix/py $NVRTC $RUNTIME $CCCL" >&2
$PY -m pip install -q --disable-pip-version-check --no-deps --target "$prefix/py" --upgrade \
    "$NVRTC" "$RUNTIME" "$CCCL" 2>&1 | grep -v "Running pip as the 'root' user" >&2 || true
test -f "$prefix/py/nvidia/cuda_nvrtc/lib/libnvrtc.so.12" || { echo "[setup-cu12] libnvrtc.so.12 missing after install" >&2; exit 1; }

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
echo "[setup-cu12] pip download $TRITON (for its bundled nvdisasm 12.8)" >&2
$PY -m pip download -q --disable-pip-version-check --no-deps --only-binary=:all: \
    --python-version 3.11 --platform manylinux_2_28_x86_64 -d "$tmp" "$TRITON" >&2
whl=$(ls "$tmp"/triton-*.whl)
$PY - "$whl" "$prefix/bin/nvdisasm" <<'PYEOF'
import sys, zipfile, os
with zipfile.ZipFile(sys.argv[1]) as z:
    data = z.read("triton/backends/nvidia/bin/nvdisasm")
tmp = sys.argv[2] + ".tmp"
open(tmp, "wb").write(data)
os.chmod(tmp, 0o755)
os.replace(tmp, sys.argv[2])
PYEOF
echo "$NVDISASM_SHA256  $prefix/bin/nvdisasm" | sha256sum -c --quiet - >&2 \
  || { echo "[setup-cu12] nvdisasm checksum mismatch" >&2; rm -f "$prefix/bin/nvdisasm"; exit 1; }
"$prefix/bin/nvdisasm" --version | grep -q "release 12.8" || { echo "[setup-cu12] unexpected nvdisasm version" >&2; exit 1; }
touch "$stamp"
echo "$prefix"
