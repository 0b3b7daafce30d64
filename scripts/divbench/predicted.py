"""The one reader of predicted slopes (divbench.predicted/1, results/predicted/sm_XX.json: written by
`divbench kernels predict`, docs/sass.md "Kernel facts"; schemas/divbench.predicted.schema.json): per architecture the
loop-cost model's a (cycles per iteration), b (per path) and s = a*n + b at the file's n, per work body.
What the model could not predict is null there, with a *_status saying why; it reads as "not predicted",
never as a number. A missing folder or file is simply no prediction.

Two layouts are read: bodies[] = [{body, a, b, s, a_status, s_status, ...}] (what divbench writes), and a
file without bodies[] whose top-level a/b/s predict its default_body (fma_chain when it names none)."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from divbench.jsonio import InputError, load_json
from divbench.results import DEFAULT_BODY, family_of_cc, number

SCHEMA = "divbench.predicted/1"
DEFAULT_N = 10000


@dataclass
class BodyPrediction:
    body: str
    a: float | None
    b: float | None
    s: float | None
    why: str = ""          # the file's own status of s (or a) where it is not a number


@dataclass
class Prediction:
    path: Path
    arch: str              # "sm_80"
    n: int                 # iterations per path the slopes are for
    bodies: dict = field(default_factory=dict)   # body -> BodyPrediction
    constants: str = ""    # where the model's constants come from, in a few words

    @property
    def sm(self) -> int:
        return int(self.arch.split("_")[1])

    @property
    def cc(self) -> str:
        return f"{self.sm // 10}.{self.sm % 10}"

    @property
    def family(self) -> str:
        return family_of_cc(self.cc)

    def for_body(self, body: str) -> BodyPrediction:
        return self.bodies.get(body) or BodyPrediction(body, None, None, None, f"no prediction for body {body}")


def _maybe(v, what: str, path: Path) -> float | None:
    return None if v is None else number(v, what, path, positive=True)


def _body(entry: dict, where: str, path: Path) -> BodyPrediction:
    a = _maybe(entry.get("a"), f"{where}.a", path)
    b = _maybe(entry.get("b"), f"{where}.b", path)
    s = _maybe(entry.get("s"), f"{where}.s", path)
    why = ""
    if s is None:
        why = str(entry.get("s_status") or entry.get("a_status") or "not predicted")
    return BodyPrediction(str(entry.get("body", DEFAULT_BODY)), a, b, s, why)


def _constants(doc: dict) -> str:
    model = doc.get("model") if isinstance(doc.get("model"), dict) else {}
    consts = doc.get("constants") if isinstance(doc.get("constants"), dict) else {}
    for text in (model.get("constants_here"), doc.get("source"), consts.get("source"), model.get("constants_source")):
        if isinstance(text, str) and text:
            return text
    return ""


def load_prediction(path: Path | str) -> Prediction:
    p = Path(path)
    doc = load_json(p)
    if doc.get("schema") != SCHEMA:
        raise InputError(f"{p}: schema is {doc.get('schema')!r}, expected {SCHEMA!r}")
    arch = doc.get("arch")
    if not isinstance(arch, str) or not arch.startswith("sm_") or not arch[3:].isdigit():
        raise InputError(f"{p}: arch is {arch!r}, expected sm_NN")
    n = doc.get("n", DEFAULT_N)
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise InputError(f"{p}: n is {n!r}, expected a positive integer")
    pred = Prediction(p, arch, n, constants=_constants(doc))
    bodies = doc.get("bodies")
    if bodies is None:
        entry = {k: doc.get(k) for k in ("a", "b", "s", "s_status", "a_status")}
        entry["body"] = doc.get("default_body") or DEFAULT_BODY
        bodies = [entry]
    if not isinstance(bodies, list) or not all(isinstance(e, dict) for e in bodies):
        raise InputError(f"{p}: bodies must be a list of objects")
    for i, e in enumerate(bodies):
        bp = _body(e, f"bodies[{i}]", p)
        pred.bodies[bp.body] = bp
    return pred


def load_predictions(folders: list[Path]) -> dict[str, Prediction]:
    """arch -> Prediction from every divbench.predicted/1 file in the folders (missing folders: none). Two
    files for one architecture are an error."""
    out: dict[str, Prediction] = {}
    for folder in folders:
        if not Path(folder).is_dir():
            continue
        for f in sorted(Path(folder).glob("*.json")):
            pred = load_prediction(f)
            if pred.arch in out and out[pred.arch].path.resolve() != f.resolve():
                raise InputError(f"{f}: a second prediction for {pred.arch} (also {out[pred.arch].path})")
            out[pred.arch] = pred
    return dict(sorted(out.items(), key=lambda kv: kv[1].sm))


def model_uncertainty(result_paths) -> tuple[float, float, Path] | None:
    """(placement band above, cycles per iteration; the model's out-of-sample error beyond its interval,
    relative; the file) from the first loop_cost.json beside one of the given result files; None without."""
    for p in result_paths:
        f = Path(p).parent / "loop_cost.json"
        if f.is_file():
            lc = json.loads(f.read_text())
            return (float((lc.get("placement_band_cycles") or {}).get("above") or 0.0),
                    float(lc.get("oos_max_outside_interval_rel") or 0.0), f)
    return None


def ratio_interval(s: float, s_base: float, n: float, band: float, err: float) -> tuple[float, float]:
    """The interval of a predicted ratio s / s_base: each s in [s(1 - err), (s + band*n)(1 + err)] (n
    iterations per path; 1 where s is per iteration), the ratio's ends from the ends."""
    lo, hi = s * (1 - err), (s + band * n) * (1 + err)
    blo, bhi = s_base * (1 - err), (s_base + band * n) * (1 + err)
    return lo / bhi, hi / blo

