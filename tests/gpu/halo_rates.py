#!/usr/bin/env python3
"""The done-means table of the halo probe's rates (issue 16): per cube and setup (rank 0's halo
records), each stage's rate on its long messages (pack_busy, unpack_busy: their bytes over the time
any of them moved) and every message of 64 KiB or more with its own median rate, against rank 0's
plain write or read kernel of `hetprobe bandwidth` measured in the same run, and the ratios; exit 1
when a setup with parts "auto" has a stage under the minimum ratio (files from before busy rates:
a message), whole-message setups reported, not judged; 2 for bad input. With --launch files (the same
setups launched again), the verdict is on each judged stage's median ratio over the launches.

    tests/gpu/halo_rates.py HALO.jsonl BANDWIDTH.jsonl [--min-ratio 0.7] [--min-bytes 65536] [--launch H2.jsonl ...]

Standard library only: the logic is the package's pybindings/hetprobe/data/halo_rates.py, loaded by
path (one copy; hetprobe.halo_rates is its pandas form), so it runs where hetprobe is not installed.
"""

import importlib.util
import sys
from pathlib import Path

_SOURCE = Path(__file__).resolve().parents[2] / "pybindings" / "hetprobe" / "data" / "halo_rates.py"
_spec = importlib.util.spec_from_file_location("hetprobe_halo_rates", _SOURCE)
halo_rates = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(halo_rates)

if __name__ == "__main__":
    sys.exit(halo_rates.main())
