#!/usr/bin/env bash
# Collect a Slurm submission's stage into results/: see gather.py (this is its name in submit.sh's
# gather job and in the docs).
#   usage: scripts/slurm/gather.sh [STAGE]      (default: results-slurm/ in the checkout)
#   env: DIVBENCH_RESULTS (default: results/ in the checkout), FORCE=1
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# gather.py imports the package divbench (scripts/divbench/): its import root goes on PYTHONPATH, the
# package's own rule (nothing edits sys.path).
PYTHONPATH="$(dirname "$here")${PYTHONPATH:+:$PYTHONPATH}" exec python3 "$here/gather.py" "$@"
