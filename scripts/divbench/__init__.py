"""divbench's Python tools: the scripts' package (stdlib only, except where a module says otherwise).

Layout: this folder is the package `divbench`; its parent, scripts/, is the import root. Run a tool as
  python3 scripts/compare.py ...            (launcher: Python puts scripts/ first on sys.path itself)
  python3 scripts/figures.py ...            (launcher)
  PYTHONPATH=scripts python3 -m divbench.study ...      (the static study; scripts/study/run.sh does this)
  PYTHONPATH=scripts python3 -m divbench.merge_kway_metrics ...   (scripts/gpu/30-metrics.sh)
  PYTHONPATH=scripts python3 -m divbench.schemas [FILE ...]        (validate outputs; docs/schemas.md)
  PYTHONPATH=scripts python3 -m divbench.metrics_cost write ...    (scripts/gpu/30-metrics.sh)
  PYTHONPATH=scripts python3 -m divbench.study.shards archs|compare (scripts/slurm/: the study per architecture)
pytest finds the package through `pythonpath = scripts` in pytest.ini. Nothing edits sys.path.

One of each concept (docs/schemas.md names the formats):
  jsonio      reading JSON with one-line errors; the one atomic writer (temp, fsync, rename, fsync dir)
  results     the one reader of divbench.result/1 files (validated: schema, types, finite numbers)
  predicted   the one reader of divbench.predicted/1 files (slopes predicted from SASS, results/predicted/)
  schemas     the one validator of every output format against its JSON Schema (schemas/; jsonschema)
  provenance  the one reader of a file's provenance (result, sass, bitflip and merged-metrics files)
  cli         argument parsing and the error convention: `PROG: error: ...`, one line, exit 2
  pathargs    path arguments checked before any work: an existing folder, an executable, a creatable folder
  paths       the repository root
The tools: compare (cross-GPU table), gate + gate_report + stats (compare gate / --gate, numpy, scipy),
figures + figure_kway + figure_occupancy + figure_placement + table2 with figure_draw + figure_inputs + series
(matplotlib), study/ (the static study; study/shards: its Slurm array tasks), merge_kway_metrics (CUPTI vs
ncu), metrics_cost (what counters cost), stage_summary (the GPU
stages' summary lines).
"""
