"""What GPU stage scripts leave beside their outputs, read one way: the `rc=N` line a stage appends to a
command's stderr file (scripts/gpu/lib.sh), and a JSON value that is a finite number."""
from __future__ import annotations

import math
import re
from pathlib import Path

from divbench.jsonio import read_text


def exit_code_in(text: str) -> int | None:
    """The last `rc=N` line of a stage's stderr text, or None when there is none."""
    m = re.findall(r"^rc=(\d+)$", text, re.M)
    return int(m[-1]) if m else None


def exit_code(path: Path) -> int | None:
    """The same for a file; None when the file is missing."""
    return exit_code_in(read_text(path)) if path.is_file() else None


def finite(v) -> float | None:
    """A JSON number that is finite, as a float (a bool, NaN, infinity or another type: None)."""
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) else None
