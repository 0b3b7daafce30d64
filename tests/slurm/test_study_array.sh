#!/usr/bin/env bash
# CTest slurm_study_array: the static study run as a Slurm job array on the local one-node cluster
# (fixture slurm_cluster, SLURM_CONF in the environment) must gather into exactly the committed
# results/static/. submit.sh --study submits one task per architecture (cubins from CACHE, which the
# study_regenerate fixture has filled, so the tasks only analyse) and the dependent gather job;
# Slurm must report every task and the gather job COMPLETED, and the gathered files must equal the
# committed ones (divbench.study.shards compare: the study's own comparison, run provenance aside).
# Prints the job ids, each task's run time and the comparison.
#   usage: test_study_array.sh WORK DIVBENCH NVCC CACHE     env: DIVBENCH_SLURM_WAIT (default 480 s)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
src="$(cd "$here/../.." && pwd)"
# shellcheck source=tests/slurm/jobs.sh
source "$here/jobs.sh"
[ $# -eq 4 ] || { echo "usage: test_study_array.sh WORK DIVBENCH NVCC CACHE" >&2; exit 2; }
work="$1" divbench="$2" nvcc="$3" cache="$4"
: "${SLURM_CONF:?SLURM_CONF unset: run through CTest (fixture slurm_cluster) or local_cluster.sh start}"
stage="$work/stage-study" results="$work/results"
rm -rf "$stage" "$results"
mkdir -p "$work"

t0=$SECONDS
ids_text=$(DIVBENCH_STAGE="$stage" DIVBENCH_RESULTS="$results" \
           bash "$src/scripts/slurm/submit.sh" --study --divbench "$divbench" --nvcc "$nvcc" --cache "$cache") \
  || fail "submit.sh --study failed"
mapfile -t ids <<< "$ids_text"
[ "${#ids[@]}" -eq 2 ] || fail "submit.sh printed ${#ids[@]} job ids, expected the study array and the gather job"
array="${ids[0]}" gather="${ids[1]}"
mapfile -t archs < <(PYTHONPATH="$src/scripts" python3 -m divbench.study.shards archs)
wait_jobs "${DIVBENCH_SLURM_WAIT:-480}" "$array" "$gather"
echo "study array job $array (${#archs[@]} tasks) and gather job $gather ended after $((SECONDS - t0)) s"

show_tasks "study array (${archs[*]})" "$array"
show_tasks "gather" "$gather"
echo "== gather log"
cat "$stage"/logs/gather-"$gather".out

n=0
while read -r task state code _; do
  { [ "$state" = COMPLETED ] && [ "$code" = 0:0 ]; } || fail "study task $task (${archs[$((task - 1))]}) ended $state $code: see $stage/logs/"
  n=$((n + 1))
done < <(job_tasks "$array")
[ "$n" -eq "${#archs[@]}" ] || fail "Slurm lists $n study tasks, expected ${#archs[@]}"
read -r _ state code _ < <(job_tasks "$gather")
{ [ "$state" = COMPLETED ] && [ "$code" = 0:0 ]; } || fail "gather job $gather ended $state $code"

echo "== gathered $results/static/ vs committed $src/results/static/"
PYTHONPATH="$src/scripts" python3 -m divbench.study.shards compare "$src/results/static" "$results/static" \
  || fail "the gathered study differs from the committed results/static/"
echo "PASS: $n study tasks, gathered results identical to results/static/ ($((SECONDS - t0)) s)"
