"""``hetprobe check RUN_DIR --baseline DIR [DIR ...]``: a run directory against a known-good node's,
GPU by GPU (matched by rank), each number held to the baseline's in the direction that is bad (times
up, GB/s and the link down); nothing is measured or written. Against several baseline runs (of one
node) a number may lie outside their range by the tolerance; against one, by the tolerance plus the
metric's launch-to-launch spread (hetprobe.node.flags says how)."""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

from ..errors import UsageError
from . import flags, gpus


@dataclass
class Checked:
    """What check() compared: the run's per-GPU table, each baseline run's, and the numbers outside."""

    table: object
    baselines: list
    tolerance: float
    outside: list

    @property
    def compared(self) -> int:
        """How many numbers the run and a baseline both have (one per GPU and compared metric)."""
        metrics = [m.column for m in gpus.METRICS + gpus.LINK_METRICS if m.worse]
        order = self.baselines[0]["GPU"]
        mine = flags.by_gpu(self.table, order)[metrics].notna().to_numpy()
        theirs = sum(flags.by_gpu(b, order)[metrics].notna().to_numpy() for b in self.baselines) > 0
        return int((mine & theirs).sum())


def _distinct(baseline) -> list:
    """The baseline directories, each once (a directory named twice is one run, not a range of two)."""
    paths = [baseline] if isinstance(baseline, (str, Path)) else list(baseline)
    if not paths:
        raise UsageError("--baseline: give at least one run directory")
    seen, out = set(), []
    for p in paths:
        key = Path(p).resolve()
        if key not in seen:
            seen.add(key)
            out.append(p)
    return out


def check(run, baseline, tolerance=flags.DEFAULT_TOLERANCE) -> Checked:
    """Compares the run directory `run` with `baseline`: one run directory or a list of them, runs of
    one node (see the module's doc). UsageError for a path that is not a run directory, a run without
    per-GPU data, baselines of different nodes (hosts, GPU count, backend, models), or a run of other
    GPUs (count, backend, device names) than the baselines'; ``Checked.outside`` lists the numbers
    worse by more than allowed (`tolerance`: 0.1 or "10%"), as characterize.json's anomalies."""
    fraction = flags.parse_tolerance(tolerance)
    _, table, who = gpus.read_run(run, "RUN_DIR")
    read = [(str(p), *gpus.read_run(p, "--baseline")[1:]) for p in _distinct(baseline)]
    flags.check_one_node([(path, base) for path, _, base in read])
    flags.check_comparable(who, read[0][2])
    references = [reference for _, reference, _ in read]
    return Checked(table, references, fraction, flags.baseline_anomalies(table, references, fraction))


def _against(tolerance: float, baselines: list) -> str:
    within = flags.tolerance_text(tolerance)
    if len(baselines) == 1:
        return f"{within} + each metric's launch spread of the baseline {baselines[0]}"
    return f"{within} of the range of the baselines {', '.join(map(str, baselines))}"


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(
        prog="hetprobe check",
        description="Compare a run directory with a known-good node's (both written by hetprobe characterize): "
        "every GPU's round trip, launch+sync, bandwidths, clock precision and PCIe link against the same GPU "
        "(rank) of the baseline. With several baseline runs of one node a number is flagged when it is worse "
        "than their range by more than --tolerance; with one, by more than --tolerance plus the metric's "
        "launch-to-launch spread. Exit code 0: every number within; 1: some are worse by more (listed); "
        "2: bad input (a missing directory, not a run directory, no per-GPU data, baselines of different "
        "nodes, or runs of different GPU counts, backends or devices).",
    )
    p.add_argument("run_dir", metavar="RUN_DIR", help="the run directory to check")
    p.add_argument(
        "--baseline",
        metavar="DIR",
        nargs="+",
        action="extend",
        required=True,
        help="a known-good node's run directory, or several of the same node (their range is the reference); "
        "give RUN_DIR before it",
    )
    p.add_argument(
        "--tolerance",
        default="10%",
        help="how much worse than the baseline a number may be: a percent (10%%) or a fraction (0.1); "
        "times up and GB/s down are worse, better is never outside; against one baseline run each "
        "metric's launch-to-launch spread is added (default: %(default)s)",
    )
    a = p.parse_args(argv)
    try:
        done = check(a.run_dir, a.baseline, a.tolerance)
    except UsageError as e:
        print(f"hetprobe check: error: {e}", file=sys.stderr)
        return 2
    against = _against(done.tolerance, _distinct(a.baseline))
    if done.outside:
        print(f"{a.run_dir}: {len(done.outside)} number(s) outside {against}:")
        for anomaly in done.outside:
            print(f"  {flags.anomaly_line(anomaly)}")
        return 1
    print(f"{a.run_dir}: every number of its {len(done.table)} GPU(s) within {against} ({done.compared} compared)")
    return 0
