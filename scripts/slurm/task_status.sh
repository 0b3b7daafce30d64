# Sourced by the array scripts (divbench-array.sbatch, study-array.sbatch) after they set $stage.
# Records how this array task ended in $stage/status/<array job>_<task>: exit status, node, start and
# end (epoch seconds), written atomically when the script exits for any reason (a failed check, a
# failed command under set -e, Slurm's SIGTERM at the time limit). gather.py compares these with the
# tasks submit.sh listed, so every task that failed or never ran is named. Paths added to
# task_cleanup are removed on the way out.
# shellcheck shell=bash
task_job="${SLURM_ARRAY_JOB_ID:-${SLURM_JOB_ID:-local}}"
task_id="${SLURM_ARRAY_TASK_ID:-1}"
task_start=$(date +%s)
task_cleanup=()

task_finish() {
  local rc=$? file="${stage:?}/status/${task_job}_${task_id}"
  trap - EXIT
  [ "${#task_cleanup[@]}" -eq 0 ] || rm -rf "${task_cleanup[@]}"
  mkdir -p "$stage/status"
  printf 'rc=%s host=%s start=%s end=%s\n' "$rc" "$(hostname -s)" "$task_start" "$(date +%s)" > "$file.tmp"
  mv -f "$file.tmp" "$file"
  exit "$rc"
}
trap task_finish EXIT
trap 'echo "task ${task_job}_${task_id}: terminated (time limit or scancel)" >&2; exit 143' TERM
