"""The shapes' ground truth against a recorded run under another binary or memory probe.

    python3 -m divbench.shapes_reanalyse DIVBENCH FOLDER [--memory MEMORY.json] --out OUT.json

FOLDER holds what scripts/gpu/50-attribute.sh records for the shapes (shapes_random/, shapes_sorted/,
shapes_time.json). Each order's counts and PC samples are analysed again (`divbench attribute
--from-counts`, with `--memory` when given) and the truth/estimate rows of attribute_validation are
written: how results/h200/earlier-8418717/reanalysed_*.json were made (results/h200/README.md).
"""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from divbench import attribute_validation as av
from divbench.cli import ArgumentParser, tool_main
from divbench.jsonio import InputError, check_output, write_json

SCHEMA = "divbench.shapes_reanalysed/1"
KEYS = ("shape", "held_out_set", "truth_cycles", "estimated_cycles", "rel_err", "ok")


def reanalyse(divbench: str, folder: Path, memory: str | None, prefix: str = "shapes_",
              call_path: str | None = None) -> list[dict]:
    """The rows of attribute_validation.shapes_checks for the recording in `folder`: its orders in
    `<prefix>random/` and `<prefix>sorted/` (tests/data/attribute/shapes has them without the prefix),
    `memory` given to --memory when set ("none": the control without the memory rule), `call_path` to
    --call-path (the same for "none": calls priced as branches, the rule before). RuntimeError
    naming the command when divbench fails."""
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        shutil.copy(folder / "shapes_time.json", t / "shapes_time.json")
        for order in ("random", "sorted"):
            cmd = [divbench, "attribute", "--quiet", "--from-counts", str(folder / f"{prefix}{order}"),
                   "--out", str(t / f"shapes_{order}.json")] + (["--memory", memory] if memory else []) + (
                       ["--call-path", call_path] if call_path else [])
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
            if r.returncode != 0:
                raise RuntimeError(f"{' '.join(cmd)} failed (exit {r.returncode}): {r.stderr.strip()}")
        return [{k: row.get(k) for k in KEYS} for row in av.shapes_checks(t)]


@tool_main("shapes_reanalyse")
def main(argv: list[str] | None = None) -> int:
    p = ArgumentParser(prog="shapes_reanalyse", description=__doc__.splitlines()[0])
    p.add_argument("divbench")
    p.add_argument("folder", type=Path)
    p.add_argument("--memory", help="a --sweep memory result (attribute --memory)")
    p.add_argument("--label", help="what the binary is, for the document (default: its path)")
    p.add_argument("--out", required=True, type=Path)
    a = p.parse_args(argv)
    if not a.folder.is_dir():
        raise InputError(f"{a.folder}: not a folder (a stage 50 attribute folder with shapes_<order>/ recordings)")
    check_output(a.out, [f for f in a.folder.rglob("*") if f.is_file()] + ([a.memory] if a.memory else []))
    try:
        rows = reanalyse(a.divbench, a.folder, a.memory)
    except RuntimeError as e:
        raise InputError(str(e)) from None
    write_json(a.out, {"schema": SCHEMA, "binary": a.label or a.divbench, "recording": str(a.folder), "memory": a.memory,
                       "shapes": rows}, indent=1)
    for r in rows:
        print(f"{r['shape']:24s} {str(r['held_out_set'] or ''):2s} {100 * r['rel_err']:+6.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
