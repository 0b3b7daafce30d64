"""Reading JSON with one-line errors, and the one atomic writer of the scripts.

Every problem with an input raises InputError, every problem with an output OutputError; both carry one
line that names the file. write_atomic() leaves either the complete new file or nothing new behind: it
writes a temporary file in the destination's folder, fsyncs it, renames it over the destination and
fsyncs the folder (so the rename itself survives a crash)."""
from __future__ import annotations

import json
import os
import stat
import tempfile
from pathlib import Path


class InputError(Exception):
    """A bad input file or argument: the message is one line naming the file."""


class OutputError(Exception):
    """An output that cannot be written: the message is one line naming the file."""


MAX_INPUT_BYTES = 1 << 30  # the largest JSON input read (a result with every raw sample is a few MB)


def read_regular(path: Path | str, max_bytes: int = MAX_INPUT_BYTES) -> bytes:
    """The bytes of `path`, checked before they are read: a regular file (a FIFO, device, socket or
    folder is refused at once, never opened for a blocking read), at most `max_bytes` (by fstat first).
    Raises InputError with one line."""
    p = Path(path)
    try:
        fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise InputError(f"{p}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{p}: is a directory, expected a file") from None
    except OSError as e:
        raise InputError(f"{p}: cannot read ({e.strerror or e})") from None
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise InputError(f"{p}: is a directory, expected a file")
        if not stat.S_ISREG(st.st_mode):
            raise InputError(f"{p}: not a regular file (a FIFO, device or socket)")
        if st.st_size > max_bytes:
            raise InputError(f"{p}: {st.st_size} bytes, more than the {max_bytes} this input may have")
        os.set_blocking(fd, True)
        chunks, total = [], 0
        while True:
            b = os.read(fd, 1 << 20)
            if not b:
                break
            total += len(b)
            if total > max_bytes:
                raise InputError(f"{p}: more than the {max_bytes} bytes this input may have")
            chunks.append(b)
        return b"".join(chunks)
    except OSError as e:
        raise InputError(f"{p}: cannot read ({e.strerror or e})") from None
    finally:
        os.close(fd)


def read_text(path: Path | str, max_bytes: int = MAX_INPUT_BYTES) -> str:
    """read_regular() decoded as UTF-8 (InputError "not UTF-8 text" otherwise)."""
    try:
        return read_regular(path, max_bytes).decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{path}: not UTF-8 text") from None


def load_json(path: Path | str, what: str = "a JSON object") -> dict:
    """The JSON object in `path` (a top-level array or scalar is an InputError)."""
    p = Path(path)
    try:
        data = json.loads(read_text(p), parse_constant=_no_constant)
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
    except OverflowError as e:
        raise InputError(f"{p}: a number out of range ({e})") from None
    if not isinstance(data, dict):
        raise InputError(f"{p}: expected {what} at the top level")
    return data


def _no_constant(name: str):
    raise ValueError(f"{name} is not a number JSON allows")


def same_file(a: Path | str, b: Path | str) -> bool:
    """Both exist and are one file (st_dev/st_ino after symlinks: a symlink, a hard link or another
    spelling of the path all count), or neither exists and they resolve to the same path."""
    try:
        sa, sb = os.stat(a), os.stat(b)
        return (sa.st_dev, sa.st_ino) == (sb.st_dev, sb.st_ino)
    except (OSError, ValueError):
        pass
    try:
        return os.path.realpath(a) == os.path.realpath(b)
    except (OSError, ValueError):
        return False


def check_output(path: Path | str, inputs=(), option: str = "--out") -> Path:
    """The output rule (docs/bad-input.md), before any work: `path` is none of `inputs` (same_file), and
    if it exists it is a regular file (a folder, FIFO, device or socket is refused: write_atomic renames a
    temporary file over its target, which would replace /dev/null by a regular file); then check_writable.
    Raises OutputError with one line; creates and removes nothing but check_writable's probe."""
    p = Path(path)
    if not str(path):
        raise OutputError(f"{option}: empty path")
    for i in inputs:
        if i is not None and str(i) and same_file(p, i):
            raise OutputError(f"{option} {p} is an input of this command ({i}): inputs are never overwritten")
    return check_writable(p, option)


def _refuse_special(p: Path, option: str | None = None) -> None:
    lead = f"{option} {p}" if option else f"{p}"
    try:
        st = os.stat(p)
    except FileNotFoundError:
        if os.path.islink(p):
            raise OutputError(f"{lead}: a symlink to nothing; give a file name") from None
        return
    except OSError as e:
        raise OutputError(f"{lead}: cannot use it ({e.strerror or e})") from None
    if stat.S_ISDIR(st.st_mode):
        raise OutputError(f"{lead}: is a directory, expected a file name")
    if not stat.S_ISREG(st.st_mode):
        raise OutputError(f"{lead}: exists and is not a regular file (a FIFO, device or socket); give a file name")


def check_writable(path: Path | str, option: str | None = None) -> Path:
    """Fails early (before any work) when `path` cannot be created: its folder is missing or not writable,
    or it names a folder or another file that is not a regular one. Creates and removes a temporary file
    next to it, which is what write_atomic does."""
    p = Path(path)
    _refuse_special(p, option)
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
        _refuse_special(p)
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
