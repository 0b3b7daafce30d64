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

# The compaction ground truth of the attribute shapes, one shape at a time, as stage 50 runs it:
#   compaction SHAPE [model]  writes $D/SHAPE/shapes_time.json (warp cycles of both orders, 5 launches),
#   shapes_<order>.json and .target.json (attribute on each order, 10 launches), with `model` also
#   shapes_<order>_model.json (--no-pc-sampling); each step's exit code goes to $D/run.txt. The memory
#   probe beside the constants is read when there is one.
compaction() {
  local shape=$1 model=${2:-} P="$D/$1" S="$BIN/divbench_attribute_shapes" o
  local MEM=()
  [ -f "results/${DIVBENCH_GPU:-h200}/memory.json" ] && MEM=(--memory "results/${DIVBENCH_GPU:-h200}/memory.json")
  mkdir -p "$P"
  "$S" time --launches 5 --shape "$shape" >"$P/shapes_time.json" 2>>"$D/run.txt"
  echo "$shape time rc=$?" >>"$D/run.txt"
  for o in random sorted; do
    "$BIN/divbench" attribute --quiet "${MEM[@]}" --out "$P/shapes_$o.json" -- "$S" run "$o" --launches 10 --shape "$shape" \
      >"$P/shapes_$o.target.json" 2>>"$D/run.txt"
    echo "$shape attribute $o rc=$?" >>"$D/run.txt"
    [ "$model" = model ] || continue
    "$BIN/divbench" attribute --quiet "${MEM[@]}" --no-pc-sampling --out "$P/shapes_${o}_model.json" -- "$S" run "$o" \
      --launches 10 --shape "$shape" >/dev/null 2>>"$D/run.txt"
    echo "$shape attribute $o model rc=$?" >>"$D/run.txt"
  done
}

# timed NAME CMD...: runs CMD (stdout dropped, stderr appended to $D/run.txt) and appends
# "NAME MS ms rc=RC" (its wall milliseconds and exit code) to $D/timing.txt.
timed() {
  local name=$1 t0 t1 rc
  shift
  t0=$(date +%s%N)
  "$@" >/dev/null 2>>"$D/run.txt"
  rc=$?
  t1=$(date +%s%N)
  echo "$name $(( (t1 - t0) / 1000000 )) ms rc=$rc" >>"$D/timing.txt"
}
