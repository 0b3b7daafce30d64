"""The one validator of divbench's JSON outputs against their JSON Schemas (schemas/ at the repository root,
and experiments/<name>/schema.json, each experiment's own; docs/schemas.md describes every
format). Needs the `jsonschema` package (scripts/deps/pip.txt); with `jsonschema-rs` (pinned there too) a
document it passes is valid at once, and only the others are judged, and their errors worded, by jsonschema.

  PYTHONPATH=scripts python3 -m divbench.schemas [FILE ...]     (default: every results/**/*.json and data/**/*.json)
  PYTHONPATH=scripts python3 -m divbench.schemas --reference    (jsonschema judges all; slow; reports any
                                                                 file jsonschema-rs judges otherwise)

Which schema a document gets:
  - its "schema" key names the format ("divbench.result/1"): the schema file whose "x-divbench-format" is
    that name (and which pins "schema" to it);
  - a divbench.result/1 document is also checked against its experiment's schema, the file whose
    "x-divbench-experiment" is the document's "experiment": experiments/<experiment>/schema.json (a new experiment adds that
    file, nothing else);
  - a document without a "schema" key (GoogleTest and Google Benchmark reports, the legacy files of the
    first H200 run) gets the schema whose "x-divbench-paths" globs match its path under the repository;
  - `--format NAME` forces one (e.g. github-action-benchmark for the gate's --benchmark-json output).
A document with no schema is an error, not a pass. Schemas reference each other by "$id"
(urn:divbench:schema:...), resolved from the folder, never over the network.
Exit 0: every file valid; 1: a file invalid or without a schema (one line each, at most a few errors per
file); 2: bad arguments or an unreadable file or schema."""
from __future__ import annotations

import fnmatch
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

from divbench.cli import ArgumentParser, fail, tool_main
from divbench.jsonio import InputError, load_json, read_text
from divbench.paths import repo_root

FORMAT_KEY = "x-divbench-format"
EXPERIMENT_KEY = "x-divbench-experiment"
PATHS_KEY = "x-divbench-paths"
DEFS_KEY = "x-divbench-defs"
RESULT_FORMAT = "divbench.result/1"
MAX_ERRORS_PER_FILE = 5
DIALECT = "https://json-schema.org/draft/2020-12/schema"


def schema_dir() -> Path:
    return repo_root() / "schemas"


def experiments_dir() -> Path:
    """The experiment folders (experiments/<name>/, docs/dynamic.md "Adding an experiment")."""
    return repo_root() / "experiments"


def experiment_schema_files(root: Path | None = None) -> list[Path]:
    """experiments/*/schema.json: the result schema of each experiment."""
    root = root or experiments_dir()
    return sorted(p for p in root.glob("*/schema.json") if p.is_file())


def schema_files(folder: Path | None = None) -> list[Path]:
    """Every schema file of the catalog: *.schema.json under `folder` (default: schemas/), and with the
    default folder (or schemas/ named explicitly) experiments/*/schema.json too."""
    folder = folder or schema_dir()
    files = sorted(folder.rglob("*.schema.json"))
    if Path(folder).resolve() == schema_dir().resolve():
        files += experiment_schema_files()
    return files


@dataclass
class Catalog:
    """Every schema file of a folder, indexed by format, experiment and path pattern."""
    folder: Path
    formats: dict = field(default_factory=dict)      # format name -> schema
    experiments: dict = field(default_factory=dict)  # experiment -> schema
    by_path: list = field(default_factory=list)      # (glob, format name)
    files: dict = field(default_factory=dict)        # $id -> schema file
    registry: object = None
    validators: dict = field(default_factory=dict)   # $id -> the validator of that schema, built once
    quick: dict = field(default_factory=dict)        # $id -> its jsonschema-rs validator, built once (or None)
    quick_registry: object = None                    # every schema, for jsonschema-rs's "$ref"s

    def _catalogued(self, schema) -> bool:
        sid = schema.get("$id") if isinstance(schema, dict) else None
        return sid is not None and sid in self.files and (
            self.formats.get(schema.get(FORMAT_KEY)) is schema or self.experiments.get(schema.get(EXPERIMENT_KEY)) is schema)

    def validator(self, schema: dict):
        """The Draft 2020-12 validator of `schema` (jsonschema, the reference: its errors are the messages),
        built once per catalog schema. Its "$ref"s are resolved once, here (inline_refs), not at every use:
        the same checks and messages, several times cheaper on the large results."""
        from jsonschema import Draft202012Validator
        if not self._catalogued(schema):
            return Draft202012Validator(schema, registry=self.registry)
        sid = schema["$id"]
        if sid not in self.validators:
            self.validators[sid] = Draft202012Validator(inline_refs(schema, self.registry), registry=self.registry)
        return self.validators[sid]

    def quick_validator(self, schema: dict):
        """The jsonschema-rs validator of catalog schema `schema` (Draft 2020-12, formats not asserted, as
        jsonschema does by default; "$ref"s from the catalog only, never the network), or None when
        jsonschema-rs is not installed (scripts/deps/pip.txt) or the schema is not the catalog's."""
        if not self._catalogued(schema):
            return None
        sid = schema["$id"]
        if sid not in self.quick:
            self.quick[sid] = None
            try:
                import jsonschema_rs
            except ImportError:
                return None
            try:
                if self.quick_registry is None:
                    self.quick_registry = jsonschema_rs.Registry(
                        [(i, self.registry.contents(i)) for i in self.files],
                        draft=jsonschema_rs.Draft202012, retriever=_no_retrieval)
                self.quick[sid] = jsonschema_rs.Draft202012Validator(
                    schema, registry=self.quick_registry, validate_formats=False, retriever=_no_retrieval)
            except Exception:  # e.g. a "$ref" to nowhere: jsonschema validates, and says so, as before
                self.quick[sid] = None
        return self.quick[sid]

    def passes(self, schema: dict, doc) -> bool:
        """True when jsonschema-rs finds `doc` valid against `schema`: then jsonschema would too (its messages
        are not needed), about a hundred times faster. False otherwise (invalid, no jsonschema-rs, a value
        it cannot take such as a lone surrogate in a string): jsonschema decides, as before."""
        quick = self.quick_validator(schema)
        try:
            return quick is not None and quick.is_valid(doc)
        except Exception:  # a value jsonschema-rs cannot convert (ValueError, OverflowError, ...)
            return False


def _no_retrieval(uri: str):
    raise InputError(f"schema {uri} is not in the catalog (schemas are never fetched)")


class _Inlined(dict):
    """A subschema whose "$ref"s were replaced by what they point to; its repr stays the one of the schema
    as written (jsonschema quotes a subschema in the messages of "not" and "oneOf")."""
    __slots__ = ("written",)

    def __repr__(self):
        return repr(self.written)


class _CannotInline(Exception):
    pass


# Draft 2020-12 keywords whose value is a subschema, a list of them, or a name -> subschema map; every other
# value (const, enum, default, annotations, x-divbench-*) is data and is left alone.
_ONE = ("additionalProperties", "items", "contains", "if", "then", "else", "not", "propertyNames",
        "unevaluatedItems", "unevaluatedProperties", "contentSchema")
_LIST = ("allOf", "anyOf", "oneOf", "prefixItems")
_MAP = ("properties", "patternProperties", "dependentSchemas")


def inline_refs(schema: dict, registry) -> dict:
    """`schema` with every "$ref" in a subschema position replaced by its target (resolved by `registry`
    against the right base, targets' own "$ref"s inlined too): what jsonschema would look up at every
    use of the "$ref", looked up once. A "$ref" with sibling keywords becomes one more allOf entry (the
    same assertion: both must hold). "$defs" stay as written (they assert nothing). Returns `schema`
    itself when it cannot be inlined exactly (a recursive "$ref", a "$dynamicRef", a boolean or
    "$id"-carrying target, a nested "$id"): jsonschema then resolves at each use, as before."""
    root = registry.resolver().lookup(schema["$id"])
    done = {}  # id() of a $ref target (a subschema held by the registry) -> that target, inlined

    def ref(target: str, resolver, stack):
        resolved = resolver.lookup(target)  # Unresolvable: as jsonschema would say at validation
        key = id(resolved.contents)
        if key in stack:
            raise _CannotInline(f"recursive $ref {target}")
        if key not in done:
            if not isinstance(resolved.contents, dict) or "$id" in resolved.contents:
                raise _CannotInline(f"$ref {target}: not a plain subschema")
            done[key] = walk(resolved.contents, resolved.resolver, stack | {key})
        return done[key]

    def walk(node, resolver, stack, top=False):
        if isinstance(node, bool):
            return node
        if not isinstance(node, dict):
            raise _CannotInline(f"not a schema: {node!r}")
        if "$dynamicRef" in node or "$recursiveRef" in node or ("$id" in node and not top):
            raise _CannotInline("$dynamicRef or a nested $id")
        out = {}
        for k, v in node.items():
            if k in _ONE:
                out[k] = walk(v, resolver, stack)
            elif k in _LIST and isinstance(v, list):
                out[k] = [walk(x, resolver, stack) for x in v]
            elif k in _MAP and isinstance(v, dict):
                out[k] = {name: walk(x, resolver, stack) for name, x in v.items()}
            elif k != "$ref":
                out[k] = v
        if "$ref" in node:
            target = ref(node["$ref"], resolver, stack)
            if len(node) == 1:
                out = dict(target)
            else:
                out["allOf"] = [*out.get("allOf", []), target]
        result = _Inlined(out)
        result.written = node
        return result

    try:
        return dict(walk(root.contents, root.resolver, frozenset(), top=True))
    except _CannotInline:
        return schema


def _read_schema(path: Path) -> dict:
    try:
        doc = json.loads(read_text(path))
    except (json.JSONDecodeError, RecursionError, ValueError) as e:
        raise InputError(f"{path}: cannot read this schema ({e})") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("$id"), str):
        raise InputError(f"{path}: a schema needs an \"$id\"")
    return doc


def _regexes(node):
    """Every "pattern" string and "patternProperties" key anywhere in `node` (also where they are data, not
    keywords: more than jsonschema checks, never less)."""
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "pattern" and isinstance(v, str):
                yield v
            if k == "patternProperties" and isinstance(v, dict):
                yield from v
            yield from _regexes(v)
    elif isinstance(node, list):
        for v in node:
            yield from _regexes(v)


def meta_valid_quickly(doc) -> bool:
    """True when `doc` is surely a valid Draft 2020-12 schema: jsonschema-rs finds it valid against the
    meta-schema and Python compiles each of its regular expressions (what jsonschema's check_schema adds,
    through the "regex" format). False when unsure (or no jsonschema-rs): then check_schema decides and
    words the error. check_schema is a tenth of a second per schema file, here a few milliseconds in all."""
    import re
    try:
        import jsonschema_rs
        if doc.get("$schema") != DIALECT or not jsonschema_rs.meta.is_valid(doc):
            return False
        for pattern in _regexes(doc):
            re.compile(pattern)
    except Exception:  # no jsonschema-rs, a pattern Python cannot compile, a schema it cannot take
        return False
    return True


def load_catalog(folder: Path | None = None) -> Catalog:
    """Reads every schema_files(folder) (default: schemas/ and experiments/*/schema.json); InputError on a
    malformed or duplicate one. Each must be a valid Draft 2020-12 schema and say what it applies to; an
    experiment folder's schema.json must be the result schema of the experiment the folder is named after."""
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError
    from referencing import Registry, Resource
    folder = folder or schema_dir()
    cat = Catalog(folder=folder)
    resources = []
    for path in schema_files(folder):
        doc = _read_schema(path)
        try:
            if not meta_valid_quickly(doc):
                Draft202012Validator.check_schema(doc)
        except SchemaError as e:
            raise InputError(f"{path}: not a valid JSON Schema: {e.message}") from None
        sid = doc["$id"]
        if sid in cat.files:
            raise InputError(f"{path}: $id {sid} is also {cat.files[sid]}")
        cat.files[sid] = path
        resources.append((sid, Resource.from_contents(doc)))
        fmt, exp = doc.get(FORMAT_KEY), doc.get(EXPERIMENT_KEY)
        if sum(x is not None for x in (fmt, exp, doc.get(DEFS_KEY))) != 1:
            raise InputError(f"{path}: give exactly one of {FORMAT_KEY}, {EXPERIMENT_KEY}, {DEFS_KEY}")
        if fmt is not None:
            if fmt in cat.formats:
                raise InputError(f"{path}: format {fmt} has a schema already")
            pinned = doc.get("properties", {}).get("schema", {}).get("const")
            if pinned is not None and pinned != fmt:
                raise InputError(f"{path}: {FORMAT_KEY} {fmt} but properties.schema pins {pinned}")
            cat.formats[fmt] = doc
            cat.by_path += [(g, fmt) for g in doc.get(PATHS_KEY, [])]
        if exp is not None:
            if exp in cat.experiments:
                raise InputError(f"{path}: experiment {exp} has a schema already")
            cat.experiments[exp] = doc
        if path.name == "schema.json" and path.parent.parent.name == "experiments" and exp != path.parent.name:
            raise InputError(f"{path}: an experiment folder's schema needs {EXPERIMENT_KEY} {path.parent.name!r}")
    cat.registry = Registry().with_resources(resources)
    if RESULT_FORMAT not in cat.formats:
        raise InputError(f"{folder}: no schema for {RESULT_FORMAT}")
    return cat


def rel_path(path: Path) -> str:
    try:
        return Path(path).resolve().relative_to(repo_root()).as_posix()
    except ValueError:
        return Path(path).as_posix()


def schemas_for(cat: Catalog, doc, where: str, fmt: str | None = None) -> list[tuple[str, dict]]:
    """[(name, schema)] that `doc` (found at repository path `where`) must satisfy; InputError if none."""
    if fmt is not None:
        if fmt not in cat.formats:
            raise InputError(f"{where}: --format {fmt}: no such format ({', '.join(sorted(cat.formats))})")
        out = [(fmt, cat.formats[fmt])]
    elif isinstance(doc, dict) and "schema" in doc:
        name = doc["schema"]
        if not isinstance(name, str) or name not in cat.formats:
            raise InputError(f"{where}: no schema file for format {name!r} (add schemas/<name>.schema.json "
                             f"with {FORMAT_KEY})")
        out = [(name, cat.formats[name])]
    else:
        hits = sorted({f for g, f in cat.by_path if fnmatch.fnmatch(where, g)})
        if len(hits) != 1:
            why = "no schema names this path" if not hits else f"several schemas name this path ({', '.join(hits)})"
            raise InputError(f"{where}: the document has no \"schema\" key and {why}")
        out = [(hits[0], cat.formats[hits[0]])]
    if out[0][0] == RESULT_FORMAT and isinstance(doc, dict) and isinstance(doc.get("experiment"), str):
        exp = doc["experiment"]
        if exp not in cat.experiments:
            raise InputError(f"{where}: no schema for experiment {exp!r} (add experiments/{exp}/schema.json "
                             f"with {EXPERIMENT_KEY})")
        out.append((f"{RESULT_FORMAT} experiment {exp}", cat.experiments[exp]))
    return out


def _pointer(error) -> str:
    return "/" + "/".join(str(p) for p in error.absolute_path)


def errors_of(cat: Catalog, doc, where: str, fmt: str | None = None, reference: bool = False) -> list[str]:
    """One line per violation ("<where>: <schema>: <json pointer>: <message>"), at most MAX_ERRORS_PER_FILE
    per schema; [] when valid. InputError when the document has no schema. A document that jsonschema-rs
    passes is valid; any other is judged by jsonschema (Catalog.passes). `reference`: jsonschema judges
    every document, and a document that jsonschema-rs judges otherwise is reported too (--reference)."""
    out = []
    for name, schema in schemas_for(cat, doc, where, fmt):
        if not reference and cat.passes(schema, doc):
            continue
        errs = sorted(cat.validator(schema).iter_errors(doc), key=lambda e: (list(map(str, e.absolute_path)), e.message))
        if reference:
            quick = "not installed" if cat.quick_validator(schema) is None else \
                "valid" if cat.passes(schema, doc) else "invalid"
            if quick != ("valid" if not errs else "invalid"):
                out.append(f"{where}: {name}: /: jsonschema finds it {'in' if errs else ''}valid, jsonschema-rs {quick}")
        for e in errs[:MAX_ERRORS_PER_FILE]:
            msg = " ".join(e.message.split())
            out.append(f"{where}: {name}: {_pointer(e)}: {msg[:300]}")
        if len(errs) > MAX_ERRORS_PER_FILE:
            out.append(f"{where}: {name}: ... and {len(errs) - MAX_ERRORS_PER_FILE} more")
    return out


def load_document(path: Path, fmt: str | None = None):
    """The JSON document in `path`: an object, or with a forced format anything JSON (the gate's benchmark
    JSON is a list); InputError when it cannot be read."""
    if fmt is None:
        return load_json(path)
    try:
        return json.loads(read_text(path))  # a regular file, size-bounded, checked before it is read
    except (json.JSONDecodeError, RecursionError, ValueError) as e:
        raise InputError(f"{path}: cannot read ({str(e)[:200] or type(e).__name__})") from None


def format_by_path(cat: Catalog, where: str) -> str | None:
    """The format of a non-object document whose path one schema's globs name (the gate's benchmark
    JSON is a list), else None (the document's own "schema" key, or the path, decides later)."""
    hits = sorted({f for g, f in cat.by_path if fnmatch.fnmatch(where, g)})
    return hits[0] if len(hits) == 1 and cat.formats[hits[0]].get("type") not in (None, "object") else None


def validate_file(cat: Catalog, path: Path, fmt: str | None = None) -> list[str]:
    """errors_of() the file's document; InputError when it cannot be read or has no schema."""
    fmt = fmt or format_by_path(cat, rel_path(path))
    return errors_of(cat, load_document(path, fmt), rel_path(path), fmt)


def committed_results(root: Path | None = None) -> list[Path]:
    """Every JSON file under results/ and data/ (what CI validates)."""
    root = root or repo_root()
    return sorted(p for folder in ("results", "data") for p in (root / folder).rglob("*.json") if p.is_file())


@tool_main("schemas")
def main(argv=None) -> int:
    ap = ArgumentParser(prog="schemas", description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="*", type=Path, help="JSON files (default: every results/**/*.json and data/**/*.json)")
    ap.add_argument("--format", help="validate every file against this format (e.g. github-action-benchmark)")
    ap.add_argument("--schemas", type=Path, default=None,
                    help="schema folder (default: schemas/, with experiments/*/schema.json)")
    ap.add_argument("--reference", action="store_true",
                    help="judge every file with jsonschema alone (slow) and report where jsonschema-rs disagrees")
    args = ap.parse_args(argv)
    try:
        cat = load_catalog(args.schemas)
        if args.format is not None and args.format not in cat.formats:
            raise InputError(f"--format {args.format}: no such format ({', '.join(sorted(cat.formats))})")
        files = args.files or committed_results()
        problems = []
        for f in files:
            fmt = args.format or format_by_path(cat, rel_path(f))
            doc = load_document(f, fmt)  # unreadable: exit 2
            try:
                problems += errors_of(cat, doc, rel_path(f), fmt, reference=args.reference)
            except InputError as e:  # no schema for it: a finding like an invalid file
                problems.append(str(e))
    except InputError as e:
        return fail("schemas", e)
    for line in problems:
        print(f"schemas: {line}", file=sys.stderr)
    bad = len({p.split(":", 1)[0] for p in problems})
    print(f"schemas: {len(files) - bad} of {len(files)} file(s) valid", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
