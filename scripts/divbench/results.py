"""The one reader of divbench's dynamic results (schema divbench.result/1, written by src/core/result.cpp)
and of the paper's reference numbers (divbench.reference/1). docs/schemas.md describes both.

  results/<gpu>/*.json                       dynamic results, one folder per GPU
  results/reference/paper-2607.23402.json    the paper's printed numbers
Every file is validated when it is read: the schema name, the types of the keys the scripts use
(`device.name` a string, `config` an object, `points` a list of objects, ...) and, where a value is read,
that it is a finite number. Every problem raises InputError with one line that names the file."""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from divbench.jsonio import InputError, load_json

RESULT_SCHEMA = "divbench.result/1"
RATIO_METRIC = "smsp__thread_inst_executed_per_inst_executed.ratio"
REFERENCE_SCHEMA = "divbench.reference/1"
# Folders under results/ that do not hold one GPU's dynamic results.
NOT_GPU_DIRS = {"reference", "static", "figures", "predicted"}
DEFAULT_BODY = "fma_chain"
DEFAULT_MAP = "modulo"
def point_coords(point: dict, experiment: str) -> dict:
    """A point's coordinates on its experiment's declared axes: `axes` as the harness writes it on every
    point ({"k": 7, "placement": 1}; docs/schemas.md "Axes"). InputError for a point without them: a file
    written before divbench recorded axes (every committed result has them; the converter of such files,
    convert_axes.py, is in git history at 09e07b9)."""
    axes = point.get("axes")
    if isinstance(axes, dict):
        return axes
    raise InputError(f"a point of {experiment} has no axes (a file written before divbench recorded them: "
                     "run the experiment again, or convert it with scripts/divbench/convert_axes.py of commit 09e07b9)")


def coords_label(coords: dict) -> str:
    """A point's name from its coordinates, keys in sorted order (the same for a file's `axes` and for the
    older files' keys): "k=4 placement=2"."""
    return " ".join(f"{k}={coords[k]:g}" if isinstance(coords[k], float) else f"{k}={coords[k]}"
                    for k in sorted(coords))


def point_label(point: dict, experiment: str) -> str:
    """A point's name within its result, e.g. "k=4" or "arms=2 n=1000 placement=0 variant=branchy"."""
    return coords_label(point_coords(point, experiment))


def number(value, what: str, path: Path, positive: bool = False, nonnegative: bool = False) -> float:
    """A finite number (bool is not one); InputError naming `what` otherwise."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise InputError(f"{path}: {what} is {value!r}, expected a finite number")
    if positive and value <= 0:
        raise InputError(f"{path}: {what} is {value!r}, expected a positive number")
    if nonnegative and value < 0:
        raise InputError(f"{path}: {what} is {value!r}, expected a number >= 0")
    return float(value)


def family_of_cc(cc: str) -> str:
    """Architecture family of a compute capability string ("9.0" -> "Hopper")."""
    try:
        major, minor = (int(x) for x in cc.split(".")[:2])
    except ValueError:
        return "unknown"
    families = {6: "Pascal", 7: "Turing" if minor >= 5 else "Volta", 8: "Ada" if minor == 9 else "Ampere",
                9: "Hopper", 10: "Blackwell", 11: "Blackwell", 12: "Blackwell"}
    return families.get(major, "unknown")


@dataclass
class Result:
    """One divbench.result/1 file, validated by check_result()."""
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
    def fit(self) -> dict:
        return self.data.get("fit") or {}

    @property
    def points(self) -> list:
        return self.data.get("points") or []


def _typed(data: dict, key: str, kind, path: Path, name: str, optional: bool = True):
    if key not in data or (optional and data[key] is None):
        if optional:
            return
        raise InputError(f"{path}: missing key '{key}'")
    if not isinstance(data[key], kind) or isinstance(data[key], bool):
        raise InputError(f"{path}: '{key}' is {type(data[key]).__name__} {_short(data[key])}, expected {name}")


def _short(v) -> str:
    s = repr(v)
    return s if len(s) <= 40 else s[:37] + "..."


def check_result(path: Path, data: dict) -> Result:
    schema = data.get("schema")
    if schema != RESULT_SCHEMA:
        raise InputError(f"{path}: schema is {schema!r}, expected {RESULT_SCHEMA!r}")
    for key in ("experiment", "device", "points"):
        if key not in data:
            raise InputError(f"{path}: missing key '{key}'")
    _typed(data, "experiment", str, path, "a string", optional=False)
    _typed(data, "device", dict, path, "an object", optional=False)
    _typed(data, "points", list, path, "a list", optional=False)
    for key in ("config", "summary", "fit", "timing"):
        _typed(data, key, dict, path, "an object")
    dev = data["device"]
    for key in ("name", "cc"):
        if key not in dev:
            raise InputError(f"{path}: 'device' needs 'name' and 'cc'")
        if not isinstance(dev[key], str) or not dev[key].strip():
            raise InputError(f"{path}: device.{key} is {_short(dev[key])}, expected a non-empty string")
    if not re.fullmatch(r"[0-9]{1,3}\.[0-9]{1,3}", dev["cc"]):
        raise InputError(f"{path}: device.cc is {_short(dev['cc'])}, expected a compute capability like \"9.0\"")
    for i, p in enumerate(data["points"]):
        if not isinstance(p, dict):
            raise InputError(f"{path}: points[{i}] is {type(p).__name__}, expected an object")
    return Result(path, data)


def load_result(path: Path | str) -> Result:
    p = Path(path)
    return check_result(p, load_json(p))


def point_metric(point: dict, path: Path, name: str = RATIO_METRIC) -> float | None:
    """A counter value of a point: metrics {"values": {name: v}} (CUPTI) or a flat {name: v}; None when the
    point has none. A value that is there but not a finite number is an InputError."""
    m = point.get("metrics")
    if not isinstance(m, dict) or m.get("available") is False:
        return None
    values = m.get("values", m)
    v = values.get(name) if isinstance(values, dict) else None
    return None if v is None else number(v, f"metrics {name}", path)


def point_region_ratio(point: dict, path: Path) -> float | None:
    """The region-only efficiency (zero-work twin subtracted), where the point has one."""
    m = point.get("metrics")
    reg = m.get("region") if isinstance(m, dict) else None
    v = reg.get("ratio") if isinstance(reg, dict) else None
    return None if v is None else number(v, "metrics.region.ratio", path)


def point_samples(point: dict, path: Path, where: str) -> list[int] | None:
    """The raw per-sample cycles of a timed point: "samples": {"cycles": [int, ...], "smid": [int, ...]}, one
    entry per timed sample (launch-major, warm-up excluded); None when the run recorded none (--no-samples,
    or a result from before samples existed). Malformed samples are an InputError."""
    if "samples" not in point or point["samples"] is None:
        return None
    smp = point["samples"]
    if not isinstance(smp, dict) or not isinstance(smp.get("cycles"), list):
        raise InputError(f"{path}: {where}.samples must be an object with a 'cycles' list")
    cycles = smp["cycles"]
    if not cycles:
        raise InputError(f"{path}: {where}.samples.cycles is empty")
    for j, v in enumerate(cycles):
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise InputError(f"{path}: {where}.samples.cycles[{j}] is {_short(v)}, expected an integer >= 0")
    smid = smp.get("smid")
    if smid is not None:
        if not isinstance(smid, list) or len(smid) != len(cycles):
            raise InputError(f"{path}: {where}.samples.smid must be a list as long as cycles ({len(cycles)})")
        if any(isinstance(v, bool) or not isinstance(v, int) or v < 0 for v in smid):
            raise InputError(f"{path}: {where}.samples.smid holds a value that is not an integer >= 0")
    return cycles


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

    def find(self, experiment: str, body: str | None = None, map_: str | None = None,
             with_metrics: bool = False) -> Result | None:
        """The result of `experiment`; for k-way sweeps the one with the given work body and lane map.

        A folder may hold several (results/h200 has the 32-point sweep, the 6-point body sweep and the
        6-point --metrics sweep): with_metrics keeps those whose points carry counter values; then the
        one with the most points wins, then the newest. Equal on all three is an error."""
        hits = [r for r in self.results if r.experiment == experiment]
        if body is not None:
            hits = [r for r in hits if r.config.get("body", DEFAULT_BODY) == body]
        if map_ is not None:
            hits = [r for r in hits if r.config.get("map", DEFAULT_MAP) == map_]
        if with_metrics:
            hits = [r for r in hits if any(point_metric(p, r.path) is not None for p in r.points)]
        if len(hits) > 1:
            rank = lambda r: (len(r.points), str(r.data.get("created", "")))  # noqa: E731
            hits.sort(key=rank, reverse=True)
            if rank(hits[0]) == rank(hits[1]):
                names = ", ".join(str(r.path) for r in hits)
                raise InputError(f"{self.key}: {len(hits)} '{experiment}' results ({names}) tie; give one")
        return hits[0] if hits else None


def _json_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.glob("*.json") if p.is_file())


def gpu_dirs(results_dir: Path) -> list[Path]:
    """results/<gpu>/ folders that hold dynamic results (everything but reference/static/figures/predicted)."""
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
            g = gpus[gkey] = Gpu(key=key, name=r.device["name"], cc=r.device["cc"])
        g.results.append(r)
    # Two devices in one folder keep apart with the device name in the key.
    out = list(gpus.values())
    keys = [g.key for g in out]
    for g in out:
        if keys.count(g.key) > 1:
            g.key = f"{g.key}:{g.name}"
    return out


# The parts of the reference file the scripts read: dotted path -> type.
REFERENCE_SHAPE = {
    "gpus": dict, "dynamic": dict, "static": dict,
    "dynamic.slope_cycles_per_path.values": dict, "dynamic.constant_cycles.values": dict,
    "dynamic.ratio_32_over_1.range": list, "dynamic.efficiency.k": list, "dynamic.efficiency.values": list,
    "dynamic.predication.values": dict, "dynamic.occupancy_penalty.values": dict,
    "static.figure4.deferred_after_ipdom": dict, "static.table2.columns": list, "static.table2.rows": list,
}


def load_reference(path: Path | str) -> dict:
    p = Path(path)
    ref = load_json(p)
    if ref.get("schema") != REFERENCE_SCHEMA:
        raise InputError(f"{p}: schema is {ref.get('schema')!r}, expected {REFERENCE_SCHEMA!r}")
    for dotted, kind in REFERENCE_SHAPE.items():
        node = ref
        for part in dotted.split("."):
            if not isinstance(node, dict) or part not in node:
                raise InputError(f"{p}: missing key '{dotted}'")
            node = node[part]
        if not isinstance(node, kind):
            raise InputError(f"{p}: '{dotted}' is {type(node).__name__}, expected {kind.__name__}")
    for key, info in ref["gpus"].items():
        if not isinstance(info, dict) or not isinstance(info.get("family"), str) or not isinstance(info.get("arch"), str):
            raise InputError(f"{p}: gpus.{key} needs 'family' and 'arch' strings")
        if not re.fullmatch(r"sm_[0-9]{2,3}[a-z]?", info["arch"]):
            raise InputError(f"{p}: gpus.{key}.arch is {_short(info['arch'])}, expected an architecture like \"sm_90\"")
    for where in ("slope_cycles_per_path", "constant_cycles"):
        for key, v in ref["dynamic"][where]["values"].items():
            if v is not None:
                number(v, f"dynamic.{where}.values.{key}", p, positive=True)
    return ref
