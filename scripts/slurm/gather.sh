#!/usr/bin/env bash
# Collect a Slurm submission's stage into results/: see gather.py (this is its name in submit.sh's
# gather job and in the docs).
#   usage: scripts/slurm/gather.sh [STAGE]      (default: results-slurm/ in the checkout)
#   env: DIVBENCH_RESULTS (default: results/ in the checkout), FORCE=1
set -euo pipefail
exec python3 "$(cd "$(dirname "$0")" && pwd)/gather.py" "$@"
