"""Every number README.md, docs/*.md and results/*/README.md quote from a committed result file agrees
with that file (scripts/divbench/docs_numbers.py holds the table of sentences, files and keys), and a
wrong number fails naming the sentence, the file, the key and both values."""
import json

import pytest

from divbench import docs_numbers as dn
from divbench.docs_numbers import Check, F, J, Quote, parse, run_check, run_quote


def test_every_quoted_number_matches_its_file():
    results = dn.run()
    assert all(r.ok for r in results), dn.report(results)


def test_the_table_covers_the_docs_it_promises():
    docs = {c.doc for c in dn.CHECKS}
    assert {"README.md", "docs/timing.md", "docs/dynamic.md", "docs/sass.md", "results/h200/README.md"} <= docs
    assert sum(len(c.values) for c in dn.CHECKS) >= 250


@pytest.mark.parametrize("text,value,half", [("280,179", 280179, 0.5), ("7·10⁻⁵", 7e-5, 0.5e-5),
                                             ("1.5·10⁻⁷", 1.5e-7, 0.05e-7), ("−592,675", -592675, 0.5),
                                             ("+5.5", 5.5, 0.05), ("28.000", 28.0, 0.0005)])
def test_parse(text, value, half):
    v, h = parse(text)
    assert v == pytest.approx(value) and h == pytest.approx(half)


def _doc(tmp_path, text):
    p = tmp_path / "DOC.md"
    p.write_text(text)
    return str(p)


OCC = "results/h200/occupancy.json"


def _raw(key: str) -> float:
    return json.loads((dn.ROOT / OCC).read_text())["summary"][key]


def test_a_wrong_number_names_sentence_file_key_and_both_values(tmp_path):
    lo, hi = _raw("kernel_penalty_raw_min"), _raw("kernel_penalty_raw_max")
    wrong = f"{lo - 0.05:.2f}"  # off by more than the printed digits allow
    doc = _doc(tmp_path, f"Intro.\n\nthe raw event-time ratio {wrong}–{hi:.2f} over the shapes.\n")
    r = run_check(Check(doc, "the raw event-time ratio {}–{}",
                        [J(OCC, "summary.kernel_penalty_raw_min"), J(OCC, "summary.kernel_penalty_raw_max")]))
    assert not r.ok and len(r.problems) == 1
    msg = r.problems[0]
    for part in (doc, "line 3", f"the raw event-time ratio {wrong}–{hi:.2f}", f"printed {wrong}", OCC,
                 "summary.kernel_penalty_raw_min", repr(lo)[:6]):
        assert part in msg, (part, msg)


def test_the_right_number_passes_and_rounding_is_as_printed(tmp_path):
    lo, hi = _raw("kernel_penalty_raw_min"), _raw("kernel_penalty_raw_max")
    doc = _doc(tmp_path, f"the raw event-time ratio {lo:.2f}–{hi:.2f} and {lo:.1f}–{hi:.1f}.\n")
    vals = [J(OCC, "summary.kernel_penalty_raw_min"), J(OCC, "summary.kernel_penalty_raw_max")]
    assert run_check(Check(doc, "ratio {}–{} and", vals)).ok
    assert run_check(Check(doc, "and {}–{}.", vals)).ok  # fewer digits, rounded the same way


def test_above_the_physical_bound_fails(tmp_path):
    doc = _doc(tmp_path, "penalty 32.51 at 8 warps.\n")
    r = run_check(Check(doc, "penalty {} at", [J(OCC, "summary.penalty_max")], bound=32))
    assert not r.ok and "above its physical bound 32" in r.problems[0]


def test_a_reworded_sentence_fails(tmp_path):
    doc = _doc(tmp_path, "something else entirely\n")
    r = run_check(Check(doc, "penalty {} at", [J(OCC, "summary.penalty_max")]))
    assert not r.ok and "not found" in r.problems[0]


def test_a_commit_is_a_prefix_of_the_files(tmp_path):
    doc = _doc(tmp_path, "at commit 16108d7 and at commit 5cb6cfc\n")
    assert run_check(Check(doc, "at commit {c} and", [dn.commit7("results/h200/kway.json")])).ok
    r = run_check(Check(doc, "and at commit {c}", [dn.commit7("results/h200/kway.json")]))
    assert not r.ok and "5cb6cfc" in r.problems[0] and "16108d7125134dfc" in r.problems[0]


def test_a_key_that_is_gone_fails_with_its_name(tmp_path):
    doc = _doc(tmp_path, "value 1.0 here\n")
    r = run_check(Check(doc, "value {} here", [J(OCC, "summary.no_such_key")]))
    assert not r.ok and "summary.no_such_key" in r.problems[0]


def test_a_quoted_console_line_not_in_the_files_fails(tmp_path):
    doc = _doc(tmp_path, "```\n== kway on NVIDIA H200 (cc 9.0, 132 SMs)\nfit T(k) = s*k + c: s = 280180 cycles/path\n```\n")
    r = run_quote(Quote(doc, "== kway on NVIDIA H200", ["results/h200/console/kway.txt"]))
    assert not r.ok and "s = 280180" in r.problems[0]


def test_the_disturbed_table_renders_as_the_doc_prints_it():
    text = dn.load("docs/timing.md")
    for row in dn.render_disturbed_table().splitlines():
        assert row in text, row


# Issue 50's audit listed numbers the docs printed that no check saw. Each is checked now: changing it in
# its document (the rest of the text as committed) makes its check fail.
AUDITED = [("docs/attribute.md", "D_path = 17.0", "D_path = 17.5"),
           ("docs/attribute.md", "B = 5.00, W = 17.00", "B = 5.00, W = 17.50"),
           ("docs/attribute.md", "range 14.25–18.5", "range 14.5–18.5"),
           ("results/h200/README.md", "measurement: 16 of 19 within 10%", "measurement: 17 of 19 within 10%"),
           ("results/h200/README.md", "replaced (16 of 19 shapes)", "replaced (16 of 18 shapes)"),
           ("docs/history.md", "16 of 19 shapes within 10%", "17 of 19 shapes within 10%")]


@pytest.mark.parametrize("doc,printed,changed", AUDITED, ids=[f"{d}:{p}" for d, p, _ in AUDITED])
def test_an_audited_number_changed_in_its_document_fails(monkeypatch, doc, printed, changed):
    original = dn.load
    assert original(doc).count(printed) == 1, f"{printed!r} is not in {doc} once"
    monkeypatch.setattr(dn, "load", lambda rel: original(rel).replace(printed, changed) if rel == doc else original(rel))
    checks = [c for c in dn.CHECKS if c.doc == doc]
    assert all(r.ok for r in dn.run(checks)) is False
    monkeypatch.setattr(dn, "load", original)
    assert all(r.ok for r in dn.run(checks)), "the committed text passes"
