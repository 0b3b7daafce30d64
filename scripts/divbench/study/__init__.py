"""The static study (docs/study.md): compile the corpus (kernels/corpus/) for every architecture, analyse
the cubins with `divbench sass`, and write results/static/<arch>.json, figure4.json and table2.json.

  PYTHONPATH=scripts python3 -m divbench.study --divbench build/divbench [...]   (scripts/study/run.sh)

  corpus.py         the corpus registry (the `// corpus: <category> -- <idea>` tags)
  toolchains.py     nvcc 13, NVRTC 12.9 (nvrtc_compile.py) and the CUDA 12.8 nvdisasm for sm_61/sm_70
  records.py        divbench.sass/2 documents -> per-architecture records, Figure 4 and Table II rows
  diff.py           comparing a regenerated results folder with the committed one
  driver.py         the command line (also `python3 -m divbench.study`)
Tool discovery is divbench's own (include/divbench/sass/nvdisasm.hpp): the study passes --nvdisasm only
for the CUDA 12 architectures and reads which nvdisasm ran from the SASS document's provenance."""


class StudyError(Exception):
    """The study cannot go on (a compiler or divbench failed, the corpus or an analysis is inconsistent)."""
