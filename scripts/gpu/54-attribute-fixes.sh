#!/usr/bin/env bash
# Stage: `divbench attribute`'s predicted time saved against the measured gain of real fixes (issue 47 item 4;
# tests/attribute/fixes.cu: BFS, SpMV, Mandelbrot, n-body with a cutoff, Needleman-Wunsch, particle-filter
# resampling, a filtered histogram, a segmented insertion sort, each `before` and its fixes). Per mode: each
# variant timed (--time: median of 9 cudaEvent timings of the kernels the fix changes, after a warm-up), then
# attribute on `before` with PC sampling (the time model prices waits with it). The judge, its rule fixed before
# any data, is scripts/divbench/attribute_fixes.py (docs/attribute.md "Fixes").
#   attribute/fixes/<mode>_<variant>.stdout  the program's --time line (kernels, median_ms, times_ms)
#   attribute/fixes/<mode>_<variant>.stderr  its stderr and exit code
#   attribute/fixes/<mode>.json              divbench attribute --out on `<mode> before`
#   attribute/fixes/<mode>.attr.stdout       the program's stdout under attribute (what ran)
#   attribute/fixes/<mode>.attr.stderr       attribute's stderr and exit code
#   attribute/fixes.json                     python3 -m divbench.attribute_fixes over the folder
STAGE=attribute-fixes
# shellcheck source=scripts/gpu/lib.sh
source "$(dirname "$0")/lib.sh"
P="$G/attribute/fixes"
rm -rf "$P"
mkdir -p "$P"
PROG="$BIN/divbench_attribute_fixes"
# mode:fixes (the variants beside `before`); the same table as FIXES in scripts/divbench/attribute_fixes.py.
MODES="bfs:after,after_warp spmv:after,after_sorted mandelbrot:after nbody:after nw:after resample:after,after_sorted
       histogram:after,after_sorted segsort:after"
for entry in $MODES; do
  m=${entry%%:*}
  IFS=, read -r -a fixes <<<"${entry#*:}"
  for v in before "${fixes[@]}"; do
    "$PROG" "$m" "$v" --time --reps 9 >"$P/${m}_$v.stdout" 2>"$P/${m}_$v.stderr"
    echo "rc=$?" >>"$P/${m}_$v.stderr"
  done
  "$DIVBENCH" attribute --quiet --out "$P/$m.json" -- "$PROG" "$m" before >"$P/$m.attr.stdout" 2>"$P/$m.attr.stderr"
  echo "rc=$?" >>"$P/$m.attr.stderr"
done
find "$P" -name program.log -delete
step "fixes summary" python3 -m divbench.attribute_fixes "$P" --out "$G/attribute/fixes.json"
python3 -m divbench.attribute_fixes "$P" --summary >>"$RESULTS/summary.txt" || fail=1
exit "$fail"
