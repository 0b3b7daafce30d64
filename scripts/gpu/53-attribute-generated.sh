#!/usr/bin/env bash
# Stage: `divbench attribute`'s time prediction judged on random divergent kernels it was never tuned on
# (issue 47 item 3; scripts/divbench/generated_corpus.py draws them, scripts/divbench/attribute_generated.py
# judges). The seed is drawn fresh each run (DIVBENCH_GENERATED_SEED fixes it); 200 kernels; the truth is
# compaction: the same items sorted by their path key, no warp given more work (gen.cu's host driver).
#   attribute/generated/gen.cu, manifest.json  the kernels drawn and what was drawn (sites, keys, lines)
#   attribute/generated/run.txt                seed, the checkout's commit, nvcc version, the ncu subset's seed
#   attribute/generated/nvcc.log               the compile's output
#   attribute/generated/measure.json           gen measure: times per arrangement at 1, 8, 16, 32 warps per SM,
#                                              summed warp cycles, per-item outputs checked; .stderr its log
#   attribute/generated/attr_w<W>.json         divbench attribute on `gen attribute --warps-per-sm W`; .stderr
#   attribute/generated/ncu_w<W>_details.csv   ncu's details page with its rule results (ThreadDivergence's
#                                              estimated speedup), ncu_w<W>_raw.csv the raw metrics of the same
#                                              report (the rule's inputs), ncu_w<W>.log ncu's own log
#   attribute/generated/ncu_subset.txt         the kernels ncu profiles at 1, 8 and 32 warps per SM
#   attribute/generated.json                   python3 -m divbench.attribute_generated over the folder
# Time on one H200 (estimate): generate < 1 s, nvcc ~15 s (200 kernels, 12 s on the build machine); measure:
# 200 kernels x 4 occupancies x 2-4 arrangements x 8 launches of 0.05-2 ms plus the host's sort of up to 2.2 M
# items, ~1-2 min; attribute x 4 (each runs gen twice: counts and PC sampling), ~2-3 min; ncu (WarpStateStats and
# the rules' parent sections, ~0.5 s a kernel): all 200 at 16 warps per SM and a random 50 at 1, 8 and 32 =
# 350 profiles, ~3 min. About 7-9 minutes in all: run it as a stage of its own (DIVBENCH_GPU_BUDGET_S).
# A device call is limited to 10 minutes, so the stage can run in two calls: DIVBENCH_GENERATED_PART=measure
# (generate, compile, measure, attribute; the seed drawn and recorded) and then DIVBENCH_GENERATED_PART=ncu with
# DIVBENCH_GENERATED_SEED set to that seed (the same kernels, regenerated from it: the generator is a function
# of the seed, tests/generated/corpus_test.py checks it); merge the two folders and run the judge
# (`python3 -m divbench.attribute_generated FOLDER --out results/h200/attribute/generated.json`). `all` (the
# default) does both in one call.
STAGE=attribute-generated
# shellcheck source=scripts/gpu/lib.sh
source "$(dirname "$0")/lib.sh"
P="$G/attribute/generated"
PART="${DIVBENCH_GENERATED_PART:-all}"
case "$PART" in
  all|measure) ;;
  ncu) [ -n "${DIVBENCH_GENERATED_SEED:-}" ] || { echo "DIVBENCH_GENERATED_PART=ncu needs DIVBENCH_GENERATED_SEED (the measure part's seed)" >&2; exit 2; } ;;
  *) echo "DIVBENCH_GENERATED_PART: all, measure or ncu, not '$PART'" >&2; exit 2 ;;
esac
# DIVBENCH_GENERATED_KERNELS: fewer kernels when device time is short (default 200); ncu's subset is at most 50.
KERNELS="${DIVBENCH_GENERATED_KERNELS:-200}"
case "$KERNELS" in ''|*[!0-9]*) echo "DIVBENCH_GENERATED_KERNELS: a count of kernels (1..1000), not '$KERNELS'" >&2; exit 2 ;; esac
if [ "$KERNELS" -lt 1 ] || [ "$KERNELS" -gt 1000 ]; then echo "DIVBENCH_GENERATED_KERNELS: 1..1000, not $KERNELS" >&2; exit 2; fi
SUBSET=$(( KERNELS < 50 ? KERNELS : 50 ))
rm -rf "$P"
mkdir -p "$P"
SEED="${DIVBENCH_GENERATED_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}"
RUNTXT="$P/run.txt"
[ "$PART" = ncu ] && RUNTXT="$P/run_ncu.txt"  # beside the measure part's run.txt when the folders are merged
{
  echo "seed=$SEED"
  if [ -n "${DIVBENCH_GENERATED_SEED:-}" ]; then echo "seed_source=DIVBENCH_GENERATED_SEED"; else echo "seed_source=/dev/urandom"; fi
  echo "kernels=$KERNELS"
  echo "part=$PART"
  # The model's commit is the divbench binary's own (each attribute document's provenance.git); the copy's
  # HEAD is recorded beside it (it may be stale on the device machine).
  echo "checkout_commit=$(git rev-parse HEAD 2>/dev/null || echo unknown)"
  echo "nvcc=$(nvcc --version 2>/dev/null | tail -1)"
} >"$RUNTXT"
step "generate" python3 -m divbench.generated_corpus --seed "$SEED" --kernels "$KERNELS" --out "$P"
B="$(mktemp -d)"
trap 'rm -rf "$B"' EXIT
step "nvcc" bash -c "nvcc -O3 -arch=sm_90 -lineinfo -o '$B/gen' '$P/gen.cu' >'$P/nvcc.log' 2>&1"
GEN="$B/gen"
if [ "$PART" != ncu ]; then
step "measure" bash -c "'$GEN' measure --out '$P/measure.json' --reps 7 2>'$P/measure.stderr'"
for W in 1 8 16 32; do
  "$DIVBENCH" attribute --quiet --out "$P/attr_w$W.json" -- "$GEN" attribute --warps-per-sm "$W" >/dev/null 2>"$P/attr_w$W.stderr"
  echo "rc=$?" >>"$P/attr_w$W.stderr"
done
fi
if [ "$PART" = measure ]; then
  echo "part=measure: ncu not run; run the ncu part with DIVBENCH_GENERATED_SEED=$SEED" >>"$RESULTS/summary.txt"
  exit "$fail"
fi
# ncu's ThreadDivergence rule (section WarpStateStats; its parent rule of the compute sections weighs it
# into a global estimate): the rule's own "Estimated Speedup" read from the details page's rule rows, by
# column name; the report is exported again as raw metrics (the rule's inputs: threads per instruction,
# predicated-on threads per instruction) for the reader's fallback, then deleted (tens of MB).
python3 - "$SEED" "$KERNELS" "$SUBSET" >"$P/ncu_subset.txt" <<'EOF'
import random, sys
seed, n, k = (int(a) for a in sys.argv[1:])
print("\n".join(sorted(random.Random(seed ^ 0x5EB5E7).sample([f"gen_{i:03d}" for i in range(n)], k))))
EOF
echo "ncu_subset=$SUBSET kernels drawn with random.Random(seed ^ 0x5EB5E7)" >>"$RUNTXT"
subset="regex:^($(paste -sd'|' "$P/ncu_subset.txt"))\$"
for W in 16 1 8 32; do
  k="regex:^gen_[0-9]+\$"
  [ "$W" = 16 ] || k="$subset"
  step "ncu w$W" ncu --section WarpStateStats --section SpeedOfLight --section ComputeWorkloadAnalysis -k "$k" \
    -f -o "$B/ncu_w$W" --log-file "$P/ncu_w$W.log" "$GEN" ncu --warps-per-sm "$W"
  step "ncu w$W details" bash -c "ncu --import '$B/ncu_w$W.ncu-rep' --csv --page details --print-details all --print-units base >'$P/ncu_w${W}_details.csv'"
  step "ncu w$W raw" bash -c "ncu --import '$B/ncu_w$W.ncu-rep' --csv --page raw --print-units base >'$P/ncu_w${W}_raw.csv'"
done
if [ "$PART" = ncu ]; then
  echo "part=ncu (seed $SEED): merge with the measure part's folder, then run the judge" >>"$RESULTS/summary.txt"
  exit "$fail"
fi
step "generated summary" python3 -m divbench.attribute_generated "$P" --out "$G/attribute/generated.json"
python3 -m divbench.attribute_generated "$P" --summary >>"$RESULTS/summary.txt" || fail=1
exit "$fail"
