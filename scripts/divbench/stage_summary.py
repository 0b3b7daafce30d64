"""One-line summaries of the GPU stages' results for $RESULTS/summary.txt (scripts/gpu/NN-*.sh).

  PYTHONPATH=scripts python3 -m divbench.stage_summary kway FILE T0 T1
  PYTHONPATH=scripts python3 -m divbench.stage_summary dynamic DIR T0 T1     (DIR: the GPU's results folder)
  PYTHONPATH=scripts python3 -m divbench.stage_summary bitflip T0 T1 FILE...
  PYTHONPATH=scripts python3 -m divbench.stage_summary attribute VALIDATION    (attribute_validation's --out)
T0/T1 are the stage's start and end (seconds since the epoch). Results are read with the package's one
reader (results.load_result, jsonio.load_json). A stage file that is missing or malformed is reported on
its own line (the other summaries still print): a stage summary never stops the GPU run."""
from __future__ import annotations

import json
import os
import re
import sys

from divbench.cli import ArgumentParser, tool_main
from divbench.jsonio import InputError, load_json
from divbench.results import load_result

BODIES = ["fma_chain", "fma_indep", "int_alu", "sfu", "mem_divergent"]
MAPS = ["contiguous", "permuted", "unbalanced"]


def _spread(s: dict) -> str:
    if "s_layout_spread_rel" not in s:
        return ""
    return (f" s over {s['layout_placements']} placement(s) {s['s_layout_min']:.0f}..{s['s_layout_max']:.0f} "
            f"(spread {100 * s['s_layout_spread_rel']:.2f}%)")


def kway(path: str, t0: float, t1: float, stage: str = "kway") -> list[str]:
    r = load_result(path)
    s, f, t = r.summary, r.fit, r.data["timing"]
    gpu = t.get("points_gpu_ms")
    return [f"{stage}: {r.device['name']} s={s.get('s_cycles_per_path', f['s']):.0f} c={f['c']:.0f} r2={f['r2']:.7f} "
            f"ratio32/1={s['ratio_32_over_1']:.3f} max_cv={s['max_cv']:.2e}{_spread(s)} throttled={s['any_throttled']} "
            f"sampling={r.config.get('sampling')} process wall={t1 - t0:.2f}s region={t['points_region_ms'] / 1e3:.3f}s"
            + (f" gpu={gpu / 1e3:.3f}s launches={t.get('timed_launches')}" if gpu is not None else "")]


def accuracy(folder: str, t0: float, t1: float, t2: float) -> list[str]:
    out: list[str] = []
    cost = _load(folder, "cost.json", out)
    if cost:
        s = cost.summary
        def num(v, fmt: str) -> str:
            return "n/a" if v is None else format(v, fmt)

        out.append(f"cost: {s['body']} a={num(s['a_cycles_per_iter'], '.3f')} [{num(s['a_cycles_per_iter_min'], '.3f')}, "
                   f"{num(s['a_cycles_per_iter_max'], '.3f')}] b={num(s['b_cycles_per_path'], '.1f')} "
                   f"[{num(s['b_cycles_per_path_min'], '.1f')}, {num(s['b_cycles_per_path_max'], '.1f')}] "
                   f"c={num(s['c_cycles'], '.0f')} r2={num(s['r2'], '.9f')} process wall={t1 - t0:.1f}s")
        for b in s.get("bodies", []):
            pred, err = b.get("a_predicted"), b.get("a_rel_err")
            err_s = "n/a" if err is None else f"{100 * err:+.2f}%"
            line = (f"  cost {b['body']:13s} a={num(b['a'], '9.3f')} [{num(b['a_min'], '.3f')}, {num(b['a_max'], '.3f')}] "
                    f"b={num(b['b'], '8.1f')} [{num(b['b_min'], '.1f')}, {num(b['b_max'], '.1f')}] c={num(b['c'], '8.0f')} "
                    f"r2={num(b['r2'], '.9f')} a_predicted={num(pred, '.2f')} a_rel_err={err_s}")
            if b.get("b_loop_cycles_per_path") is not None:
                line += (f" b_loop={b['b_loop_cycles_per_path']:.1f} [{b['b_loop_cycles_per_path_min']:.1f}, "
                         f"{b['b_loop_cycles_per_path_max']:.1f}] b_divergence={b['b_divergence_cycles_per_path']:.1f} "
                         f"[{b['b_divergence_cycles_per_path_min']:.1f}, {b['b_divergence_cycles_per_path_max']:.1f}]")
            if b.get("b_param_reads_cycles_per_path") is not None:
                line += (f" = b_param_reads {b['b_param_reads_cycles_per_path']:.1f} "
                         f"[{b['b_param_reads_cycles_per_path_min']:.1f}, {b['b_param_reads_cycles_per_path_max']:.1f}]"
                         f" + b_branch {b['b_branch_cycles_per_path']:.1f} "
                         f"[{b['b_branch_cycles_per_path_min']:.1f}, {b['b_branch_cycles_per_path_max']:.1f}]")
            if b.get("linear_in_n") is False:
                line += f" not linear in n ({b.get('not_linear', '')}): a, b, c not published"
            out.append(line)
    lc_path = os.path.join(folder, "loop_cost_fit.json")
    if os.path.exists(lc_path):
        lc = json.loads(open(lc_path, encoding="utf-8").read())
        if "validation" in lc:  # written by 15-accuracy (kernels fit --validation)
            band = lc.get("placement_band_cycles") or {}
            out.append(f"loop_cost: B={lc.get('taken_branch_cycles')} W={lc.get('variable_latency_cycles')} "
                       f"band=[-{band.get('below')}, +{band.get('above')}] out of sample: {lc.get('oos_points')} loops, "
                       f"median |err|={lc.get('oos_median_abs_err')} max |err|={lc.get('oos_max_abs_err')} "
                       f"within 3%={lc.get('oos_within_3pct')} in interval={lc.get('oos_in_interval')}")
    sampling = _load(folder, "sampling.json", out)
    if sampling:
        s = sampling.summary
        out.append(f"sampling: max |rel diff| compute={s.get('max_rel_diff_compute')} memory={s.get('max_rel_diff_memory')} "
                   f"max |s rel diff| compute={s.get('max_s_rel_diff_compute')} process wall={t2 - t1:.1f}s")
        for body, v in s.get("by_body", {}).items():
            offsets = v.get("c_offset_cycles") or []
            out.append(f"  sampling {body:13s} max |rel diff|={v['max_abs_rel_diff']:.2e} equal={v['modes_equal']} "
                       f"max |s rel diff|={v.get('max_abs_s_rel_diff', float('nan')):.2e} slopes equal={v.get('slopes_equal')} "
                       f"c offset {min(offsets, default=0):.0f}..{max(offsets, default=0):.0f} cycles "
                       f"default={v['default_sampling']}")
    return out


def _load(folder: str, name: str, out: list[str]):
    try:
        return load_result(os.path.join(folder, name))
    except InputError as e:
        out.append(f"dynamic: {name}: missing or unreadable ({e})")
        return None


def _all_wall(folder: str, t0: float, t1: float) -> list[str]:
    log = os.path.join(folder, "all", "stderr.log")
    err = open(log, encoding="utf-8", errors="replace").read() if os.path.exists(log) else ""
    m = re.search(r"total wall ([0-9.]+) s, summed in-kernel region time ([0-9.]+) s", err)
    if not m:
        return []
    wall, region = float(m.group(1)), float(m.group(2))
    return [f"dynamic --all: process wall {t1 - t0:.1f}s, benchmark wall {wall:.1f}s, region {region:.1f}s, "
            f"wall/region {wall / region if region else 0:.2f} (goal: --all <= 10 s)"]


def _range(s: dict, key: str) -> str:
    if key not in s:
        return "n/a"
    return f"{s[key]:.4f} [{s.get(key + '_min', s[key]):.4f}, {s.get(key + '_max', s[key]):.4f}]"


def _predication(s: dict) -> list[str]:
    out = [f"predication: branchy/single={_range(s, 'ratio_branchy_over_single')} (paper 2.00) "
           f"predicated/single={_range(s, 'ratio_predicated_over_single')} (paper 1.00) "
           f"differs beyond placement spread={s.get('predicated_differs_from_single_beyond_placement_spread')} "
           f"loop shapes equal={s.get('loop_shapes_equal')} throttled={s.get('any_throttled')}"]
    for v in s.get("variants", []):
        sass = v.get("sass", {})
        cpi = v.get("cycles_per_instruction", {})
        out.append(f"  predication {v.get('variant', '?'):10s} arms={v.get('arms', 0):2d} "
                   f"cycles/iter={v.get('cycles_per_iter', {}).get('median', 0):.2f} "
                   f"instructions/iter={sass.get('instructions_per_iteration', 'n/a')} "
                   f"stall sum={sass.get('stall_sum', 'n/a')} cycles/instruction={cpi.get('median', 0):.3f}")
    return out


def _occupancy(s: dict) -> list[str]:
    if "series" not in s:  # the old shape (device-wide and per-SM pairs)
        return [f"  occupancy {p['series']:7s} target={p['target']:5d} region={p['region_penalty']:.2f} "
                f"kernel={p['kernel_penalty']:.2f}" for p in s.get("pairs", [])]
    bounded = (f"bounded (fixed cost as the intercept, <= 32; {len(s.get('series', [])) - s.get('shapes_empty_kernel_exceeds_fixed_cost', 0)} "
               f"informative shapes) {s['penalty_bounded_min']:.2f}..{s['penalty_bounded_max']:.2f}, "
               if s.get("penalty_bounded_min") is not None else "")
    out = [f"occupancy: penalty {bounded}corrected by the empty-kernel launch overhead "
           f"{s.get('penalty_min', 0):.2f}..{s.get('penalty_max', 0):.2f} "
           f"(paper 28-31), launch overhead {s.get('launch_overhead_ms', 0) * 1e3:.1f} us"]
    return out + [f"  occupancy {p['series']:14s} warps/SM={p['warps_per_sm']:3d} waves={p['waves']} "
                  f"penalty={p['penalty']:.2f} raw={p['kernel_penalty_raw']:.2f} region={p['region_penalty']:.2f} "
                  f"steady={p['steady_state']}" for p in s.get("series", [])]


def _lock(s: dict) -> list[str]:
    return [f"lock: completed={s.get('completed')} lanes_served={s.get('lanes_served')}/32 "
            f"cap_reached={s.get('cap_reached')} classic form completed={s.get('classic_form_completed')} "
            f"served={s.get('classic_form_lanes_served')}"]


def _peer_wait(s: dict) -> list[str]:
    return [f"peer_wait: completed={s.get('completed')} cap_reached={s.get('cap_reached')} "
            f"rounds={s.get('rounds')} max spins one wait={s.get('max_spins_one_wait')}"]


def _producer_consumer(s: dict) -> list[str]:
    out = [f"producer_consumer: {s['conclusion']['sentence']}"] if "conclusion" in s else []
    return out + [f"  producer_consumer {o.get('variant', 'producer_minority')} producer_in_then={o['producer_in_then']} "
                  f"producer_first(SASS)={o['producer_first']} W={o['work']:>8} "
                  f"max_consumer_spins={o['max_consumer_spins']} completed={o['completed']} "
                  f"producer_entered_first={o['producer_entered_first']}" for o in s.get("orders", [])]


def _order(s: dict) -> list[str]:
    return [f"order: rule={s.get('rule')} points={s.get('points')} layout_verified={s.get('layout_verified')} "
            f"consistent across launches={s.get('first_consistent_across_launches')} "
            f"cycles_between {s.get('cycles_between_min')}..{s.get('cycles_between_max')} "
            f"cap_reached={s.get('cap_reached')}"] + [f"  order {form}: {rule}" for form, rule in
                                                      s.get("rule_by_form", {}).items()] + \
        ([f"  order ties: {s['ties'].get('verdict')}: {s['ties'].get('sentence')}"] if isinstance(s.get("ties"), dict)
         else [])


PROBES = [("predication.json", _predication), ("occupancy.json", _occupancy), ("lock.json", _lock),
          ("peer_wait.json", _peer_wait), ("producer_consumer.json", _producer_consumer), ("order.json", _order)]


def dynamic(folder: str, t0: float, t1: float) -> list[str]:
    out = _all_wall(folder, t0, t1)
    for name, lines in PROBES:
        d = _load(folder, name, out)
        if d:
            out += lines(d.summary)
    for name in BODIES + MAPS:
        d = _load(folder, f"kway_{name}.json", out)
        if not d:
            continue
        s, f = d.summary, d.fit
        # cost per serialized iteration: does cost follow the summed path lengths (unbalanced map)?
        per_iter = [p["median_cycles"] / p["serialized_iters"] for p in d.points if p.get("serialized_iters")]
        spread = (max(per_iter) / min(per_iter) - 1) if per_iter else 0
        out.append(f"kway_{name}: s={s.get('s_cycles_per_path', f.get('s', 0)):.0f} c={f.get('c', 0):.0f} "
                   f"r2={f.get('r2', 0):.6f} ratio={[v for k, v in s.items() if k.startswith('ratio_')][:1]} "
                   f"cycles/serialized-iter {min(per_iter) if per_iter else 0:.1f}..{max(per_iter) if per_iter else 0:.1f} "
                   f"(spread {100 * spread:.1f}%){_spread(s)} throttled={s.get('any_throttled')}")
    return out


def bitflip(t0: float, t1: float, paths: list[str]) -> list[str]:
    out = []
    for path in paths:
        d = load_json(path)
        s, c = d["summary"], d["config"]
        flips = [v for v in d["variants"] if v["kind"] != "control"]
        ratios = [v["comparison"]["cycles_ratio"] for v in flips if v["comparison"]["completed"]]
        statuses = sorted({v["run"]["status"] for v in flips})
        rng = f"{min(ratios):.3f}..{max(ratios):.3f}" if ratios else "n/a"
        out.append(f"bitflip: sm_{d['cubin']['sm']} {d['device']['name']} threads={c['threads']} "
                   f"control_ok={s['positive_control_ok']} ({s['positive_controls_changed_output']}/"
                   f"{s['positive_controls']} stores) flips={s['flips']} completed={s['flips_completed']} "
                   f"equal={s['flips_output_and_exchange_equal']} status={','.join(statuses)} cycles_ratio={rng} "
                   f"base_cycles={s['baseline_cycles_median']:.0f} verified={s['verified']}/{s['variants']} "
                   f"wall={t1 - t0:.1f}s")
    return out


def attribute(path: str) -> list[str]:
    v = load_json(path)["summary"]
    return [f"attribute: max_cycles_lost_rel_err {v['max_cycles_lost_rel_err']:.4f}, max_ncu_rel_diff "
            f"{v['max_ncu_rel_diff']:.2e}, overhead_ratio {v['overhead_ratio']:.1f} (one kernel "
            f"{v['overhead_ratio_one_kernel']:.1f}), lanes {v['lanes_ok']}, predication {v['predication_ok']}"]


@tool_main("stage_summary")
def main(argv=None) -> int:
    ap = ArgumentParser(prog="stage_summary", description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="stage", required=True)
    k = sub.add_parser("kway")
    k.add_argument("file")
    kd = sub.add_parser("kway_default")
    kd.add_argument("file")
    acc = sub.add_parser("accuracy")
    acc.add_argument("folder")
    for t in ("t0", "t1", "t2"):
        acc.add_argument(t, type=float)
    dy = sub.add_parser("dynamic")
    dy.add_argument("folder")
    for p in (k, kd, dy):
        p.add_argument("t0", type=float)
        p.add_argument("t1", type=float)
    b = sub.add_parser("bitflip")
    b.add_argument("t0", type=float)
    b.add_argument("t1", type=float)
    b.add_argument("files", nargs="+")
    at = sub.add_parser("attribute")
    at.add_argument("file")
    a = ap.parse_args(argv)
    try:
        if a.stage in ("kway", "kway_default"):
            lines = kway(a.file, a.t0, a.t1, a.stage)
        elif a.stage == "accuracy":
            lines = accuracy(a.folder, a.t0, a.t1, a.t2)
        elif a.stage == "dynamic":
            lines = dynamic(a.folder, a.t0, a.t1)
        elif a.stage == "attribute":
            lines = attribute(a.file)
        else:
            lines = bitflip(a.t0, a.t1, a.files)
    except (InputError, KeyError, TypeError, ValueError) as e:
        lines = [f"{a.stage}: summary failed: {e.__class__.__name__}: {e}"]
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
