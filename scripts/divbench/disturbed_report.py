"""What the disturbed-measurement stage (scripts/gpu/25-disturbed.sh) found, from its folder:

  python3 -m divbench.disturbed_report results/<gpu>/disturbed [--out summary.json]

quiet/   the false-alarm rate: how many quiet runs exited 4, how many of their points were re-measured,
         and what divbench.quality says of each file (recomputed from the data)
cases/   per co-tenant case and detection mode (nvml: the normal run; noproc: NVML's process list off,
         the noise criterion alone): divbench's exit code, the reasons it named, the disturbed points,
         the fitted s against the committed quiet one, and the gate's exit code
A case whose co-tenant is idle (`divbench_cotenant --idle`: a context and memory, no launch) is expected
quiet: divbench exits 0 (it notes the idle co-tenant) and the gate says 0; every other case is expected
disturbed. `counts` gives, per mode, the misses (expected disturbed, divbench exit 0) and the false alarms
(expected quiet, exit 4).
Prints one line per case and the quiet totals; --out writes them as JSON. Exit 0 when every case met its
expectation in the normal mode (disturbed: exit 4 and the gate 3; idle: exit 0 and the gate 0) and no
quiet run was judged untrustworthy; 1 otherwise."""
from __future__ import annotations

import sys
from pathlib import Path

from divbench import quality
from divbench import results as dr
from divbench.cli import folder_report
from divbench.jsonio import InputError


def _rc(path: Path) -> int | None:
    try:
        return int(path.read_text().strip().splitlines()[-1].replace("rc=", ""))
    except (OSError, ValueError, IndexError):
        return None


def quiet_summary(folder: Path, crit) -> dict:
    rcs = {}
    rc_file = folder / "rc.txt"
    if rc_file.is_file():
        for line in rc_file.read_text().splitlines():
            name, _, rc = line.partition(" rc=")
            rcs[name] = int(rc) if rc.strip().lstrip("-").isdigit() else None
    files = sorted(folder.glob("*.json")) + sorted(folder.glob("all_*/*.json"))
    judged, remeasured, points, untrusted = 0, 0, 0, []
    for f in files:
        r = dr.load_result(f)
        v = quality.judge(r, crit)
        judged += 1
        points += len(r.points)
        remeasured += sum(1 for p in r.points if isinstance(p.get("attempts"), int) and p["attempts"] > 1)
        if not v.trustworthy:
            untrusted.append(quality.describe(v))
    return {"runs": len(rcs), "exit_codes": rcs, "runs_exit_4": sorted(n for n, rc in rcs.items() if rc == 4),
            "runs_failed": sorted(n for n, rc in rcs.items() if rc not in (0, 4)),
            "result_files": judged, "points": points, "points_remeasured": remeasured,
            "files_untrustworthy_recomputed": untrusted}


def case_summary(folder: Path, name: str, mode: str, s_quiet: float | None) -> dict:
    stem = folder / f"{name}.{mode}"
    out = {"case": name, "mode": mode, "load": (folder / f"{name}.args").read_text().strip()
           if (folder / f"{name}.args").is_file() else None,
           "divbench_rc": _rc(Path(f"{stem}.rc")), "gate_rc": _rc(Path(f"{stem}.gate.txt"))}
    out["expected"] = "quiet" if out["load"] and "--idle" in out["load"].split() else "disturbed"
    res = Path(f"{stem}.json")
    if res.is_file():
        r = dr.load_result(res)
        q = r.data.get("quality") or {}
        out["trustworthy"] = q.get("trustworthy")
        out["notes"] = q.get("notes", [])
        out["disturbed_points"] = q.get("disturbed_points")
        out["points"] = len(r.points)
        out["points_remeasured"] = q.get("points_remeasured")
        out["reason_codes"] = sorted({reason.split(":", 1)[0] for p in r.points for reason in p.get("disturbed_reasons", [])}
                                     | {reason.split(":", 1)[0] for reason in q.get("reasons", [])})
        fit = r.fit
        if "s" in fit:
            out["s"] = fit["s"]
            out["c"] = fit.get("c")
            out["r2"] = fit.get("r2")
            if s_quiet:
                out["s_vs_quiet"] = fit["s"] / s_quiet - 1
        out["max_cv"] = r.summary.get("max_cv")
    return out


def report(folder: Path) -> tuple[dict, bool]:
    if not folder.is_dir():
        raise InputError(f"{folder}: not a folder")
    crit = quality.load_criterion()
    base = Path(__file__).resolve().parents[2] / "results" / "h200" / "kway_default.json"
    s_quiet = dr.load_result(base).fit.get("s") if base.is_file() else None
    cases = sorted(p.name[: -len(".args")] for p in (folder / "cases").glob("*.args")) if (folder / "cases").is_dir() else []
    doc = {"schema": "divbench.disturbed/1", "folder": str(folder), "s_quiet_committed": s_quiet,
           "quiet": quiet_summary(folder / "quiet", crit) if (folder / "quiet").is_dir() else None,
           "cases": [case_summary(folder / "cases", c, m, s_quiet) for c in cases for m in ("nvml", "noproc")]}
    ok = True
    counts = {m: {"cases_disturbed": 0, "cases_quiet": 0, "misses": [], "false_alarms": []} for m in ("nvml", "noproc")}
    for c in doc["cases"]:
        flagged = c["divbench_rc"] == 4
        n = counts[c["mode"]]
        if c["expected"] == "disturbed":
            n["cases_disturbed"] += 1
            if not flagged:
                n["misses"].append(c["case"])
            if c["mode"] == "nvml" and (not flagged or c["gate_rc"] != 3):
                ok = False
        else:
            n["cases_quiet"] += 1
            if flagged:
                n["false_alarms"].append(c["case"])
            if c["mode"] == "nvml" and (c["divbench_rc"] != 0 or c["gate_rc"] != 0):
                ok = False
        s = f"s {c['s']:,.0f} ({100 * c['s_vs_quiet']:+.1f}%)" if c.get("s_vs_quiet") is not None else "s -"
        print(f"disturbed: {c['case']} [{c['mode']}]: divbench rc={c['divbench_rc']} gate rc={c['gate_rc']} "
              f"{c.get('disturbed_points')}/{c.get('points')} points disturbed ({', '.join(c.get('reason_codes', []))}); {s}")
    doc["counts"] = counts
    for m, n in counts.items():
        print(f"disturbed: [{m}] {n['cases_disturbed']} disturbing case(s), {len(n['misses'])} missed "
              f"{n['misses'] or ''}; {n['cases_quiet']} idle case(s), {len(n['false_alarms'])} false alarm(s) "
              f"{n['false_alarms'] or ''}".rstrip())
    q = doc["quiet"]
    if q:
        ok = ok and not q["files_untrustworthy_recomputed"] and not q["runs_exit_4"]
        print(f"disturbed: quiet: {q['runs']} runs, {len(q['runs_exit_4'])} exit 4, {len(q['runs_failed'])} failed; "
              f"{q['result_files']} files, {q['points_remeasured']} of {q['points']} points re-measured, "
              f"{len(q['files_untrustworthy_recomputed'])} judged untrustworthy on recomputation")
    return doc, ok


main = folder_report("disturbed_report", __doc__.splitlines()[0], report)


if __name__ == "__main__":
    sys.exit(main())
