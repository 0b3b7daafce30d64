"""The gate's three outputs (gate.py decides, this writes): the console table with notes, warnings and one
line per significant change; the markdown report; the new run's medians as github-action-benchmark
customSmallerIsBetter JSON (a list of {name, unit, value, extra})."""
from __future__ import annotations

import json
from typing import TYPE_CHECKING

from divbench.jsonio import InputError
from divbench.provenance import read_provenance

if TYPE_CHECKING:  # annotations only (gate.py imports this module)
    from divbench.gate import Verdict
    from divbench.results import Result


def _pct(x: float) -> str:
    return f"{100 * x:+.2f}%"


def _p(v: Verdict) -> str:
    return "–" if v.p_holm is None else f"{v.p_holm:.2g}"


def _result_line(v: Verdict) -> str:
    return "SIGNIFICANT" if v.significant else "ok"


def change_line(v: Verdict) -> str:
    how = {"exact": "both constant", "mann-whitney": f"Mann-Whitney p={_p(v)} (Holm)",
           "separation": "B's launches all beyond A's", "insufficient": "no samples, no verdict"}[v.method]
    return (f"{v.label}: {v.direction} by {abs(100 * v.change):.2f}% (median {v.median_a:,.1f} -> "
            f"{v.median_b:,.1f} cycles; {how}; threshold {100 * v.threshold:.2f}% from {v.threshold_from})")


def console(a, b, verdicts, notes, args) -> str:
    """The console form: table, notes, warnings, changes, verdict."""
    rows = [("point", "A median", "B median", "change", "test", "p (Holm)", "threshold", "verdict")]
    rows += [(v.label, f"{v.median_a:,.1f}", f"{v.median_b:,.1f}", _pct(v.change), v.method, _p(v),
              f"{100 * v.threshold:.2f}%", _result_line(v)) for v in verdicts]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = [f"gate: {a.experiment}: A {a.path} vs B {b.path}"]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    lines += [f"note: {n}" for n in notes]
    lines += [f"warning: {v.label}: {n}" for v in verdicts for n in v.notes]
    sig = [v for v in verdicts if v.significant]
    lines += [f"change: {change_line(v)}" for v in sig]
    lines.append(verdict_line(verdicts, args))
    return "\n".join(lines) + "\n"


def verdict_line(verdicts, args) -> str:
    sig = [v for v in verdicts if v.significant]
    short = [v for v in verdicts if v.method == "insufficient"]
    if not sig and short:
        return (f"gate: not comparable: {len(short)} of {len(verdicts)} points lack raw samples (insufficient); "
                "no significant change at the others")
    if not sig:
        return (f"gate: no significant change at {len(verdicts)} points (threshold {100 * args.threshold:g}%, "
                f"alpha {args.alpha:g})")
    return f"gate: {len(sig)} significant change(s) at {len(verdicts)} points"


def _source(r: Result) -> str:
    prov = read_provenance(r.data)
    bits = [x for x in (prov.device, prov.created, prov.git and prov.git[:12]) if x]
    return f"`{r.path}`" + (f" ({', '.join(bits)})" if bits else "")


def markdown(a, b, verdicts, notes, args) -> str:
    sig = [v for v in verdicts if v.significant]
    title = f"{len(sig)} significant change(s)" if sig else "no significant change"
    out = [f"# divbench gate: {a.experiment}: {title}", "",
           f"- A (baseline): {_source(a)}", f"- B (new): {_source(b)}",
           f"- threshold: {100 * args.threshold:g}% of the median (raised to the baseline's placement spread where "
           f"it carries one); alpha {args.alpha:g}, Holm-corrected over the Mann-Whitney tests",
           "- tests (launches as the independent unit): exact when both sample sets are constant, Mann-Whitney U "
           "from 8 units a side, separation below that, insufficient without raw samples (docs/compare.md)", ""]
    out += [f"> note: {n}" for n in notes] + ([""] if notes else [])
    if sig:
        out += ["## Significant changes", ""] + [f"- {change_line(v)}" for v in sig] + [""]
    out += ["## Points", "", "| point | A median | B median | change | test | p (Holm) | threshold | verdict |",
            "|---|---:|---:|---:|---|---:|---:|---|"]
    out += [f"| {v.label} | {v.median_a:,.1f} | {v.median_b:,.1f} | {_pct(v.change)} | {v.method} | {_p(v)} | "
            f"{100 * v.threshold:.2f}% | {'**significant**' if v.significant else 'ok'} |" for v in verdicts]
    warnings = [f"- {v.label}: {n}" for v in verdicts for n in v.notes]
    if warnings:
        out += ["", "## Warnings", ""] + warnings
    return "\n".join(out) + "\n"


def benchmark_json(b: Result, verdicts) -> str:
    """github-action-benchmark's customSmallerIsBetter: a list of {name, unit, value} (+ extra)."""
    entries = [{"name": f"{b.experiment} {v.label}", "unit": "cycles", "value": v.median_b,
                "extra": f"baseline {v.median_a:g}; change {_pct(v.change)}; {v.method}"} for v in verdicts]
    try:  # NaN or Infinity is no JSON: github-action-benchmark would choke on the file
        return json.dumps(entries, indent=2, allow_nan=False) + "\n"
    except ValueError:
        raise InputError(f"{b.path}: a median or baseline that is not a finite number cannot go into "
                         "the benchmark JSON") from None


