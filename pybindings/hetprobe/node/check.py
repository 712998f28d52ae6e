"""``hetprobe check RUN_DIR --baseline DIR [DIR ...]``: a run directory against a known-good node's,
GPU by GPU (matched by rank): each number of the gpus rounds held to the baselines' in the direction
that is bad (times up, GB/s and the link down); nothing is measured or written. The rule is C++'s
(hetprobe.node.verdict): a number is outside when its 95% interval lies wholly beyond the worst end of
the baselines' launches and intervals by more than the tolerance; the baselines must hold 2 launches or
more, so that their launch-to-launch spread is measured."""

from __future__ import annotations

import argparse
import sys

import pandas as pd

from .. import _rules
from ..cli_args import parse
from ..errors import UsageError
from . import verdict

CHECK_COLUMNS = [
    "GPU",
    "metric",
    "unit",
    "median",
    "lower",
    "upper",
    "baseline median",
    "baseline worst",
    "baseline launch spread",
    "status",
    "why",
]


def check(run, baseline, tolerance=verdict.DEFAULT_TOLERANCE) -> pd.DataFrame:
    """The run directory `run` against `baseline` (one run directory or a list of runs of one node), with
    its tolerance (`tolerance`: 0.1 or "10%"): one row per GPU and number compared (``CHECK_COLUMNS``:
    the run's median and 95% interval, the baselines' median, worst end and launch-to-launch spread, and
    "status", "outside" or "within"), and a row for each other number outside (a link). The verdict
    itself, as C++ makes it, is ``attrs["verdict"]`` ("outside", "compared", "not_judged", "tolerance",
    "baseline_runs", "baseline_launches"); UsageError for anything that cannot be compared
    (hetprobe.node.verdict.baseline_verdict)."""
    judged = verdict.baseline_verdict(run, baseline, verdict.parse_tolerance(tolerance))
    table = check_frame(judged)
    table.attrs["verdict"] = judged
    return table


def check_frame(judged: dict) -> pd.DataFrame:
    """A baseline verdict (C++'s, as a dict) as the rows of ``check``."""
    units = {m["key"]: m["unit"] for m in _rules.gpu_metrics}
    outside = {(o["gpu"], o["metric"]): o for o in judged["outside"]}
    rows = []
    for entry in judged["per_gpu"]:
        for metric, numbers in entry["metrics"].items():
            value, base = numbers.get("value") or {}, numbers.get("baseline") or {}
            low, high = value.get("ci95") or (None, None)
            off = outside.pop((entry["gpu"], metric), None)
            rows.append(
                [entry["gpu"], metric, units.get(metric), value.get("median"), low, high, base.get("median")]
                + [numbers.get("baseline_worst"), numbers.get("baseline_launch_spread")]
                + ["outside" if off else "within", off["why"] if off else None]
            )
    for (gpu, metric), off in outside.items():  # what is not a gpus-round number: the link
        rows.append(
            [gpu, metric, off.get("unit"), off.get("value"), None, None, None, off.get("reference"), None]
            + ["outside", off["why"]]
        )
    return pd.DataFrame(rows, columns=CHECK_COLUMNS).astype({c: float for c in CHECK_COLUMNS[3:9]})


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(
        prog="hetprobe check",
        description="Compare a run directory with a known-good node's (both written by hetprobe characterize): "
        "every GPU's round trip, launch+sync and bandwidths from the gpus rounds, and its PCIe link, against the "
        "same GPU (rank) of the baselines. A number is outside when its 95%% interval lies wholly beyond the "
        "worst end of the baselines' launches by more than --tolerance; the baselines (one run or several of "
        "one node) need 2 launches of the gpus step or more, so that their launch-to-launch spread is measured. "
        "Exit code 0: every number within; 1: some are outside (listed); 2: bad input (a missing directory, not "
        "a run directory, no gpus rounds, one baseline launch in all, baselines of different nodes, or runs of "
        "different GPU counts, backends or devices).",
    )
    p.add_argument("run_dir", metavar="RUN_DIR", help="the run directory to check")
    p.add_argument(
        "--baseline",
        metavar="DIR",
        nargs="+",
        action="extend",
        required=True,
        help="a known-good node's run directory, or several of the same node; give RUN_DIR before it",
    )
    p.add_argument(
        "--tolerance",
        default="10%",
        help="how much worse than the baselines' worst a number may be: a percent (10%%) or a fraction (0.1); "
        "times up and GB/s down are worse, better is never outside (default: %(default)s)",
    )
    a = parse(p, argv)
    try:
        done = verdict.baseline_verdict(a.run_dir, a.baseline, verdict.parse_tolerance(a.tolerance))
    except UsageError as e:
        print(f"hetprobe check: error: {e}", file=sys.stderr)
        return 2
    against = (
        f"{verdict.tolerance_text(done['tolerance'])} of the baselines' worst ({done['baseline_runs']} run(s), "
        f"{done['baseline_launches']} launches: {', '.join(map(str, a.baseline))})"
    )
    for line in done["not_judged"]:
        print(f"  not judged: {line}")
    if done["outside"]:
        print(f"{a.run_dir}: {len(done['outside'])} number(s) outside {against}:")
        for anomaly in done["outside"]:
            print(f"  {anomaly['line']}")
        return 1
    print(f"{a.run_dir}: every number within {against} ({done['compared']} compared)")
    return 0
