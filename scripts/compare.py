#!/usr/bin/env python3
"""Launcher of divbench.compare (scripts/divbench/compare.py; gate / --gate: scripts/divbench/gate.py).
Python puts this file's folder, scripts/, first on the module path, which is where the package is."""
import sys

from divbench.compare import main

sys.exit(main())
