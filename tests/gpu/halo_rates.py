#!/usr/bin/env python3
"""The done-means table of the halo probe's rates (issue 16): per cube and setup (rank 0's halo
records), each stage's rate on its long messages (pack_busy, unpack_busy: their bytes over the time
any of them moved) and every long message (by default the probe's threshold, 64 KiB, which its
records carry) with its own median rate, against rank 0's plain write or read kernel of `hetprobe
bandwidth` measured in the same run, and the ratios; exit 1 when a setup with parts "auto" has a
stage under the minimum ratio (files from before busy rates: a message), whole-message setups
reported, not judged; 2 for bad input. With --launch files (the same setups launched again), the
verdict is on each judged stage's median ratio over the launches.

    tests/gpu/halo_rates.py HALO.jsonl BANDWIDTH.jsonl [--min-ratio 0.7] [--min-bytes BYTES] [--launch H2.jsonl ...]

Standard library only: the logic is the package's pybindings/hetprobe/data/halo_rates.py, loaded by
path (one copy; hetprobe.halo_rates is its pandas form), so it runs where hetprobe is not installed.
"""

import argparse
import importlib.util
import sys
from pathlib import Path

_SOURCE = Path(__file__).resolve().parents[2] / "pybindings" / "hetprobe" / "data" / "halo_rates.py"
_spec = importlib.util.spec_from_file_location("hetprobe_halo_rates", _SOURCE)
halo_rates = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(halo_rates)


def main(argv=None) -> int:
    """0 when every judged setup reaches the minimum (with launches: by its medians), 1 when one does
    not, 2 for bad input."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("halo", help="a halo results file (JSON Lines)")
    p.add_argument("bandwidth", help="a `hetprobe bandwidth --load write,read` results file")
    p.add_argument(
        "--min-ratio", type=float, default=halo_rates.MIN_RATIO, help="lowest rate / reference of a judged setup"
    )
    p.add_argument(
        "--min-bytes",
        type=int,
        help="messages this big or bigger are compared (default: the probe's threshold, which its records carry)",
    )
    p.add_argument(
        "--launch",
        action="append",
        default=[],
        help="another launch of the same setups (repeatable): the verdict is then on each judged stage's median "
        "over the launches",
    )
    a = p.parse_args(argv)
    try:
        halo, bandwidth = halo_rates.read_records(a.halo), halo_rates.read_records(a.bandwidth)
        lines, ok = halo_rates.report(halo, bandwidth, a.min_ratio, a.min_bytes)
        if a.launch:
            more, ok = halo_rates.launches_report(
                [halo] + [halo_rates.read_records(f) for f in a.launch], bandwidth, a.min_ratio
            )
            lines += [""] + more
    except (OSError, ValueError) as e:  # RatesError, a bad line (ResultsFileError)
        print(f"halo_rates: {e}")
        return 2
    print("\n".join(lines))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
