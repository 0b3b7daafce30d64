#!/usr/bin/env bash
# One bounded libFuzzer run of a harness (CTest label `fuzz`, and scripts/fuzz.sh for long runs):
#   run_fuzzer.sh HARNESS SEEDS_DIR WORK_DIR SECONDS
# The corpus grows in WORK_DIR/corpus (seeded from SEEDS_DIR); a finding (crash, sanitizer report,
# timeout, out-of-memory, uncaught exception) fails the run and leaves the input in WORK_DIR/artifacts.
# Prints "fuzz NAME: N executions in S s (R/s), corpus C inputs, 0 findings".
set -euo pipefail
bin=$1 seeds=$2 work=$3 secs=$4
name=$(basename "$bin")
mkdir -p "$work/corpus" "$work/artifacts"
log="$work/$name.log"
rc=0
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1} \
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
"$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=262144 -print_final_stats=1 \
  -artifact_prefix="$work/artifacts/" "$work/corpus" "$seeds" >"$log" 2>&1 || rc=$?
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
took=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -1)
corpus=$(find "$work/corpus" -type f | wc -l)
if [ "$rc" -ne 0 ]; then
  tail -n 80 "$log"
  echo "fuzz $name: FINDING after ${execs:-?} executions (exit $rc); input(s): $(ls "$work/artifacts" | tr '\n' ' ')"
  exit 1
fi
rate=$(( ${execs:-0} / (${took:-0} > 0 ? ${took:-1} : 1) ))
echo "fuzz $name: ${execs:-0} executions in ${took:-$secs} s (${rate}/s), corpus $corpus inputs, 0 findings"
