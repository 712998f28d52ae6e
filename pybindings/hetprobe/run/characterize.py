"""``hetprobe characterize``: the main job. One command runs every probe on
this node with sensible defaults and leaves a run directory:

    topology.json, topology.txt        the node (hwloc)
    gpus.jsonl, gpus.launch2.jsonl,    every GPU in shuffled rounds, three launches spread over the
    ...                                run, and a re-measure launch when one is flagged (the verdict's)
    notify.jsonl, clock.jsonl,         every record of every probe (JSON Lines), with the CLI's
    bandwidth.jsonl                    tables beside them (*.txt): every GPU on its own,
    interference.jsonl                 the loads during MPI_Send,
    interference-rate.jsonl            the write load's rate curve,
    interference-paper.jsonl           the paper's layout sweep (--paper),
    interference-cold.jsonl            cold sends (2 ms of computing before each) under the loads;
    <step>.launch2.jsonl, ...          the interference steps' further launches (--launches)
    logs/                              each step's stderr
    report.md, report.html, *.png      the report: plots, headline numbers, the per-GPU table
    characterize.json                  what ran: commands, exit codes, wall times; the per-GPU
                                       table, the node verdict ("verdict": every GPU flagged and
                                       whether its re-measure confirmed it; "anomalies": those
                                       that count), the baseline check

Each probe is the ``hetprobe`` executable in its own process, so a killed run
keeps every finished record, and one failing probe does not lose the others.
notify, clock and bandwidth run one rank per device of the backend (mpirun or
srun with as many ranks as devices; one device: the probe alone), each rank on
its own GPU; interference runs its pair of ranks under mpirun or srun. The gpus
step's rounds make the node verdict (C++, hetprobe.node.verdict): a GPU whose
ratio to the node's others lies wholly beyond --tolerance, over every launch, is
re-measured in one more launch and counts only when that confirms it; a PCIe link
below its maximum counts as read. --baseline DIR then compares every GPU with
the same GPU of a known-good node's runs.

The interference steps measure each size in rounds (the ratio to SSB paired per round, with its 95%
interval over the rounds) and run as several launches, each a separate mpirun or srun into its own
file: a process launch is the unit of replication (docs/metrics.md), and the report pools them
(Results.interference_ratios).
"""

from __future__ import annotations

import math
import os
import platform
import sys
import time
from pathlib import Path

from ..data.jsonl import results_files
from ..data.launches import headline as interference_headline
from ..data.load import load
from ..data.paths import FileKind, file_kind, path_argument
from ..data.results import Results
from ..data.run_steps import COLD, LOADS, PAPER, RATES
from ..data.steps import family, launch_name
from ..errors import UsageError
from ..node import gpus as gpu_table, verdict as node_verdict
from .hosts import check_pair
from .launch import Node, StepOptions, node_devices, probe_command, run_step, write_topology
from .manifest import Run, Step, write_manifest
from .presets import (
    LAUNCHED_STEPS,
    MAX_LAUNCHES,
    MAX_REPS,
    MAX_TIMEOUT_S,
    ON_REQUEST,
    PER_GPU_STEPS,
    PROBES,
    VERDICT_STEP,
    launches_of,
)
from .probes import device_choices
from .progress import Progress
from .step_options import check_step_options


def default_directory() -> Path:
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    return Path("hetprobe-results") / f"characterize-{platform.node()}-{stamp}"


# Step options that would stop a step from measuring what characterize asks of it, and why.
_STEP_OPTIONS_REFUSED = {
    "--help": "prints the probe's help instead of measuring",
    "-h": "prints the probe's help instead of measuring",
    "--version": "prints the version instead of measuring",
    "--out": "characterize names each step's results file",
    "--phase": "characterize runs the gpus re-measure itself, as its verdict asks",
}


def _names(value, keyword: str, what: str) -> tuple[str, ...]:
    """A list (or tuple) of strings given to `keyword`, checked: a single string is refused, not read letter
    by letter ("skip: expected a list of step names, got the string 'notify'")."""
    if isinstance(value, str) or not isinstance(value, (list, tuple)):
        got = f"the string {value!r}" if isinstance(value, str) else f"{type(value).__name__} {value!r}"
        raise UsageError(f"{keyword}: expected a list of {what}, got {got}")
    for item in value:
        if not isinstance(item, str):
            raise UsageError(f"{keyword}: expected a list of {what}, got {type(item).__name__} {item!r} in it")
    return tuple(value)


def _step_args(value, probe: str) -> tuple[str, ...]:
    """A probe's extra options, checked: a list of strings, none that would keep its step from measuring."""
    args = _names(value, f"{probe}_args", "options such as ['--rounds', '6']")
    for arg in args:
        option = arg.split("=", 1)[0]
        if option in _STEP_OPTIONS_REFUSED:
            raise UsageError(
                f"--{probe}-args {arg}: {_STEP_OPTIONS_REFUSED[option]}; characterize would record a step "
                "that measured nothing"
            )
    return args


def _got(value, types: tuple) -> str:
    """ ", got str" where `value` is not of `types` (a bool is no number): the type a message names."""
    return "" if isinstance(value, types) and not isinstance(value, bool) else f", got {type(value).__name__}"


def _check_options(device, timeout_s, reps, hosts, skip, directory: Path, launches=None) -> str | None:
    """characterize's own options, checked before anything is written (the probes check theirs): a
    UsageError for a bad one. Returns the hosts as the launcher gets them: the names check_pair read,
    stripped once, so that MPI gets what was checked."""
    if device not in device_choices():
        raise UsageError(f"--device {device}: expected one of {', '.join(device_choices())}")
    if timeout_s is not None and (
        isinstance(timeout_s, bool)
        or not isinstance(timeout_s, (int, float))
        or not math.isfinite(timeout_s)
        or not 0 < timeout_s <= MAX_TIMEOUT_S
    ):
        raise UsageError(
            f"--timeout {timeout_s!r}: expected a finite number of seconds above 0 and at most {MAX_TIMEOUT_S} "
            f"(one week){_got(timeout_s, (int, float))}"
        )
    if reps is not None and (isinstance(reps, bool) or not isinstance(reps, int) or not 1 <= reps <= MAX_REPS):
        raise UsageError(f"--reps {reps!r}: expected an integer from 1 to {MAX_REPS:,}{_got(reps, (int,))}")
    if launches is not None and (
        isinstance(launches, bool) or not isinstance(launches, int) or not 1 <= launches <= MAX_LAUNCHES
    ):
        raise UsageError(f"--launches {launches!r}: expected a whole number of launches from 1 to {MAX_LAUNCHES}")
    if hosts is not None and not isinstance(hosts, str):
        raise UsageError(f"hosts: expected the pair as one string, 'a,b', got {type(hosts).__name__} {hosts!r}")
    pair = ",".join(check_pair(hosts)) if hosts is not None else None
    unknown = set(skip) - set(PROBES)
    if unknown:
        raise UsageError(
            f"--skip {','.join(sorted(unknown))}: the steps are {', '.join(PROBES)} "
            "(interference skips all four of its steps)"
        )
    kind = file_kind(directory)
    if kind is not None and kind != FileKind.DIRECTORY:
        raise UsageError(f"{directory} is {kind}: give a run directory to create")
    if kind is not None and any(directory.iterdir()):
        raise UsageError(f"{directory} is not empty: choose another run directory")
    existing = next(p for p in [directory, *directory.absolute().parents] if p.exists())
    if file_kind(existing) != FileKind.DIRECTORY or not os.access(existing, os.W_OK | os.X_OK):
        raise UsageError(f"{directory}: cannot create it in {existing} (not a writable directory)")
    return pair


def characterize(
    directory=None,
    *,
    device: str = "auto",
    quick: bool = False,
    sizes: str | None = None,
    reps: int | None = None,
    launches: int | None = None,
    paper: bool = False,
    launcher: str | None = None,
    hosts: str | None = None,
    skip=(),
    report: bool = True,
    timeout_s: float | None = None,
    progress: bool | None = None,
    gpus_args=(),
    notify_args=(),
    clock_args=(),
    bandwidth_args=(),
    interference_args=(),
    tolerance=node_verdict.DEFAULT_TOLERANCE,
    baseline=None,
) -> Run:
    """Characterises this node (see the module's doc) and returns what ran; ``hetprobe.load(run.directory)`` loads
    it. ``quick``: short runs for tests. ``sizes``/``reps``: the interference sweep (reps: timed sends per visit
    of a point, in each of its rounds). ``launches``: separate launches of every interference step, each into its
    own file (<step>.jsonl, <step>.launch2.jsonl, ...); None: 3 of the loads step (the headline's) and 1 of the
    others, 1 of each with ``quick`` (``run.launches``). ``paper``: also the paper's layout sweep
    (interference-paper). ``launcher``/``hosts``: how the interference pair is launched (default: 2 ranks here, or
    srun in a Slurm job; the per-GPU steps use its program with one rank per device). ``skip``: steps not to run
    ("interference" skips its four). ``*_args``: extra CLI options per probe (interference_args go to its four
    steps). ``tolerance`` (0.1 or "10%"): how far a GPU may be worse than the node's others, or than the
    ``baseline`` run directory's same GPU, before it is flagged (``run.verdict``, ``run.anomalies``;
    ``run.outside_baseline()``).
    Options, and the baseline's GPUs against this node's, are checked before anything is written (UsageError). A
    probe that fails or stops keeps its finished records and its report section, marked with the last error of its
    log (``run.failed()``); the others run on, and the report is written."""
    directory = Path(path_argument(directory, "directory")) if directory is not None else default_directory()
    skip = _names(skip, "skip", "step names")
    options = StepOptions(
        device=device,
        quick=quick,
        sizes=sizes,
        reps=reps,
        launcher=launcher,
        hosts=_check_options(device, timeout_s, reps, hosts, skip, directory, launches),
        probe_args={
            "gpus": _step_args(gpus_args, "gpus"),
            "notify": _step_args(notify_args, "notify"),
            "clock": _step_args(clock_args, "clock"),
            "bandwidth": _step_args(bandwidth_args, "bandwidth"),
            "interference": _step_args(interference_args, "interference"),
        },
    )
    fraction = node_verdict.parse_tolerance(tolerance)
    asked = [probe for probe in PROBES if probe not in ON_REQUEST or paper]
    chosen = [probe for probe in asked if probe not in skip and family(probe) not in skip]
    per_gpu_steps = [p for p in chosen if p in PER_GPU_STEPS]
    measure_gpus = VERDICT_STEP in chosen
    node = node_devices(device) if per_gpu_steps or measure_gpus or baseline is not None else Node(None, 1)
    if node.backend == "host" and node.auto_reason:  # said once here; each probe's log says it too
        print(f"hetprobe characterize: {node.auto_reason}", file=sys.stderr)
    if baseline is not None:
        if not measure_gpus:
            raise UsageError("--baseline compares the gpus step's rounds: do not skip it")
        node_verdict.check_baseline_node(node, baseline)
    # Every step of every launch is made now: a launcher not found is refused before anything is written.
    steps = [
        Step(probe, probe_command(probe, options, directory / f"{probe}.jsonl", node.gpus), ranks=node.gpus)
        for probe in per_gpu_steps
    ]
    chosen_launched = [probe for probe in chosen if probe in LAUNCHED_STEPS]
    most = max((launches_of(probe, launches, quick) for probe in chosen_launched), default=0)
    launched = [  # launch 1 of every step, then the further launches of those that have them
        Step(probe, probe_command(probe, options, directory / f"{launch_name(probe, k)}.jsonl", launch=k), launch=k)
        for k in range(1, most + 1)
        for probe in chosen_launched
        if k <= launches_of(probe, launches, quick)
    ]
    gpu_launches = launches_of(VERDICT_STEP, launches, quick) if measure_gpus else 0
    rounds = [_gpus_step(options, directory, node, k) for k in range(1, gpu_launches + 1)]
    check_step_options(steps + [s for s in launched if s.launch == 1] + rounds[:1])  # each probe checks its own
    (directory / "logs").mkdir(parents=True, exist_ok=True)
    # The gpus launches spread over the run: first, after the per-GPU steps, after the interference
    # steps (and any more between them), so that a transient of the node falls on one launch.
    order = rounds[:1] + steps + rounds[1:2] + launched + rounds[2:]
    show = Progress(
        sys.stderr,
        bar=sys.stderr.isatty() if progress is None else progress,
        steps=[s.name for s in order],
    )
    run = Run(directory, gpus=node.gpus, tolerance=fraction, launches_asked=launches)
    start = time.monotonic()
    write_topology(directory)
    for step in order:
        if step.launch is not None and step.probe != VERDICT_STEP:
            run.launches[step.probe] = step.launch
        _run_and_record(run, step, show, timeout_s, start)
    _judge(run, baseline, options, node, show, timeout_s, start, gpu_launches)
    run.headline = _headline_numbers(directory)
    write_manifest(run)
    if report:
        from ..report.write import write_report  # matplotlib is only needed here

        try:
            write_report(directory, run)
        except Exception as e:  # noqa: BLE001 - the measurements are kept; `hetprobe report DIR` may retry
            run.report_error = f"{type(e).__name__}: {e}"
        run.report_s = time.monotonic() - start - run.wall_s
        write_manifest(run)
    return run


def _headline_numbers(directory: Path) -> dict | None:
    """The interference headline's numbers (value, interval, effect, point; C++ chooses them over the
    run's aggregates) for characterize.json, which a site's dashboard or check reads without parsing
    text; None without interference points."""
    files = [f for f in results_files(directory) if family(f.name) == "interference"]
    if not files:
        return None
    try:
        picks = interference_headline(load(files, errors="skip"), [LOADS, RATES], [COLD], [PAPER])
    except UsageError:  # a record C++ cannot read: the report names it
        return None
    return picks.numbers if picks is not None else None


def _run_and_record(run: Run, step: Step, show: Progress, timeout_s, start: float) -> None:
    """Runs one step into <its name>.jsonl, the manifest rewritten after it (a killed run keeps it)."""
    run.steps.append(step)
    try:
        run_step(step, run.directory / f"{step.name}.jsonl", run.directory, show, timeout_s)
    finally:
        run.wall_s = time.monotonic() - start
        write_manifest(run)


def _gpus_step(options: StepOptions, directory: Path, node: Node, launch: int, phase: str = "measure") -> Step:
    """Launch `launch` of the gpus step, one rank per device; `phase` remeasure confirms a flagged GPU."""
    name = launch_name(VERDICT_STEP, launch)
    extra = ["--phase", phase] if phase != "measure" else []
    command = probe_command(VERDICT_STEP, options, directory / f"{name}.jsonl", node.gpus, launch, extra)
    return Step(VERDICT_STEP, command, launch=launch, ranks=1)


def _judge(
    run: Run, baseline, options: StepOptions, node: Node, show: Progress, timeout_s, start: float, launches: int
) -> None:
    """The node verdict (C++), after one more launch of the gpus step where a GPU is flagged but not yet
    re-measured; then the baseline's, with --baseline. A verdict that cannot be made is named in
    run.compare_error (the measurements stay)."""
    try:
        verdict = node_verdict.node_verdict(run.directory, run.tolerance)
        if verdict["remeasure_gpus"]:
            step = _gpus_step(options, run.directory, node, launches + 1, "remeasure")
            show.add(step.name)
            _run_and_record(run, step, show, timeout_s, start)
            verdict = node_verdict.node_verdict(run.directory, run.tolerance)
        run.verdict = verdict
        run.anomalies = list(verdict["anomalies"])
        files = [f for f in results_files(run.directory) if family(f.name) in (VERDICT_STEP, *PER_GPU_STEPS)]
        files.append(run.directory / "topology.json")
        run.per_gpu = gpu_table.table_records(
            gpu_table.per_gpu(
                load([f for f in files if f.exists()], errors="skip") if files else Results.empty(), verdict
            )
        )
        if baseline is not None:
            checked = node_verdict.baseline_verdict(run.directory, baseline, run.tolerance)
            run.anomalies += checked["outside"]
            run.baseline = {
                "directory": str(baseline),
                "within_tolerance": not checked["outside"],
                "compared": checked["compared"],
                "baseline_launches": checked["baseline_launches"],
                "not_judged": checked["not_judged"],
            }
    except Exception as e:  # noqa: BLE001 - a reader's bug must not lose the run; `hetprobe check` may retry
        run.compare_error = f"{type(e).__name__}: {e}"
