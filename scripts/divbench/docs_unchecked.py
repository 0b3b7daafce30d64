"""The numbers a document prints that no check of divbench.docs_numbers covers, and why each may stand.

A number is *checked* when it lies inside a sentence a Check (or a Quote's code block) of docs_numbers
matches in that document. Every other number of the prose is listed; code blocks, inline code, link
targets, HTML comments and numbers inside words (sm_90, H200, x86_64) are not prose numbers. The list
of reasons (EXPLAINED, a TSV: document, number, a piece of its line, why) must explain every unchecked
number, each entry with a reason (number `*`: every unchecked number of the lines holding the piece), and no
entry may be stale (match nothing): a number added to a document is either checked against its file or given
a reason here.

    python3 -m divbench.docs_unchecked                  # exit 1 naming each unexplained number or stale entry
    python3 -m divbench.docs_unchecked --list DOC       # every unchecked number of DOC with its line
"""
from __future__ import annotations

import argparse
import csv
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from divbench import docs_numbers as dn
from divbench.cli import tool_main
from divbench.jsonio import read_text

DOCS = ("README.md", "docs/attribute.md")
EXPLAINED = "tests/python/data/unchecked_numbers.tsv"
# A number of the prose: digits not glued to a letter, digit or underscore on either side (sm_90, H200 and
# 0x1c0 are names), with its decimals, thousands separators and a sign.
NUMBER = re.compile(r"(?<![\w.])[+−-]?\d(?:\d|,(?=\d))*(?:\.\d+)?(?![\w])")
# Parts of a document another test verifies whole, by document: (where, the test).
# A report's table quoted in README: the table right after a line naming its report "(results/.../X.md):".
REPORT_EXCERPT = r"\((results/[^)\s]+\.md)\):\n\n((?:\|.*\n)+)"
_GENERATED = r"<!-- ([a-z][a-z ]*): [^\n]*-->.*?<!-- end of \1 -->"
VERIFIED = {
    "README.md": [
        (_GENERATED, "tests/python/test_attribute_docs.py::test_doc_tables_are_generated_from_the_validation"),
        (REPORT_EXCERPT, "tests/python/test_attribute_docs.py::test_readme_report_rows_are_rows_of_the_committed_reports"),
    ],
    "docs/attribute.md": [
        (_GENERATED, "tests/python/test_attribute_docs.py::test_doc_tables_are_generated_from_the_validation"),
        (r"(?:^>.*\n)+", "tests/python/test_attribute_docs.py::test_gate_excerpts_are_the_committed_files"),
    ],
}
_CODE = re.compile(r"```.*?```|`[^`\n]*`|<!--.*?-->|\]\([^)\s]*\)", re.S)


@dataclass(frozen=True)
class Unchecked:
    doc: str
    line: int
    number: str
    text: str  # the whole line, whitespace collapsed


def _blank(text: str, spans) -> str:
    chars = list(text)
    for a, b in spans:
        for i in range(a, b):
            if chars[i] != "\n":
                chars[i] = " "
    return "".join(chars)


def checked_spans(doc: str, text: str) -> list[tuple[int, int]]:
    """Where the checks of docs_numbers match in `doc` (a Check's nth match, or every match when it has
    none; a Quote's whole code block), and the parts another test verifies whole (VERIFIED)."""
    spans = []
    for c in dn.CHECKS:
        if c.doc != doc:
            continue
        ms = list(c.pattern().finditer(text))
        if c.nth is not None and c.nth < len(ms):
            ms = [ms[c.nth]]
        spans += [m.span() for m in ms]
    for q in dn.QUOTES:
        if q.doc == doc:
            spans += [m.span() for m in re.finditer(r"```[^\n]*\n" + re.escape(q.first_line) + r".*?```", text, re.S)]
    for regex, _test in VERIFIED.get(doc, ()):
        spans += [m.span() for m in re.finditer(regex, text, re.S | re.M)]
    return spans


def unchecked(doc: str, text: str | None = None) -> list[Unchecked]:
    text = read_text(dn.ROOT / doc) if text is None else text
    prose = _blank(text, checked_spans(doc, text) + [m.span() for m in _CODE.finditer(text)])
    lines = text.splitlines()
    out = []
    for m in NUMBER.finditer(prose):
        n = prose.count("\n", 0, m.start())
        out.append(Unchecked(doc, n + 1, m.group(0), " ".join(lines[n].split())))
    return out


@dataclass(frozen=True)
class Reason:
    doc: str
    number: str
    piece: str  # a piece of the number's line that places it
    why: str
    row: int


def load_reasons(path: Path) -> list[Reason]:
    rows = list(csv.reader(read_text(path).splitlines(), delimiter="\t"))
    out = []
    for i, r in enumerate(rows, 1):
        if not r or r[0].startswith("#"):
            continue
        if len(r) != 4:
            raise ValueError(f"{path}:{i}: {len(r)} columns; want document, number, piece of its line, why")
        out.append(Reason(*(x.strip() for x in r), row=i))
    return out


def problems(found: list[Unchecked], reasons: list[Reason]) -> list[str]:
    out = []
    used = set()
    for u in found:
        hit = [r for r in reasons if r.doc == u.doc and r.number in (u.number, "*") and r.piece in u.text]
        if not hit:
            out.append(f"{u.doc}:{u.line}: {u.number} is checked by no docs_numbers sentence and has no reason in "
                       f"{EXPLAINED} (line: \"{u.text[:140]}\")")
        used.update(r.row for r in hit)
    for r in reasons:
        if not r.why:
            out.append(f"{EXPLAINED}:{r.row}: {r.doc} {r.number}: no reason given")
        if r.row not in used:
            out.append(f"{EXPLAINED}:{r.row}: {r.doc} {r.number} \"{r.piece}\": stale (no such unchecked number)")
    return out


@tool_main("docs_unchecked")
def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m divbench.docs_unchecked", description=__doc__.split("\n\n")[0])
    ap.add_argument("--list", metavar="DOC", help="print every unchecked number of DOC with its line")
    args = ap.parse_args(argv)
    if args.list:
        for u in unchecked(args.list):
            print(f"{u.doc}\t{u.number}\t{u.text[:100]}")
        return 0
    found = [u for d in DOCS for u in unchecked(d)]
    bad = problems(found, load_reasons(dn.ROOT / EXPLAINED))
    print(f"docs unchecked: {len(found)} unchecked numbers in {', '.join(DOCS)}, "
          + (f"{len(bad)} problem(s):\n  " + "\n  ".join(bad) if bad else "each with its reason"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
