#!/usr/bin/env bash
# Stage: `divbench attribute diff`, the divergence gate for CI (docs/attribute.md "Gate divergence in CI"), on
# real builds: tests/attribute/diff_target.cu built three ways (divbench_diff_base; divbench_diff_new, one
# line more: a divergent branch; divbench_diff_moved, only the code placement differs).
#   attribute/diff/base.json, new.json, moved.json, base_again.json   divbench attribute --out on each build
#                             (base twice: two runs of one build must give the same counts)
#   attribute/diff/*.target.json                                       each program's stdout (what it ran)
#   attribute/diff/base_counts/, new_counts/                           --save-counts of base and new
#   attribute/diff/<pair>.verdict.json, <pair>.md, <pair>.txt          divbench attribute diff --json/--markdown,
#                             its console summary and exit code (last line "rc=N"), for the pairs:
#       new          base.json  -> new.json        a new divergent branch: expect rc=1
#       moved        base.json  -> moved.json      only PCs move: expect rc=0, no branch changed
#       repeat       base.json  -> base_again.json the same build run twice: expect rc=0, no branch changed
#       counts       base_counts/ -> new_counts/   the saved-count folders (analysed as --from-counts): rc=1
#       thrust       thrust_a.json -> thrust_b.json Thrust/CUB attributed twice: which kernels are deterministic
#                             (a changed kernel is a nondeterministic one; rc is not judged)
STAGE=attribute-diff
# shellcheck source=scripts/gpu/lib.sh
source "$(dirname "$0")/lib.sh"
D="$G/attribute/diff"
rm -rf "$D"
mkdir -p "$D"
TH="$BIN/divbench_attribute_thrust"

attr() {  # attr NAME PROGRAM [--save-counts DIR]: divbench attribute on one build
  local name=$1 prog=$2
  shift 2
  step "attribute $name" "$DIVBENCH" attribute --quiet --no-pc-sampling --out "$D/$name.json" "$@" -- "$prog" \
    >"$D/$name.target.json"
}
attr base "$BIN/divbench_diff_base" --save-counts "$D/base_counts"
attr base_again "$BIN/divbench_diff_base"
attr new "$BIN/divbench_diff_new" --save-counts "$D/new_counts"
attr moved "$BIN/divbench_diff_moved"
find "$D" -name program.log -delete

diff_pair() {  # diff_pair PAIR BASE NEW EXPECTED_RC ('' = not judged)
  local pair=$1 base=$2 new=$3 want=$4 rc
  "$DIVBENCH" attribute diff "$base" "$new" --json "$D/$pair.verdict.json" --markdown "$D/$pair.md" >"$D/$pair.txt" 2>&1
  rc=$?
  echo "rc=$rc" >>"$D/$pair.txt"
  note "attribute-diff: $pair rc=$rc${want:+ (expect $want)}"
  if [ -n "$want" ] && [ "$rc" != "$want" ]; then note "attribute-diff: $pair FAILED"; fail=1; fi
}
diff_pair new "$D/base.json" "$D/new.json" 1
diff_pair moved "$D/base.json" "$D/moved.json" 0
diff_pair repeat "$D/base.json" "$D/base_again.json" 0
diff_pair counts "$D/base_counts" "$D/new_counts" 1

step "attribute thrust a" "$DIVBENCH" attribute --quiet --no-pc-sampling --out "$D/thrust_a.json" -- "$TH" >/dev/null
step "attribute thrust b" "$DIVBENCH" attribute --quiet --no-pc-sampling --out "$D/thrust_b.json" -- "$TH" >/dev/null
diff_pair thrust "$D/thrust_a.json" "$D/thrust_b.json" ""
python3 -m divbench.attribute_diff_summary "$D" >>"$RESULTS/summary.txt" || fail=1
exit "$fail"
