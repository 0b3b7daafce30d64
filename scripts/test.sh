#!/usr/bin/env bash
# The test command (README): install dependencies, configure the CI preset (every architecture),
# build, run every test. GPU-labelled tests skip with a message where no GPU is present.
# Beside it, the Pascal/Volta stage (scripts/ci-legacy.sh: the dynamic suite built for
# sm_61/sm_70 by CUDA 11.8 and its SASS self-check), at lower priority so that it fills the cores the
# tests leave idle; DIVBENCH_CI_LEGACY=0 leaves it out. Its toolkit and configure step run beside the
# main configure, its build once the main build is done: the host .cpp files both builds compile alike
# then come from the compiler cache (ccache, where installed: build-ccache/ in the tree) that the main
# build filled. Each phase prints its wall time and the load average at its end (the machine may be
# shared), and a table of them comes last.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/cuda/bin:$PATH"
phases=""
cpu_file=$(mktemp)
trap 'rm -f "$cpu_file"' EXIT
children_cpu() {  # sets cpu: user+sys CPU s of the children reaped so far (bash's `times`, run in this
  times > "$cpu_file"  # shell, not in a $(...) subshell, which would count only its own children)
  cpu=$(tail -n 1 "$cpu_file" | awk '{ s = 0; for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); s += a[1] * 60 + a[2] }
                                      printf "%d", s }')
}
timed() {  # timed NAME CMD...: runs CMD, records its wall time and its CPU time (that of the background
  local name=$1 t0=$SECONDS rc=0 c0 c1  # jobs it reaps included: the legacy stage's shows under legacy-wait)
  children_cpu; c0=$cpu
  shift
  "$@" || rc=$?
  children_cpu; c1=$cpu
  local line
  line=$(printf '%-22s %5d s  cpu %5d s  rc=%d  load %s' "$name" $((SECONDS - t0)) $((c1 - c0)) "$rc" \
         "$(cut -d' ' -f1-3 /proc/loadavg)")
  echo "[test.sh] $line" >&2
  phases+="$line"$'\n'
  return "$rc"
}
start=$SECONDS
timed setup-deps bash scripts/setup-deps.sh
# One compiler cache for the main and the Pascal/Volta builds (read at each build tree's first configure).
# Paths under the tree are hashed relative to the build directory, so build-ci/ and build-legacy-ci/
# share entries; in preprocessor mode a .cpp whose preprocessed text is the same in both (no CUDA
# header) hits whatever -isystem toolkit directory its command line names.
if command -v ccache >/dev/null 2>&1; then
  export CMAKE_CXX_COMPILER_LAUNCHER=ccache CCACHE_DIR="${CCACHE_DIR:-$PWD/build-ccache}" CCACHE_BASEDIR="$PWD" \
         CCACHE_NOHASHDIR=true
  ccache -z >/dev/null
fi
legacy_pid=""
legacy=0
if [ "${DIVBENCH_CI_LEGACY:-1}" != 0 ]; then
  legacy=1
  mkdir -p build-legacy-ci
  nice -n 5 bash scripts/ci-legacy.sh setup > build-legacy-ci/ci-legacy.log 2>&1 &
  legacy_pid=$!
fi
timed configure cmake --preset ci
timed build cmake --build --preset ci
lrc=0
if [ "$legacy" = 1 ]; then
  wait "$legacy_pid" || lrc=$?
  legacy_pid=""
  if [ "$lrc" = 0 ]; then
    nice -n 5 bash scripts/ci-legacy.sh build >> build-legacy-ci/ci-legacy.log 2>&1 &
    legacy_pid=$!
  fi
fi
rc=0
timed ctest ctest --preset ci || rc=$?
if [ "$legacy" = 1 ]; then
  [ -z "$legacy_pid" ] || timed legacy-wait wait "$legacy_pid" || lrc=$?
  grep '^\[ci-legacy\]' build-legacy-ci/ci-legacy.log | sed 's/^/  /' >&2 || true
  if [ "$lrc" != 0 ]; then
    echo "[test.sh] the Pascal/Volta stage failed (rc=$lrc); its log, build-legacy-ci/ci-legacy.log, ends:" >&2
    tail -n 40 build-legacy-ci/ci-legacy.log >&2
    rc=1
  fi
fi
echo "[test.sh] phases (wall s; CPU s: user+sys of the phase's processes; load at the end of each):" >&2
printf '%s' "$phases" | sed 's/^/  /' >&2
if [ -n "${CCACHE_DIR:-}" ] && command -v ccache >/dev/null 2>&1; then
  echo "[test.sh] ccache (main + Pascal/Volta builds):" >&2
  ccache -s 2>&1 | sed 's/^/  /' >&2 || true
fi
children_cpu
echo "[test.sh] total $((SECONDS - start)) s, cpu $cpu s" >&2
exit "$rc"
