"""Qualitative agreement of the static study (results/static/) with the paper's Table II / Figure 4.

Each claim of the paper is evaluated on the committed study files; a claim may disagree only where
tests/study/paper_disagreements.json lists it with a reason (the corpus is not tuned to force agreement).
A test fails when a claim's outcome differs from that file in either direction (a new disagreement, or a
listed one that no longer happens), or when a listed claim is no longer evaluated. Run: pytest -v
tests/study/test_paper_agreement.py (each claim is one test, AGREES/DISAGREES in its id).
"""
import pytest

from divbench.jsonio import load_json
from divbench.paths import repo_root

RESULTS = repo_root() / "results" / "static"
EXPECTED = load_json(repo_root() / "tests" / "study" / "paper_disagreements.json")["disagreements"]
BLACKWELL = ["sm_100", "sm_103", "sm_110", "sm_120", "sm_121"]
AMPERE_HOPPER = ["sm_80", "sm_86", "sm_90"]
AMPERE = ["sm_80", "sm_86"]
PRE_BLACKWELL_BSSY = ["sm_75", "sm_80", "sm_86", "sm_89", "sm_90"]


def load(d, name):
    return load_json(d / name)


def kernels_where(arch_doc, pred):
    return sorted(k["name"] for k in arch_doc["kernels"] if pred(k))


def claims(d):
    t2 = load(d, "table2.json")["architectures"]
    archs = lambda names: [a for a in names if a in t2]  # noqa: E731
    per = {a: load(d, f"{a}.json") for a in t2}
    has_mod = lambda k: any(f != "bare" for b in ("BSSY", "BSYNC", "BREAK")  # noqa: E731
                            for f in k["census"]["opcodes"].get(b, {}))
    out = []

    for a in archs(BLACKWELL):
        ok = t2[a]["modifiers"]
        out.append((f"{a}: BSSY/BSYNC carry .RECONVERGENT/.RELIABLE", ok, [] if ok else ["(no kernel has one)"]))
        ok = t2[a]["bra_u"] > 0
        out.append((f"{a}: BRA.U present", ok, [] if ok else ["(no kernel has one)"]))
        ok = t2[a]["partial_mask_warpsync"]
        out.append((f"{a}: partial-mask WARPSYNC present", ok, [] if ok else ["(no kernel has one)"]))
    for a in archs(AMPERE_HOPPER):
        bad = kernels_where(per[a], has_mod)
        out.append((f"{a}: no .RECONVERGENT/.RELIABLE modifiers", not bad, bad))
        bad = kernels_where(per[a], lambda k: k["census"]["bra_u"] > 0)
        out.append((f"{a}: no BRA.U", not bad, bad))
    for a in archs(PRE_BLACKWELL_BSSY):
        bad = kernels_where(per[a], lambda k: k["census"]["warpsync_mask"] > 0)
        out.append((f"{a}: no partial-mask WARPSYNC (Blackwell only)", not bad, bad))
    for b in archs(BLACKWELL):
        for a in archs(AMPERE):
            ok = t2[b]["deferred"] < t2[a]["deferred"]
            why = [f"{b}={t2[b]['deferred']} {a}={t2[a]['deferred']}"]
            if not ok:
                why += kernels_where(per[b], lambda k: k["placement"]["after"] > 0)
            out.append((f"fewer deferred placements on {b} than on {a}", ok, why))
    if "sm_61" in t2:
        p = t2["sm_61"]
        ok = p["ssy"] > 0 and p["sync"] > 0 and p["bssy"] == 0
        out.append(("sm_61: SSY/SYNC reconvergence, no BSSY", ok, [] if ok else [f"ssy={p['ssy']} sync={p['sync']} bssy={p['bssy']}"]))
    return out


CLAIMS = claims(RESULTS)


@pytest.mark.parametrize("text, ok, kernels", CLAIMS,
                         ids=[f"{'AGREES' if ok else 'DISAGREES'}: {text}" for text, ok, _ in CLAIMS])
def test_claim(text, ok, kernels):
    if ok:
        assert text not in EXPECTED, "listed as a disagreement but now agrees: update paper_disagreements.json"
    else:
        assert text in EXPECTED, (f"new disagreement [{', '.join(kernels)}]: explain it in "
                                  "tests/study/paper_disagreements.json")


def test_every_listed_disagreement_is_evaluated():
    missing = sorted(set(EXPECTED) - {text for text, _, _ in CLAIMS})
    assert not missing, f"listed disagreements not evaluated (architecture missing?): {missing}"
