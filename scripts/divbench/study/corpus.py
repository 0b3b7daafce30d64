"""The corpus registry: kernels/corpus/*.cu, each `extern "C" __global__ void NAME(` preceded by its tag
line `// corpus: <category> -- <idea>`; the *.cuh headers every file may include."""
from __future__ import annotations

import glob
import hashlib
import os
import re

from divbench.jsonio import InputError, read_regular
from divbench.study import StudyError

TAG = re.compile(r"^\s*//\s*corpus:\s*([a-z0-9_]+)\s*--\s*(.+?)\s*$")
KERNEL = re.compile(r'extern\s+"C"\s+__global__\s+void\s+([A-Za-z_][A-Za-z0-9_]*)\s*\(')


def read_bytes(path):
    """A corpus file's bytes: a regular file of at most 16 MiB, checked before it is read (a FIFO or a
    folder named a.cu is an InputError, never a hang or a traceback)."""
    try:
        return read_regular(path, 16 << 20)
    except InputError as e:
        raise InputError(f"corpus: {e}") from None


def read_source(path):
    """A corpus file as text: UTF-8, or an InputError (bad input, exit 2) naming the file."""
    try:
        return read_bytes(path).decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(f"corpus: {path}: not UTF-8 text (byte {e.start})") from None


class Corpus:
    def __init__(self, root, files, kernels, common):
        self.root = root
        self.files = files          # absolute paths, sorted
        self.kernels = kernels      # name -> {"category", "idea", "file"}
        self.common = common        # headers every file may include
        self._hash = {}
        self.common_hash = hashlib.sha256(b"".join(read_bytes(c) for c in common)).hexdigest()

    def file_hash(self, path):
        if path not in self._hash:
            self._hash[path] = hashlib.sha256(read_bytes(path)).hexdigest()
        return self._hash[path]

    def sha256(self):
        h = hashlib.sha256(self.common_hash.encode())
        for f in self.files:
            h.update(os.path.basename(f).encode() + self.file_hash(f).encode())
        return h.hexdigest()

    @staticmethod
    def load(root):
        files = sorted(glob.glob(os.path.join(root, "*.cu")))
        if not files:
            raise StudyError(f"no corpus files (*.cu) under {root}")
        kernels = {}
        for f in files:
            for name, cat, idea in parse_tags(read_source(f), os.path.basename(f)):
                if name in kernels:
                    raise StudyError(f"{os.path.basename(f)}: kernel {name} also defined in {kernels[name]['file']}")
                kernels[name] = {"category": cat, "idea": idea, "file": os.path.basename(f)}
        return Corpus(root, files, kernels, sorted(glob.glob(os.path.join(root, "*.cuh"))))


def parse_tags(text, filename):
    """[(kernel, category, idea)] in source order; a kernel without a tag line right above it, or a
    tag with no kernel after it, is an error."""
    out, pending = [], None
    for n, line in enumerate(text.splitlines(), 1):
        m = TAG.match(line)
        if m:
            if pending:
                raise StudyError(f"{filename}:{pending[2]}: corpus tag not followed by a kernel")
            pending = (m.group(1), m.group(2), n)
            continue
        k = KERNEL.search(line)
        if k:
            if not pending:
                raise StudyError(f"{filename}:{n}: kernel {k.group(1)} has no '// corpus: <category> -- <idea>' line above it")
            out.append((k.group(1), pending[0], pending[1]))
            pending = None
    if pending:
        raise StudyError(f"{filename}:{pending[2]}: corpus tag not followed by a kernel")
    return out
