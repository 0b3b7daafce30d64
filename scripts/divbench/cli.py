"""The scripts' command-line convention: bad input or arguments give one line `PROG: error: ...` on
stderr and exit 2; nothing is written unless the whole output can be (jsonio.write_atomic)."""
from __future__ import annotations

import argparse
import sys

from divbench.jsonio import InputError, OutputError

EXIT_BAD_INPUT = 2


class ArgumentParser(argparse.ArgumentParser):
    """argparse with a one-line usage error (argparse prints the usage block first by default)."""

    def error(self, message):
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {one_line(message)} (see --help)\n")


def one_line(text) -> str:
    return " ".join(str(text).split("\n")).strip()


def fail(prog: str, err) -> int:
    """Prints `PROG: error: MESSAGE` as one line and returns the bad-input exit code."""
    print(f"{prog}: error: {one_line(err)}", file=sys.stderr)
    return EXIT_BAD_INPUT


def guarded(prog: str, body, *args) -> int:
    """Runs body(*args); InputError/OutputError become one line and exit code 2."""
    try:
        return body(*args)
    except (InputError, OutputError) as e:
        return fail(prog, e)
