#!/usr/bin/env bash
# CTest slurm_gpu_array: the GPU arrays submitted to the local one-node cluster, which has no GPU
# (fixture slurm_cluster, SLURM_CONF in the environment), must fail loudly. Two GPU types, two
# repetitions each, no GRES (the node has none) and CUDA_VISIBLE_DEVICES empty (Slurm's "no GPU
# allocated", so the check holds on a machine with a GPU too): Slurm must report every task FAILED,
# each task's log must end with the no-GPU message, and the gather job must fail naming every task,
# with nothing written to the results folder.
#   usage: test_gpu_array.sh WORK      env: DIVBENCH_SLURM_WAIT (default 90 s)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
src="$(cd "$here/../.." && pwd)"
# shellcheck source=tests/slurm/jobs.sh
source "$here/jobs.sh"
[ $# -eq 1 ] || { echo "usage: test_gpu_array.sh WORK" >&2; exit 2; }
work="$1"
: "${SLURM_CONF:?SLURM_CONF unset: run through CTest (fixture slurm_cluster) or local_cluster.sh start}"
stage="$work/stage-gpu" results="$work/results-gpu"
rm -rf "$stage" "$results"
mkdir -p "$work"
# The node's CPUs, not the script's default 8 per task.
printf '%s\n' "# GPU types for a node without GPUs" "a100 none --cpus-per-task=1" "h100 none --cpus-per-task=1" > "$work/gpus.txt"

t0=$SECONDS
ids_text=$(CUDA_VISIBLE_DEVICES="" DIVBENCH_STAGE="$stage" DIVBENCH_RESULTS="$results" \
           bash "$src/scripts/slurm/submit.sh" "$work/gpus.txt" 2) || fail "submit.sh failed"
mapfile -t ids <<< "$ids_text"
[ "${#ids[@]}" -eq 3 ] || fail "submit.sh printed ${#ids[@]} job ids, expected two arrays and the gather job"
gather="${ids[2]}"
wait_jobs "${DIVBENCH_SLURM_WAIT:-90}" "${ids[@]}"
echo "GPU arrays ${ids[0]} (a100) and ${ids[1]} (h100), gather job $gather: ended after $((SECONDS - t0)) s"
show_tasks "a100 array" "${ids[0]}"
show_tasks "h100 array" "${ids[1]}"
show_tasks "gather" "$gather"
echo "== gather log"
cat "$stage/logs/gather-$gather.out"
log="$stage/logs/gather-$gather.out"

i=0
for gpu in a100 h100; do
  job="${ids[$i]}"
  i=$((i + 1))
  n=0
  while read -r task state code _; do
    n=$((n + 1))
    name="$gpu"
    [ "$task" = 1 ] || name="$gpu-r$task"
    { [ "$state" = FAILED ] && [ "$code" = 1:0 ]; } || fail "$name (job $job task $task) ended $state $code, expected FAILED 1:0"
    msg="divbench-array: no GPU visible on $(hostname) (check --gres for $gpu)"
    task_log="$stage/logs/divbench-$gpu-${job}_$task.out"
    [ "$(tail -n 1 "$task_log")" = "$msg" ] || fail "$task_log does not end with '$msg'"
    grep -F "gpu $name (job $job task $task): FAILED exit 1 on " "$log" | grep -qF "$msg" \
      || fail "gather log does not name $name (job $job task $task) with the no-GPU message"
  done < <(job_tasks "$job")
  [ "$n" -eq 2 ] || fail "Slurm lists $n tasks for $gpu, expected 2"
done
grep -qF "4 of 4 tasks failed: a100, a100-r2, h100, h100-r2" "$log" || fail "gather log lacks the summary of failed tasks"
read -r _ state code _ < <(job_tasks "$gather")
{ [ "$state" = FAILED ] && [ "$code" = 1:0 ]; } || fail "gather job $gather ended $state $code, expected FAILED 1:0"
{ [ ! -e "$results/a100" ] && [ ! -e "$results/h100" ]; } || fail "gather wrote results for a GPU whose tasks all failed"
echo "PASS: 4 of 4 GPU tasks failed with the no-GPU message; gather named each and failed ($((SECONDS - t0)) s)"
