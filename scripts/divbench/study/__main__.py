"""`python3 -m divbench.study`: the static study's command line (driver.py)."""
import sys

from divbench.study.driver import main

sys.exit(main())
