"""results/reference/paper-2607.23402.json: well-formed, and every printed value traceable to its quote
(and, where the paper's text is at hand, every quote found in it)."""
import json
import re
from pathlib import Path

import pytest

from conftest import REFERENCE, ROOT

REF = json.loads(REFERENCE.read_text())
PAPER_CANDIDATES = [ROOT.parent / "shared" / "reference" / "paper-2607.23402-warp-divergence.md",
                    Path("/work/shared/reference/paper-2607.23402-warp-divergence.md")]


def quoted_entries(node, path=""):
    if isinstance(node, dict):
        if "quote" in node:
            yield path, node
        for k, v in node.items():
            yield from quoted_entries(v, f"{path}.{k}")


def test_schema_and_gpus():
    assert REF["schema"] == "divbench.reference/1"
    assert set(REF["gpus"]) == {"pascal", "ampere", "hopper", "blackwell_sm110", "blackwell_sm120"}
    for g in REF["gpus"].values():
        assert g["model"] is None or isinstance(g["model"], str)
        assert re.fullmatch(r"sm_\d+", g["arch"]) and g["cc"].replace(".", "") == g["arch"][3:]


def test_dynamic_values_match_their_quotes():
    d = REF["dynamic"]
    q = d["slope_cycles_per_path"]["quote"]
    for key, v in d["slope_cycles_per_path"]["values"].items():
        assert f"{v / 1000:.1f} k" in q or f"{v / 1000:.1f}" in q, key
    eff = d["efficiency"]
    printed = ",".join(f"{v:g}" for v in eff["values"])
    assert printed in eff["quote"] and ",".join(map(str, eff["k"])) in eff["quote"]
    lo, hi = d["ratio_32_over_1"]["range"]
    assert f"{lo}–{hi}" in d["ratio_32_over_1"]["quote"]
    plo, phi = d["occupancy_penalty"]["values"]["pascal"]
    assert f"{plo}–{phi}" in d["occupancy_penalty"]["quote"]
    assert "1.94" in d["predication"]["quote"] and "2.00" in d["predication"]["quote"]
    for key, v in d["calibration"]["values"].items():
        assert f"{v}" in d["calibration"]["quote"], key


def test_derived_values_are_marked_and_consistent():
    d = REF["dynamic"]["c_over_s"]
    assert d["derived"] is True and d["how"]
    s = REF["dynamic"]["slope_cycles_per_path"]["values"]
    c = REF["dynamic"]["constant_cycles"]["values"]
    for key, v in d["values"].items():
        if v is None:
            assert c[key] is None
        else:
            assert v == pytest.approx(c[key] / s[key], abs=5e-5)


def test_static_tables():
    t = REF["static"]["table2"]
    assert t["columns"] == ["Ampere", "Hopper", "Blackwell"]
    rows = {r["key"]: r["values"] for r in t["rows"]}
    assert rows["deferred"] == REF["static"]["figure4"]["deferred_after_ipdom"]
    assert rows["ipdom_exact_rate"] == REF["static"]["figure4"]["at_ipdom_rate"]
    assert rows["bra_u"]["Blackwell"] == 23 and rows["max_nesting_depth"] == {"Ampere": 4, "Hopper": 4, "Blackwell": 3}


def test_quotes_are_in_the_paper():
    paper = next((p for p in PAPER_CANDIDATES if p.exists()), None)
    if paper is None:
        pytest.skip("the paper's text (shared/reference) is not beside this checkout")
    text = paper.read_text()
    for path, entry in quoted_entries({k: v for k, v in REF.items() if k != "conventions"}):
        if entry.get("source") == "summary-zh":
            continue
        for part in entry["quote"].split(" ... "):
            assert part.replace("\\\\", "\\") in text, f"{path}: quote not in the paper: {part[:60]}"
