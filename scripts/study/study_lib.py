"""Pieces of the static study that the driver (study.py) and the tests (tests/study/) share:
the corpus registry, turning `divbench sass` JSON into per-architecture records, Figure 4 /
Table II, writing the files, and comparing two result directories."""
import glob
import hashlib
import json
import os
import re

SCHEMA = "divbench.study/1"
# Keys whose values change on every run and are not part of what is compared.
VOLATILE = "run"
PLACEMENTS = ["before", "at", "after", "unguarded"]


class StudyError(Exception):
    pass


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


# ----------------------------------------------------------------------------------------------
# Corpus: kernels/corpus/*.cu, each `extern "C" __global__ void NAME(` preceded by its tag line
#   // corpus: <category> -- <idea>

TAG = re.compile(r"^\s*//\s*corpus:\s*([a-z0-9_]+)\s*--\s*(.+?)\s*$")
KERNEL = re.compile(r'extern\s+"C"\s+__global__\s+void\s+([A-Za-z_][A-Za-z0-9_]*)\s*\(')


class Corpus:
    def __init__(self, root, files, kernels, common):
        self.root = root
        self.files = files          # absolute paths, sorted
        self.kernels = kernels      # name -> {"category", "idea", "file"}
        self.common = common        # headers every file may include
        self._hash = {}
        self.common_hash = hashlib.sha256(b"".join(read_bytes(c) for c in common)).hexdigest()

    def file_hash(self, path):
        if path not in self._hash:
            self._hash[path] = hashlib.sha256(read_bytes(path)).hexdigest()
        return self._hash[path]

    def sha256(self):
        h = hashlib.sha256(self.common_hash.encode())
        for f in self.files:
            h.update(os.path.basename(f).encode() + self.file_hash(f).encode())
        return h.hexdigest()

    @staticmethod
    def load(root):
        files = sorted(glob.glob(os.path.join(root, "*.cu")))
        if not files:
            raise StudyError(f"no corpus files (*.cu) under {root}")
        kernels = {}
        for f in files:
            for name, cat, idea in parse_tags(read_bytes(f).decode(), os.path.basename(f)):
                if name in kernels:
                    raise StudyError(f"{os.path.basename(f)}: kernel {name} also defined in {kernels[name]['file']}")
                kernels[name] = {"category": cat, "idea": idea, "file": os.path.basename(f)}
        return Corpus(root, files, kernels, sorted(glob.glob(os.path.join(root, "*.cuh"))))


def parse_tags(text, filename):
    """[(kernel, category, idea)] in source order; a kernel without a tag line right above it, or a
    tag with no kernel after it, is an error."""
    out, pending = [], None
    for n, line in enumerate(text.splitlines(), 1):
        m = TAG.match(line)
        if m:
            if pending:
                raise StudyError(f"{filename}:{pending[2]}: corpus tag not followed by a kernel")
            pending = (m.group(1), m.group(2), n)
            continue
        k = KERNEL.search(line)
        if k:
            if not pending:
                raise StudyError(f"{filename}:{n}: kernel {k.group(1)} has no '// corpus: <category> -- <idea>' line above it")
            out.append((k.group(1), pending[0], pending[1]))
            pending = None
    if pending:
        raise StudyError(f"{filename}:{pending[2]}: corpus tag not followed by a kernel")
    return out


# ----------------------------------------------------------------------------------------------
# Toolkit versions

def wheel_version(prefix, dist):
    for d in glob.glob(os.path.join(prefix, "py", f"{dist}-*.dist-info")):
        return os.path.basename(d)[len(dist) + 1:-len(".dist-info")]
    return "unknown"


def nvdisasm_version_of(sass_doc):
    v = sass_doc.get("provenance", {}).get("nvdisasm_version") if isinstance(sass_doc, dict) else None
    return f"nvdisasm {v}" if v else None


def ptxas_versions(sass_doc):
    """The ptxas versions recorded in the cubins (.note.nv.tkinfo), sorted, without duplicates."""
    return sorted({c.get("ptxas") for c in sass_doc.get("cubins", []) if c.get("ptxas")})


# ----------------------------------------------------------------------------------------------
# Results

def write_json_atomic(path, doc):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    os.replace(tmp, path)


def compare_dirs(expected_dir, actual_dir, names):
    """Readable differences between the committed and the regenerated files (run provenance ignored)."""
    problems = []
    for name in names:
        exp_path, act_path = os.path.join(expected_dir, name), os.path.join(actual_dir, name)
        if not os.path.exists(exp_path):
            problems.append(f"{name}: not in {expected_dir} (new file)")
            continue
        with open(exp_path) as f:
            exp = json.load(f)
        with open(act_path) as f:
            act = json.load(f)
        problems += [f"{name}: {p}" for p in diff_docs(exp, act)]
    extra = sorted(set(os.path.basename(p) for p in glob.glob(os.path.join(expected_dir, "*.json"))) - set(names))
    problems += [f"{n}: in {expected_dir} but not regenerated" for n in extra]
    return problems


def diff_docs(exp, act, limit=40):
    out = []
    # Toolkit changes first, named as such: they explain the rest of the differences.
    for key in ("toolkit", "toolkits"):
        if key in exp or key in act:
            for path, a, b in _walk(exp.get(key), act.get(key), key):
                out.append(f"TOOLKIT CHANGED at {path}: {a!r} -> {b!r}")
    for path, a, b in _walk({k: v for k, v in exp.items() if k not in (VOLATILE, "toolkit", "toolkits")},
                            {k: v for k, v in act.items() if k not in (VOLATILE, "toolkit", "toolkits")}, ""):
        out.append(f"{path or '/'}: committed {_short(a)}, regenerated {_short(b)}")
    if len(out) > limit:
        out = out[:limit] + [f"... and {len(out) - limit} more differences"]
    return out


def _short(v):
    s = json.dumps(v, sort_keys=True)
    return s if len(s) <= 120 else s[:117] + "..."


def _walk(a, b, path):
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b), key=str):
            p = f"{path}.{k}" if path else str(k)
            if k not in a:
                yield p, "<absent>", b[k]
            elif k not in b:
                yield p, a[k], "<absent>"
            else:
                yield from _walk(a[k], b[k], p)
    elif isinstance(a, list) and isinstance(b, list):
        # Lists of named records (kernels) compare by name so one change does not cascade.
        if all(isinstance(x, dict) and "name" in x for x in a + b):
            yield from _walk({x["name"]: x for x in a}, {x["name"]: x for x in b}, path)
        elif len(a) != len(b):
            yield path, a, b
        else:
            for i, (x, y) in enumerate(zip(a, b)):
                yield from _walk(x, y, f"{path}[{i}]")
    elif a != b:
        yield path, a, b


# ----------------------------------------------------------------------------------------------
# `divbench sass --json` output -> per-kernel and per-architecture records

FLAT_SUM = ["instructions", "bssy", "bssy_reconvergent", "bssy_reliable", "bsync", "break", "bra_u", "bra_div",
            "warpsync_all", "warpsync_mask", "bmov", "ssy", "sync", "pbk", "brk", "exit"]


def iter_functions(sass_doc):
    """(corpus file stem, function json) for every function of every cubin in a divbench.sass/1
    document; the stem comes from the cubin's name (<stem>.<arch>.<hash>.cubin)."""
    for c in sass_doc.get("cubins", []):
        stem = os.path.basename(c.get("source") or c.get("cubin") or "?").split(".")[0]
        for f in c.get("functions", []):
            yield stem, f


INTERNAL_PREFIXES = ("$__internal_", "__internal_", "__cuda_")


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


def placement_counts(branches):
    counts = {p: 0 for p in PLACEMENTS}
    counts["unclosed"] = 0
    for b in branches:
        p = b.get("placement")
        if p not in counts:
            raise StudyError(f"unknown placement {p!r} in divbench sass output")
        counts[p] += 1
    return counts


def ipdom_exact_rate(counts):
    guarded = counts["at"] + counts["after"] + counts["before"]
    return round(counts["at"] / guarded, 4) if guarded else None


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
        rec = kernels.setdefault(k, {"name": k, **info, "functions": [],
                                     "census": empty_census(), "branches": []})
        rec["functions"].append(f["name"])
        add_census(rec["census"], f.get("census", {}))
        for b in f.get("branches", []):
            rec["branches"].append({"function": f["name"], **{key: b.get(key) for key in
                                   ("offset", "ipdom", "barrier", "bssy", "bsync", "placement")}})
    missing = sorted(set(corpus.kernels) - set(kernels))
    if missing:
        raise StudyError(f"{arch}: kernels missing from the analysed cubins: {', '.join(missing)}")
    totals = {"census": empty_census(), "placement": {p: 0 for p in PLACEMENTS + ['unclosed']}}
    out = []
    for name in sorted(kernels):
        rec = kernels[name]
        rec["functions"].sort()
        rec["placement"] = placement_counts(rec["branches"])
        add_census(totals["census"], rec["census"])
        for p, n in rec["placement"].items():
            totals["placement"][p] += n
        out.append(rec)
    totals["ipdom_exact_rate"] = ipdom_exact_rate(totals["placement"])
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
    """Writes <arch>.json, figure4.json and table2.json; returns the paths written."""
    per_arch = {a: per_arch[a] for a in sorted(per_arch, key=arch_order)}
    written = []
    for a, rec in per_arch.items():
        path = os.path.join(out_dir, f"{a}.json")
        write_json_atomic(path, {**rec, VOLATILE: run_info})
        written.append(path)
    toolkits = {a: r["toolkit"] for a, r in per_arch.items()}
    common = {"corpus": {"kernels": len(corpus.kernels), "sha256": corpus.sha256()}, "toolkits": toolkits}
    for name, rows, schema in (("figure4.json", figure4(per_arch), "divbench.study.figure4/1"),
                               ("table2.json", table2(per_arch), "divbench.study.table2/1")):
        path = os.path.join(out_dir, name)
        write_json_atomic(path, {"schema": schema, **common, "architectures": rows, VOLATILE: run_info})
        written.append(path)
    return written
