#!/usr/bin/env python3
"""The generator of random divergent kernels (scripts/divbench/generated_corpus.py), no GPU: two seeds of 12
kernels each, each drawn twice (the same seed gives the same files byte for byte, another seed other
files); every feature kind appears in a draw of 200 (the manifest alone); each site's recorded lines lie in
gen.cu and no two sites share one; gen.cu compiles for sm_90 with nvcc (-O3 -lineinfo, to an object), or the
compile is skipped with a message when no nvcc is given or found.

  corpus_test.py SOURCE_DIR [NVCC]"""
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(sys.argv[1]).resolve()
NVCC = sys.argv[2] if len(sys.argv) > 2 and sys.argv[2] else None
sys.path.insert(0, str(ROOT / "scripts"))
from divbench import generated_corpus as gc  # noqa: E402


def check_lines(text: str, manifest: dict) -> None:
    lines = text.splitlines()
    owner = {}
    for k in manifest["kernels"]:
        for s in k["sites"]:
            assert s["lines"], (k["name"], s["site"])
            for a, b in s["lines"]:
                assert 1 <= a <= b <= len(lines), (k["name"], s["site"], a, b)
                for ln in range(a, b + 1):
                    assert owner.setdefault(ln, (k["name"], s["site"])) == (k["name"], s["site"]), (ln, owner[ln])
        for s in k["sites"]:
            assert len(s["key_weights"]) == s["key_values"] and abs(sum(s["key_weights"]) - 1) < 1e-4
        assert k["arrangements"][:2] == ["random", "compact"]
        assert len(k["arrangements"]) == (4 if len(k["sites"]) == 2 else 2)
        assert f'extern "C" __global__ void __launch_bounds__(1024, 1) {k["name"]}(GenArgs a)' in text


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        texts = {}
        for seed in (11, 4242):
            for copy in ("a", "b"):
                out = tmp / f"{seed}{copy}"
                gc.write(seed, 12, out)
                texts[seed, copy] = ((out / "gen.cu").read_bytes(), (out / "manifest.json").read_bytes())
            assert texts[seed, "a"] == texts[seed, "b"], f"seed {seed}: two draws differ"
            check_lines(texts[seed, "a"][0].decode(), gc.generate(seed, 12)[1])
        assert texts[11, "a"][0] != texts[4242, "a"][0], "two seeds gave the same gen.cu"
        seen = {f for k in gc.generate(2024, 200)[1]["kernels"] for f in k["features"]}
        missing = [f for f in gc.FEATURES if f not in seen]
        assert not missing, f"feature kinds never drawn in 200 kernels: {missing}"
        print(f"determinism, site lines and feature coverage ({len(gc.FEATURES)} kinds in 200 kernels): ok")
        if not NVCC or not Path(NVCC).is_file():
            print(f"nvcc not found ({NVCC or 'none given'}): the compile of gen.cu is skipped")
            return 0
        # Both seeds at once (CI has two cores): the test's time is one compile.
        jobs = {}
        for seed in (11, 4242):
            src = tmp / f"{seed}a" / "gen.cu"
            jobs[seed] = subprocess.Popen([NVCC, "-O3", "-arch=sm_90", "-lineinfo", "-c", "-o", str(src.with_suffix(".o")), str(src)],
                                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for seed, p in jobs.items():
            _, err = p.communicate(timeout=300)
            assert p.returncode == 0, f"seed {seed}: nvcc failed:\n{err[-4000:]}"
            assert "warning" not in err.lower(), err[-4000:]
        print("gen.cu of both seeds compiles for sm_90: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
