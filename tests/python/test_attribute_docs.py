"""docs/attribute.md's validation and shapes tables and README's attribute summary are what
results/h200/attribute/validation.json renders; README's excerpts of attribute reports are rows of the
committed reports."""
import importlib
import re
from pathlib import Path

import pytest

from divbench import attribute_validation as av
from divbench.docs_unchecked import REPORT_EXCERPT
from divbench.jsonio import load_json

ROOT = Path(__file__).resolve().parents[2]
VALIDATION = ROOT / "results" / "h200" / "attribute" / "validation.json"


def test_doc_tables_are_generated_from_the_validation():
    for name, blocks in (("docs/attribute.md", (av.SUMMARY_BEGIN, av.SHAPES_BEGIN)), ("README.md", (av.README_BEGIN,))):
        doc = (ROOT / name).read_text()
        for begin in blocks:
            assert begin in doc, f"{name} lacks the marker {begin!r}"
        want = av.render_doc(doc, load_json(VALIDATION))
        assert doc == want, (f"{name}'s generated parts differ from results/h200/attribute/validation.json; regenerate "
                             f"them: python3 -m divbench.attribute_validation --update-doc {name} "
                             "results/h200/attribute/validation.json")


def test_render_doc_replaces_only_the_marked_blocks():
    text = f"a\n{av.SHAPES_BEGIN}\nold\n{av.SHAPES_END}\nb\n"
    got = av.render_doc(text, {"shapes": []})
    assert got.startswith("a\n" + av.SHAPES_BEGIN + "\n| shape |") and got.endswith(av.SHAPES_END + "\nb\n")
    assert "old" not in got


def test_shapes_table_shows_a_failed_goal():
    table = av.shapes_table({"shapes": [{"shape": "x", "rel_err": 0.2, "ok": False, "truth_cycles": 1.0,
                                         "estimated_cycles": 1.2, "random_over_sorted": 2.0}]})
    assert "| x | seen | 2.00x | 1 | 1 | +20.0% | - | **no** |" in table
    held = av.shapes_table({"shapes": [{"shape": "y", "held_out": True, "rel_err": 0.05, "ok": True, "truth_cycles": 1.0,
                                        "estimated_cycles": 1.05, "random_over_sorted": 2.0}]})
    assert "| y | held out | 2.00x | 1 | 1 | +5.0% | - | yes |" in held


def _readme_excerpts():
    """README's report excerpts: each table follows a line naming its report `(results/.../X.md)`."""
    text = (ROOT / "README.md").read_text()
    out = []
    for m in re.finditer(REPORT_EXCERPT, text):
        rows = [r for r in m.group(2).splitlines()[2:]]
        out.append((m.group(1), rows))
    return out


def test_readme_report_rows_are_rows_of_the_committed_reports():
    excerpts = _readme_excerpts()
    assert excerpts, "README shows no attribute report excerpt (a table after '(results/....md):')"
    for report, rows in excerpts:
        lines = set((ROOT / report).read_text().splitlines())
        for row in rows:
            assert row in lines, f"README: a row of the excerpt of {report} is not in that file: {row[:120]}"


def test_gate_excerpts_are_the_committed_files():
    """docs/attribute.md quotes the stage's markdown verbatim and its summary lines as results/h200 holds them."""
    doc = (ROOT / "docs" / "attribute.md").read_text()
    md = (ROOT / "results" / "h200" / "attribute" / "diff" / "new.md").read_text().rstrip("\n").splitlines()
    quoted = "\n".join(("> " + line) if line else ">" for line in md)
    assert quoted in doc, "docs/attribute.md's quote of results/h200/attribute/diff/new.md differs from the file"
    summary = set((ROOT / "results" / "h200" / "summary.txt").read_text().splitlines())
    block = doc.split("The stage's lines (results/h200/summary.txt)", 1)[1].split("```\n", 2)[1]
    for line in block.splitlines():
        assert line in summary, f"docs/attribute.md quotes a stage line results/h200/summary.txt lacks: {line}"


@pytest.mark.parametrize("block,result,render", [("fixes table", "fixes.json", "divbench.attribute_fixes.table"),
                                                  ("generated table", "generated.json", "divbench.attribute_generated.table"),
                                                  ("generated features table", "generated.json",
                                                   "divbench.attribute_generated.feature_table")])
def test_result_tables_are_the_rendering_of_the_committed_results(block, result, render):
    """docs/attribute.md's tables of stage 54 and stage 53 are renderings of their committed result files."""
    module, name = render.rsplit(".", 1)
    table = getattr(importlib.import_module(module), name)
    doc = (ROOT / "docs" / "attribute.md").read_text()
    m = re.search(rf"<!-- {block}: [^\n]*-->\n(.*?)\n<!-- end of {block} -->", doc, re.S)
    assert m, f"docs/attribute.md lacks the {block} block"
    want = table(load_json(ROOT / "results" / "h200" / "attribute" / result))
    assert m.group(1) == want, f"docs/attribute.md's {block} differs from results/h200/attribute/{result}; regenerate it"
