#!/usr/bin/env bash
# Run ON the GPU machine, from the repository root, with .gpubundle/ carried from the build
# machine (scripts/gpu/prepare.sh). Runs every stage scripts/gpu/NN-*.sh in order; each writes
# its results under $RESULTS and appends one-line summaries to $RESULTS/summary.txt. Everything
# is packed into $OUT/results.tar.gz (the device tool returns at most 8 files) and the summary
# table is printed last.
#   usage: bash scripts/run_on_gpu.sh [STAGE-PATTERN]    e.g. 'kway|predication'
#   DIVBENCH_GPU=NAME names the results folder ($RESULTS/NAME, i.e. results/NAME/; default h200).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
: "${OUT:=$PWD/out}"
mkdir -p "$OUT"
export BUNDLE="$PWD/.gpubundle"
export BIN="$BUNDLE/bin"
export DIVBENCH="$BIN/divbench"
export RESULTS="$OUT/results"
# The GPU's results folder (results/<gpu>/ in the repository): every stage writes under $GPU_RESULTS.
export DIVBENCH_GPU="${DIVBENCH_GPU:-h200}"
export GPU_RESULTS="$RESULTS/$DIVBENCH_GPU"
# The stages' summaries run the package divbench (scripts/divbench/) as python3 -m divbench.<tool>.
export PYTHONPATH="$PWD/scripts${PYTHONPATH:+:$PYTHONPATH}"
export LD_LIBRARY_PATH="$BUNDLE/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PATH="/usr/local/cuda/bin:$PATH"
mkdir -p "$RESULTS"
pattern="${1:-.}"
budget_s="${DIVBENCH_GPU_BUDGET_S:-540}"   # stages not started by then are skipped (the call has a limit)
start_s=$(date +%s)
log="$OUT/run.log"
{
  echo "== $(date -u +%FT%TZ) $(hostname)"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv || true
  ldd "$DIVBENCH" | grep -E "not found|benchmark|cupti|nvperf" || true
  ls -d /usr/local/cuda*/extras/CUPTI/lib64 /usr/local/cuda*/lib64/libcupti* 2>/dev/null || true
  ncu --version | tail -1; compute-sanitizer --version | tail -1; nvcc --version | tail -1
} 2>&1 | tee -a "$log"
: > "$RESULTS/summary.txt"
for stage in scripts/gpu/[0-9][0-9]-*.sh; do
  name=$(basename "$stage" .sh)
  echo "$name" | grep -Eq "$pattern" || continue
  if [ $(( $(date +%s) - start_s )) -gt "$budget_s" ]; then
    printf '%-28s skipped (time budget %ss spent)\n' "$name" "$budget_s" | tee -a "$RESULTS/stages.txt"
    continue
  fi
  echo "== stage $name" | tee -a "$log"
  t0=$(date +%s%N)
  bash "$stage" >>"$log" 2>&1
  rc=$?
  t1=$(date +%s%N)
  printf '%-28s rc=%-3s %6d ms\n' "$name" "$rc" "$(( (t1 - t0) / 1000000 ))" | tee -a "$RESULTS/stages.txt"
  tar -C "$OUT" -czf "$OUT/results.tar.gz" results   # after every stage: survives a kill at the limit
done
tar -C "$OUT" -czf "$OUT/results.tar.gz" results
echo "== stages"; cat "$RESULTS/stages.txt"
echo "== summary"; cat "$RESULTS/summary.txt"
