"""Comparing a regenerated study folder with the committed one: readable differences, the run's own
provenance (the "run" block: date, commit, timings) ignored, toolkit changes named first."""
from __future__ import annotations

import glob
import json
import os

from divbench.jsonio import load_json

# Keys whose values change on every run and are not part of what is compared.
VOLATILE = "run"


def compare_dirs(expected_dir, actual_dir, names):
    """Readable differences between the committed and the regenerated files (run provenance ignored)."""
    problems = []
    for name in names:
        exp_path, act_path = os.path.join(expected_dir, name), os.path.join(actual_dir, name)
        if not os.path.exists(exp_path):
            problems.append(f"{name}: not in {expected_dir} (new file)")
            continue
        problems += [f"{name}: {p}" for p in diff_docs(load_json(exp_path), load_json(act_path))]
    extra = sorted(set(os.path.basename(p) for p in glob.glob(os.path.join(expected_dir, "*.json"))) - set(names))
    problems += [f"{n}: in {expected_dir} but not regenerated" for n in extra]
    return problems


def diff_docs(exp, act, limit=40):
    out = []
    # Toolkit changes first, named as such: they explain the rest of the differences.
    for key in ("toolkit", "toolkits"):
        if key in exp or key in act:
            for path, a, b in _walk(exp.get(key), act.get(key), key):
                out.append(f"TOOLKIT CHANGED at {path}: {a!r} -> {b!r}")
    for path, a, b in _walk({k: v for k, v in exp.items() if k not in (VOLATILE, "toolkit", "toolkits")},
                            {k: v for k, v in act.items() if k not in (VOLATILE, "toolkit", "toolkits")}, ""):
        out.append(f"{path or '/'}: committed {_short(a)}, regenerated {_short(b)}")
    if len(out) > limit:
        out = out[:limit] + [f"... and {len(out) - limit} more differences"]
    return out


def _short(v):
    s = json.dumps(v, sort_keys=True)
    return s if len(s) <= 120 else s[:117] + "..."


def _walk(a, b, path):
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b), key=str):
            p = f"{path}.{k}" if path else str(k)
            if k not in a:
                yield p, "<absent>", b[k]
            elif k not in b:
                yield p, a[k], "<absent>"
            else:
                yield from _walk(a[k], b[k], p)
    elif isinstance(a, list) and isinstance(b, list):
        # Lists of named records (kernels) compare by name so one change does not cascade.
        if all(isinstance(x, dict) and "name" in x for x in a + b):
            yield from _walk({x["name"]: x for x in a}, {x["name"]: x for x in b}, path)
        elif len(a) != len(b):
            yield path, a, b
        else:
            for i, (x, y) in enumerate(zip(a, b)):
                yield from _walk(x, y, f"{path}[{i}]")
    elif a != b:
        yield path, a, b
