"""The file set of one whole run on a GPU (scripts/gpu/files.txt) and the check of a results/<gpu>/ folder
against it: every listed name (or glob) present, nothing unlisted.

  python3 -m divbench.gpu_files DIR     one line per problem, exit 1 when there is one (0 when the folder is
                                        exactly the run's file set); scripts/run_on_gpu.sh runs it after a
                                        full run
"""
from __future__ import annotations

import fnmatch
import sys
from pathlib import Path

from divbench.paths import repo_root

MANIFEST = repo_root() / "scripts" / "gpu" / "files.txt"


def manifest(path: Path = MANIFEST) -> dict[str, list[str]]:
    """Stage name -> its files (relative to results/<gpu>/, shell globs allowed), in file order."""
    out: dict[str, list[str]] = {}
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].split()
        if line:
            out[line[0]] = line[1:]
    return out


def check_folder(folder: Path, stages: dict[str, list[str]]) -> list[str]:
    """Problems of `folder` against the file set: listed names without a file, files no name covers."""
    patterns = [p for files in stages.values() for p in files]
    have = sorted(str(f.relative_to(folder)) for f in folder.rglob("*") if f.is_file())
    problems = [f"{stage}: {p} missing" for stage, files in stages.items() for p in files
                if not any(fnmatch.fnmatchcase(h, p) for h in have)]
    problems += [f"{h}: not in the file set of a run (scripts/gpu/files.txt)" for h in have
                 if not any(fnmatch.fnmatchcase(h, p) for p in patterns)]
    return problems


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1 or not Path(argv[0]).is_dir():
        print("gpu_files: error: give one results/<gpu>/ folder", file=sys.stderr)
        return 2
    problems = check_folder(Path(argv[0]), manifest())
    for p in problems:
        print(f"gpu_files: {p}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
