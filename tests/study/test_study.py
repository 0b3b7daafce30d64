"""The static study's pieces (scripts/divbench/study/): the corpus registry, turning `divbench sass` JSON
into records (the emitted placement and census, summed per kernel and checked against the document's
totals), Figure 4 / Table II rows, and comparing two result folders."""
import json

import pytest

from divbench.paths import repo_root
from divbench.study import StudyError
from divbench.study.corpus import Corpus, parse_tags, read_bytes
from divbench.study.diff import compare_dirs, diff_docs
from divbench.study.records import PLACEMENTS, arch_record, figure4, table2
from divbench.jsonio import write_json

ROOT = repo_root()
# The categories the static-study issue asks the corpus to cover.
REQUIRED_CATEGORIES = {
    "if_else", "if_no_else", "nested", "switch_dense", "switch_sparse", "loop_break", "loop_continue",
    "loop_return", "short_circuit", "ternary", "irreducible", "noinline_call", "recursion",
    "partial_mask_shfl", "partial_mask_syncwarp", "ballot_any", "coop_groups", "warp_uniform",
    "unrolled_divergent", "divergent_atomics", "early_exit",
}


@pytest.fixture(scope="module")
def corpus():
    return Corpus.load(str(ROOT / "kernels" / "corpus"))


def test_at_least_40_kernels(corpus):
    assert len(corpus.kernels) >= 40


def test_every_required_category_present(corpus):
    assert REQUIRED_CATEGORIES - {k["category"] for k in corpus.kernels.values()} == set()


def test_every_kernel_in_the_sources_is_registered(corpus):
    # Count kernel definitions independently of the tag parser.
    n = sum(read_bytes(f).decode().count('extern "C" __global__ void ') for f in corpus.files)
    assert n == len(corpus.kernels)


def test_tag_then_kernel():
    src = '// corpus: if_else -- idea one\nextern "C" __global__ void k1(int* o) {}\n'
    assert parse_tags(src, "x.cu") == [("k1", "if_else", "idea one")]


def test_kernel_without_tag_is_an_error():
    with pytest.raises(StudyError, match="x.cu:1: kernel k1 has no"):
        parse_tags('extern "C" __global__ void k1(int* o) {}\n', "x.cu")


def test_dangling_tag_is_an_error():
    src = '// corpus: if_else -- idea\n// corpus: nested -- other\nextern "C" __global__ void k(int*){}\n'
    with pytest.raises(StudyError, match="x.cu:1: corpus tag not followed"):
        parse_tags(src, "x.cu")


def test_duplicate_kernel_across_files(tmp_path):
    for f in ("a.cu", "b.cu"):
        (tmp_path / f).write_text('// corpus: t -- i\nextern "C" __global__ void same(int*){}\n')
    with pytest.raises(StudyError, match="also defined in a.cu"):
        Corpus.load(str(tmp_path))


def placement(at=0, after=0, before=0, unguarded=0, unclosed=0):
    guarded = at + after + before
    return {"divergent_branches": at + after + before + unguarded, "at": at, "after": after, "before": before,
            "unguarded": unguarded, "unclosed": unclosed, "bssy_guarding_nothing": 0,
            "ipdom_exact_rate": at / guarded if guarded else None}


def fake_sass(functions, doc_placement=None):
    """A divbench.sass/2 document as `divbench sass` writes it: per-function and document-wide census and
    placement (the document's totals are the sum over its functions unless given)."""
    total = {k: 0 for k in ("at", "after", "before", "unguarded", "unclosed")}
    census = {"opcodes": {}}
    for f in functions:
        f.setdefault("placement", placement())
        f.setdefault("census", {})
        for k in total:
            total[k] += f["placement"][k]
        for k, v in f["census"].items():
            if k == "opcodes":
                for base, forms in v.items():
                    for form, n in forms.items():
                        census["opcodes"].setdefault(base, {}).setdefault(form, 0)
                        census["opcodes"][base][form] += n
            elif k == "nesting_depth":
                census[k] = max(census.get(k, 0), v)
            else:
                census[k] = census.get(k, 0) + v
    return {"schema": "divbench.sass/2", "provenance": {"nvdisasm_version": "release 13.5"},
            "census": census, "placement": doc_placement or placement(**total),
            "cubins": [{"source": "/c/a.sm_90.0123.cubin", "functions": functions}]}


class FakeCorpus:
    kernels = {"ka": {"category": "if_else", "idea": "a", "file": "a.cu"},
               "kb": {"category": "recursion", "idea": "b", "file": "b.cu"}}
    files = ["a.cu", "b.cu"]

    def sha256(self):
        return "0" * 64


def functions(extra=()):
    ka = {"name": "ka", "census": {"bssy": 2, "bsync": 2, "nesting_depth": 2, "bra_u": 1,
                                   "opcodes": {"BSSY": {"RECONVERGENT": 2}}},
          "placement": placement(at=1, after=1),
          # branch records are copied into the kernel's record but not counted again
          "branches": [{"offset": 16, "placement": "at"}, {"offset": 48, "placement": "after"}]}
    kb = {"name": "kb", "census": {"warpsync_mask": 1, "nesting_depth": 1, "opcodes": {"BSSY": {"bare": 1}}},
          "placement": placement(unguarded=1), "branches": [{"offset": 32, "placement": "unguarded"}]}
    sub = {"name": "$kb$_Z3fibi", "census": {"bmov": 3, "nesting_depth": 3}, "placement": placement(before=1),
           "branches": [{"offset": 64, "placement": "before"}]}
    return [ka, kb, sub] + list(extra)


def test_record_sums_emitted_counts_and_subroutines_fold_into_their_kernel():
    r = arch_record("sm_100", fake_sass(functions()), FakeCorpus(), {"compiler": "c", "nvdisasm": "d"})
    kb = [k for k in r["kernels"] if k["name"] == "kb"][0]
    assert kb["functions"] == ["$kb$_Z3fibi", "kb"]
    assert kb["census"]["bmov"] == 3 and kb["census"]["nesting_depth"] == 3
    assert kb["placement"] == {"before": 1, "at": 0, "after": 0, "unguarded": 1, "unclosed": 0}
    assert [b["offset"] for b in kb["branches"]] == [32, 64]
    assert r["totals"]["placement"] == {"before": 1, "at": 1, "after": 1, "unguarded": 1, "unclosed": 0}
    assert r["totals"]["ipdom_exact_rate"] == pytest.approx(1 / 3, abs=1e-4)
    t = table2({"sm_100": r})["sm_100"]
    assert t["modifiers"] and t["modifier_counts"] == {"BSSY.RECONVERGENT": 2}
    assert t["partial_mask_warpsync"]
    assert (t["deferred"], t["bra_u"], t["max_nesting_depth"], t["bmov"]) == (1, 1, 3, 3)
    assert [figure4({"sm_100": r})["sm_100"][p] for p in PLACEMENTS] == [1, 1, 1, 1]


def test_counts_come_from_the_analyzer_not_from_the_branch_list():
    fns = functions()
    fns[0]["placement"] = placement(at=5, after=1)   # the analyzer's count, whatever the records list
    r = arch_record("sm_90", fake_sass(fns), FakeCorpus(), {})
    assert r["totals"]["placement"]["at"] == 5


def test_totals_must_match_the_documents():
    doc = fake_sass(functions(), doc_placement=placement(at=9))
    with pytest.raises(StudyError, match="differs from divbench sass's document total"):
        arch_record("sm_90", doc, FakeCorpus(), {})


def test_function_without_placement_is_an_error():
    doc = fake_sass(functions())
    del doc["cubins"][0]["functions"][0]["placement"]
    with pytest.raises(StudyError, match="ka: divbench sass output has no placement counts"):
        arch_record("sm_90", doc, FakeCorpus(), {})


def test_toolkit_internal_function_is_kept_under_its_file():
    doc = fake_sass(functions([{"name": "$__internal_0_$__cuda_sm70_shflsync_idx_p", "census": {"warpsync_mask": 1}}]))
    r = arch_record("sm_70", doc, FakeCorpus(), {})
    rec = [k for k in r["kernels"] if k["category"] == "toolkit_internal"]
    assert [k["name"] for k in rec] == ["a.cu:$__internal_0_$__cuda_sm70_shflsync_idx_p"]
    assert r["totals"]["census"]["warpsync_mask"] == 2


def test_unknown_function_is_an_error():
    with pytest.raises(StudyError, match="not a tagged corpus kernel"):
        arch_record("sm_90", fake_sass(functions([{"name": "stray"}])), FakeCorpus(), {})


def test_missing_kernel_is_an_error():
    with pytest.raises(StudyError, match="missing from the analysed cubins: kb"):
        arch_record("sm_90", fake_sass([{"name": "ka"}]), FakeCorpus(), {})


def base_doc():
    return {"schema": "s", "toolkit": {"compiler": "nvcc release 13.0", "nvdisasm": "13.5"},
            "run": {"date": "2026-01-01"},
            "kernels": [{"name": "k1", "placement": {"at": 1}}, {"name": "k2", "placement": {"at": 2}}]}


def test_identical_ignoring_run():
    a, b = base_doc(), base_doc()
    b["run"]["date"] = "2030-01-01"
    assert diff_docs(a, b) == []


def test_toolkit_change_named_first():
    a, b = base_doc(), base_doc()
    b["toolkit"]["compiler"] = "nvcc release 13.1"
    b["kernels"][1]["placement"]["at"] = 3
    d = diff_docs(a, b)
    assert d[0].startswith("TOOLKIT CHANGED at toolkit.compiler"), d
    assert "kernels.k2.placement.at: committed 2, regenerated 3" in d[1]


def test_directories(tmp_path):
    e, a = tmp_path / "e", tmp_path / "a"
    e.mkdir()
    a.mkdir()
    for d in (e, a):
        write_json(d / "sm_90.json", base_doc())
    write_json(e / "old.json", {})
    write_json(a / "sm_61.json", base_doc())
    p = compare_dirs(str(e), str(a), ["sm_90.json", "sm_61.json"])
    assert p == [f"sm_61.json: not in {e} (new file)", f"old.json: in {e} but not regenerated"]


def test_committed_files_are_what_the_writer_writes(tmp_path):
    """The committed results/static/ files are in the writer's format (indent 1, key order, newline)."""
    for name in ("sm_90.json", "figure4.json"):
        committed = (ROOT / "results" / "static" / name).read_text()
        write_json(tmp_path / name, json.loads(committed), indent=1)
        assert (tmp_path / name).read_text() == committed
