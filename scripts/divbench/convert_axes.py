"""Adds the declared axes to divbench.result/1 files written before the harness recorded them: `axes` on every
point (its coordinates, read from the keys the point kept them under: results.legacy_point_axes) and
`config.axes` (each axis's name, type, unit and option, with the values the points hold, in the order
they first appear). The file records that it was converted (top-level `converted_by`). Nothing else
changes: no measured value, no key removed, the same layout as divbench writes (objects one key a line,
arrays of numbers on one line), so a converted file's diff is the added keys alone.

  PYTHONPATH=scripts python3 -m divbench.convert_axes results/h200 [FILE|DIR ...] [--check]

--check converts nothing and exits 1 when a file still lacks axes. Deterministic: converting a converted
file changes nothing."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from divbench.jsonio import InputError, load_json, write_atomic
from divbench.results import RESULT_SCHEMA, legacy_point_axes

CONVERTER = "scripts/divbench/convert_axes.py"

# Unit and option of each axis as experiments/*/experiment.cpp declares it (the type comes from the values).
# tests/python/test_convert_axes.py holds this table to the harness's own config.axes (the synthetic
# documents of the SchemaDocuments tests, experiments/*/tests/).
AXIS_META = {
    "kway": {"placement": ("placement", "--placements"), "k": ("paths", "--k")},
    "cost": {"body": ("", "--body"), "placement": ("placement", "--placements"), "n": ("iterations per path", "--n"),
             "k": ("paths", "--k"), "region": ("", None)},
    "sampling": {"body": ("", "--body"), "map": ("", "--map"), "k": ("paths", "--k"), "sampling": ("", None)},
    "predication": {"placement": ("placement", "--placements"), "variant": ("", None), "arms": ("arms", "--k"),
                    "n": ("iterations per path", "--n")},
    "occupancy": {"series": ("", None), "warps_per_sm": ("warps per SM", None), "waves": ("waves", None),
                  "k": ("paths", "--k")},
    "calibration": {"k": ("paths", "--k")},
    "loops": {"body": ("", None), "placement": ("placement", "--placements"), "n": ("iterations per path", "--n")},
    "lock": {"form": ("", None)},
    "peer_wait": {"rounds": ("rounds", None)},
    "order": {"form": ("", None), "group_size": ("lanes", "--k"), "group_position": ("", None),
              "group_arm": ("", None)},
    "producer_consumer": {"variant": ("", None), "producer_arm": ("", None), "work": ("iterations", None)},
}


def _type_of(values: list) -> str:
    if all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return "int"
    if all(isinstance(v, str) for v in values):
        return "string"
    return "float"


def convert(doc: dict, where: str) -> bool:
    """Adds axes to `doc` in place; False when it already has them. InputError when a point's coordinates
    cannot be read from its keys."""
    if doc.get("schema") != RESULT_SCHEMA:
        raise InputError(f"{where}: schema is {doc.get('schema')!r}, expected {RESULT_SCHEMA!r}")
    exp = doc.get("experiment")
    points = doc.get("points") or []
    config = doc.get("config")
    if not isinstance(config, dict):
        raise InputError(f"{where}: config is not an object")
    if "axes" in config and all(isinstance(p, dict) and "axes" in p for p in points):
        return False
    meta = AXIS_META.get(exp)
    if meta is None:
        raise InputError(f"{where}: experiment {exp!r} has no declared axes to convert to")
    values: dict[str, list] = {name: [] for name in meta}
    for i, p in enumerate(points):
        coords = legacy_point_axes(exp, p)
        if set(coords) != set(meta):
            raise InputError(f"{where}: points[{i}] gives axes {sorted(coords)}, expected {sorted(meta)}")
        for name, v in coords.items():
            if v not in values[name]:
                values[name].append(v)
        rest = {k: v for k, v in p.items() if k != "samples"}
        rest["axes"] = coords  # where the harness writes it: after the point's own keys, before its samples
        if "samples" in p:
            rest["samples"] = p["samples"]
        p.clear()
        p.update(rest)
    config["axes"] = [{"name": name, "type": _type_of(values[name]), "unit": unit, "option": option,
                       "values": values[name]} for name, (unit, option) in meta.items()]
    note = {"script": CONVERTER,
            "what": "added point.axes and config.axes from the points' existing keys; no measured value changed"}
    items = list(doc.items())
    doc.clear()
    for k, v in items:
        doc[k] = v
        if k == "command":
            doc["converted_by"] = note
    if "converted_by" not in doc:
        doc["converted_by"] = note
    return True


class Number(float):
    """A number read from a file, kept with its text: written back exactly as it was read (older writers
    printed some doubles with 17 digits, e.g. 0.44166299999999997, where Python's repr is 0.441663)."""

    def __new__(cls, text: str):
        n = super().__new__(cls, text)
        n.text = text
        return n


def read_exact(path: Path) -> dict:
    """A result file with every non-integer number kept as a Number (its text unchanged on writing)."""
    load_json(path)  # the package's checks (a JSON object, no NaN/Infinity) and its one-line errors
    return json.loads(path.read_text(), parse_float=Number)


def _scalar(v) -> str:
    if isinstance(v, Number):
        return v.text
    return json.dumps(v, ensure_ascii=False, allow_nan=False)


def json_text(v, depth: int = 0) -> str:
    """The layout of divbench's own writer (src/core/json_io.cpp json_text): objects and arrays that hold
    objects or arrays one element a line, indented by two; arrays of scalars on one line."""
    pad, close = "  " * (depth + 1), "  " * depth
    if isinstance(v, dict) and v:
        return "{\n" + ",\n".join(f"{pad}{json.dumps(k, ensure_ascii=False)}: {json_text(x, depth + 1)}"
                                  for k, x in v.items()) + "\n" + close + "}"
    if isinstance(v, list) and any(isinstance(x, (dict, list)) for x in v):
        return "[\n" + ",\n".join(pad + json_text(x, depth + 1) for x in v) + "\n" + close + "]"
    if isinstance(v, list):
        return "[" + ", ".join(_scalar(x) for x in v) + "]"
    if isinstance(v, (dict, list)):
        return "{}" if isinstance(v, dict) else "[]"
    return _scalar(v)


def result_files(inputs: list[str]) -> list[Path]:
    out = []
    for item in inputs:
        p = Path(item)
        if p.is_dir():
            for f in sorted(p.rglob("*.json")):
                try:
                    doc = json.loads(f.read_text())
                except (OSError, ValueError):
                    continue
                if isinstance(doc, dict) and doc.get("schema") == RESULT_SCHEMA:
                    out.append(f)
        elif p.is_file():
            out.append(p)
        else:
            raise InputError(f"{p}: no such file or directory")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m divbench.convert_axes", description=__doc__.split("\n")[0])
    ap.add_argument("inputs", nargs="+", help="divbench.result/1 files, or folders searched for them")
    ap.add_argument("--check", action="store_true", help="convert nothing; exit 1 if a file lacks axes")
    a = ap.parse_args(argv)
    try:
        missing = 0
        for f in result_files(a.inputs):
            doc = read_exact(f)
            if not convert(doc, str(f)):
                continue
            if a.check:
                print(f"{f}: no axes", file=sys.stderr)
                missing += 1
                continue
            write_atomic(f, json_text(doc) + "\n")
            print(f"converted {f}")
        return 1 if missing else 0
    except InputError as e:
        print(f"convert_axes: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
