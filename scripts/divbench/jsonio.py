"""Reading JSON with one-line errors, and the one atomic writer of the scripts.

Every problem with an input raises InputError, every problem with an output OutputError; both carry one
line that names the file. write_atomic() leaves either the complete new file or nothing new behind: it
writes a temporary file in the destination's folder, fsyncs it, renames it over the destination and
fsyncs the folder (so the rename itself survives a crash)."""
from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path


class InputError(Exception):
    """A bad input file or argument: the message is one line naming the file."""


class OutputError(Exception):
    """An output that cannot be written: the message is one line naming the file."""


def load_json(path: Path | str, what: str = "a JSON object") -> dict:
    """The JSON object in `path` (a top-level array or scalar is an InputError)."""
    p = Path(path)
    try:
        if p.exists() and not p.is_file() and not p.is_dir():
            raise InputError(f"{p}: not a regular file")
        with open(p, encoding="utf-8") as f:
            data = json.load(f, parse_constant=_no_constant)
    except FileNotFoundError:
        raise InputError(f"{p}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{p}: is a directory, expected a JSON file") from None
    except json.JSONDecodeError as e:
        raise InputError(f"{p}: not valid JSON (line {e.lineno}, column {e.colno}: {e.msg})") from None
    except UnicodeDecodeError:
        raise InputError(f"{p}: not UTF-8 text") from None
    except ValueError as e:  # NaN / Infinity literals (json accepts them; divbench never writes them)
        raise InputError(f"{p}: {e}") from None
    except OSError as e:
        raise InputError(f"{p}: cannot read ({e.strerror or e})") from None
    except RecursionError:
        raise InputError(f"{p}: JSON nested too deeply") from None
    if not isinstance(data, dict):
        raise InputError(f"{p}: expected {what} at the top level")
    return data


def _no_constant(name: str):
    raise ValueError(f"{name} is not a number JSON allows")


def check_writable(path: Path | str) -> Path:
    """Fails early (before any work) when `path` cannot be created: its folder is missing or not writable,
    or it names a folder. Creates and removes a temporary file next to it, which is what write_atomic does."""
    p = Path(path)
    if p.is_dir():
        raise OutputError(f"{p}: is a directory, expected a file name")
    folder = p.parent if str(p.parent) else Path(".")
    if not folder.is_dir():
        raise OutputError(f"{p}: folder {folder} does not exist")
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{p.name}.", suffix=".tmp")
    except OSError as e:
        raise OutputError(f"{p}: cannot write there ({e.strerror or e})") from None
    os.close(fd)
    os.unlink(tmp)
    return p


def write_atomic(path: Path | str, data: str | bytes) -> Path:
    """Writes `data` (text as UTF-8) to `path` atomically; raises OutputError with one line on failure."""
    p = Path(path)
    folder = p.parent if str(p.parent) else Path(".")
    payload = data.encode("utf-8") if isinstance(data, str) else data
    tmp = None
    try:
        if p.is_dir():
            raise OutputError(f"{p}: is a directory, expected a file name")
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{p.name}.", suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            f.write(payload)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o666 & ~_UMASK)  # mkstemp makes 0600; a plain open() would honour the umask
        os.replace(tmp, p)
        tmp = None
        _fsync_dir(folder)
    except OSError as e:
        raise OutputError(f"{p}: cannot write ({e.strerror or e})") from None
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass
    return p


def write_json(path: Path | str, doc, indent: int | None = 2) -> Path:
    """A JSON document, newline-terminated, written atomically. NaN/Infinity are refused (not JSON)."""
    try:
        text = json.dumps(doc, indent=indent, allow_nan=False)
    except ValueError as e:
        raise OutputError(f"{path}: {e}") from None
    return write_atomic(path, text + "\n")


def _fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _read_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_UMASK = _read_umask()  # read once at import: os.umask is process-wide and not thread-safe to probe
