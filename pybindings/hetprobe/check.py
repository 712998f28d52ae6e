"""``hetprobe check RUN_DIR --baseline DIR``: a run directory against a known-good node's, GPU by GPU
(matched by rank), each number within a tolerance of the baseline's in the direction that is bad
(times up, GB/s and the link down); nothing is measured or written."""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass

from . import gpus
from .errors import UsageError


@dataclass
class Checked:
    """What check() compared: the run's per-GPU table, the baseline's, and the numbers outside tolerance."""

    table: object
    baseline: object
    tolerance: float
    outside: list

    @property
    def compared(self) -> int:
        """How many numbers both runs have (one per GPU and compared metric)."""
        metrics = [m.column for m in gpus.METRICS + gpus.LINK_METRICS if m.worse]
        both = self.table[metrics].notna().to_numpy() & self.baseline[metrics].notna().to_numpy()
        return int(both.sum())


def check(run, baseline, tolerance=gpus.DEFAULT_TOLERANCE) -> Checked:
    """Compares the run directory `run` with `baseline` (see the module's doc). UsageError for a path
    that is not a run directory, a run without per-GPU data, or runs of different GPUs (count,
    backend, device names); ``Checked.outside`` lists the numbers worse by more than `tolerance`
    (0.1 or "10%"), as characterize.json's anomalies."""
    fraction = gpus.parse_tolerance(tolerance)
    _, table, who = gpus.read_run(run, "RUN_DIR")
    _, reference, base = gpus.read_run(baseline, "--baseline")
    gpus.check_comparable(who, base)
    return Checked(table, reference, fraction, gpus.baseline_anomalies(table, reference, fraction))


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(
        prog="hetprobe check",
        description="Compare a run directory with a known-good node's (both written by hetprobe characterize): "
        "every GPU's round trip, launch+sync, bandwidths, clock precision and PCIe link against the same GPU "
        "(rank) of the baseline. Exit code 0: every number within --tolerance; 1: some are worse by more "
        "(listed); 2: bad input (a missing directory, not a run directory, no per-GPU data, or runs of "
        "different GPU counts, backends or devices).",
    )
    p.add_argument("run_dir", metavar="RUN_DIR", help="the run directory to check")
    p.add_argument("--baseline", metavar="DIR", required=True, help="a known-good node's run directory")
    p.add_argument(
        "--tolerance",
        default="10%",
        help="how much worse than the baseline a number may be: a percent (10%%) or a fraction (0.1); "
        "times up and GB/s down are worse, better is never outside (default: %(default)s)",
    )
    a = p.parse_args(argv)
    try:
        done = check(a.run_dir, a.baseline, a.tolerance)
    except UsageError as e:
        print(f"hetprobe check: error: {e}", file=sys.stderr)
        return 2
    within = gpus.tolerance_text(done.tolerance)
    if done.outside:
        print(f"{a.run_dir}: {len(done.outside)} number(s) outside {within} of the baseline {a.baseline}:")
        for anomaly in done.outside:
            print(f"  {gpus.anomaly_line(anomaly)}")
        return 1
    print(
        f"{a.run_dir}: every number of its {len(done.table)} GPU(s) within {within} of the baseline {a.baseline} "
        f"({done.compared} compared)"
    )
    return 0
