"""Reading divbench's committed JSON for the scripts (figures.py, compare.py).

One place that knows the file layout and the keys of the schemas (docs/schemas.md):
  results/<gpu>/*.json           dynamic results, schema "divbench.result/1" (src/core/result.cpp)
  results/static/figure4.json    reconvergence placement per architecture (the study)
  results/static/table2.json     control-flow ISA features per architecture (the study)
  results/reference/paper-2607.23402.json   the paper's printed numbers ("divbench.reference/1")
Every problem with an input raises InputError with one line that names the file.
"""
from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path

RESULT_SCHEMA = "divbench.result/1"
REFERENCE_SCHEMA = "divbench.reference/1"
RATIO_METRIC = "smsp__thread_inst_executed_per_inst_executed.ratio"
# Folders under results/ that do not hold one GPU's dynamic results.
NOT_GPU_DIRS = {"reference", "static", "figures"}
DEFAULT_BODY = "fma_chain"
DEFAULT_MAP = "modulo"


class InputError(Exception):
    """A bad input file or argument: the message is one line naming the file."""


def repo_root() -> Path:
    return Path(__file__).resolve().parent.parent


def load_json(path: Path | str) -> dict:
    p = Path(path)
    try:
        with open(p, encoding="utf-8") as f:
            data = json.load(f)
    except FileNotFoundError:
        raise InputError(f"{p}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{p}: is a directory, expected a JSON file") from None
    except json.JSONDecodeError as e:
        raise InputError(f"{p}: not valid JSON (line {e.lineno}, column {e.colno}: {e.msg})") from None
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f"{p}: cannot read ({e})") from None
    if not isinstance(data, dict):
        raise InputError(f"{p}: expected a JSON object at the top level")
    return data


def family_of_cc(cc: str) -> str:
    """Architecture family of a compute capability string ("9.0" -> "Hopper")."""
    try:
        major, minor = (int(x) for x in cc.split(".")[:2])
    except ValueError:
        return "unknown"
    if major == 6:
        return "Pascal"
    if major == 7:
        return "Turing" if minor >= 5 else "Volta"
    if major == 8:
        return "Ada" if minor == 9 else "Ampere"
    if major == 9:
        return "Hopper"
    if major in (10, 11, 12):
        return "Blackwell"
    return "unknown"


@dataclass
class Result:
    """One divbench.result/1 file."""
    path: Path
    data: dict

    @property
    def experiment(self) -> str:
        return self.data["experiment"]

    @property
    def device(self) -> dict:
        return self.data["device"]

    @property
    def config(self) -> dict:
        return self.data.get("config") or {}

    @property
    def summary(self) -> dict:
        return self.data.get("summary") or {}

    @property
    def points(self) -> list:
        return self.data.get("points") or []


def check_result(path: Path, data: dict) -> Result:
    schema = data.get("schema")
    if schema != RESULT_SCHEMA:
        raise InputError(f"{path}: schema is {schema!r}, expected {RESULT_SCHEMA!r}")
    for key in ("experiment", "device", "points"):
        if key not in data:
            raise InputError(f"{path}: missing key '{key}'")
    dev = data["device"]
    if not isinstance(dev, dict) or "name" not in dev or "cc" not in dev:
        raise InputError(f"{path}: 'device' needs 'name' and 'cc'")
    if not isinstance(data["points"], list):
        raise InputError(f"{path}: 'points' must be a list")
    return Result(path, data)


def load_result(path: Path | str) -> Result:
    p = Path(path)
    return check_result(p, load_json(p))


@dataclass
class Gpu:
    """The results of one GPU: one folder results/<gpu>/ (or the files given for it)."""
    key: str                       # folder name, e.g. "h200"
    name: str                      # device name, e.g. "NVIDIA H200"
    cc: str
    results: list = field(default_factory=list)

    @property
    def family(self) -> str:
        return family_of_cc(self.cc)

    def find(self, experiment: str, body: str | None = None, map_: str | None = None) -> Result | None:
        """The result of `experiment`; for k-way sweeps the one with the given work body and lane map."""
        hits = [r for r in self.results if r.experiment == experiment]
        if body is not None:
            hits = [r for r in hits if r.config.get("body", DEFAULT_BODY) == body]
        if map_ is not None:
            hits = [r for r in hits if r.config.get("map", DEFAULT_MAP) == map_]
        if len(hits) > 1:
            names = ", ".join(str(r.path) for r in hits)
            raise InputError(f"{self.key}: {len(hits)} '{experiment}' results ({names}); give one")
        return hits[0] if hits else None


def _json_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.glob("*.json") if p.is_file())


def gpu_dirs(results_dir: Path) -> list[Path]:
    """results/<gpu>/ folders that hold dynamic results (everything but reference/static/figures)."""
    if not results_dir.is_dir():
        return []
    return sorted(d for d in results_dir.iterdir() if d.is_dir() and d.name not in NOT_GPU_DIRS)


def load_gpus(inputs: list[Path | str]) -> list[Gpu]:
    """Group result files by GPU. Each input is a results/<gpu>/ folder, a results/ folder holding such
    folders, or one result file (grouped by its folder). Files in a folder that are not divbench.result/1
    (e.g. Google Benchmark's *.gbench.json) are skipped; a file named explicitly must be one."""
    files: list[tuple[Path, bool]] = []
    for item in inputs:
        p = Path(item)
        if p.is_dir():
            subdirs = gpu_dirs(p)
            own = _json_files(p)
            if subdirs and not own:
                for d in subdirs:
                    files += [(f, False) for f in _json_files(d)]
            else:
                files += [(f, False) for f in own]
        elif p.exists():
            files.append((p, True))
        else:
            raise InputError(f"{p}: no such file or directory")
    gpus: dict[tuple[str, str], Gpu] = {}
    for f, explicit in files:
        data = load_json(f)
        if data.get("schema") != RESULT_SCHEMA and not explicit:
            continue
        r = check_result(f, data)
        key = f.resolve().parent.name
        gkey = (key, r.device["name"])
        g = gpus.get(gkey)
        if g is None:
            g = gpus[gkey] = Gpu(key=key, name=r.device["name"], cc=str(r.device["cc"]))
        g.results.append(r)
    # Two devices in one folder keep apart with the device name in the key.
    out = list(gpus.values())
    keys = [g.key for g in out]
    for g in out:
        if keys.count(g.key) > 1:
            g.key = f"{g.key}:{g.name}"
    return out


def load_reference(path: Path | str) -> dict:
    p = Path(path)
    ref = load_json(p)
    if ref.get("schema") != REFERENCE_SCHEMA:
        raise InputError(f"{p}: schema is {ref.get('schema')!r}, expected {REFERENCE_SCHEMA!r}")
    for key in ("gpus", "dynamic", "static"):
        if key not in ref:
            raise InputError(f"{p}: missing key '{key}'")
    return ref


def number(value, what: str, path: Path) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise InputError(f"{path}: {what} is {value!r}, expected a finite number")
    return float(value)


def kway_series(r: Result) -> tuple[list[float], list[float]]:
    """(k, median cycles) of a k-way sweep, sorted by k."""
    pts = []
    for i, p in enumerate(r.points):
        if not isinstance(p, dict) or "k" not in p or "median_cycles" not in p:
            raise InputError(f"{r.path}: points[{i}] needs 'k' and 'median_cycles'")
        pts.append((number(p["k"], f"points[{i}].k", r.path), number(p["median_cycles"], f"points[{i}].median_cycles", r.path)))
    pts.sort()
    return [k for k, _ in pts], [t for _, t in pts]


def point_metric(point: dict, name: str = RATIO_METRIC) -> float | None:
    """A counter value of a point: metrics {"values": {name: v}} (CUPTI) or a flat {name: v}."""
    m = point.get("metrics")
    if not isinstance(m, dict) or m.get("available") is False:
        return None
    values = m.get("values", m)
    v = values.get(name) if isinstance(values, dict) else None
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def point_region_ratio(point: dict) -> float | None:
    """The region-only efficiency (zero-work twin subtracted), where the point has one."""
    m = point.get("metrics")
    if not isinstance(m, dict):
        return None
    reg = m.get("region")
    v = reg.get("ratio") if isinstance(reg, dict) else None
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def efficiency_series(r: Result) -> dict[str, list[tuple[float, float]]]:
    """{"kernel": [(k, ratio)], "region": [(k, ratio)]} from the points' metrics; empty lists if none."""
    out: dict[str, list[tuple[float, float]]] = {"kernel": [], "region": []}
    for p in r.points:
        if not isinstance(p, dict) or "k" not in p:
            continue
        v = point_metric(p)
        if v is not None:
            out["kernel"].append((float(p["k"]), v))
        reg = point_region_ratio(p)
        if reg is not None:
            out["region"].append((float(p["k"]), reg))
    for v in out.values():
        v.sort()
    return out


def fmt_r2(r2: float) -> str:
    """R² readable near 1: 0.9999999999 -> "1-6.6e-11"."""
    return f"1-{1 - r2:.1e}" if 0.999999 < r2 < 1.0 else f"{r2:.6f}"


def env_path(name: str, default: Path) -> Path:
    v = os.environ.get(name)
    return Path(v) if v else default


OCCUPANCY_X_KEYS = ("total_warps", "resident_warps", "warps_resident", "warps", "warps_per_sm")


def _is_penalty(key: str, v) -> bool:
    return (key.startswith("penalty") or key.endswith("_penalty")) and isinstance(v, (int, float)) \
        and not isinstance(v, bool)


def occupancy_series(r: Result) -> tuple[str, dict[str, list[tuple[float, float]]]]:
    """(x key, {series name: [(x, penalty)]}) of an occupancy sweep. Read from summary.pairs
    ([{series, total_warps, region_penalty, kernel_penalty, ...}], one series per residency series and
    penalty kind) when present, else from the points (x: the first of OCCUPANCY_X_KEYS they carry, one
    series per numeric "penalty*"/"*_penalty" key)."""
    pairs = r.summary.get("pairs")
    rows = pairs if isinstance(pairs, list) and pairs else [p for p in r.points if isinstance(p, dict)]
    where = "summary.pairs" if rows is pairs else "points"
    xkey = next((k for k in OCCUPANCY_X_KEYS if rows and all(isinstance(p, dict) and k in p for p in rows)), None)
    if xkey is None:
        raise InputError(f"{r.path}: occupancy {where} need one of {', '.join(OCCUPANCY_X_KEYS)}")
    series: dict[str, list[tuple[float, float]]] = {}
    for p in rows:
        group = f"{p['series']}: " if "series" in p else ""
        for key, v in p.items():
            if _is_penalty(key, v):
                series.setdefault(group + key, []).append((number(p[xkey], f"{where}.{xkey}", r.path), float(v)))
    if not series:
        raise InputError(f"{r.path}: occupancy {where} carry no penalty value")
    for v in series.values():
        v.sort()
    return xkey, series


def arch_sort_key(arch: str) -> tuple:
    digits = "".join(ch for ch in arch if ch.isdigit())
    return (int(digits) if digits else 1 << 30, arch)


def per_arch(data: dict, path: Path) -> dict[str, dict]:
    """The per-architecture objects of a study file: {"architectures": {arch: {...}}}, a list of
    {"arch": ..., ...} under "architectures"/"archs"/"rows", or {arch: {...}} at the top level."""
    body = None
    for key in ("architectures", "archs", "per_arch", "rows"):
        if key in data:
            body = data[key]
            break
    if body is None:
        body = {k: v for k, v in data.items() if k.startswith("sm_") or k.startswith("compute_")}
    if isinstance(body, list):
        out = {}
        for i, row in enumerate(body):
            if not isinstance(row, dict) or "arch" not in row:
                raise InputError(f"{path}: entry {i} needs an 'arch' key")
            out[str(row["arch"])] = {k: v for k, v in row.items() if k != "arch"}
        body = out
    if not isinstance(body, dict) or not body or not all(isinstance(v, dict) for v in body.values()):
        raise InputError(f"{path}: no per-architecture entries found")
    return dict(sorted(body.items(), key=lambda kv: arch_sort_key(kv[0])))


PLACEMENT_CLASSES = ("before", "at", "after", "unguarded")


def placement_counts(entry: dict, arch: str, path: Path) -> dict[str, float]:
    """before/at/after/unguarded counts of one architecture (keys may carry an _ipdom suffix or sit
    under "placement" or "counts")."""
    src = entry.get("placement") or entry.get("counts") or entry
    out = {}
    for cls in PLACEMENT_CLASSES:
        for key in (cls, f"{cls}_ipdom"):
            if key in src:
                out[cls] = number(src[key], f"{arch}.{key}", path)
                break
    if not out:
        raise InputError(f"{path}: {arch} has none of the counts {', '.join(PLACEMENT_CLASSES)}")
    return out
