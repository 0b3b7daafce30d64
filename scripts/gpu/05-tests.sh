#!/usr/bin/env bash
# Stage: every GoogleTest binary of the bundle, on the GPU (GPU tests run instead of skipping).
set -uo pipefail
mkdir -p "$RESULTS/tests"
fail=0
for t in "$BIN"/divbench_*tests*; do
  [ -x "$t" ] || continue
  name=$(basename "$t")
  "$t" --gtest_output="json:$RESULTS/tests/$name.json" >"$RESULTS/tests/$name.log" 2>&1
  rc=$?
  line=$(grep -E "^\[  (PASSED|FAILED)  \]|tests? ran|SKIP" "$RESULTS/tests/$name.log" | tr '\n' ' ')
  echo "tests: $name rc=$rc $line" >>"$RESULTS/summary.txt"
  [ "$rc" -eq 0 ] || fail=1
done
exit $fail
