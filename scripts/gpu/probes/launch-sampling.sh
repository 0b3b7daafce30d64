#!/usr/bin/env bash
# Probe (not a stage): `divbench attribute --launches N` against every launch counted (docs/attribute.md
# "Launch sampling"), on the GPU machine with the bundle unpacked; writes
# $OUT/results/<gpu>/probes/launch-sampling/. The rule, fixed before the run (issue 48's goal):
#   on tests/attribute/many_kernels.cu with 120 kernels of about 0.1 ms, three launches each (WORK 2000),
#   attribute --launches 1 (PC sampling on, as a user runs it) takes at most 3x the plain program (median
#   of three runs each) and its kernels' summed cycles lost are within 2% of the full run's; on
#   tests/attribute/programs.cu all (kernels first launched after an earlier range closed, a graph),
#   --launches 1 counts every kernel the full run counts.
#   timing.txt          wall ms of each run (NAME ms rc)
#   many_full.json, many_sampled.json, programs_full.json, programs_sampled.json   the documents
#   verdict.json        python3 -m divbench.launch_sampling over the folder
PROBE=launch-sampling
# shellcheck source=scripts/gpu/probes/lib.sh
source "$(dirname "$0")/lib.sh"
M="$BIN/divbench_attribute_many"
P="$BIN/divbench_attribute_programs"
export PYTHONPATH="$PWD/scripts${PYTHONPATH:+:$PYTHONPATH}"
: >"$D/timing.txt"
{
  echo "== $(date -u +%FT%TZ) $(hostname) $(git rev-parse --short HEAD 2>/dev/null)"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv
} >"$D/run.txt" 2>&1
for i in 1 2 3; do
  timed "plain_$i" "$M" 120 plain 3 2000
  timed "full_$i" "$BIN/divbench" attribute --quiet --out "$D/many_full.json" -- "$M" 120 plain 3 2000
  timed "sampled_$i" "$BIN/divbench" attribute --quiet --launches 1 --out "$D/many_sampled.json" -- "$M" 120 plain 3 2000
done
timed programs_full "$BIN/divbench" attribute --quiet --no-pc-sampling --out "$D/programs_full.json" -- "$P" all
timed programs_sampled "$BIN/divbench" attribute --quiet --no-pc-sampling --launches 1 --out "$D/programs_sampled.json" -- "$P" all
python3 -m divbench.launch_sampling "$D" --out "$D/verdict.json" | tee -a "$D/run.txt"
