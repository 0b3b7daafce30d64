#!/usr/bin/env bash
# Collect the tasks' output (STAGE/<gpu>/, STAGE/<gpu>-rN/) into results/<gpu>/ and regenerate the
# figures and the comparison table. Refuses to overwrite a results/<gpu>/ that already holds files
# unless FORCE=1.
#   usage: scripts/slurm/gather.sh [STAGE]      (default: results-slurm/ in the checkout)
#   env: DIVBENCH_RESULTS (default: results/ in the checkout), FORCE=1
set -euo pipefail
src="$(cd "$(dirname "$0")/../.." && pwd)"
stage="${1:-$src/results-slurm}"
results="${DIVBENCH_RESULTS:-$src/results}"
[ -d "$stage" ] || { echo "gather.sh: no stage folder $stage" >&2; exit 2; }
n=0
for dir in "$stage"/*/; do
  gpu="$(basename "$dir")"
  if ! compgen -G "$dir*.json" >/dev/null; then
    echo "gather.sh: $gpu produced no JSON (see its divbench-*.out log)" >&2
    continue
  fi
  dest="$results/$gpu"
  if [ -d "$dest" ] && [ -n "$(ls -A "$dest")" ] && [ "${FORCE:-0}" != "1" ]; then
    echo "gather.sh: $dest already holds results; FORCE=1 to replace" >&2
    continue
  fi
  mkdir -p "$dest"
  cp "$dir"*.json "$dest/"
  echo "gather.sh: $gpu -> $dest/" >&2
  n=$((n + 1))
done
[ "$n" -gt 0 ] || { echo "gather.sh: nothing gathered" >&2; exit 1; }
python3 "$src/scripts/figures.py" --results "$results"
python3 "$src/scripts/compare.py" "$results" --reference "$results/reference/paper-2607.23402.json" \
        --markdown --out "$results/figures/compare.md"
cat "$results/figures/compare.md"
