"""The one reader of a file's provenance: which build, commit, host and command made it, and when.

divbench writes provenance in two places: at the top level of a divbench.result/1 file (toolkit, git,
created, host, command) and in a "provenance" object (divbench.sass/2, divbench.bitflip/2, the merged
counters divbench.kway_metrics/1; the SASS one adds the nvdisasm it ran and names the build's toolkit
"divbench_built_with"). Both read the same here; the device comes from the "device" block."""
from __future__ import annotations

from dataclasses import dataclass

FIELDS = ("toolkit", "git", "created", "host", "command")


@dataclass(frozen=True)
class Provenance:
    toolkit: str | None = None
    git: str | None = None
    created: str | None = None
    host: str | None = None
    command: str | None = None
    device: str | None = None             # device.name, where the file has a device
    nvdisasm: str | None = None           # divbench.sass/2: the nvdisasm it ran ...
    nvdisasm_version: str | None = None   # ... and its version line ("release 13.5, V13.5.37")

    def as_dict(self) -> dict:
        """The five fields a result records at its top level (None where absent)."""
        return {k: getattr(self, k) for k in FIELDS}


def _text(v) -> str | None:
    return v if isinstance(v, str) and v else None


def read_provenance(doc: dict) -> Provenance:
    """Provenance of any divbench JSON document; fields the document lacks (or that are not strings) are None."""
    if not isinstance(doc, dict):
        return Provenance()
    src = doc.get("provenance") if isinstance(doc.get("provenance"), dict) else doc
    dev = doc.get("device")
    return Provenance(
        toolkit=_text(src.get("toolkit")) or _text(src.get("divbench_built_with")),
        git=_text(src.get("git")), created=_text(src.get("created")), host=_text(src.get("host")),
        command=_text(src.get("command")),
        device=_text(dev.get("name")) if isinstance(dev, dict) else None,
        nvdisasm=_text(src.get("nvdisasm")), nvdisasm_version=_text(src.get("nvdisasm_version")))
