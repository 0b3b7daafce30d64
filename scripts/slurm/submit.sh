#!/usr/bin/env bash
# Submit divbench on every GPU type of a cluster, then a gather job once all have ended.
#   usage: scripts/slurm/submit.sh GPUS_FILE [REPEATS]
# GPUS_FILE: one GPU type per line, "NAME GRES [extra sbatch arguments...]" (see gpus.example.txt).
# Slurm fixes resources per array, not per task, so each GPU type is its own job array (task N =
# repetition N, default 1 task); gather.sh runs after all of them (afterany) and fills results/<NAME>/.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
src="$(cd "$here/../.." && pwd)"
gpus_file="${1:?usage: submit.sh GPUS_FILE [REPEATS]}"
repeats="${2:-1}"
[ -r "$gpus_file" ] || { echo "submit.sh: cannot read $gpus_file" >&2; exit 2; }
case "$repeats" in ''|*[!0-9]*|0) echo "submit.sh: REPEATS must be a positive integer" >&2; exit 2 ;; esac
command -v sbatch >/dev/null 2>&1 || { echo "submit.sh: sbatch not found (not a Slurm login node?)" >&2; exit 1; }

stage="${DIVBENCH_STAGE:-$src/results-slurm}"
mkdir -p "$stage"
ids=()
while read -r name gres extra; do
  case "$name" in ''|'#'*) continue ;; esac
  [ -n "${gres:-}" ] || { echo "submit.sh: line for '$name' has no GRES" >&2; exit 2; }
  # shellcheck disable=SC2086  # extra sbatch arguments are words on purpose
  id=$(sbatch --parsable --job-name="divbench-$name" --gres="$gres" --array="1-$repeats" ${extra:-} \
         --export="ALL,DIVBENCH_SRC=$src,DIVBENCH_GPU=$name,DIVBENCH_STAGE=$stage" \
         "$here/divbench-array.sbatch")
  echo "submitted $name ($gres): job array $id" >&2
  ids+=("${id%%;*}")
done < "$gpus_file"
[ "${#ids[@]}" -gt 0 ] || { echo "submit.sh: no GPU types in $gpus_file" >&2; exit 2; }

deps=$(IFS=:; echo "${ids[*]}")
gid=$(sbatch --parsable --job-name=divbench-gather --dependency="afterany:$deps" --ntasks=1 --time=00:10:00 \
        --output="$stage/gather-%j.out" --wrap="bash '$here/gather.sh' '$stage'")
echo "gather job $gid runs after $deps: results into $src/results/<gpu>/" >&2
