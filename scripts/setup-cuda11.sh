#!/usr/bin/env bash
# A real pre-13 CUDA toolkit for the Pascal/Volta build (sm_61, sm_70; the `legacy` preset), for CI and
# for anyone without one: Debian 12's non-free CUDA 11.8 (nvidia-cuda-toolkit: nvcc, cicc, cudafe++,
# ptxas, fatbinary, nvlink, nvdisasm, cuobjdump; nvidia-cuda-dev: headers and libcudart; libnvvm4)
# unpacked into a private prefix in the standard toolkit layout (bin/, nvvm/, include/, lib64/), with
# an nvcc.profile pointing at it, plus CUPTI 12.9's headers (PyPI) for the range profiler divbench uses. Nothing is installed system-wide except the host compiler nvcc 11.8
# accepts (g++-11, Debian main), and apt's own lists are not touched: the .debs are fetched through a
# private apt configuration that adds the non-free component.
#
# Why this route: the PyPI CUDA 12.x compiler wheels carry ptxas/libnvvm only (no nvcc driver,
# cicc or cudafe++), and NVRTC compiles device code only; Debian's 11.8 is the one complete pre-13
# toolkit reachable here, and the oldest toolkit CMake accepts, so it proves the build where it is
# hardest. A Pascal/Volta owner with their own CUDA 11.8-12.9 does not need this script.
#
# Prefix: $DIVBENCH_CUDA11_PREFIX, default ~/.cache/divbench/cuda-11.8. Prints the prefix on stdout.
# Idempotent: does nothing when the prefix is complete. Debian/Ubuntu amd64 with apt only.
set -euo pipefail
prefix=${DIVBENCH_CUDA11_PREFIX:-$HOME/.cache/divbench/cuda-11.8}
VERSION="11.8.89~11.8.0-5~deb12u1"
CUPTI=nvidia-cuda-cupti-cu12==12.9.79
stamp="$prefix/.complete-$VERSION-$CUPTI"
if [ -f "$stamp" ]; then echo "$prefix"; exit 0; fi
command -v apt-get >/dev/null 2>&1 || { echo "[setup-cuda11] needs apt-get (Debian 12)" >&2; exit 1; }

keyring=/usr/share/keyrings/debian-archive-keyring.gpg
need=""
command -v g++-11 >/dev/null 2>&1 || need="$need g++-11"   # the newest host compiler nvcc 11.8 accepts
[ -f "$keyring" ] || need="$need debian-archive-keyring"     # on Ubuntu (the hosted CI image): Debian's keys
if [ -n "$need" ]; then
  echo "[setup-cuda11] apt-get install$need" >&2
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  # shellcheck disable=SC2086
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $need >/dev/null
fi

work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
mkdir -p "$work/apt/lists/partial" "$work/cache/archives/partial" "$work/debs"
echo "deb [signed-by=$keyring] http://deb.debian.org/debian bookworm main non-free" > "$work/sources.list"
apt=(-o "Dir::Etc::SourceList=$work/sources.list" -o Dir::Etc::SourceParts=/dev/null
     -o "Dir::State=$work/apt" -o Dir::State::status=/var/lib/dpkg/status -o "Dir::Cache=$work/cache"
     -o Debug::NoLocking=1 -o APT::Sandbox::User=root)
echo "[setup-cuda11] fetching Debian's CUDA $VERSION (nvidia-cuda-toolkit, nvidia-cuda-dev, libnvvm4)" >&2
apt-get "${apt[@]}" update -qq >&2
(cd "$work/debs" && apt-get "${apt[@]}" download -qq "nvidia-cuda-toolkit=$VERSION" "nvidia-cuda-dev=$VERSION" \
   "libnvvm4=$VERSION" >&2)

x="$work/x"; mkdir -p "$x"
dpkg-deb -x "$work"/debs/nvidia-cuda-toolkit_*.deb "$x"
dpkg-deb -x "$work"/debs/libnvvm4_*.deb "$x"
# nvidia-cuda-dev is mostly static libraries of cuBLAS & co.: take the headers and libcudart only.
dpkg-deb --fsys-tarfile "$work"/debs/nvidia-cuda-dev_*.deb |
  tar -x -C "$x" --wildcards './usr/include/*' './usr/lib/x86_64-linux-gnu/libcudart*'

rm -rf "$prefix.tmp"; mkdir -p "$prefix.tmp"/{bin,nvvm/bin,nvvm/lib64,include,lib64}
p="$prefix.tmp"
cp -a "$x"/usr/lib/nvidia-cuda-toolkit/bin/nvcc "$x"/usr/lib/nvidia-cuda-toolkit/bin/crt "$p/bin/"
for t in cudafe++ ptxas fatbinary nvlink bin2c nvdisasm cuobjdump nvprune cu++filt; do cp -a "$x/usr/bin/$t" "$p/bin/"; done
cp -a "$x"/usr/lib/nvidia-cuda-toolkit/bin/cicc "$p/nvvm/bin/"
cp -aL "$x"/usr/lib/nvidia-cuda-toolkit/libdevice "$p/nvvm/libdevice"
cp -a "$x"/usr/lib/x86_64-linux-gnu/libnvvm.so* "$p/nvvm/lib64/"
cp -a "$x"/usr/include/. "$p/include/"
cp -a "$x"/usr/lib/x86_64-linux-gnu/libcudart* "$p/lib64/"
# The standard toolkit's nvcc.profile, host compiler g++-11 (nvcc 11.8 refuses gcc 12).
cat > "$p/bin/nvcc.profile" <<'EOF'
TOP = $(_HERE_)/..
NVVMIR_LIBRARY_DIR = $(TOP)/nvvm/libdevice
LD_LIBRARY_PATH += $(TOP)/lib64:
PATH += $(TOP)/nvvm/bin:$(_HERE_):
INCLUDES += "-I$(TOP)/include" $(_SPACE_)
LIBRARIES =+ $(_SPACE_) "-L$(TOP)/lib64"
CUDAFE_FLAGS +=
PTXAS_FLAGS +=
EOF
# CUPTI's range-profiler headers (CUDA 12.6+; divbench dlopens libcupti at run time, so headers are all
# the build needs) from the pinned PyPI wheel, where the standard layout keeps them (extras/CUPTI/include).
PY=${PYTHON:-python3}
$PY -m pip download -q --disable-pip-version-check --no-deps --only-binary=:all: -d "$work/whl" "$CUPTI" >&2
$PY - "$work"/whl/nvidia_cuda_cupti_cu12-*.whl "$p/extras/CUPTI/include" <<'PYEOF'
import os, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    for n in z.namelist():
        if n.startswith("nvidia/cuda_cupti/include/") and not n.endswith("/"):
            dst = os.path.join(sys.argv[2], n[len("nvidia/cuda_cupti/include/"):])
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            with open(dst, "wb") as f:
                f.write(z.read(n))
PYEOF
test -f "$p/extras/CUPTI/include/cupti_range_profiler.h" || { echo "[setup-cuda11] CUPTI headers missing" >&2; exit 1; }
"$p/bin/nvcc" --version | grep -q "release 11.8" || { echo "[setup-cuda11] unexpected nvcc version" >&2; exit 1; }
rm -rf "$prefix"; mv "$p" "$prefix"
touch "$stamp"
echo "$prefix"
