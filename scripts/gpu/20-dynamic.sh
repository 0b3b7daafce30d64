#!/usr/bin/env bash
# Stage: the dynamic suite (issue 4). Runs on the GPU machine with the contract of run_on_gpu.sh
# (DIVBENCH, BIN, RESULTS). Writes under $RESULTS/h200/:
#   predication.json occupancy.json lock.json peer_wait.json producer_consumer.json  (from --all)
#   all/                    the whole `divbench --all` output (its wall and region time in summary)
#   kway_<body>.json        k = 1,2,4,8,16,32 for every work body
#   kway_<map>.json         the same for the contiguous, permuted and unbalanced lane maps
#   kernel_facts.json       this binary's kernel facts (docs/sass.md), made at build time
#   sanitizer_<tool>.log    compute-sanitizer memcheck/racecheck/synccheck over every kernel
# (the GPU GoogleTest suite, tests/gpu/test_dynamic_kernels.cpp included, runs in 05-tests.sh)
# and appends one-line summaries to $RESULTS/summary.txt. Every spin in every kernel is capped
# (<= 2 s per launch), so no step needs a host-side timeout; `timeout` below is only a backstop.
set -uo pipefail
cd "$(dirname "$0")/../.."
H="$RESULTS/h200"
mkdir -p "$H/all"
STAGE=dynamic
source scripts/gpu/lib.sh

# 1. The SASS facts of this very binary (probe arm layout, loops, clock bracketing), written next to
# divbench at build time (`divbench kernels facts`, carried by prepare.sh): what --probe
# producer-consumer reads to name the orders. The CPU self-check (tests/sass) already checked them.
if [ -f "$BIN/kernel_facts.json" ]; then
  cp "$BIN/kernel_facts.json" "$H/kernel_facts.json"
  note "dynamic sass: kernel_facts.json of this binary copied"
else
  note "dynamic sass: no kernel_facts.json next to $DIVBENCH (built without nvdisasm): probe layouts unknown"
fi

# 2. The whole reproduction in one command: its wall time is part of the result.
t0=$(date +%s.%N)
step all timeout 300 "$DIVBENCH" --all --out "$H/all/" 2>"$H/all/stderr.log"
t1=$(date +%s.%N)
for f in predication occupancy lock peer_wait producer_consumer; do
  [ -f "$H/all/$f.json" ] && cp "$H/all/$f.json" "$H/$f.json"
done

# 3. One k sweep per work body and per lane map (6 values of k, 201 launches each).
KS=1,2,4,8,16,32
for b in fma_chain fma_indep int_alu sfu mem_divergent; do
  iters=10000
  [ "$b" = mem_divergent ] && iters=1000   # ~0.5 us of dependent loads per iteration
  step "kway_$b" timeout 300 "$DIVBENCH" --sweep k --body "$b" --k "$KS" --iters "$iters" --quiet \
    --out "$H/kway_$b.json"
done
for m in contiguous permuted unbalanced; do
  step "kway_$m" timeout 300 "$DIVBENCH" --sweep k --map "$m" --k "$KS" --quiet --out "$H/kway_$m.json"
done

# 4. One-line summaries (compute-sanitizer runs in its own stage, 60-sanitizer.sh).
python3 - "$H" "$t0" "$t1" >>"$RESULTS/summary.txt" <<'PY'
import json, os, re, sys
h, t0, t1 = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
def load(name):
    try:
        return json.load(open(os.path.join(h, name)))
    except Exception as e:
        print(f"dynamic: {name}: missing or unreadable ({e.__class__.__name__})")
        return None
err = open(os.path.join(h, "all", "stderr.log")).read() if os.path.exists(os.path.join(h, "all", "stderr.log")) else ""
m = re.search(r"total wall ([0-9.]+) s, summed in-kernel region time ([0-9.]+) s", err)
if m:
    wall, region = float(m.group(1)), float(m.group(2))
    print(f"dynamic --all: process wall {t1 - t0:.1f}s, benchmark wall {wall:.1f}s, region {region:.1f}s, "
          f"wall/region {wall / region if region else 0:.2f} (goal <= 60 s, <= 2x)")
d = load("predication.json")
if d:
    s = d["summary"]
    print(f"predication: branchy/single={s.get('ratio_branchy_over_single', 0):.4f} (paper 2.00) "
          f"predicated/single={s.get('ratio_predicated_over_single', 0):.4f} (paper 1.00) "
          f"by arms={ {k: round(v, 3) for k, v in s.get('predicated_over_single_by_arms', {}).items()} } "
          f"throttled={s.get('any_throttled')}")
d = load("occupancy.json")
if d:
    s = d["summary"]
    print(f"occupancy: region penalty {s.get('penalty_min', 0):.2f}..{s.get('penalty_max', 0):.2f} (paper 28-31), "
          f"kernel penalty {s.get('kernel_penalty_min', 0):.2f}..{s.get('kernel_penalty_max', 0):.2f}")
    for p in s.get("pairs", []):
        print(f"  occupancy {p['series']:7s} target={p['target']:5d} warps={p['total_warps']:5d} "
              f"sms={p['sms_used']:3d} occ={p['achieved_occupancy']:.3f} region={p['region_penalty']:.2f} "
              f"kernel={p['kernel_penalty']:.2f}")
d = load("lock.json")
if d:
    s = d["summary"]
    print(f"lock: completed={s.get('completed')} lanes_served={s.get('lanes_served')}/32 cap_reached={s.get('cap_reached')} "
          f"classic form completed={s.get('classic_form_completed')} served={s.get('classic_form_lanes_served')}")
d = load("peer_wait.json")
if d:
    s = d["summary"]
    print(f"peer_wait: completed={s.get('completed')} cap_reached={s.get('cap_reached')} rounds={s.get('rounds')} "
          f"max spins one wait={s.get('max_spins_one_wait')}")
d = load("producer_consumer.json")
if d:
    for o in d["summary"].get("orders", []):
        print(f"producer_consumer: producer_in_then={o['producer_in_then']} producer_first(SASS)={o['producer_first']} "
              f"W={o['work']:>8} max_consumer_spins={o['max_consumer_spins']} completed={o['completed']} "
              f"producer_entered_first={o['producer_entered_first']}")
for name in ["fma_chain", "fma_indep", "int_alu", "sfu", "mem_divergent", "contiguous", "permuted", "unbalanced"]:
    d = load(f"kway_{name}.json")
    if not d:
        continue
    s, f = d["summary"], d.get("fit", {})
    pts = d.get("points", [])
    # cost per serialized iteration: does cost follow the summed path lengths (unbalanced map)?
    per_iter = [p["median_cycles"] / p["serialized_iters"] for p in pts if p.get("serialized_iters")]
    spread = (max(per_iter) / min(per_iter) - 1) if per_iter else 0
    print(f"kway_{name}: s={f.get('s', 0):.0f} c={f.get('c', 0):.0f} r2={f.get('r2', 0):.6f} "
          f"ratio={[v for k, v in s.items() if k.startswith('ratio_')][:1]} "
          f"cycles/serialized-iter {min(per_iter) if per_iter else 0:.1f}..{max(per_iter) if per_iter else 0:.1f} "
          f"(spread {100 * spread:.1f}%) throttled={s.get('any_throttled')}")
PY
exit $fail
