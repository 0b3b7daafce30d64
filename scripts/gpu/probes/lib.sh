# Sourced by the probe scripts first thing (PROBE set before: the folder's name): strict mode, the
# repository root as working directory, the unpacked bundle (BIN, its CUPTI first on LD_LIBRARY_PATH),
# and D, the probe's results folder $OUT/results/<gpu>/probes/$PROBE (made here).
# shellcheck disable=SC2034  # BIN and D are read by the probe that sources this file
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.." || exit 1
: "${OUT:=$PWD/out}"
BUNDLE="$PWD/.gpubundle"
BIN="$BUNDLE/bin"
export LD_LIBRARY_PATH="$BUNDLE/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
D="$OUT/results/${DIVBENCH_GPU:-h200}/probes/${PROBE:?set by the probe script}"
mkdir -p "$D"
