# Sourced by the tests/slurm test scripts: waiting for Slurm jobs and reading Slurm's own view of them
# (scontrol keeps finished jobs for MinJobAge, an hour in local_cluster.sh's slurm.conf).
# shellcheck shell=bash

fail() { echo "FAIL: $*" >&2; exit 1; }

# wait_jobs SECONDS JOBID...: until none of the jobs is pending or running; on timeout show the queue,
# cancel them and fail.
wait_jobs() {
  local limit="$1" deadline=$((SECONDS + $1)) left; shift
  while :; do
    left=$(squeue -h -j "$(IFS=,; echo "$*")" -o '%i %T %R' 2>/dev/null || true)
    [ -z "$left" ] && return 0
    if [ "$SECONDS" -ge "$deadline" ]; then
      echo "$left" >&2
      scancel "$@" 2>/dev/null || true
      fail "jobs $* still queued or running after $limit s (cancelled)"
    fi
    sleep 1
  done
}

# job_tasks JOBID: one line per task, "TASK STATE EXITCODE RUNTIME NODE" (TASK "-" for a plain job).
job_tasks() {
  scontrol -o show job "$1" | awk '{
    delete f
    for (i = 1; i <= NF; i++) { k = $i; sub(/=.*/, "", k); v = $i; sub(/^[^=]*=/, "", v); f[k] = v }
    print (("ArrayTaskId" in f) ? f["ArrayTaskId"] : "-"), f["JobState"], f["ExitCode"], f["RunTime"], f["NodeList"]
  }' | sort -n
}

# show_tasks LABEL JOBID: the tasks' states and run times, for the test log (and the report).
show_tasks() {
  echo "== $1: job $2 (task state exit run-time node)"
  job_tasks "$2" | sed 's/^/   /'
}
