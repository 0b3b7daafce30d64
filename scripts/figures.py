#!/usr/bin/env python3
"""Launcher of divbench.figures (scripts/divbench/figures.py).
Python puts this file's folder, scripts/, first on the module path, which is where the package is."""
import sys

from divbench.figures import main

sys.exit(main())
