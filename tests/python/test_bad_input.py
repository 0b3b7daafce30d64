"""Bad input that once crashed or misled the scripts, each a regression test: compare.py and figures.py on a median of 0, a
`config` that is a list, a `device.name` that is a number, NaN and zero values, an unwritable --out. Every
case: exit 2, exactly one stderr line `PROG: error: ...` naming the problem, nothing on stdout, and no
output file left behind. The table of cases runs in-process (main(argv), as the launchers call it); the
command-line paths (launchers, usage errors, a FIFO, unwritable places) run as a user would, in a
subprocess."""
import json
import os
import subprocess
import sys

import pytest

from conftest import ROOT, make_results
from divbench import compare, figures

SCRIPTS = ROOT / "scripts"


def kway_file(results):
    return results / "gpu_a" / "kway.json"


def mutate_json(path, fn):
    d = json.loads(path.read_text())
    fn(d)
    path.write_text(json.dumps(d))


def nan_median(results):
    # json.dumps writes NaN as the literal NaN, which is what a broken writer would leave
    mutate_json(kway_file(results), lambda d: d["points"][2].update(median_cycles=float("nan")))


CASES = {
    "median 0": (lambda r: mutate_json(kway_file(r), lambda d: d["points"][0].update(median_cycles=0)),
                 "points[0].median_cycles is 0, expected a positive number"),
    "config is a list": (lambda r: mutate_json(kway_file(r), lambda d: d.update(config=[1, 2])),
                         "'config' is list"),
    "device.name is a number": (lambda r: mutate_json(kway_file(r), lambda d: d["device"].update(name=42)),
                                "device.name is 42, expected a non-empty string"),
    "NaN median": (nan_median, "NaN is not a number JSON allows"),
    "negative median": (lambda r: mutate_json(kway_file(r), lambda d: d["points"][1].update(median_cycles=-5)),
                        "points[1].median_cycles is -5, expected a positive number"),
    "fit is a string": (lambda r: mutate_json(kway_file(r), lambda d: d.update(fit="s=1")), "'fit' is str"),
    "efficiency 0": (lambda r: mutate_json(kway_file(r), lambda d: d["points"][0]["metrics"]["region"].update(ratio=0)),
                     "region efficiency is 0"),
}


def run(script, *args):
    return subprocess.run([sys.executable, str(SCRIPTS / script), *map(str, args)], capture_output=True, text=True)


def one_error_line(p, prog):
    return checked(p.returncode, p.stdout, p.stderr, prog)


def checked(rc, stdout, stderr, prog):
    assert rc == 2, stdout + stderr
    assert stdout == ""
    lines = stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"{prog}: error: "), stderr
    assert "Traceback" not in stderr
    return lines[0]


def in_process(main, args, capsys, prog):
    rc = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return checked(rc, out, err, prog)


@pytest.mark.parametrize("case", [c for c in CASES if c != "efficiency 0"])
def test_compare(tmp_path, capsys, case):
    results = make_results(tmp_path / "results")
    make, message = CASES[case]
    make(results)
    out = tmp_path / "table.md"
    line = in_process(compare.main, [results, "--markdown", "--out", out], capsys, "compare")
    assert message in line and "kway.json" in line
    assert not out.exists()


@pytest.mark.parametrize("case", list(CASES))
def test_figures(tmp_path, capsys, case):
    results = make_results(tmp_path / "results")
    make, message = CASES[case]
    make(results)
    out = tmp_path / "figs"
    line = in_process(figures.main, ["--results", results, "--out", out], capsys, "figures")
    assert message in line and "kway.json" in line
    assert not out.exists(), "an output was left behind by bad input"


def test_figures_negative_placement_count_is_refused(tmp_path, capsys):
    results = make_results(tmp_path / "results")
    mutate_json(results / "static" / "figure4.json", lambda d: d["architectures"]["sm_90"].update(after=-1))
    line = in_process(figures.main, ["--results", results, "--out", tmp_path / "f", "--only", "fig4"], capsys,
                      "figures")
    assert "sm_90.after is -1, expected a number >= 0" in line


@pytest.mark.parametrize("where", ["file", "proc"])
def test_unwritable_out(tmp_path, where):
    results = make_results(tmp_path / "results")
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    out = blocker / "table.md" if where == "file" else "/proc/divbench-cannot-write-here.md"
    line = one_error_line(run("compare.py", results, "--out", out), "compare")
    assert str(out) in line
    figs = blocker / "figs" if where == "file" else "/proc/divbench-figs"
    line = one_error_line(run("figures.py", "--results", results, "--out", figs), "figures")
    assert "cannot create the output folder" in line


def test_out_is_a_directory(tmp_path, capsys):
    results = make_results(tmp_path / "results")
    assert "is a directory" in in_process(compare.main, [results, "--out", tmp_path], capsys, "compare")


def test_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "result.json"
    os.mkfifo(fifo)
    p = subprocess.run([sys.executable, str(SCRIPTS / "compare.py"), str(fifo)], capture_output=True, text=True,
                       timeout=30)
    assert "not a regular file" in one_error_line(p, "compare")


def test_usage_errors_are_one_line():
    for script, args, prog in (("compare.py", ["--markdown", "--csv"], "compare"),
                               ("figures.py", ["--only", "fig9"], "figures"),
                               ("compare.py", ["--bogus"], "compare")):
        assert "error" in one_error_line(run(script, *args), prog)


def test_atomic_write_leaves_no_temporary_file(tmp_path):
    from divbench.jsonio import OutputError, write_atomic, write_json
    write_atomic(tmp_path / "a.txt", "one")
    write_atomic(tmp_path / "a.txt", "two")
    assert (tmp_path / "a.txt").read_text() == "two"
    with pytest.raises(OutputError, match="Out of range float values are not JSON compliant"):
        write_json(tmp_path / "b.json", {"x": float("nan")})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt"]


def test_path_arguments_accept_good_paths_and_leave_nothing(tmp_path):
    # The bad-input rows (tests/badinput/cases.tsv: study.*, figures.results_*) show the refusals; here the
    # other side: a good path passes, and the probe of an output folder leaves nothing behind.
    from divbench.jsonio import InputError, OutputError
    from divbench.pathargs import creatable_dir, executable_file, existing_dir
    (tmp_path / "in").mkdir()
    assert existing_dir(tmp_path / "in", "--corpus") == tmp_path / "in"
    assert executable_file("sh", "--nvcc") == "sh"  # a bare name is looked up on PATH
    assert executable_file(sys.executable, "--divbench") == sys.executable
    assert creatable_dir(tmp_path / "in", "--out") == tmp_path / "in"
    assert creatable_dir(tmp_path / "new" / "deeper", "--out") == tmp_path / "new" / "deeper"
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["in"]
    (tmp_path / "f").write_text("x")
    with pytest.raises(InputError, match=r"--corpus .*f: not a folder"):
        existing_dir(tmp_path / "f", "--corpus")
    with pytest.raises(InputError, match="is not an executable file"):
        executable_file(tmp_path / "f", "--divbench")
    with pytest.raises(InputError, match="is not an executable file"):
        executable_file("no-such-program-divbench", "--nvcc")
    with pytest.raises(OutputError, match=r"f is not a folder"):
        creatable_dir(tmp_path / "f" / "sub", "--out")
