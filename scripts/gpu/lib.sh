# Sourced by stage scripts first thing (`source "$(dirname "$0")/lib.sh"`, STAGE set before): the stages'
# preamble (strict mode, the repository root as working directory, G: the GPU's results folder
# $GPU_RESULTS, set by scripts/run_on_gpu.sh), note (a line for summary.txt) and step (run a command, log
# it, remember a failure in $fail without stopping the stage).
# shellcheck disable=SC2034  # $G and $fail are read by the stage that sources this file
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
G="${GPU_RESULTS:?set by scripts/run_on_gpu.sh}"
fail=0
note() { echo "$*" >>"$RESULTS/summary.txt"; }
step() {  # step NAME CMD...
  local name=$1 rc
  shift
  echo "== $name: $*" >&2
  "$@" || { rc=$?; echo "!! $name failed (rc=$rc)" >&2; note "${STAGE:-stage}: $name FAILED rc=$rc"; fail=1; }
}
