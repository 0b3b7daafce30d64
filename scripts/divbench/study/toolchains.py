"""The compilers and disassemblers of the study: nvcc 13 (-cubin -O3) for sm_75..sm_121; NVRTC 12.9
(nvrtc_compile.py) and the CUDA 12.8 nvdisasm of the cu12 prefix (scripts/study/setup-cu12.sh) for sm_61 and
sm_70, which the CUDA 13 tools refuse. For the CUDA 13 architectures `divbench sass` finds nvdisasm itself
(include/divbench/sass/nvdisasm.hpp: --nvdisasm, $DIVBENCH_NVDISASM, PATH, $CUDA_HOME/bin, the PyPI
wheel); the version it ran is read from the SASS document's provenance."""
from __future__ import annotations

import glob
import os
import signal
import subprocess
import sys

from divbench.jsonio import InputError
from divbench.pathargs import executable_file
from divbench.paths import repo_root
from divbench.provenance import read_provenance
from divbench.study import StudyError

NVCC13_ARCHS = ["sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_100", "sm_103", "sm_110", "sm_120", "sm_121"]
CU12_ARCHS = ["sm_61", "sm_70"]
ALL_ARCHS = CU12_ARCHS + NVCC13_ARCHS
NVCC_FLAGS = ["-cubin", "-O3", "-std=c++17"]


DEFAULT_TOOL_TIMEOUT_S = 600.0


def tool_timeout_s() -> float:
    """The time limit of one helper program (nvcc, NVRTC's python3, nvdisasm): DIVBENCH_TOOL_TIMEOUT_S
    seconds (docs/bad-input.md), default 600, the same variable divbench itself reads."""
    v = os.environ.get("DIVBENCH_TOOL_TIMEOUT_S", "")
    if not v:
        return DEFAULT_TOOL_TIMEOUT_S
    try:
        s = float(v)
    except ValueError:
        s = float("nan")
    if not 0 < s <= 1e6:
        raise StudyError(f"DIVBENCH_TOOL_TIMEOUT_S={v!r}: not a number of seconds in (0, 1e6]")
    return s


def run(argv, **kw):
    """Runs a helper in its own process group; past tool_timeout_s() (or on Ctrl-C/SIGTERM) the whole
    group is killed. StudyError on a non-zero exit or a timeout."""
    limit = tool_timeout_s()
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, errors="replace", start_new_session=True, **kw)
    try:
        out, err = proc.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        raise StudyError(f"{' '.join(argv[:3])} ... did not finish within {limit:g} s (killed; the limit is "
                         "DIVBENCH_TOOL_TIMEOUT_S)") from None
    except BaseException:
        _kill_group(proc)
        raise
    p = subprocess.CompletedProcess(argv, proc.returncode, out, err)
    if p.returncode != 0:
        raise StudyError(f"{' '.join(argv[:3])} ... failed (exit {p.returncode}): {p.stderr.strip()[-2000:]}")
    return p.stdout


def _kill_group(proc):
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        pass
    proc.communicate()


def first_release_line(text):
    for line in text.splitlines():
        if "release" in line:
            return line.strip()
    return text.strip().splitlines()[-1] if text.strip() else "unknown"


def wheel_version(prefix, dist):
    for d in glob.glob(os.path.join(prefix, "py", f"{dist}-*.dist-info")):
        return os.path.basename(d)[len(dist) + 1:-len(".dist-info")]
    return "unknown"


def nvrtc_argv(*args):
    """The NVRTC compiler as a module of this package, whichever way this process found the package."""
    return [sys.executable, "-m", "divbench.study.nvrtc_compile", *args]


def child_env():
    """The environment of nvrtc_compile.py: the package's import root on PYTHONPATH."""
    root = str(repo_root() / "scripts")
    old = os.environ.get("PYTHONPATH")
    return {**os.environ, "PYTHONPATH": root + (os.pathsep + old if old else "")}


class Toolchains:
    def __init__(self, a):
        self.nvcc = a.nvcc
        self.cu12 = a.cu12_prefix
        self.divbench = a.divbench
        self.nvdisasm12 = os.path.join(self.cu12, "bin", "nvdisasm") if self.cu12 else None
        self._versions = {}

    def is_cu12(self, arch):
        return arch in CU12_ARCHS

    def check(self, archs):
        """The programs and the CUDA 12 prefix the architectures need exist (before anything is compiled):
        InputError otherwise (bad input). Whether they run is seen when their versions are read."""
        executable_file(self.divbench, "--divbench")
        if any(not self.is_cu12(x) for x in archs):
            executable_file(self.nvcc, "--nvcc")
        if any(self.is_cu12(x) for x in archs):
            if not (self.cu12 and os.path.isdir(os.path.join(self.cu12, "py", "nvidia", "cuda_nvrtc"))
                    and os.path.isfile(self.nvdisasm12) and os.access(self.nvdisasm12, os.X_OK)):
                raise InputError(
                    f"--cu12-prefix {self.cu12}: no CUDA 12 toolchain for {'/'.join(CU12_ARCHS)} there: "
                    "run scripts/study/setup-cu12.sh (or pass --arch to leave those out)")

    def compiler_version(self, arch):
        key = "nvrtc" if self.is_cu12(arch) else "nvcc"
        if key not in self._versions:
            if key == "nvcc":
                self._versions[key] = "nvcc " + first_release_line(run([self.nvcc, "--version"]))
            else:
                v = run(nvrtc_argv("--prefix", self.cu12, "--version"), env=child_env()).strip()
                self._versions[key] = f"nvrtc {v} ({wheel_version(self.cu12, 'nvidia_cuda_nvrtc_cu12')})"
        return self._versions[key]

    def nvdisasm_for(self, arch):
        return self.nvdisasm12 if self.is_cu12(arch) else None  # None: divbench sass finds its own

    def nvdisasm_version(self, arch, sass_doc):
        # Prefer what divbench sass reports (the tool it actually ran); else ask the binary.
        v = read_provenance(sass_doc).nvdisasm_version
        if v:
            return f"nvdisasm {v}"
        tool = self.nvdisasm_for(arch)
        return "nvdisasm " + first_release_line(run([tool, "--version"])) if tool else "unknown"

    def compile(self, arch, src, out):
        if self.is_cu12(arch):
            run(nvrtc_argv("--prefix", self.cu12, "--arch", arch, src, out), env=child_env())
        else:
            tmp = out + ".tmp.cubin"
            try:
                run([self.nvcc, *NVCC_FLAGS, f"-arch={arch}", "-o", tmp, src])
                os.replace(tmp, out)
            finally:  # a failed, timed-out or interrupted compile leaves no half-written cubin
                if os.path.exists(tmp):
                    os.unlink(tmp)
