"""The numbers README.md and docs/attribute.md print that no docs_numbers check covers each have a reason
(tests/python/data/unchecked_numbers.tsv), and the listing itself finds what it should: a checked sentence's
numbers are not listed, code and link targets are not prose, a new number without a reason fails, and a
reason whose number is gone fails as stale."""
from divbench import docs_numbers as dn
from divbench import docs_unchecked as du
from divbench.docs_numbers import Check, J


def test_every_unchecked_number_of_readme_and_attribute_md_has_a_reason():
    found = [u for d in du.DOCS for u in du.unchecked(d)]
    bad = du.problems(found, du.load_reasons(dn.ROOT / du.EXPLAINED))
    assert not bad, "\n".join(bad)


OCC = "results/h200/occupancy.json"
TEXT = ("# T\n\nthe raw event-time ratio 1.02–1.40 over the shapes, and 17 kernels more.\n"
        "Run `divbench --reps 201` on sm_90 (an H200, x86_64), see [a](docs/x_3.md).\n"
        "```sh\ndivbench --sweep k --k 4\n```\n<!-- 99 -->\nAbout 7 of 9.\n")


def _with_check(monkeypatch, doc):
    check = Check(doc, "the raw event-time ratio {}–{}",
                  [J(OCC, "summary.kernel_penalty_raw_min"), J(OCC, "summary.kernel_penalty_raw_max")])
    monkeypatch.setattr(dn, "CHECKS", [check])
    monkeypatch.setattr(dn, "QUOTES", [])


def test_checked_sentences_code_links_and_names_are_not_listed(monkeypatch):
    _with_check(monkeypatch, "DOC.md")
    got = [(u.line, u.number) for u in du.unchecked("DOC.md", TEXT)]
    assert got == [(3, "17"), (9, "7"), (9, "9")]


def test_an_unexplained_number_fails_and_a_reason_covers_it(monkeypatch):
    _with_check(monkeypatch, "DOC.md")
    found = du.unchecked("DOC.md", TEXT)
    bad = du.problems(found, [])
    assert len(bad) == 3 and "DOC.md:3: 17 is checked by no docs_numbers sentence" in bad[0]
    reasons = [du.Reason("DOC.md", "17", "kernels more", "a count of the example, not a measurement", 1),
               du.Reason("DOC.md", "7", "About 7 of 9", "illustration", 2),
               du.Reason("DOC.md", "9", "About 7 of 9", "illustration", 3)]
    assert du.problems(found, reasons) == []


def test_a_stale_or_unreasoned_entry_fails(monkeypatch):
    _with_check(monkeypatch, "DOC.md")
    found = du.unchecked("DOC.md", TEXT)
    reasons = [du.Reason("DOC.md", "17", "kernels more", "", 1),
               du.Reason("DOC.md", "7", "About 7 of 9", "illustration", 2),
               du.Reason("DOC.md", "9", "About 7 of 9", "illustration", 3),
               du.Reason("DOC.md", "42", "nowhere", "gone", 4)]
    bad = du.problems(found, reasons)
    assert any("no reason given" in b for b in bad) and any("42" in b and "stale" in b for b in bad), bad
