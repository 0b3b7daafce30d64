"""schemas/*.schema.json, experiments/*/schema.json and scripts/divbench/schemas.py: every committed results file validates against its
schema; documents of formats not committed yet are made by the real code and validated too (the C++
result writer through the SchemaDocuments tests of experiments/*/tests/, `divbench sass` and `divbench flip`
on the flip cubins, the gate's --benchmark-json), and the schemas reject what they should."""
import copy
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from divbench import schemas
from divbench.jsonio import InputError
from conftest import ROOT

CAT = schemas.load_catalog()
COMMITTED = schemas.committed_results()


def errors(doc, where="results/x/doc.json", fmt=None):
    out = schemas.errors_of(CAT, doc, where, fmt)
    engines_agree(doc, where, fmt)
    return out


def engines_agree(doc, where, fmt=None, only=None, written=False):
    """The ways schemas.py may judge `doc` agree, for each schema it gets (or the one named `only`):
    jsonschema-rs's verdict and jsonschema's on the inlined "$ref"s (Catalog.validator); `written`: also
    jsonschema on the schema as written (the reference: the same errors, word for word)."""
    from jsonschema import Draft202012Validator

    def found(validator):
        return sorted((schemas._pointer(e), e.message) for e in validator.iter_errors(doc))
    checked = 0
    for name, schema in schemas.schemas_for(CAT, doc, where, fmt):
        if only is not None and name != only:
            continue
        inlined = found(CAT.validator(schema))
        if written:
            assert inlined == found(Draft202012Validator(schema, registry=CAT.registry)), name
        assert CAT.quick_validator(schema) is not None, "jsonschema-rs is pinned in scripts/deps/pip.txt"
        assert CAT.passes(schema, doc) == (not inlined), (name, inlined[:3])
        checked += 1
    assert checked


@pytest.mark.parametrize("path", COMMITTED, ids=[schemas.rel_path(p) for p in COMMITTED])
def test_committed_results_file_is_valid(path):
    assert schemas.validate_file(CAT, path) == []


def smallest_committed_file_of_each_schema():
    """{schema name: the smallest committed file it applies to} (every schema some committed file uses)."""
    out = {}
    for path in sorted(COMMITTED, key=lambda p: p.stat().st_size, reverse=True):
        where = schemas.rel_path(path)
        fmt = schemas.format_by_path(CAT, where)
        for name, _ in schemas.schemas_for(CAT, schemas.load_document(path, fmt), where, fmt):
            out[name] = (path, fmt)
    return out


def test_engines_agree_on_committed_files():
    """jsonschema-rs decides the committed files above; here every schema's smallest committed file is
    judged by jsonschema too, a result's points cut to the first 64 (results/h200/cost.json has 8576: the
    whole files, all of them, are `python3 -m divbench.schemas --reference`'s)."""
    smallest = smallest_committed_file_of_each_schema()
    assert len(smallest) >= 25 and "divbench.result/1 experiment cost" in smallest
    for name, (path, fmt) in smallest.items():
        doc = schemas.load_document(path, fmt)
        if isinstance(doc, dict) and isinstance(doc.get("points"), list):
            doc["points"] = doc["points"][:64]
        engines_agree(doc, schemas.rel_path(path), fmt, only=name, written=True)


def test_inlined_refs_keep_the_messages():
    """Catalog.validator resolves "$ref"s once (schemas.inline_refs): what it asserts, and the subschemas
    that "not" and "oneOf" messages quote, are the schema as written; a recursive "$ref" (divbench.reference/1's
    tree) is left to jsonschema."""
    from referencing import Registry
    from referencing.jsonschema import DRAFT202012
    a = {"$id": "urn:t:a", "$defs": {"n": {"type": "integer", "minimum": 0}, "t": {"items": {"$ref": "#/$defs/t"}}},
         "properties": {"x": {"$ref": "urn:t:b#/$defs/pos"}, "y": {"not": {"$ref": "#/$defs/n"}},
                        "z": {"oneOf": [{"$ref": "#/$defs/n"}, {"type": "integer"}]},
                        "w": {"$ref": "#/$defs/n", "maximum": 5}}}
    b = {"$id": "urn:t:b", "$defs": {"pos": {"$ref": "#/$defs/num", "exclusiveMinimum": 0}, "num": {"type": "number"}}}
    registry = Registry().with_resources([(s["$id"], DRAFT202012.create_resource(s)) for s in (a, b)])
    inlined = schemas.inline_refs(a, registry)
    assert inlined is not a and "$ref" not in repr(dict(inlined["properties"]["x"]))
    from jsonschema import Draft202012Validator
    for doc, expected in [
        ({"x": 0, "y": 3, "z": 4, "w": 9}, {"0 is less than or equal to the minimum of 0", "9 is greater than the maximum of 5",
                                           "3 should not be valid under {'$ref': '#/$defs/n'}",
                                           "4 is valid under each of {'type': 'integer'}, {'$ref': '#/$defs/n'}"}),
        ({"x": "s", "w": -1.5}, {"'s' is not of type 'number'", "-1.5 is not of type 'integer'",
                                 "-1.5 is less than the minimum of 0"}),  # a "$ref" beside other keywords
    ]:
        msgs = sorted(e.message for e in Draft202012Validator(inlined, registry=registry).iter_errors(doc))
        assert msgs == sorted(e.message for e in Draft202012Validator(a, registry=registry).iter_errors(doc))
        assert set(msgs) == expected, msgs
    a["properties"]["t"] = {"$ref": "#/$defs/t"}
    registry = Registry().with_resources([(s["$id"], DRAFT202012.create_resource(s)) for s in (a, b)])
    assert schemas.inline_refs(a, registry) is a
    assert CAT.validator(CAT.formats["divbench.reference/1"]).schema is CAT.formats["divbench.reference/1"]


def test_jsonschema_judges_what_jsonschema_rs_does_not_pass():
    """A string Python's regular expressions match but jsonschema-rs's do not ("$" before a final newline),
    and one jsonschema-rs cannot take (a lone surrogate): jsonschema's verdict stands, as before."""
    d = kway_doc()
    d["created"] += "\n"
    schema = CAT.formats["divbench.result/1"]
    assert not CAT.passes(schema, d) and schemas.errors_of(CAT, d, "results/x/doc.json") == []
    assert schemas.errors_of(CAT, d, "results/x/doc.json", reference=True) == [
        "results/x/doc.json: divbench.result/1: /: jsonschema finds it valid, jsonschema-rs invalid"]
    d["host"] = "\ud800"
    assert not CAT.passes(schema, d) and schemas.errors_of(CAT, d, "results/x/doc.json") == []
    d["device"]["cc"] = "\ud800"
    assert any("/device/cc" in e for e in schemas.errors_of(CAT, d, "results/x/doc.json"))


BROKEN_SCHEMAS = [
    {"type": "integer_or_so"}, {"minimum": "0"}, {"required": "a"}, {"required": ["a", "a"]},
    {"properties": {"a": 3}}, {"items": [{"type": "string"}]}, {"enum": 3}, {"minItems": -1},
    {"allOf": []}, {"$defs": {"x": {"type": 5}}}, {"definitions": {"x": {"minLength": 1.5}}},
    {"pattern": "("}, {"patternProperties": {"[": {}}}, {"properties": {"s": {"pattern": "\\p{L}"}}},
    {"$defs": {"d": {"propertyNames": {"pattern": "(?<=x"}}}}, {"dependentRequired": {"a": "b"}},
]


@pytest.mark.parametrize("broken", BROKEN_SCHEMAS, ids=json.dumps)
def test_a_broken_schema_is_refused(tmp_path, broken):
    """load_catalog refuses a schema that is not a valid Draft 2020-12 one, with jsonschema's words:
    meta_valid_quickly (jsonschema-rs and Python's re) never passes one that check_schema refuses."""
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError
    doc = {"$schema": schemas.DIALECT, "$id": "urn:divbench:schema:t", schemas.FORMAT_KEY: "t/1", **broken}
    with pytest.raises(SchemaError) as err:
        Draft202012Validator.check_schema(doc)
    assert not schemas.meta_valid_quickly(doc)
    (tmp_path / "t.schema.json").write_text(json.dumps(doc))
    with pytest.raises(InputError, match=f"t.schema.json: not a valid JSON Schema: {re.escape(err.value.message)}"):
        schemas.load_catalog(tmp_path)


def test_the_catalog_is_checked_quickly():
    """Every schema of the catalog passes meta_valid_quickly (jsonschema's check_schema of them all would
    take half a second in every process), and jsonschema's check_schema agrees."""
    from jsonschema import Draft202012Validator
    for path in CAT.files.values():
        doc = json.loads(path.read_text())
        assert schemas.meta_valid_quickly(doc), path
        Draft202012Validator.check_schema(doc)
    assert not schemas.meta_valid_quickly({"type": "object"})  # no "$schema": jsonschema-rs might guess


def test_every_committed_result_is_checked():
    assert len(COMMITTED) >= 40
    names = {schemas.rel_path(p) for p in COMMITTED}
    assert {"results/h200/kway.json", "results/static/figure4.json", "results/h200/tests/divbench_cpu_tests.json",
            "results/h200/kway.gbench.json", "results/reference/paper-2607.23402.json"} <= names


def test_every_schema_file_is_catalogued():
    """Each file says what it applies to, and each format and experiment has exactly one."""
    files = sorted((ROOT / "schemas").rglob("*.schema.json")) + sorted((ROOT / "experiments").glob("*/schema.json"))
    assert len(files) == len(CAT.files)
    assert set(files) == set(CAT.files.values())
    assert {"divbench.result/1", "divbench.sass/2", "divbench.bitflip/2", "divbench.flip/2", "divbench.flip-discover/2",
            "divbench.kway_metrics/1", "divbench.study/1", "divbench.study.figure4/1", "divbench.study.table2/1",
            "divbench.reference/1", "divbench.predicted/1", "github-action-benchmark"} <= set(CAT.formats)
    assert {"kway", "cost", "occupancy", "predication", "sampling", "lock", "peer_wait", "producer_consumer",
            "order", "calibration"} <= set(CAT.experiments)


def test_docs_name_every_format():
    text = (ROOT / "docs" / "schemas.md").read_text()
    for fmt in CAT.formats:
        assert f"`{fmt}`" in text, f"docs/schemas.md does not describe {fmt}"
    for exp, schema in CAT.experiments.items():
        where = schemas.rel_path(CAT.files[schema["$id"]])
        assert where == f"experiments/{exp}/schema.json", where
        assert where in text, f"docs/schemas.md does not name the {exp} schema ({where})"


def test_an_experiment_folder_holds_its_result_schema():
    """experiments/<name>/schema.json is found by the catalog, with or without --schemas schemas/, and must be
    the schema of the experiment the folder is named after (the order probe is the first such folder)."""
    assert schemas.rel_path(CAT.files["urn:divbench:schema:divbench.result/1/order"]) == "experiments/order/schema.json"
    assert "order" in schemas.load_catalog(ROOT / "schemas").experiments
    for path in schemas.experiment_schema_files():
        assert json.loads(path.read_text())[schemas.EXPERIMENT_KEY] == path.parent.name, path


# --- what the schemas refuse ---

def kway_doc():
    """The plain `divbench --sweep k` of the committed run: raw samples, one placement, the harness block."""
    return json.loads((ROOT / "results" / "h200" / "kway_default.json").read_text())


HARNESS = {"benchmark_version": "1.7.1", "benchmark_source": "system", "benchmark_library_build": "debug"}


REFUSALS = [
    (lambda d: d["points"][3].update(median_cycles="fast"), "/points/3/median_cycles: 'fast' is not of type 'number'"),
    (lambda d: d["device"].pop("cc"), "/device: 'cc' is a required property"),
    (lambda d: d["summary"].pop("s_cycles_per_path"), "experiment kway: /summary: 's_cycles_per_path' is a required"),
    (lambda d: d["points"][0].update(samples={"cycles": [1, -2]}), "/points/0/samples/cycles/1: -2 is less than"),
    (lambda d: d["points"][0].update(samples={"cycles": []}), "should be non-empty"),
    (lambda d: d["summary"].pop("s_layout_min"), "'s_layout_min' is a dependency of 'layout_placements'"),
    (lambda d: d.update(created="yesterday"), "/created: 'yesterday' does not match"),
    (lambda d: d["points"][1].update(sampling="random"), "/points/1/sampling: 'random' is not one of"),
]


@pytest.mark.parametrize("mutate, message", REFUSALS)
def test_result_schema_refuses(mutate, message):
    d = kway_doc()
    mutate(d)
    errs = errors(d)
    assert errs and any(message in e for e in errs), errs


def test_refusals_are_worded_as_by_the_schema_as_written():
    """Every refusal above at once: jsonschema-rs refuses too, and the inlined "$ref"s give jsonschema's
    errors on the schemas as written, word for word."""
    d = kway_doc()
    for mutate, _ in REFUSALS:
        mutate(d)
    engines_agree(d, "results/x/doc.json", written=True)
    assert len(errors(d)) >= len(REFUSALS)


def test_a_result_of_the_current_harness_must_carry_its_samples():
    """A result with the harness block must have the fields the harness writes: raw samples per point
    (unless config.samples_kept is false), the point's placement, the summary's placement keys."""
    d = kway_doc()
    assert "harness" in d and errors(d) == []
    for p in d["points"]:
        p.pop("samples")
    d["points"][0].pop("placement")
    d["summary"].pop("layout_placements")
    errs = errors(d)
    assert any("'samples' is a required property" in e for e in errs)
    assert any("'placement' is a required property" in e for e in errs)
    assert any("experiment kway: /summary: 'layout_placements' is a required property" in e for e in errs)
    d["config"]["samples_kept"] = False       # --no-samples: then none may carry samples
    assert not any("'samples' is a required" in e for e in errors(d))


def test_unknown_format_and_experiment_and_path():
    with pytest.raises(InputError, match="no schema file for format 'divbench.nope/1'"):
        errors({"schema": "divbench.nope/1"})
    d = kway_doc()
    d["experiment"] = "brand_new"
    with pytest.raises(InputError, match=r"no schema for experiment 'brand_new' \(add experiments/brand_new/schema.json"):
        errors(d)
    with pytest.raises(InputError, match="no \"schema\" key and no schema names this path"):
        errors({"x": 1}, where="results/h200/something.json")
    assert errors({"sm_90": {"pc_then_arm_first": True}}, where="results/h200/sass_layout.json") == []
    assert errors({"sm_90": {"pc_then_arm_first": 1}}, where="results/h200/sass_layout.json")


def test_cli_exit_codes(tmp_path):
    ok = tmp_path / "ok.json"
    ok.write_text(json.dumps(kway_doc()))
    bad = tmp_path / "bad.json"
    d = kway_doc()
    d["fit"]["r2"] = "high"
    bad.write_text(json.dumps(d))
    cmd = [sys.executable, "-m", "divbench.schemas"]
    env = dict(os.environ, PYTHONPATH=str(ROOT / "scripts"))
    p = subprocess.run(cmd + [str(ok)], capture_output=True, text=True, env=env)
    assert p.returncode == 0 and "1 of 1 file(s) valid" in p.stderr
    for reference in ([], ["--reference"]):
        p = subprocess.run(cmd + reference + [str(ok), str(bad)], capture_output=True, text=True, env=env)
        assert p.returncode == 1 and "/fit/r2: 'high' is not of type 'number'" in p.stderr
        assert "1 of 2 file(s) valid" in p.stderr and "jsonschema-rs" not in p.stderr
    for args in ([str(tmp_path / "missing.json")], ["--format", "nope/1", str(ok)]):
        p = subprocess.run(cmd + args, capture_output=True, text=True, env=env)
        lines = p.stderr.strip().splitlines()
        assert p.returncode == 2 and len(lines) == 1 and lines[0].startswith("schemas: error:"), p.stderr


# --- formats not committed yet: fixtures from the code that writes them ---

def test_predicted_files(fixture_factory):
    pred = fixture_factory["predicted"]
    for doc in (pred("sm_80", 28.0, n=10000), pred("sm_61", None), pred("sm_120", 27.5, layout="flat")):
        assert errors(doc, "results/predicted/x.json") == [], doc["arch"]
    bad = pred("sm_80", 28.0)
    bad["bodies"][0]["a"] = 0
    assert any("/bodies/0/a" in e for e in errors(bad))
    bad = pred("sm_80", 28.0, layout="flat")
    del bad["constants"]
    assert errors(bad)                                  # the constants (or the model) must be recorded


def test_occupancy_of_the_warps_per_sm_sweep_shape(fixture_factory):
    doc = fixture_factory["occupancy_v2"](fixture_factory["device"]("SYNTHETIC", "9.0"))
    assert errors(doc) == []
    doc["summary"]["series"][0].pop("waves")
    assert any("'waves' is a required property" in e for e in errors(doc))


def test_gate_benchmark_json(results, fixture_factory, tmp_path):
    from divbench import gate
    a = fixture_factory["write"](tmp_path, "a.json",
                                 fixture_factory["with_samples"](json.loads((results / "gpu_a" / "kway.json").read_text())))
    b = fixture_factory["write"](tmp_path, "b.json", fixture_factory["scaled"](json.loads(a.read_text()), 1.05))
    out = tmp_path / "bench.json"
    assert gate.main([a, b, "--benchmark-json", out]) == 1
    assert schemas.validate_file(CAT, out, "github-action-benchmark") == []
    entries = json.loads(out.read_text())
    entries[0]["value"] = "slow"
    assert errors(entries, fmt="github-action-benchmark")


def tool(name):
    p = os.environ.get(name)
    if not p or not Path(p).exists():
        pytest.skip(f"{name} is not set (CTest python_schemas sets it to the built binary)")
    return p


def test_result_documents_written_by_the_cpp(tmp_path):
    exe = tool("DIVBENCH_EXPERIMENT_TESTS")
    p = subprocess.run([exe, "--gtest_filter=SchemaDocuments.*"], capture_output=True, text=True,
                       env=dict(os.environ, DIVBENCH_SCHEMA_DOCS=str(tmp_path)), timeout=300)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    docs = sorted(tmp_path.glob("*.json"))
    assert {d.stem for d in docs} == {"kway", "cost", "occupancy", "predication", "sampling", "lock", "order",
                                      "producer_consumer"}
    for d in docs:
        assert schemas.validate_file(CAT, d) == [], d.name
        doc = json.loads(d.read_text())
        assert "harness" in doc
        # every point's coordinates are on the declared axes (config.axes), all of them
        names = [a["name"] for a in doc["config"]["axes"]]
        for p in doc.get("points", []) + doc.get("points_extra", []):
            assert sorted(p["axes"]) == sorted(names), d.name


def test_committed_results_hold_their_experiments_declared_headline():
    """Every experiment's headline summary values (`divbench --list --format json`: declared once in its
    experiment.cpp) are in the summary of its committed H200 results, as the console prints them."""
    listing = json.loads(subprocess.run([tool("DIVBENCH"), "--list", "--format", "json"], capture_output=True,
                                        text=True, check=True).stdout)
    headline = {e["name"]: [f["key"] for f in e["headline"]] for e in listing["experiments"]}
    assert all(headline.values()), headline
    seen = set()
    for f in sorted((Path(__file__).resolve().parents[2] / "results" / "h200").glob("*.json")):
        doc = json.loads(f.read_text())
        if doc.get("schema") != "divbench.result/1" or doc.get("experiment") not in headline:
            continue
        seen.add(doc["experiment"])
        missing = [k for k in headline[doc["experiment"]] if k not in doc.get("summary", {})]
        assert not missing, f"{f.name}: {missing}"
    assert seen == set(headline), set(headline) - seen


def flip_args(divbench, sub, *args):
    """`divbench flip` with sub-commands (patch|discover|experiment) or, in builds from before the sub-commands, flags."""
    helptext = subprocess.run([divbench, "flip", "--help"], capture_output=True, text=True).stdout
    if "discover" in helptext and "--discover" not in helptext:
        return [divbench, "flip", sub, *args]
    return [divbench, "flip", *({"patch": [], "discover": ["--discover"], "experiment": ["--experiment"]}[sub]), *args]


def test_sass_and_flip_documents_written_by_divbench(tmp_path):
    divbench = tool("DIVBENCH")
    cubins = Path(tool("DIVBENCH_FLIP_CUBIN_DIR"))
    cubin = cubins / "flip_test.sm_90.cubin"
    runs = {
        "sass.json": [divbench, "sass", str(cubin), "--out", str(tmp_path / "sass.json"), "--quiet"],
        "discover.json": flip_args(divbench, "discover", str(cubins / "discover_corpus.sm_90.cubin"),
                                   "--report", str(tmp_path / "discover.json"), "--quiet"),
        "flip.json": flip_args(divbench, "patch", "--cubin", str(cubin), "--function", "flip_test", "--match", "BSSY*",
                               "--nth", "0", "--bits", "72:2", "--value", "1", "--out", str(tmp_path / "patched.cubin"),
                               "--report", str(tmp_path / "flip.json")),
        # a small sweep (one bit of the BSYNCs, the store controls): every variant is verified by nvdisasm
        "bitflip.json": flip_args(divbench, "experiment", "--cubin", str(cubin), "--function", "flip_test",
                                  "--match", "BSYNC*", "--bits", "72:1", "--out", str(tmp_path / "bitflip.json"),
                                  "--dry-run", "--quiet"),
    }
    for name, cmd in runs.items():
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        if p.returncode != 0 and "nvdisasm" in p.stderr:
            pytest.skip(f"no nvdisasm here: {p.stderr.strip()}")
        assert p.returncode == 0, f"{' '.join(cmd)}: {p.stderr}"
        assert schemas.validate_file(CAT, tmp_path / name) == [], name
    expected = {"sass.json": "divbench.sass/2", "discover.json": "divbench.flip-discover/2",
                "flip.json": "divbench.flip/2", "bitflip.json": "divbench.bitflip/2"}
    for name, fmt in expected.items():
        assert json.loads((tmp_path / name).read_text())["schema"] == fmt
    broken = copy.deepcopy(json.loads((tmp_path / "sass.json").read_text()))
    broken["cubins"][0]["functions"][0]["branches"].append({"offset": 16})
    assert errors(broken)
