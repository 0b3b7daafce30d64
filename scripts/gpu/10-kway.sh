#!/usr/bin/env bash
# Stage: the k-way sweep (issue 2): k = 1..32, 201 launches each, FMA chain, modulo map.
set -euo pipefail
mkdir -p "$RESULTS/h200"
t0=$(date +%s.%N)
"$DIVBENCH" --sweep k --k 1-32 --reps 201 --out "$RESULTS/h200/kway.json" --benchmark_out="$RESULTS/h200/kway.gbench.json"
t1=$(date +%s.%N)
python3 - "$RESULTS/h200/kway.json" "$t0" "$t1" >>"$RESULTS/summary.txt" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); wall = float(sys.argv[3]) - float(sys.argv[2])
s = d["summary"]; f = d["fit"]
print(f"kway: {d['device']['name']} s={f['s']:.0f} c={f['c']:.0f} r2={f['r2']:.7f} ratio32/1={s['ratio_32_over_1']:.3f} "
      f"max_cv={s['max_cv']:.2e} throttled={s['any_throttled']} wall={wall:.1f}s region={d['timing']['points_region_ms']/1e3:.1f}s")
PY
