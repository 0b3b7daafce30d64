#!/usr/bin/env bash
# Install everything divbench needs on a fresh Debian/Ubuntu machine with the CUDA toolkit (nvcc):
# the Debian packages in scripts/deps/apt.txt and the PyPI packages in scripts/deps/pip.txt.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
list() { grep -v '^\s*#' "$1" | grep -v '^\s*$' || true; }

apt_pkgs=$(list "$here/deps/apt.txt")
if command -v apt-get >/dev/null 2>&1; then
  missing=""
  for p in $apt_pkgs; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
  if [ -n "$missing" ]; then
    echo "[setup] apt-get install$missing" >&2
    SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
  fi
else
  echo "[setup] no apt-get: install these yourself: $apt_pkgs" >&2
fi

PY=${PYTHON:-python3}
pip_pkgs=$(list "$here/deps/pip.txt")
if [ -n "$pip_pkgs" ]; then
  echo "[setup] pip install $(echo $pip_pkgs)" >&2
  export PIP_ROOT_USER_ACTION=ignore
  $PY -m pip install -q --disable-pip-version-check $pip_pkgs || { echo "[setup] pip install failed" >&2; exit 1; }
fi
# CUDA 12 pieces for the static study's sm_61/sm_70 (NVRTC 12.9 + nvdisasm 12.8), pinned, private prefix.
bash "$here/study/setup-cu12.sh" >/dev/null
command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ] || { echo "[setup] nvcc not found: install the CUDA toolkit" >&2; exit 1; }
echo "[setup] done" >&2
