"""The ``hetprobe characterize`` command: its options, hetprobe.characterize run with them, what
it prints, and its exit code."""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from ..cli_args import parse
from ..errors import UsageError
from ..node import verdict as node_verdict
from ..report.write import printed_summary
from .characterize import characterize, default_directory
from .presets import parse_launches
from .probes import device_choices


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "directory",
        nargs="?",
        help="run directory to create (default: hetprobe-results/characterize-<host>-<UTC time>)",
    )
    p.add_argument(
        "--device",
        default="auto",
        help="backend: auto (a GPU if there is one, else host threads), or one of "
        f"{', '.join(d for d in device_choices() if d != 'auto')} (default: %(default)s)",
    )
    p.add_argument(
        "--quick",
        action="store_true",
        help="short runs (tests, a first look): fewer samples, 6 rounds of 2 sends per visit, sizes 1 KiB to "
        "1 MiB, a 2 s clock span",
    )
    p.add_argument(
        "--sizes",
        help="interference message sizes, as `hetprobe interference --sizes`, for its four "
        "steps (default: 1KiB,64KiB,1MiB,16MiB for the loads, 1KiB:16MiB:x16 for the paper's layouts, "
        "1KiB,1MiB for the cold sends)",
    )
    p.add_argument(
        "--reps",
        type=int,
        help="interference timed sends per visit of a point, in each of its 6 rounds (default: 4; --quick: 2; "
        "`--interference-args '--rounds N'` sets the rounds)",
    )
    p.add_argument(
        "--launches",
        metavar="N",
        help="run each interference step N times, each a separate mpirun/srun into its own file (interference.jsonl, "
        "interference.launch2.jsonl, ...); the report pools them, and from 3 launches on a point's ratio gets its "
        "95%% interval from the spread between launches (default: 3 launches of the loads step, whose points the "
        "headline names, and 1 of the rate, paper and cold steps; --quick: 1 of each)",
    )
    p.add_argument(
        "--paper",
        action="store_true",
        help="also run the paper's layout sweep (interference-paper: its writer in a message-sized buffer, "
        "every layout, both access modes), which the default leaves out to keep to its budget",
    )
    p.add_argument(
        "--launcher",
        help="how to start the interference pair and the per-GPU steps' ranks (one per device): mpirun, srun, "
        "or a whole prefix for the pair such as 'mpirun -np 2 --host a,b', whose program starts the per-GPU "
        "ranks (default: srun in a Slurm job, else mpirun)",
    )
    p.add_argument("--hosts", help="two hosts for the interference pair, comma-separated (default: this node)")
    p.add_argument(
        "--skip",
        default="",
        help="steps not to run, comma-separated: notify, clock, bandwidth, interference (its "
        "four steps), interference-rate, interference-paper, interference-cold",
    )
    p.add_argument(
        "--tolerance",
        default="10%",
        help="how far a GPU's number may be worse than the node's median (on a node of two GPUs: than the "
        "other GPU), or than the baseline's same GPU, before it is flagged: a percent (10%%) or a fraction "
        "(0.1); times up and GB/s down are worse (default: %(default)s)",
    )
    p.add_argument(
        "--baseline",
        metavar="DIR",
        help="a known-good node's run directory: after measuring, compare every GPU with its GPU of the same "
        "rank; exit code 1 when a number is worse by more than --tolerance (checked first: the same GPU count, "
        "backend and device names)",
    )
    p.add_argument("--no-report", action="store_true", help="measure only; `hetprobe report DIR` writes it later")
    p.add_argument("--timeout", type=float, help="seconds each probe may run before it is stopped")
    p.add_argument(
        "--progress",
        choices=["auto", "bar", "lines"],
        default="auto",
        help="a progress bar (terminal) or plain lines (batch logs); auto picks by stderr",
    )
    for probe in ("gpus", "notify", "clock", "bandwidth", "interference"):
        p.add_argument(
            f"--{probe}-args",
            type=shlex.split,
            default=[],
            metavar="'OPTIONS'",
            help=f"extra options for `hetprobe {probe}`, quoted",
        )


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(
        prog="hetprobe characterize",
        description=(
            "Characterise this node: topology; every GPU, one rank each, in shuffled rounds over three launches (the "
            "node verdict: a GPU worse than the others beyond --tolerance is re-measured in one more launch and "
            "flagged only when that confirms it); on every GPU, CPU<->GPU notification costs, the clock "
            "relation and pinned-memory bandwidth with the PCIe link read under load; and how GPU traffic of every "
            "kind (writes, reads, polling, the copy engine; from the sender's GPU and from all) slows MPI_Send on two"
            " ranks, warm and cold (2 ms of computing before each send), and with --paper the paper's layouts: each "
            "size in shuffled rounds, the ratio to the idle GPU's send paired per round, over several launches. A "
            "slowdown is claimed only where its 95% interval lies wholly above 1.05. Writes a run directory with "
            "every result (JSON Lines), a report (Markdown + PNG, and one self-contained HTML file) with a per-GPU "
            "table that flags a GPU off the others by more than --tolerance or with a link below its maximum, and "
            "prints a summary. Runs on host threads where there is no GPU, and says so. Exit code 0: every probe "
            "finished (and, with --baseline, every GPU is within tolerance of the baseline's); 1: a probe failed or "
            "stopped (the report is still written, its section says why), or a GPU is outside tolerance of the "
            "baseline; 2: bad input (nothing written); 130: interrupted (finished records kept; `hetprobe report DIR`"
            " writes the report)."
        ),
    )
    add_arguments(p)
    a = parse(p, argv)
    directory = Path(a.directory) if a.directory else default_directory()
    try:
        skip = a.skip.split(",") if a.skip else []
        if not all(skip):
            raise UsageError(f"--skip {a.skip!r}: an empty item in the list (steps are comma-separated)")
        run = characterize(
            directory,
            device=a.device,
            quick=a.quick,
            sizes=a.sizes,
            reps=a.reps,
            launches=parse_launches(a.launches) if a.launches is not None else None,
            paper=a.paper,
            launcher=a.launcher,
            hosts=a.hosts,
            skip=skip,
            report=not a.no_report,
            timeout_s=a.timeout,
            progress={"auto": None, "bar": True, "lines": False}[a.progress],
            notify_args=a.notify_args,
            clock_args=a.clock_args,
            gpus_args=a.gpus_args,
            bandwidth_args=a.bandwidth_args,
            interference_args=a.interference_args,
            tolerance=a.tolerance,
            baseline=a.baseline,
        )
    except UsageError as e:
        print(f"hetprobe characterize: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(
            f"\nhetprobe characterize: interrupted; every finished record is in {directory}"
            " (characterize.json says which probes ran)",
            file=sys.stderr,
        )
        return 130
    summary = run.directory / "summary.txt"
    if summary.exists():
        sys.stdout.write(printed_summary(run.directory))
    print(f"run directory: {run.directory}  (measured in {run.wall_s:.0f} s, report in {run.report_s:.0f} s)")
    for step in run.failed():
        print(
            f"FAILED: {step.name} (exit code {step.exit_code}) after {step.records} record(s): {step.error}; "
            f"see {run.directory / 'logs' / (step.name + '.log')}"
        )
    if run.baseline:
        outside = run.outside_baseline()
        print(
            f"baseline {run.baseline['directory']}: "
            + (
                f"every GPU within {node_verdict.tolerance_text(run.tolerance)}"
                if not outside
                else f"{len(outside)} number(s) outside {node_verdict.tolerance_text(run.tolerance)}:"
            )
        )
        for a in outside:
            print(f"OUTSIDE TOLERANCE: {a['line']}")
    if run.compare_error:
        print(
            f"hetprobe characterize: error: the per-GPU table could not be built ({run.compare_error})", file=sys.stderr
        )
    if run.report_error:
        print(
            f"hetprobe characterize: error: the report could not be written ({run.report_error}); the "
            f"measurements are kept: `hetprobe report {run.directory}` writes it",
            file=sys.stderr,
        )
    return 1 if run.failed() or run.report_error or run.compare_error or run.outside_baseline() else 0
