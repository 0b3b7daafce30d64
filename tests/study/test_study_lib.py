"""Unit tests of scripts/study/study_lib.py and of the corpus registry (run by CTest as study_lib)."""
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "scripts", "study"))
import study_lib as sl  # noqa: E402

# The categories the static-study issue asks the corpus to cover.
REQUIRED_CATEGORIES = {
    "if_else", "if_no_else", "nested", "switch_dense", "switch_sparse", "loop_break", "loop_continue",
    "loop_return", "short_circuit", "ternary", "irreducible", "noinline_call", "recursion",
    "partial_mask_shfl", "partial_mask_syncwarp", "ballot_any", "coop_groups", "warp_uniform",
    "unrolled_divergent", "divergent_atomics", "early_exit",
}


class CorpusRegistry(unittest.TestCase):
    def setUp(self):
        self.corpus = sl.Corpus.load(os.path.join(ROOT, "kernels", "corpus"))

    def test_at_least_40_kernels(self):
        self.assertGreaterEqual(len(self.corpus.kernels), 40)

    def test_every_required_category_present(self):
        cats = {k["category"] for k in self.corpus.kernels.values()}
        self.assertEqual(REQUIRED_CATEGORIES - cats, set())

    def test_every_kernel_in_the_sources_is_registered(self):
        # Count kernel definitions independently of the tag parser.
        n = 0
        for f in self.corpus.files:
            n += sl.read_bytes(f).decode().count('extern "C" __global__ void ')
        self.assertEqual(n, len(self.corpus.kernels))


class TagParsing(unittest.TestCase):
    def test_tag_then_kernel(self):
        src = '// corpus: if_else -- idea one\nextern "C" __global__ void k1(int* o) {}\n'
        self.assertEqual(sl.parse_tags(src, "x.cu"), [("k1", "if_else", "idea one")])

    def test_kernel_without_tag_is_an_error(self):
        src = 'extern "C" __global__ void k1(int* o) {}\n'
        with self.assertRaisesRegex(sl.StudyError, "x.cu:1: kernel k1 has no"):
            sl.parse_tags(src, "x.cu")

    def test_dangling_tag_is_an_error(self):
        src = '// corpus: if_else -- idea\n// corpus: nested -- other\nextern "C" __global__ void k(int*){}\n'
        with self.assertRaisesRegex(sl.StudyError, "x.cu:1: corpus tag not followed"):
            sl.parse_tags(src, "x.cu")

    def test_duplicate_kernel_across_files(self):
        with tempfile.TemporaryDirectory() as d:
            for f in ("a.cu", "b.cu"):
                with open(os.path.join(d, f), "w") as fh:
                    fh.write('// corpus: t -- i\nextern "C" __global__ void same(int*){}\n')
            with self.assertRaisesRegex(sl.StudyError, "also defined in a.cu"):
                sl.Corpus.load(d)


def fake_sass(functions):
    return {"schema": "divbench.sass/1", "cubins": [{"source": "/c/a.sm_90.0123.cubin", "functions": functions}]}


class FakeCorpus:
    kernels = {"ka": {"category": "if_else", "idea": "a", "file": "a.cu"},
               "kb": {"category": "recursion", "idea": "b", "file": "b.cu"}}
    files = ["a.cu", "b.cu"]

    def sha256(self):
        return "0" * 64


class Aggregation(unittest.TestCase):
    def doc(self, kb_extra=None):
        ka = {"name": "ka", "census": {"bssy": 2, "bsync": 2, "nesting_depth": 2, "bra_u": 1,
                                       "opcodes": {"BSSY": {"RECONVERGENT": 2}}},
              "branches": [{"offset": 16, "placement": "at"}, {"offset": 48, "placement": "after"}]}
        kb = {"name": "kb", "census": {"warpsync_mask": 1, "nesting_depth": 1, "opcodes": {"BSSY": {"bare": 1}}},
              "branches": [{"offset": 32, "placement": "unguarded"}]}
        sub = {"name": "$kb$_Z3fibi", "census": {"bmov": 3, "nesting_depth": 3},
               "branches": [{"offset": 64, "placement": "before"}]}
        return fake_sass([ka, kb, sub] + (kb_extra or []))

    def test_record_sums_and_subroutines_fold_into_their_kernel(self):
        r = sl.arch_record("sm_100", self.doc(), FakeCorpus(), {"compiler": "c", "nvdisasm": "d"})
        kb = [k for k in r["kernels"] if k["name"] == "kb"][0]
        self.assertEqual(kb["functions"], ["$kb$_Z3fibi", "kb"])
        self.assertEqual(kb["census"]["bmov"], 3)
        self.assertEqual(kb["census"]["nesting_depth"], 3)
        self.assertEqual(r["totals"]["placement"], {"before": 1, "at": 1, "after": 1, "unguarded": 1, "unclosed": 0})
        self.assertAlmostEqual(r["totals"]["ipdom_exact_rate"], 1 / 3, places=3)
        t = sl.table2({"sm_100": r})["sm_100"]
        self.assertTrue(t["modifiers"])
        self.assertEqual(t["modifier_counts"], {"BSSY.RECONVERGENT": 2})
        self.assertTrue(t["partial_mask_warpsync"])
        self.assertEqual((t["deferred"], t["bra_u"], t["max_nesting_depth"], t["bmov"]), (1, 1, 3, 3))
        f4 = sl.figure4({"sm_100": r})["sm_100"]
        self.assertEqual([f4[p] for p in sl.PLACEMENTS], [1, 1, 1, 1])

    def test_toolkit_internal_function_is_kept_under_its_file(self):
        r = sl.arch_record("sm_70", self.doc([{"name": "$__internal_0_$__cuda_sm70_shflsync_idx_p",
                                               "census": {"warpsync_mask": 1}}]), FakeCorpus(), {})
        rec = [k for k in r["kernels"] if k["category"] == "toolkit_internal"]
        self.assertEqual([k["name"] for k in rec], ["a.cu:$__internal_0_$__cuda_sm70_shflsync_idx_p"])
        self.assertEqual(r["totals"]["census"]["warpsync_mask"], 2)

    def test_unknown_function_is_an_error(self):
        with self.assertRaisesRegex(sl.StudyError, "not a tagged corpus kernel"):
            sl.arch_record("sm_90", self.doc([{"name": "stray"}]), FakeCorpus(), {})

    def test_missing_kernel_is_an_error(self):
        with self.assertRaisesRegex(sl.StudyError, "missing from the analysed cubins: kb"):
            sl.arch_record("sm_90", fake_sass([{"name": "ka"}]), FakeCorpus(), {})


class Compare(unittest.TestCase):
    def base(self):
        return {"schema": "s", "toolkit": {"compiler": "nvcc release 13.0", "nvdisasm": "13.5"},
                "run": {"date": "2026-01-01"},
                "kernels": [{"name": "k1", "placement": {"at": 1}}, {"name": "k2", "placement": {"at": 2}}]}

    def test_identical_ignoring_run(self):
        a, b = self.base(), self.base()
        b["run"]["date"] = "2030-01-01"
        self.assertEqual(sl.diff_docs(a, b), [])

    def test_toolkit_change_named_first(self):
        a, b = self.base(), self.base()
        b["toolkit"]["compiler"] = "nvcc release 13.1"
        b["kernels"][1]["placement"]["at"] = 3
        d = sl.diff_docs(a, b)
        self.assertTrue(d[0].startswith("TOOLKIT CHANGED at toolkit.compiler"), d)
        self.assertIn("kernels.k2.placement.at: committed 2, regenerated 3", d[1])

    def test_directories(self):
        with tempfile.TemporaryDirectory() as e, tempfile.TemporaryDirectory() as a:
            for d in (e, a):
                sl.write_json_atomic(os.path.join(d, "sm_90.json"), self.base())
            sl.write_json_atomic(os.path.join(e, "old.json"), {})
            sl.write_json_atomic(os.path.join(a, "sm_61.json"), self.base())
            p = sl.compare_dirs(e, a, ["sm_90.json", "sm_61.json"])
            self.assertEqual(p, [f"sm_61.json: not in {e} (new file)", f"old.json: in {e} but not regenerated"])


if __name__ == "__main__":
    unittest.main()
