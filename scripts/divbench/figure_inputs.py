"""What the figures share about their inputs: Skip (a figure's inputs are missing: it is left out with a
message, the others are drawn) and reading one of the static study's files."""
from __future__ import annotations

from divbench.jsonio import load_json
from divbench.paths import rel
from divbench.series import per_arch


class Skip(Exception):
    """The inputs of a figure are missing: say why and go on."""


def static_input(ctx, name: str):
    """(path, document, per-architecture entries) of a study file, or Skip when it is not there."""
    path = ctx.results / "static" / name
    if not path.exists():
        raise Skip(f"{rel(path)} not found (written by the static study)")
    data = load_json(path)
    return path, data, per_arch(data, path)
