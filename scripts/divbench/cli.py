"""The scripts' command-line convention: bad input or arguments give one line `PROG: error: ...` on
stderr and exit 2; nothing is written unless the whole output can be (jsonio.write_atomic)."""
from __future__ import annotations

import argparse
import functools
import json
import signal
import sys
import threading
from pathlib import Path

from divbench.jsonio import InputError, OutputError, check_output, same_file, write_json

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


def tool_main(prog: str):
    """The one `main` guard of a tool: decorates its main(); whatever escapes it on bad data (InputError,
    OutputError, or any other exception: OverflowError on a huge integer, TypeError on a list where an
    object belongs, RecursionError, ...) becomes one line `PROG: error: ...` and exit 2, never a
    traceback. SystemExit (argparse, an explicit exit) passes; Ctrl-C exits 130 without a traceback."""
    def wrap(main):
        @functools.wraps(main)
        def guarded_main(*args, **kwargs):
            # SIGTERM unwinds like Ctrl-C (finally blocks remove temporary files, helpers' process groups
            # are killed), then exit 143; the old handler is put back afterwards.
            old = None
            if threading.current_thread() is threading.main_thread():
                old = signal.signal(signal.SIGTERM, _raise_terminated)
            try:
                return main(*args, **kwargs)
            except KeyboardInterrupt:
                print(f"{prog}: interrupted", file=sys.stderr)
                return 130
            except _Terminated:
                print(f"{prog}: error: interrupted by signal {int(signal.SIGTERM)}", file=sys.stderr)
                return 128 + int(signal.SIGTERM)
            except (InputError, OutputError) as e:
                return fail(prog, e)
            except RecursionError:
                return fail(prog, "input nested too deeply")
            except Exception as e:  # noqa: BLE001 - the guard: bad data must not give a traceback
                return fail(prog, f"cannot process this input ({type(e).__name__}: {e})")
            finally:
                if old is not None:
                    signal.signal(signal.SIGTERM, old)
        return guarded_main
    return wrap


def check_report_output(out, folder, schema: str | None) -> None:
    """The output rule for a report over a folder: `out` is none of the folder's files (its inputs), but
    for the report's own earlier output there (a JSON file of `schema`: a stage writes its verdict beside
    what it judges, and may again). Raises OutputError with one line."""
    out, folder = Path(out), Path(folder)
    inputs = [p for p in folder.rglob("*") if p.is_file()] if folder.is_dir() else [folder]
    try:
        earlier = json.loads(out.read_text()).get("schema") if out.is_file() else None
    except (OSError, ValueError, AttributeError):
        earlier = None
    if schema is not None and earlier == schema:
        inputs = [p for p in inputs if not same_file(p, out)]
    check_output(out, inputs)


def folder_report(prog: str, description: str, report, lines=None, lines_flag: str | None = None):
    """The main(argv=None) of a report over one results folder, `PROG FOLDER [--out FILE]`, behind
    tool_main: report(folder) returns (doc, ok); doc is written to --out when given; exit 0 when ok,
    else 1 (bad input: one line, exit 2). lines(doc, ok), when given, returns the lines printed on stdout:
    always, or only under the flag `lines_flag` (e.g. "--summary") when one is named."""
    def run(args) -> int:
        doc, ok = report(args.folder)
        if args.out:
            check_report_output(args.out, args.folder, doc.get("schema") if isinstance(doc, dict) else None)
            write_json(args.out, doc)
        if lines and (lines_flag is None or getattr(args, lines_flag.lstrip("-").replace("-", "_"))):
            print("\n".join(lines(doc, ok)))
        return 0 if ok else 1

    @tool_main(prog)
    def main(argv=None) -> int:
        ap = ArgumentParser(prog=prog, description=description)
        ap.add_argument("folder", type=Path)
        ap.add_argument("--out", type=Path)
        if lines and lines_flag:
            ap.add_argument(lines_flag, action="store_true", help="print the summary lines")
        return guarded(prog, run, ap.parse_args(argv))
    return main


class _Terminated(BaseException):
    """SIGTERM, raised where the program is, so that its finally blocks run."""


def _raise_terminated(signum, frame):
    raise _Terminated()
