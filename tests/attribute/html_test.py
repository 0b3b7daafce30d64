#!/usr/bin/env python3
"""`divbench attribute --html` (issue 49 item 1) in a real browser: the source view of a committed recording
(results/h200/attribute/shapes_random, three kernels) opened by headless Chromium, which runs the page and
gives back its DOM and a screenshot. Checks:
  - the page is self-contained: no <script>, no URL that leaves the file (http:, https:, //);
  - every ranked branch links to a source row and to an instruction that exist in the page;
  - the ranked list is the document's order (predicted time saved, seconds then share, then warp-cycles lost);
  - each source row's heat (data-share) is the largest of the document's branch shares on that line (their
    regions overlap), so the heat column orders the lines as the document does;
  - the screenshot is a PNG with content (not one colour);
Without Chromium the test skips (exit 77) unless DIVBENCH_REQUIRE_CHROMIUM=1 (CI installs it).
usage: html_test.py DIVBENCH SOURCE_DIR"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
from html.parser import HTMLParser
from pathlib import Path

KERNELS = "WhileCompound|IfElseChain|PointerChase"


class Dom(HTMLParser):
    """Elements with an id, data-share rows, ranked branches and their links, scripts and URLs."""

    def __init__(self):
        super().__init__()
        self.ids, self.rows, self.ranked, self.urls, self.scripts = set(), {}, [], [], 0
        self._li = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "script":
            self.scripts += 1
        for key in ("href", "src"):
            if a.get(key):
                self.urls.append(a[key])
        if tag == "tr" and "data-share" in a and "id" in a:
            self.rows[a["id"]] = float(a["data-share"])
        if tag == "li" and "branch" in (a.get("class") or "").split():
            self._li = {"kernel": int(a["data-kernel"]), "pc": int(a["data-pc"]), "share": float(a["data-share"]), "links": []}
            self.ranked.append(self._li)
        if tag == "a" and self._li is not None and a.get("href", "").startswith("#"):
            self._li["links"].append(a["href"][1:])

    def handle_endtag(self, tag):
        if tag == "li":
            self._li = None


def chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return shutil.which(name)
    return None


def browser(exe: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([exe, "--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                           "--user-data-dir=" + tempfile.mkdtemp(prefix="divbench-chromium-"), *args],
                          capture_output=True, text=True, timeout=120)


def main() -> int:
    divbench, root = sys.argv[1], Path(sys.argv[2])
    exe = chromium()
    if exe is None:
        if os.environ.get("DIVBENCH_REQUIRE_CHROMIUM") == "1":
            print("FAIL: no chromium (DIVBENCH_REQUIRE_CHROMIUM=1): scripts/setup-deps.sh installs it")
            return 1
        print("SKIPPED: no chromium on PATH")
        return 77
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        page, doc_path, png = Path(tmp) / "view.html", Path(tmp) / "view.json", Path(tmp) / "view.png"
        r = subprocess.run([divbench, "attribute", "--quiet", "--from-counts", str(root / "results/h200/attribute/shapes_random"),
                            "--kernel", KERNELS, "--html", str(page), "--out", str(doc_path)],
                           capture_output=True, text=True, timeout=300)
        if r.returncode != 0:
            print(f"FAIL: attribute --html: exit {r.returncode}: {r.stderr.strip()}")
            return 1
        doc = json.loads(doc_path.read_text())
        dumped = browser(exe, "--dump-dom", page.as_uri())
        if dumped.returncode != 0 or "<html" not in dumped.stdout:
            print(f"FAIL: chromium --dump-dom: exit {dumped.returncode}: {dumped.stderr.strip()[-400:]}")
            return 1
        dom = Dom()
        dom.feed(dumped.stdout)
        if dom.scripts:
            failures.append(f"{dom.scripts} <script> element(s): the page must work without scripts")
        leaving = [u for u in dom.urls if not u.startswith("#")]
        if leaving:
            failures.append(f"URLs leaving the page: {leaving[:3]}")
        # The ranked list against the document.
        want = []
        for k, kd in enumerate(doc["kernels"]):
            for b in kd["branches"]:
                if b["divergent_executions"] > 0 and b.get("counted_in") is None:
                    s, sh = b.get("predicted_time_saved_s"), b.get("predicted_time_saved_share")
                    want.append(((-1 if s is None else s), (-1 if sh is None else sh), b["cycles_lost"], k, b["pc"]))
        want.sort(key=lambda t: (t[0], t[1], t[2]), reverse=True)
        got = [(li["kernel"], li["pc"]) for li in dom.ranked]
        if got != [(t[3], t[4]) for t in want]:
            failures.append(f"ranked list {got[:5]}... is not the document's order {[(t[3], t[4]) for t in want][:5]}...")
        if not dom.ranked:
            failures.append("no ranked branch in the page")
        for li in dom.ranked:
            missing = [h for h in li["links"] if h not in dom.ids]
            if missing:
                failures.append(f"ranked branch k{li['kernel']} pc {li['pc']}: links to {missing}, not in the page")
            if not any("-L" in h for h in li["links"]) or not any("-pc-" in h for h in li["links"]):
                failures.append(f"ranked branch k{li['kernel']} pc {li['pc']}: no link to its source line and its instruction")
        # Heat: each row's share is the largest of the document's branch shares on its line.
        sums = {}
        for k, kd in enumerate(doc["kernels"]):
            for b in kd["branches"]:
                if b.get("source") and b.get("predicted_time_saved_share") is not None:
                    key = (k, b["source"].rsplit(":", 1)[1])
                    sums[key] = max(sums.get(key, 0.0), b["predicted_time_saved_share"])
        for rid, share in dom.rows.items():
            k, line = int(rid.split("-")[0][1:]), rid.rsplit("-L", 1)[1]
            if abs(share - sums.get((k, line), 0.0)) > 1e-5:
                failures.append(f"row {rid}: heat {share}, the largest share of the document's branches on that line is {sums.get((k, line), 0.0)}")
        hot = sorted(((v, k) for k, v in dom.rows.items()), reverse=True)[:5]
        print("hottest rows:", hot)
        # A screenshot with content: the top of the page (kernels, ranked branches, the first kernel's view).
        shot = browser(exe, "--window-size=1280,1400", f"--screenshot={png}", page.as_uri())
        if shot.returncode != 0 or not png.is_file() or png.stat().st_size < 10000:
            failures.append(f"screenshot: exit {shot.returncode}, {png.stat().st_size if png.is_file() else 0} bytes")
        else:
            import matplotlib.image as mpimg  # noqa: E402 - only here: the one use
            px = mpimg.imread(str(png))
            if px.std() < 0.01:
                failures.append("screenshot: one colour (an empty page)")
            print(f"screenshot: {png.stat().st_size} bytes, {px.shape[1]}x{px.shape[0]}, pixel std {px.std():.3f}")
        print(f"{len(dom.ranked)} ranked branches, {len(dom.rows)} source rows with code, {len(dom.ids)} anchors")
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
