#!/usr/bin/env bash
# The whole run on a GPU: the one entry both the project's H200 runs and the self-hosted GPU workflow
# (.github/workflows/gpu.yml) use, so that every results/<gpu>/ has the same files (scripts/gpu/files.txt,
# listed in results/h200/README.md). Run ON the GPU machine, from the repository root, with the
# .gpubundle/ that scripts/gpu/prepare.sh made (on a build machine, or on the GPU machine itself as the
# workflow does). Runs every stage scripts/gpu/NN-*.sh in order; each writes its results under
# $GPU_RESULTS ($OUT/results/<gpu>/) and appends one-line summaries to its summary.txt. Everything is
# packed into $OUT/results.tar.gz (the device tool returns at most 8 files) and the summary table is
# printed last. After a full run (no STAGE-PATTERN) the folder is checked against scripts/gpu/files.txt
# (python3 -m divbench.gpu_files): a missing or unlisted file, or a failed stage, makes the exit status 1.
#   usage: bash scripts/run_on_gpu.sh [STAGE-PATTERN]    e.g. 'kway|predication'
#   DIVBENCH_GPU=NAME names the results folder ($OUT/results/NAME, i.e. results/NAME/; default h200).
#   DIVBENCH_GPU_BUDGET_S: stages not started after this many seconds are skipped (default 540, the
#   device tool's limit; 0: no limit, as in the workflow).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
: "${OUT:=$PWD/out}"
mkdir -p "$OUT"
# A remote call carries the bundle packed (scripts/gpu/prepare.sh): unpack it when the folder is absent.
if [ ! -d .gpubundle ] && [ -f .gpubundle.tar.xz ]; then
  mkdir -p .gpubundle && tar -C .gpubundle -xJf .gpubundle.tar.xz || exit 1
fi
export BUNDLE="$PWD/.gpubundle"
export BIN="$BUNDLE/bin"
export DIVBENCH="$BIN/divbench"
# The GPU's results folder (results/<gpu>/ in the repository): every stage writes under $GPU_RESULTS,
# the run's own records (summary.txt, stages.txt, tests/, run.log) too ($RESULTS is the same folder).
export DIVBENCH_GPU="${DIVBENCH_GPU:-h200}"
export GPU_RESULTS="$OUT/results/$DIVBENCH_GPU"
export RESULTS="$GPU_RESULTS"
# The stages' summaries run the package divbench (scripts/divbench/) as python3 -m divbench.<tool>.
export PYTHONPATH="$PWD/scripts${PYTHONPATH:+:$PYTHONPATH}"
export LD_LIBRARY_PATH="$BUNDLE/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PATH="/usr/local/cuda/bin:$PATH"
pattern="${1:-.}"
[ "$pattern" = . ] && rm -rf "$GPU_RESULTS"   # a full run: exactly its files
mkdir -p "$RESULTS"
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
status=0
for stage in scripts/gpu/[0-9][0-9]-*.sh; do
  name=$(basename "$stage" .sh)
  echo "$name" | grep -Eq "$pattern" || continue
  if [ "$budget_s" -gt 0 ] && [ $(( $(date +%s) - start_s )) -gt "$budget_s" ]; then
    printf '%-28s skipped (time budget %ss spent)\n' "$name" "$budget_s" | tee -a "$RESULTS/stages.txt"
    continue
  fi
  echo "== stage $name" | tee -a "$log"
  t0=$(date +%s%N)
  bash "$stage" >>"$log" 2>&1
  rc=$?
  t1=$(date +%s%N)
  printf '%-28s rc=%-3s %6d ms\n' "$name" "$rc" "$(( (t1 - t0) / 1000000 ))" | tee -a "$RESULTS/stages.txt"
  [ "$rc" -eq 0 ] || status=1
  tar -C "$OUT" -czf "$OUT/results.tar.gz" results   # after every stage: survives a kill at the limit
done
cp "$log" "$GPU_RESULTS/run.log"
if [ "$pattern" = . ]; then
  echo "== files (scripts/gpu/files.txt)" | tee -a "$log"
  if python3 -m divbench.gpu_files "$GPU_RESULTS" | tee -a "$log"; then echo "all present, none unlisted"; else status=1; fi
  cp "$log" "$GPU_RESULTS/run.log"
fi
tar -C "$OUT" -czf "$OUT/results.tar.gz" results
echo "== stages"; cat "$RESULTS/stages.txt"
echo "== summary"; cat "$RESULTS/summary.txt"
exit "$status"
