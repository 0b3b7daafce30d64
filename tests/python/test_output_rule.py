"""The output rule (jsonio.check_output: a tool never writes over its inputs) as a property over many
spellings of one path, and the one main guard (cli.tool_main) proven on every Python tool: an exception
raised inside its main becomes one line `PROG: error: ...` and exit 2, never a traceback."""
import argparse
import importlib
import os
import random
import sys
from pathlib import Path

import pytest

from conftest import ROOT
from divbench import cli
from divbench.jsonio import OutputError, check_output, write_atomic

sys.path.insert(0, str(ROOT / "scripts" / "slurm"))

TOOLS = [  # (module, program name in its error line)
    ("divbench.compare", "compare"), ("divbench.gate", "compare"), ("divbench.figures", "figures"),
    ("divbench.schemas", "schemas"), ("divbench.merge_kway_metrics", "merge_kway_metrics"),
    ("divbench.stage_summary", "stage_summary"), ("divbench.study.driver", "study"),
    ("divbench.study.nvrtc_compile", "nvrtc_compile"), ("divbench.study.shards", "study_shards"), ("gather", "gather"),
    ("divbench.quality", "quality"), ("divbench.noise_levels", "noise_levels"),
    ("divbench.disturbed_report", "disturbed_report"), ("divbench.scaled_copy", "scaled_copy"),
    ("divbench.attribute_top", "attribute_top"), ("divbench.attribute_validation", "attribute_validation"),
    ("divbench.shapes_reanalyse", "shapes_reanalyse"), ("divbench.attribute_programs", "attribute_programs"),
    ("divbench.launch_sampling", "launch_sampling"),
]


@pytest.mark.parametrize("module,prog", TOOLS)
@pytest.mark.parametrize("exc", [OverflowError("int too large to convert to float"), TypeError("list indices"),
                                 RecursionError(), UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid")])
def test_every_tool_turns_any_exception_into_one_line(module, prog, exc, monkeypatch, capsys):
    mod = importlib.import_module(module)
    assert hasattr(mod.main, "__wrapped__"), f"{module}.main is not behind cli.tool_main"

    def boom(*a, **k):
        raise exc

    if module == "gather":
        monkeypatch.setattr(mod, "gather", boom)
    else:  # every other tool parses its arguments first (argparse, or cli.ArgumentParser built on it)
        monkeypatch.setattr(argparse.ArgumentParser, "parse_args", boom)
    rc = mod.main() if module.endswith(("nvrtc_compile", "shards")) else mod.main([])
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert rc == 2
    assert len(lines) == 1 and lines[0].startswith(f"{prog}: error: "), err
    assert "Traceback" not in err


def test_guard_passes_exit_and_interrupt(capsys):
    @cli.tool_main("t")
    def exits():
        sys.exit(5)

    @cli.tool_main("t")
    def interrupted():
        raise KeyboardInterrupt

    with pytest.raises(SystemExit) as e:
        exits()
    assert e.value.code == 5
    assert interrupted() == 130
    assert capsys.readouterr().err.strip() == "t: interrupted"


def listing(root: Path):
    out = {}
    for p in sorted(root.rglob("*")):
        st = p.lstat()
        out[str(p)] = (st.st_mode, st.st_size, p.read_bytes() if p.is_file() and not p.is_symlink() else os.readlink(p) if p.is_symlink() else None)
    return out


def test_output_rule_property(tmp_path):
    """For random spellings of a path (symlink chains, hard links, ./ and dir/.. detours, relative and
    absolute forms, special files), check_output refuses exactly when the path is an input's file or an
    existing non-regular file; it never creates, deletes or changes anything; and a path it accepts is
    written by write_atomic without touching the input."""
    rng = random.Random(25)
    base = tmp_path / "w"
    (base / "d" / "e").mkdir(parents=True)
    inp = base / "d" / "in.json"
    inp.write_text('{"a": 1}\n')
    other = base / "other.json"
    other.write_text("{}\n")
    os.mkfifo(base / "fifo")
    cwd = os.getcwd()
    os.chdir(base)
    try:
        for i in range(300):
            kind = rng.choice(["input", "other", "new", "fifo", "dir", "devnull"])
            target = {"input": inp, "other": other, "new": base / "d" / f"new{i}.json", "fifo": base / "fifo",
                      "dir": base / "d" / "e", "devnull": Path("/dev/null")}[kind]
            if kind == "input" and rng.random() < 0.3:
                os.link(inp, base / f"hard{i}")
                target = base / f"hard{i}"
            spelled = target
            for _ in range(rng.randint(0, 3)):  # a chain of symlinks to it (never to a new file)
                if kind == "new":
                    break
                link = base / "d" / f"l{i}_{_}"
                os.symlink(spelled if rng.random() < 0.5 else os.path.relpath(spelled, link.parent), link)
                spelled = link
            text = str(spelled)
            if rng.random() < 0.5 and text.startswith(str(base)):
                text = os.path.relpath(text, base)
                text = rng.choice([text, "./" + text, "d/e/../../" + text])
            before = listing(base)
            refuse = kind in ("input", "fifo", "dir", "devnull")
            if refuse:
                with pytest.raises(OutputError):
                    check_output(text, [inp], "--out")
            else:
                assert check_output(text, [inp], "--out") == Path(text)
            assert listing(base) == before, text
            if not refuse and kind == "new" and rng.random() < 0.2:
                write_atomic(text, "{}\n")
                assert inp.read_text() == '{"a": 1}\n'
    finally:
        os.chdir(cwd)


def test_benchmark_json_refuses_nan():
    """github-action-benchmark's file is JSON: a NaN value is refused with one line, not written."""
    from types import SimpleNamespace

    from divbench.gate_report import benchmark_json
    from divbench.jsonio import InputError

    b = SimpleNamespace(experiment="kway", path=Path("b.json"))
    ok = SimpleNamespace(label="k=1", median_a=1.0, median_b=2.0, change=1.0, method="mann-whitney")
    assert '"value": 2.0' in benchmark_json(b, [ok])
    with pytest.raises(InputError, match="not a finite number"):
        benchmark_json(b, [SimpleNamespace(**{**vars(ok), "median_b": float("nan")})])


def test_sigterm_unwinds_and_leaves_nothing(tmp_path):
    """SIGTERM during a tool: its finally blocks run (a temporary file is removed), one line, exit 143."""
    import subprocess
    import textwrap

    marker = tmp_path / "tmp.partial"
    code = textwrap.dedent(f"""
        import os, sys, time
        from divbench.cli import tool_main

        @tool_main("t")
        def main():
            open({str(marker)!r}, "w").close()
            try:
                print("ready", flush=True)
                time.sleep(60)
            finally:
                os.unlink({str(marker)!r})

        sys.exit(main())
    """)
    env = dict(os.environ, PYTHONPATH=str(ROOT / "scripts"))
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True)
    assert p.stdout.readline().strip() == "ready"
    p.terminate()
    _, err = p.communicate(timeout=30)
    assert p.returncode == 143
    assert err.strip() == "t: error: interrupted by signal 15"
    assert not marker.exists()
