#!/usr/bin/env bash
# The test command (README): install dependencies, configure the CI preset (every architecture),
# build, run every test. GPU-labelled tests skip with a message where no GPU is present.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/cuda/bin:$PATH"
bash scripts/setup-deps.sh
cmake --preset ci
cmake --build --preset ci
ctest --preset ci
