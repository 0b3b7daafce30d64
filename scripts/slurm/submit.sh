#!/usr/bin/env bash
# Submit divbench to a Slurm cluster as job arrays, then a gather job that runs once all have ended.
#   usage: scripts/slurm/submit.sh GPUS_FILE [REPEATS]       the dynamic suite on every GPU type
#          scripts/slurm/submit.sh --study [STUDY_ARGS...]   the static study, one task per architecture
# GPUS_FILE: one GPU type per line, "NAME GRES [extra sbatch arguments...]" (see gpus.example.txt); GRES
# "none" submits without --gres (a partition whose nodes hold that GPU without GRES). Slurm fixes
# resources per array, not per task, so each GPU type is its own job array (task N = repetition N,
# default 1 task) running divbench-array.sbatch.
# --study: study-array.sbatch, task N = the Nth architecture (CPU only). STUDY_ARGS go to the study
# (python3 -m divbench.study) in every task (e.g. --cache DIR, --nvcc PATH), except --arch sm_XX
# (repeatable: which tasks) and --divbench PATH (default: built here as scripts/study/run.sh builds it).
# Every task is listed in STAGE/tasks.tsv (array job, task, kind, name; logs in STAGE/logs/); gather.sh
# runs after all of them (afterany), fills results/<NAME>/ or results/static/ and names every task that
# failed. stdout: the array job ids, then the gather job id, one per line.
#   env: DIVBENCH_STAGE (default: results-slurm/ in the checkout, on a file system the nodes share),
#        DIVBENCH_SBATCH_ARGS (extra sbatch arguments for the study array, e.g. --partition=cpu)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
src="$(cd "$here/../.." && pwd)"
die() { echo "submit.sh: $1" >&2; exit "${2:-2}"; }

stage="${DIVBENCH_STAGE:-$src/results-slurm}"
manifest="$stage/tasks.tsv"

# --- what to submit (all input checked before anything is submitted) ------------------------------
if [ "${1:-}" = "--study" ]; then
  shift
  want=() rest=() divbench="" own_prefix=0
  while [ $# -gt 0 ]; do
    case "$1" in
      --arch) [ $# -ge 2 ] || die "--arch needs a value"; want+=(--arch "$2"); shift 2 ;;
      --arch=*) want+=(--arch "${1#--arch=}"); shift ;;
      --divbench) [ $# -ge 2 ] || die "--divbench needs a value"; divbench="$2"; shift 2 ;;
      --divbench=*) divbench="${1#--divbench=}"; shift ;;
      --out|--out=*|--compare|--compare=*) die "$1: tasks write into the stage and gather writes results/static/" ;;
      --cu12-prefix|--cu12-prefix=*) own_prefix=1; rest+=("$1"); shift ;;
      *) rest+=("$1"); shift ;;
    esac
  done
  archs_text=$(PYTHONPATH="$(dirname "$here")${PYTHONPATH:+:$PYTHONPATH}" python3 -m divbench.study.shards archs "${want[@]}") ||
    exit 2
  mapfile -t archs <<< "$archs_text"
else
  gpus_file="${1:?usage: submit.sh GPUS_FILE [REPEATS] | submit.sh --study [STUDY_ARGS...]}"
  repeats="${2:-1}"
  [ -r "$gpus_file" ] || die "cannot read $gpus_file"
  case "$repeats" in ''|*[!0-9]*|0) die "REPEATS must be a positive integer" ;; esac
  types=()
  while read -r name gres extra; do
    case "$name" in ''|'#'*) continue ;; esac
    [ -n "${gres:-}" ] || die "line for '$name' has no GRES (write 'none' for a partition without GRES)"
    case "$name" in *[!A-Za-z0-9._-]*) die "bad GPU name '$name' (letters, digits, . _ -)" ;; esac
    types+=("$name $gres ${extra:-}")
  done < "$gpus_file"
  [ "${#types[@]}" -gt 0 ] || die "no GPU types in $gpus_file"
fi
command -v sbatch >/dev/null 2>&1 || die "sbatch not found (not a Slurm login node?)" 1
[ ! -e "$manifest" ] || die "$stage already holds a submission ($manifest); set DIVBENCH_STAGE to a new folder"

# --- submit -----------------------------------------------------------------------------------------
ids=()
list_tasks() {  # JOB KIND NAME... : one manifest line per task, task numbers from 1
  local job="$1" kind="$2" n=0 name; shift 2
  for name in "$@"; do n=$((n + 1)); printf '%s\t%s\t%s\t%s\n' "$job" "$n" "$kind" "$name"; done >> "$manifest"
}

if [ -n "${archs+set}" ]; then
  if [ -z "$divbench" ]; then
    # run.sh's own preparation: CUDA 12 prefix, divbench built in BUILD (default build-study).
    mapfile -t prep < <(DIVBENCH_STUDY_PREPARE_ONLY=1 bash "$src/scripts/study/run.sh")
    [ "${#prep[@]}" -eq 2 ] || die "scripts/study/run.sh could not prepare divbench and the CUDA 12 prefix" 1
    divbench="${prep[0]}" prefix="${prep[1]}"
  elif [ "$own_prefix" = 0 ]; then
    prefix=$(bash "$src/scripts/study/setup-cu12.sh") || die "scripts/study/setup-cu12.sh failed" 1
  fi
  [ -x "$divbench" ] || die "divbench not executable: $divbench"
  divbench="$(cd "$(dirname "$divbench")" && pwd)/$(basename "$divbench")"
  pre=(--divbench "$divbench")
  [ "$own_prefix" = 1 ] || pre+=(--cu12-prefix "$prefix")
  mkdir -p "$stage/logs"
  # shellcheck disable=SC2086  # DIVBENCH_SBATCH_ARGS is a list of words on purpose
  id=$(sbatch --parsable --job-name=divbench-study --array="1-${#archs[@]}" ${DIVBENCH_SBATCH_ARGS:-} \
         --output="$stage/logs/%x-%A_%a.out" \
         --export="ALL,DIVBENCH_SRC=$src,DIVBENCH_STAGE=$stage,DIVBENCH_STUDY_ARCHS=${archs[*]}" \
         "$here/study-array.sbatch" "${pre[@]}" "${rest[@]}") || die "sbatch refused the study array" 1
  id="${id%%;*}"
  list_tasks "$id" study "${archs[@]}"
  echo "submitted the static study (${archs[*]}): job array $id" >&2
  ids+=("$id")
else
  mkdir -p "$stage/logs"
  for t in "${types[@]}"; do
    read -r name gres extra <<< "$t"
    gres_arg=(--gres="$gres")
    [ "$gres" != none ] || gres_arg=()
    # shellcheck disable=SC2086  # extra sbatch arguments are words on purpose
    id=$(sbatch --parsable --job-name="divbench-$name" "${gres_arg[@]}" --array="1-$repeats" ${extra:-} \
           --output="$stage/logs/%x-%A_%a.out" \
           --export="ALL,DIVBENCH_SRC=$src,DIVBENCH_GPU=$name,DIVBENCH_STAGE=$stage" \
           "$here/divbench-array.sbatch") \
      || die "sbatch refused $name; already submitted: ${ids[*]:-none} (scancel them, or gather.sh $stage after they end)" 1
    id="${id%%;*}"
    folders=("$name")
    for ((r = 2; r <= repeats; r++)); do folders+=("$name-r$r"); done
    list_tasks "$id" gpu "${folders[@]}"
    echo "submitted $name ($gres): job array $id" >&2
    ids+=("$id")
  done
fi

deps=$(IFS=:; echo "${ids[*]}")
gid=$(sbatch --parsable --job-name=divbench-gather --dependency="afterany:$deps" --ntasks=1 --time=00:10:00 \
        --output="$stage/logs/gather-%j.out" --export=ALL --wrap="bash '$here/gather.sh' '$stage'")
gid="${gid%%;*}"
echo "gather job $gid runs after $deps: results into ${DIVBENCH_RESULTS:-$src/results}/" >&2
printf '%s\n' "${ids[@]}" "$gid"
