"""Path arguments checked before any work (cli.py's convention: one line naming the option and the path,
exit 2): an input folder that must exist, a program that must be an executable file, an output folder
that must exist or be creatable. Nothing is left behind by a check; a failing one raises InputError
(inputs) or OutputError (outputs)."""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from divbench.jsonio import InputError, OutputError


def existing_dir(path: Path | str, option: str) -> Path:
    """`path` is an existing folder."""
    p = Path(path)
    if not p.exists():
        raise InputError(f"{option} {p}: no such folder")
    if not p.is_dir():
        raise InputError(f"{option} {p}: not a folder")
    return p


def executable_file(path: Path | str, option: str) -> str:
    """`path` is an executable regular file; a bare name (no '/') is looked up on PATH, as subprocess does."""
    s = str(path)
    found = s if os.sep in s else shutil.which(s) if s else None
    if not found or not os.path.isfile(found) or not os.access(found, os.X_OK):
        raise InputError(f"{option}: {s!r} is not an executable file")
    return s


def creatable_dir(path: Path | str, option: str) -> Path:
    """`path` is a folder, or can be made: its nearest existing ancestor is a folder in which this process
    can create one (probed by creating and removing a temporary folder there; /proc refuses)."""
    if not str(path):
        raise OutputError(f"{option}: empty path")
    p = Path(path)
    base = p
    while not base.exists() and base != base.parent:
        base = base.parent
    if not base.is_dir():
        raise OutputError(f"{option} {p}: " + ("not a folder" if base == p else f"{base} is not a folder"))
    try:
        os.rmdir(tempfile.mkdtemp(dir=base, prefix=f".{p.name or 'out'}.", suffix=".probe"))
    except OSError as e:
        raise OutputError(f"{option} {p}: cannot create a folder in {base} ({e.strerror or e})") from None
    return p
