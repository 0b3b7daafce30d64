"""Where the repository is, seen from the package (scripts/divbench/ -> the repository root)."""
from __future__ import annotations

from pathlib import Path


def repo_root() -> Path:
    return Path(__file__).resolve().parent.parent.parent


def rel(p: Path | str) -> str:
    """`p` relative to the repository root where it lies inside it, else as given."""
    try:
        return str(Path(p).resolve().relative_to(repo_root()))
    except ValueError:
        return str(p)
