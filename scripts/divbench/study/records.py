"""`divbench sass` JSON (divbench.sass/2) -> the study's records: per kernel, per architecture, Figure 4
and Table II rows, and writing them (divbench.study/1, divbench.study.figure4/1, divbench.study.table2/1).

The placement counts and the census are the ones `divbench sass` emits for each function; a kernel's
record adds up its functions' (a kernel plus the subroutines the compiler split out of it). Nothing is
recounted from the branch list. The architecture totals are checked against the document's own totals
(the analyzer's sum over every function), and the IPDom-exact rate is the document's."""
from __future__ import annotations

import os

from divbench.jsonio import write_json
from divbench.study import StudyError
from divbench.study.diff import VOLATILE

SCHEMA = "divbench.study/1"
PLACEMENTS = ["before", "at", "after", "unguarded"]
PLACEMENT_KEYS = PLACEMENTS + ["unclosed"]
FLAT_SUM = ["instructions", "bssy", "bssy_reconvergent", "bssy_reliable", "bsync", "break", "bra_u", "bra_div",
            "warpsync_all", "warpsync_mask", "bmov", "ssy", "sync", "pbk", "brk", "exit"]
INTERNAL_PREFIXES = ("$__internal_", "__internal_", "__cuda_")


def ptxas_versions(sass_doc):
    """The ptxas versions recorded in the cubins (.note.nv.tkinfo), sorted, without duplicates."""
    return sorted({c.get("ptxas") for c in sass_doc.get("cubins", []) if c.get("ptxas")})


def iter_functions(sass_doc):
    """(corpus file stem, function json) for every function of every cubin in a divbench.sass/2
    document; the stem comes from the cubin's name (<stem>.<arch>.<hash>.cubin)."""
    for c in sass_doc.get("cubins", []):
        stem = os.path.basename(c.get("source") or c.get("cubin") or "?").split(".")[0]
        for f in c.get("functions", []):
            yield stem, f


def kernel_of(function_name, kernels):
    """The corpus kernel a function belongs to: itself, or K for a subroutine named "$K$callee"."""
    if function_name in kernels:
        return function_name
    if function_name.startswith("$"):
        k = function_name[1:].split("$", 1)[0]
        if k in kernels:
            return k
    return None


def empty_census():
    c = {k: 0 for k in FLAT_SUM}
    c["nesting_depth"] = 0
    c["opcodes"] = {}
    return c


def add_census(into, c):
    for k in FLAT_SUM:
        into[k] += int(c.get(k, 0))
    into["nesting_depth"] = max(into["nesting_depth"], int(c.get("nesting_depth", 0)))
    for base, forms in c.get("opcodes", {}).items():
        dst = into["opcodes"].setdefault(base, {})
        for form, n in forms.items():
            dst[form] = dst.get(form, 0) + int(n)


def emitted_placement(where, obj):
    """The placement counts `divbench sass` emitted for a function (or the whole document)."""
    p = obj.get("placement")
    if not isinstance(p, dict):
        raise StudyError(f"{where}: divbench sass output has no placement counts")
    out = {}
    for key in PLACEMENT_KEYS:
        v = p.get(key)
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise StudyError(f"{where}: divbench sass placement.{key} is {v!r}, expected a count")
        out[key] = v
    return out


def add_placement(into, counts):
    for key in PLACEMENT_KEYS:
        into[key] += counts[key]


def check_totals(arch, sass_doc, totals):
    """The sum of the kernels' records is the analyzer's own total over the document."""
    doc_counts = emitted_placement(f"{arch} (document)", sass_doc)
    if doc_counts != totals["placement"]:
        raise StudyError(f"{arch}: placement summed over kernels {totals['placement']} differs from divbench "
                         f"sass's document total {doc_counts}")
    doc_census = empty_census()
    add_census(doc_census, sass_doc.get("census") or {})
    if doc_census != totals["census"]:
        raise StudyError(f"{arch}: census summed over kernels differs from divbench sass's document total")
    rate = sass_doc["placement"].get("ipdom_exact_rate")
    return None if rate is None else round(rate, 4)


def arch_record(arch, sass_doc, corpus, toolkit):
    kernels = {}
    for stem, f in iter_functions(sass_doc):
        k = kernel_of(f["name"], corpus.kernels)
        if k is not None:
            info = corpus.kernels[k]
        elif f["name"].startswith(INTERNAL_PREFIXES):
            # A helper the toolkit adds to the cubin (e.g. sm_70's $__internal_0_$__cuda_sm70_shflsync_idx_p):
            # real SASS of this corpus, kept and counted, under the file whose cubin holds it.
            k = f"{stem}.cu:{f['name']}"
            info = {"category": "toolkit_internal", "idea": "function the toolkit added", "file": f"{stem}.cu"}
        else:
            raise StudyError(f"{arch}: function {f['name']!r} is not a tagged corpus kernel")
        rec = kernels.setdefault(k, {"name": k, **info, "functions": [], "census": empty_census(), "branches": [],
                                     "placement": {p: 0 for p in PLACEMENT_KEYS}})
        rec["functions"].append(f["name"])
        add_census(rec["census"], f.get("census", {}))
        add_placement(rec["placement"], emitted_placement(f"{arch}: {f['name']}", f))
        for b in f.get("branches", []):
            rec["branches"].append({"function": f["name"], **{key: b.get(key) for key in
                                   ("offset", "ipdom", "barrier", "bssy", "bsync", "placement")}})
    missing = sorted(set(corpus.kernels) - set(kernels))
    if missing:
        raise StudyError(f"{arch}: kernels missing from the analysed cubins: {', '.join(missing)}")
    totals = {"census": empty_census(), "placement": {p: 0 for p in PLACEMENT_KEYS}}
    out = []
    for name in sorted(kernels):
        rec = kernels[name]
        rec["functions"].sort()
        add_census(totals["census"], rec["census"])
        add_placement(totals["placement"], rec["placement"])
        out.append(rec)
    totals["ipdom_exact_rate"] = check_totals(arch, sass_doc, totals)
    return {"schema": SCHEMA, "arch": arch, "toolkit": toolkit,
            "corpus": {"kernels": len(corpus.kernels), "files": len(corpus.files), "sha256": corpus.sha256()},
            "totals": totals, "kernels": out}


def figure4(per_arch):
    return {a: {**{p: r["totals"]["placement"][p] for p in PLACEMENTS},
                "ipdom_exact_rate": r["totals"]["ipdom_exact_rate"]} for a, r in per_arch.items()}


def table2(per_arch):
    rows = {}
    for a, r in per_arch.items():
        c, p = r["totals"]["census"], r["totals"]["placement"]
        mods = {}
        for base in ("BSSY", "BSYNC", "BREAK"):
            for form, n in c["opcodes"].get(base, {}).items():
                if form != "bare":
                    mods[f"{base}.{form}"] = n
        rows[a] = {
            "ipdom_exact_rate": r["totals"]["ipdom_exact_rate"],
            "deferred": p["after"], "early": p["before"], "at_ipdom": p["at"], "unguarded": p["unguarded"],
            "modifiers": bool(mods), "modifier_counts": mods,
            "bra_u": c["bra_u"], "bra_div": c["bra_div"],
            "partial_mask_warpsync": c["warpsync_mask"] > 0, "warpsync_mask": c["warpsync_mask"],
            "warpsync_all": c["warpsync_all"],
            "max_nesting_depth": c["nesting_depth"], "bmov": c["bmov"],
            "bssy": c["bssy"], "bsync": c["bsync"], "break": c["break"],
            "ssy": c["ssy"], "sync": c["sync"], "pbk": c["pbk"], "brk": c["brk"],
        }
    return rows


def arch_order(a):
    return int(a.split("_")[1])


def write_results(out_dir, per_arch, corpus, run_info):
    """Writes <arch>.json, figure4.json and table2.json (each atomically); returns the paths written."""
    per_arch = {a: per_arch[a] for a in sorted(per_arch, key=arch_order)}
    written = []
    for a, rec in per_arch.items():
        written.append(str(write_json(os.path.join(out_dir, f"{a}.json"), {**rec, VOLATILE: run_info}, indent=1)))
    toolkits = {a: r["toolkit"] for a, r in per_arch.items()}
    common = {"corpus": {"kernels": len(corpus.kernels), "sha256": corpus.sha256()}, "toolkits": toolkits}
    for name, rows, schema in (("figure4.json", figure4(per_arch), "divbench.study.figure4/1"),
                               ("table2.json", table2(per_arch), "divbench.study.table2/1")):
        path = os.path.join(out_dir, name)
        written.append(str(write_json(path, {"schema": schema, **common, "architectures": rows, VOLATILE: run_info},
                                      indent=1)))
    return written
