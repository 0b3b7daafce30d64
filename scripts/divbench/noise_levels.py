"""Derive the noise criterion (data/noise_criterion.json) from quiet-GPU results.

  python3 -m divbench.noise_levels QUIET.json... [--out data/noise_criterion.json] [--factor 4]
                                   [--floor-cycles 64] [--large-median 1000000]

For every class of point (sampling mode x body kind: "warp-per-sm/compute", "single/memory", "grid/compute",
...) the quiet level is what the given results show: abs_cycles, the largest max - min over the points
whose median is below --large-median cycles (there the spread is a fixed jitter in cycles), and rel, the
largest (max - min) / median over the points at or above it (there it grows with the region). A point is
disturbed when its spread exceeds factor * max(abs_cycles, rel * median, floor_cycles)
(divbench.quality). The policy (factor, floor, the fit floors, which bodies touch memory) is given here and
written into the file beside the levels, with the files the levels came from. docs/timing.md gives the
evidence and the false-alarm rate measured on quiet sweeps that were not used here."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from divbench import quality as q
from divbench import results as dr
from divbench.cli import ArgumentParser, guarded, tool_main
from divbench.jsonio import InputError, check_output, write_json
from divbench.paths import rel, repo_root

# The bodies whose loads touch memory (tests/cpu check these against the C++ body_touches_memory()) and the
# memory probe's kernel (--sweep memory, config.body "memory_lanes").
MEMORY_BODIES = ["mem_divergent", "memory_lanes"]
FIT_FLOORS = {"c_min": 0.0, "r2_min": {"compute": 0.999999, "memory": 0.999}}


def levels(files: list[Path], large: float, commit: str | None = None) -> dict:
    crit = q.Criterion(factor=1, floor_cycles=0, classes={}, memory_bodies=frozenset(MEMORY_BODIES),
                       c_min=0, r2_min={})
    out: dict[str, dict] = {}
    for f in files:
        r = dr.load_result(f) if commit is None else from_commit(commit, f)
        for i, p in enumerate(r.points):
            if "median_cycles" not in p:
                continue
            samples = dr.point_samples(p, r.path, f"points[{i}]")
            lo = min(samples) if samples else dr.number(p["min_cycles"], f"points[{i}].min_cycles", r.path)
            hi = max(samples) if samples else dr.number(p["max_cycles"], f"points[{i}].max_cycles", r.path)
            med = dr.number(p["median_cycles"], f"points[{i}].median_cycles", r.path, positive=True)
            cls = q.point_class(p, r.config, crit)
            lv = out.setdefault(cls, {"abs_cycles": 0.0, "rel": 0.0, "points": 0, "from": []})
            lv["points"] += 1
            if rel(f) not in lv["from"]:
                lv["from"].append(rel(f))
            if med < large:
                lv["abs_cycles"] = max(lv["abs_cycles"], float(hi - lo))
            else:
                lv["rel"] = max(lv["rel"], float(hi - lo) / med)
    return dict(sorted(out.items()))


def from_commit(commit: str, f: Path) -> dr.Result:
    """The result file `f` (a path in the repository) as committed at `commit` (git show)."""
    path = rel(f)
    p = subprocess.run(["git", "-C", str(repo_root()), "show", f"{commit}:{path}"], capture_output=True)
    if p.returncode != 0:
        raise InputError(f"{path}: not in commit {commit} ({p.stderr.decode(errors='replace').strip()})")
    try:
        data = json.loads(p.stdout)
    except ValueError as e:
        raise InputError(f"{path} at {commit}: not valid JSON ({e})") from None
    return dr.check_result(Path(path), data)


def run(args) -> int:
    check_output(args.out, args.files)  # never one of its inputs
    doc = {
        "schema": q.CRITERION_SCHEMA,
        "what": "quiet-GPU noise levels per class of point and the policy that turns them into a verdict "
                "(python3 -m divbench.noise_levels; docs/timing.md)",
        "made_by": "python3 -m divbench.noise_levels " + (f"--from-commit {args.from_commit} " if args.from_commit else "")
                   + " ".join(rel(f) for f in args.files),
        "factor": args.factor,
        "floor_cycles": args.floor_cycles,
        "large_median_cycles": args.large_median,
        "memory_bodies": MEMORY_BODIES,
        "fit": FIT_FLOORS,
        "classes": levels(args.files, args.large_median, args.from_commit),
    }
    write_json(args.out, doc)
    print(f"wrote {args.out}: {len(doc['classes'])} classes")
    return 0


@tool_main("noise_levels")
def main(argv=None) -> int:
    ap = ArgumentParser(prog="noise_levels", description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+", type=Path, metavar="QUIET.json")
    ap.add_argument("--out", type=Path, default=q.criterion_path())
    ap.add_argument("--factor", type=float, default=4.0)
    ap.add_argument("--floor-cycles", type=float, default=64.0)
    ap.add_argument("--large-median", type=float, default=1e6)
    ap.add_argument("--from-commit", metavar="SHA",
                    help="read the files as committed at SHA (git show), not from the working tree")
    return guarded("noise_levels", run, ap.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
