"""``hetprobe characterize``: the main job. One command runs every probe on
this node with sensible defaults and leaves a run directory:

    topology.json, topology.txt        the node (hwloc)
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
                                       table, the GPUs flagged ("anomalies"), the baseline check

Each probe is the ``hetprobe`` executable in its own process, so a killed run
keeps every finished record, and one failing probe does not lose the others.
notify, clock and bandwidth run one rank per device of the backend (mpirun or
srun with as many ranks as devices; one device: the probe alone), each rank on
its own GPU; interference runs its pair of ranks under mpirun or srun. A GPU
worse than the node's others by more than --tolerance, or whose PCIe link runs
below its maximum, is flagged (hetprobe.gpus says how); --baseline DIR then
compares every GPU with the same GPU of a known-good node's run.

The interference steps measure each size in rounds (the ratio to SSB paired per round, with its 95%
interval over the rounds) and run as several launches, each a separate mpirun or srun into its own
file: a process launch is the unit of replication (docs/metrics.md), and the report pools them
(Results.interference_ratios).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import shlex
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from . import gpus as gpu_table
from ._paths import file_kind
from ._step_options import check_step_options
from ._step_records import expected_records, family, launch_name
from .errors import UsageError
from .hosts import check_pair
from .load import Results, load
from .probes import binary, error_channel, follow, launch_command, launch_env
from .progress import Progress, record_label

# Presets: the defaults aim at 30 s plus 15 s per GPU (on one H100, 2026-11-25: notify 4.4 s, the
# clock 5.4 s at a 3 s span and bandwidth 3.8 s per GPU, the GPUs one after the other; a launch of the
# loads step 5.2 s (6 s with the node's STREAM), the rates 4.4 s, the cold sends 3.2 s, the report 4-5.5
# s). --quick is for tests and a first look (on 2 CPU cores with one host device about 7 s for the
# per-GPU steps and 10 s per launch of the interference steps).
# bandwidth: the plain passes of the per-GPU table, the persistent writer, and the write load, during
# which the GPU's PCIe link is read (an idle NVIDIA GPU lowers its link speed).
# interference: each size in rounds, each visiting every point once (--reps sends per visit after
# --warmup): 6 rounds are the fewest that give one launch's ratio a 95% interval, [q(1), q(6)]
# (docs/metrics.md, "Rounds and confidence intervals"). The loads step, which the headline rests on,
# runs as 3 launches (DEFAULT_LAUNCHES): one launch's headline did not repeat on an H100, three did.
_ROUNDS = ["--rounds", "6", "--reps", "4", "--warmup", "1"]
_QUICK_ROUNDS = ["--rounds", "6", "--reps", "2", "--warmup", "1"]
_LOAD_SIZES = "1KiB,64KiB,1MiB,16MiB"
_LOADS = ["--layouts", "SSB,P2AB", "--access", "stacked"]
# Cold sends: the sender spins 2 ms before each timed send (an application computes between sends),
# the GPU idle (SSB) and under every load from the sender's GPU.
_COLD = _LOADS + ["--load", "all", "--gap", "2ms", "--no-host-stream"]
PRESETS = {
    "default": {
        # Half notify's own defaults: medians of 5000 round trips and 1000 mechanism samples are as
        # steady, and the run keeps to its budget.
        "notify": ["--exchanges", "5000", "--mechanism-samples", "1000"],
        "clock": ["--span", "2.5", "--check-after", "0.5"],  # drift to about 1 ppm at 1.2 us precision
        "bandwidth": ["--size", "256MiB", "--reps", "5", "--duration", "0.1", "--load", "write"],
        # Every load kind at full rate, from the sender's GPU and from every GPU.
        "interference": ["--sizes", _LOAD_SIZES, "--load", "all", "--load-gpus", "1,all"] + _LOADS + _ROUNDS,
        # The write load's curve: slowdown against its rate.
        "interference-rate": [
            "--sizes",
            _LOAD_SIZES,
            "--load",
            "write",
            "--load-rate",
            "0.25,0.5,0.75,1",
            "--no-host-stream",
        ]
        + _LOADS
        + _ROUNDS,
        # The paper's configuration: its writer in a message-sized buffer, every layout, both access modes.
        "interference-paper": ["--paper", "--sizes", "1KiB:16MiB:x16", "--no-host-stream"] + _ROUNDS,
        "interference-cold": ["--sizes", "1KiB,1MiB"] + _COLD + _ROUNDS,
    },
    "quick": {
        "notify": ["--overhead-samples", "20", "--exchanges", "1000", "--mechanism-samples", "200"],
        "clock": ["--span", "2", "--check-after", "1", "--batches", "4", "--samples", "100"],
        "bandwidth": ["--size", "64MiB", "--reps", "3", "--duration", "0.05", "--load", "write"],
        "interference": ["--sizes", "1KiB,64KiB", "--load", "all", "--load-gpus", "1,all", "--load-bytes", "8MiB"]
        + _LOADS
        + _QUICK_ROUNDS,
        "interference-rate": [
            "--sizes",
            "64KiB",
            "--load",
            "write",
            "--load-rate",
            "0.5,1",
            "--load-bytes",
            "8MiB",
            "--no-host-stream",
        ]
        + _LOADS
        + _QUICK_ROUNDS,
        "interference-paper": ["--paper", "--sizes", "1KiB:1MiB:x16", "--no-host-stream"] + _QUICK_ROUNDS,
        "interference-cold": ["--sizes", "1KiB,64KiB", "--load-bytes", "8MiB"] + _COLD + _QUICK_ROUNDS,
    },
}
PROBES = (
    "notify",
    "clock",
    "bandwidth",
    "interference",
    "interference-rate",
    "interference-paper",
    "interference-cold",
)
LAUNCHED_STEPS = PROBES[3:]  # each launch of these is a separate mpirun/srun into its own file
# Launches of each interference step without --launches: the headline's step 3, the fewest that give a
# pooled point its interval from the launches' spread; the others 1, so the run keeps to its budget.
DEFAULT_LAUNCHES = {"interference": 3}
# Run only when asked (--paper): the paper's configuration, a GPU writing a message-sized buffer beside
# the send buffer, is not what applications do; the default measures what they do within its budget.
ON_REQUEST = ("interference-paper",)
MAX_LAUNCHES = 100
PER_GPU_STEPS = ("notify", "clock", "bandwidth")  # one rank per device
DEVICES = ("auto", "cuda", "hip", "host")
MAX_TIMEOUT_S = 7 * 24 * 3600  # --timeout bounds a whole probe; a week is past any sensible sweep
MAX_REPS = 1_000_000  # --reps; the interference probe may refuse fewer (it checks its own memory)


@dataclass
class Step:
    probe: str  # the step: "interference-rate"
    command: list[str]
    launch: int | None = None  # the interference steps' launch, 1, 2, ...; None for the per-GPU steps
    status: str = "not run"
    exit_code: int | None = None
    wall_s: float | None = None
    records: int = 0
    error: str | None = None  # the last error of its log, when it did not finish
    ranks: int = 1  # ranks that write records (the header's planned_records is per rank)

    @property
    def name(self) -> str:
        """Its results file, table and log are <name>.jsonl, <name>.txt, logs/<name>.log."""
        return launch_name(self.probe, self.launch or 1)


@dataclass
class Run:
    directory: Path
    steps: list[Step] = field(default_factory=list)
    wall_s: float = 0.0  # topology and the probes
    report_s: float = 0.0  # writing the report
    report_error: str | None = None  # why the report could not be written
    gpus: int = 1  # devices measured by the per-GPU steps
    tolerance: float = gpu_table.DEFAULT_TOLERANCE
    per_gpu: list = field(default_factory=list)  # the rows of hetprobe.gpus.per_gpu
    anomalies: list = field(default_factory=list)  # the GPUs flagged: against the node, the baseline
    baseline: dict | None = None  # {"directory", "within_tolerance"} with --baseline
    compare_error: str | None = None  # why the per-GPU table could not be built
    launches: dict = field(default_factory=dict)  # {interference step: its launches run}
    launches_asked: int | None = None  # --launches; None: the default (DEFAULT_LAUNCHES)

    def outside_baseline(self) -> list[dict]:
        return [a for a in self.anomalies if a["reference_kind"] == "baseline"]

    def failed(self) -> list[Step]:
        return [s for s in self.steps if s.status == "failed"]


def default_directory() -> Path:
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    return Path("hetprobe-results") / f"characterize-{platform.node()}-{stamp}"


def _options(words: list[str]) -> list[list[str]]:
    """["--a", "1", "--b", "--c", "x"] as [["--a", "1"], ["--b"], ["--c", "x"]]: each option with its values."""
    groups: list[list[str]] = []
    for word in words:
        if word.startswith("--") or not groups:
            groups.append([word])
        else:
            groups[-1].append(word)
    return groups


def _overridden(preset: list[str], given: list[str]) -> list[str]:
    """The preset's options less those the user gives, then the user's: a probe takes each option once."""
    named = {group[0].split("=")[0] for group in _options(given)}
    kept = [group for group in _options(preset) if group[0].split("=")[0] not in named]
    return [word for group in kept for word in group] + given


@dataclass
class Node:
    """The devices the per-GPU steps run on: the backend --device picks, how many devices it has
    (one rank each) and their names by ordinal; with --device auto, why it picked that backend
    ("no GPU found (no CUDA driver); using the host backend")."""

    backend: str | None
    gpus: int
    names: dict = field(default_factory=dict)
    auto_reason: str | None = None


def node_devices(device: str) -> Node:
    """This node's devices of the backend `device` picks, from `hetprobe devices --json` (in the
    launchers' environment: HETPROBE_HOST_DEVICES=N gives the host backend N devices). A backend
    without devices counts one: its probe then says why it cannot run."""
    cmd = [binary(), "devices", "--json"]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, env=launch_env(), timeout=300)
        listing = json.loads(done.stdout) if done.returncode == 0 else None
    except (OSError, ValueError, subprocess.TimeoutExpired) as e:
        raise UsageError(f"{shlex.join(cmd)} failed ({e}): cannot count this node's devices") from None
    if not isinstance(listing, dict):
        why = (done.stderr.strip().splitlines() or [f"exit code {done.returncode}"])[-1]
        raise UsageError(f"{shlex.join(cmd)} failed: {why}")
    backend = listing.get("auto") if device == "auto" else device
    entry = next((b for b in listing.get("backends") or [] if b.get("backend") == backend), {})
    names = {
        d.get("ordinal"): gpu_table.model(d.get("name") or "") for d in entry.get("list") or [] if isinstance(d, dict)
    }
    count = entry.get("devices") if isinstance(entry.get("devices"), int) else 0
    reason = listing.get("auto_reason") if device == "auto" else None
    return Node(backend, max(1, count), names, reason if isinstance(reason, str) else None)


def per_gpu_launcher(gpus: int, launcher: str | None) -> list[str]:
    """The prefix that starts one rank per device on this node: none for one device (the probe runs
    alone); mpirun or srun (`launcher`'s program where it is a whole prefix, which is the interference
    pair's) with `gpus` ranks, srun kept to this node."""
    if gpus == 1:
        return []
    program = shlex.split(launcher)[0] if launcher else None
    try:
        cmd = launch_command(gpus, program)
    except UsageError as e:
        raise UsageError(
            f"{e}: the per-GPU steps need it for the {gpus} devices (--skip notify,clock,bandwidth runs the others)"
        ) from None
    if Path(cmd[0]).name == "srun":
        here = launch_env().get("SLURMD_NODENAME")
        cmd += ["-N", "1"] + (["--nodelist", here] if here else [])
    return cmd


def _probe_command(step: str, args, out: Path, gpus: int = 1, launch: int = 1) -> list[str]:
    probe = family(step)
    base = [binary(), probe, "--out", str(out), "--quiet", "--device", args.device]
    given = list(getattr(args, f"{probe}_args") or [])
    if probe == "interference" and args.sizes:
        given += ["--sizes", args.sizes]
    if probe == "interference" and args.reps:
        given += ["--reps", str(args.reps)]
    extra = _overridden(list(PRESETS["quick" if args.quick else "default"][step]), given)
    if launch > 1 and "--no-host-stream" not in extra:  # the node's STREAM: the first launch measured it
        extra.append("--no-host-stream")
    if probe != "interference":
        return per_gpu_launcher(gpus, args.launcher) + base + extra
    try:
        return launch_command(2, args.launcher, args.hosts) + base + extra
    except UsageError as e:
        raise UsageError(f"{e}: the interference steps need it (--skip interference runs the others)") from None


def last_error(log: Path) -> str | None:
    """The last error line of a probe's log (its stderr): hetprobe's own message where there is one,
    not the launcher's lines after it; else the last line that says error; None without one."""
    try:
        lines = [ln.strip() for ln in log.read_text(errors="replace").splitlines() if ln.strip()]
    except OSError:
        return None
    errors = [ln for ln in lines if "error" in ln.lower()]
    own = [ln for ln in errors if "hetprobe" in ln or ln.startswith("characterize:")]
    return (own or errors or [None])[-1]


def _exit_error(code: int | None) -> str:
    if code is not None and code < 0:
        try:
            return f"killed by signal {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code} with no error message in its log"


def run_step(step: Step, out: Path, directory: Path, progress: Progress, timeout_s: float | None) -> None:
    log = directory / "logs" / f"{step.name}.log"
    state = {"total": None}

    def on_record(record: dict) -> None:
        if record.get("record") == "header":
            planned = expected_records(record)
            state["total"] = planned * step.ranks if planned is not None else None
            progress.start(step.name, state["total"])
            return
        step.records += 1
        label = record_label(record)
        if step.ranks > 1:
            label = f"GPU {record.get('rank', 0)}: {label}"
        progress.update(step.name, step.records, state["total"], label)

    start = time.monotonic()
    with (
        open(directory / f"{step.name}.txt", "w") as table,
        open(log, "w") as err,
        error_channel(launch_env()) as (env, recorded),
    ):
        try:
            step.exit_code = follow(
                step.command, out, on_record, env=env, stdout=table, stderr=err, timeout_s=timeout_s
            )
        except KeyboardInterrupt:  # follow() stopped the probe with SIGTERM: its finished records stay
            step.status, step.wall_s = "interrupted", time.monotonic() - start
            step.error = "stopped by Ctrl-C (SIGINT)"
            raise
        except Exception as e:  # a timeout or a launcher that would not start: the next probe still runs
            err.write(f"characterize: error: {e}\n")
            step.exit_code = -1 if not isinstance(step.exit_code, int) else step.exit_code
        errors = recorded()
    step.wall_s = time.monotonic() - start
    step.status = "ok" if step.exit_code == 0 else "failed"
    if step.status != "ok":
        # The probe's own words (its recorded error), else the log's last error line.
        own = f"hetprobe: {errors[0]['kind']} error: {errors[0]['message']}" if errors else None
        step.error = own or last_error(log) or _exit_error(step.exit_code)
    progress.finish(step.name, step.status, step.records, step.wall_s, log if step.status != "ok" else None)


def parse_launches(text: str) -> int:
    """--launches' value: a whole number (checked with the other options by _check_options)."""
    if not text.strip().isdigit():
        raise UsageError(f"--launches {text!r}: expected a whole number of launches from 1 to {MAX_LAUNCHES}")
    return int(text)


def launches_of(step: str, launches: int | None, quick: bool = False) -> int:
    """How many launches an interference step gets: --launches, else its default (DEFAULT_LAUNCHES;
    --quick, a first look: 1)."""
    if launches is not None:
        return launches
    return 1 if quick else DEFAULT_LAUNCHES.get(step, 1)


def _check_options(device, timeout_s, reps, hosts, skip, directory: Path, launches=None) -> None:
    """characterize's own options, checked before anything is written (the probes check theirs)."""
    if device not in DEVICES:
        raise UsageError(f"--device {device}: expected one of {', '.join(DEVICES)}")
    if timeout_s is not None and (
        isinstance(timeout_s, bool)
        or not isinstance(timeout_s, (int, float))
        or not math.isfinite(timeout_s)
        or not 0 < timeout_s <= MAX_TIMEOUT_S
    ):
        raise UsageError(
            f"--timeout {timeout_s}: expected a finite number of seconds above 0 and at most {MAX_TIMEOUT_S} (one week)"
        )
    if reps is not None and (isinstance(reps, bool) or not isinstance(reps, int) or not 1 <= reps <= MAX_REPS):
        raise UsageError(f"--reps {reps}: expected an integer from 1 to {MAX_REPS:,}")
    if launches is not None and (
        isinstance(launches, bool) or not isinstance(launches, int) or not 1 <= launches <= MAX_LAUNCHES
    ):
        raise UsageError(f"--launches {launches!r}: expected a whole number of launches from 1 to {MAX_LAUNCHES}")
    if hosts is not None:
        check_pair(hosts)
    unknown = set(skip) - set(PROBES)
    if unknown:
        raise UsageError(
            f"--skip {','.join(sorted(unknown))}: the steps are {', '.join(PROBES)} "
            "(interference skips all four of its steps)"
        )
    kind = file_kind(directory)
    if kind is not None and kind != "a directory":
        raise UsageError(f"{directory} is {kind}: give a run directory to create")
    if kind is not None and any(directory.iterdir()):
        raise UsageError(f"{directory} is not empty: choose another run directory")
    existing = next(p for p in [directory, *directory.absolute().parents] if p.exists())
    if file_kind(existing) != "a directory" or not os.access(existing, os.W_OK | os.X_OK):
        raise UsageError(f"{directory}: cannot create it in {existing} (not a writable directory)")


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
    notify_args=(),
    clock_args=(),
    bandwidth_args=(),
    interference_args=(),
    tolerance=gpu_table.DEFAULT_TOLERANCE,
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
    ``baseline`` run directory's same GPU, before it is flagged (``run.anomalies``; ``run.outside_baseline()``).
    Options, and the baseline's GPUs against this node's, are checked before anything is written (UsageError). A
    probe that fails or stops keeps its finished records and its report section, marked with the last error of its
    log (``run.failed()``); the others run on, and the report is written."""
    args = argparse.Namespace(
        device=device,
        quick=quick,
        sizes=sizes,
        reps=reps,
        launcher=launcher,
        hosts=hosts,
        notify_args=notify_args,
        clock_args=clock_args,
        bandwidth_args=bandwidth_args,
        interference_args=interference_args,
    )
    directory = Path(directory) if directory else default_directory()
    _check_options(device, timeout_s, reps, hosts, skip, directory, launches)
    fraction = gpu_table.parse_tolerance(tolerance)
    asked = [probe for probe in PROBES if probe not in ON_REQUEST or paper]
    chosen = [probe for probe in asked if probe not in skip and family(probe) not in skip]
    per_gpu_steps = [p for p in chosen if p in PER_GPU_STEPS]
    node = node_devices(device) if per_gpu_steps or baseline is not None else Node(None, 1)
    if node.backend == "host" and node.auto_reason:  # said once here; each probe's log says it too
        print(f"hetprobe characterize: {node.auto_reason}", file=sys.stderr)
    reference = _baseline_table(baseline, node, per_gpu_steps) if baseline is not None else None
    # Every step of every launch is made now: a launcher not found is refused before anything is written.
    steps = [
        Step(probe, _probe_command(probe, args, directory / f"{probe}.jsonl", node.gpus), ranks=node.gpus)
        for probe in per_gpu_steps
    ]
    chosen_launched = [probe for probe in chosen if probe in LAUNCHED_STEPS]
    most = max((launches_of(probe, launches, quick) for probe in chosen_launched), default=0)
    launched = [  # launch 1 of every step, then the further launches of those that have them
        Step(probe, _probe_command(probe, args, directory / f"{launch_name(probe, k)}.jsonl", launch=k), launch=k)
        for k in range(1, most + 1)
        for probe in chosen_launched
        if k <= launches_of(probe, launches, quick)
    ]
    check_step_options(steps + [s for s in launched if s.launch == 1])  # each probe checks its options first
    (directory / "logs").mkdir(parents=True, exist_ok=True)
    show = Progress(
        sys.stderr,
        bar=sys.stderr.isatty() if progress is None else progress,
        steps=[s.name for s in steps + launched],
    )
    run = Run(directory, gpus=node.gpus, tolerance=fraction, launches_asked=launches)
    start = time.monotonic()
    _write_topology(directory)
    for step in steps + launched:
        if step.launch is not None:
            run.launches[step.probe] = step.launch
        _run_and_record(run, step, show, timeout_s, start)
    _compare_gpus(run, baseline, reference, [p for p in PER_GPU_STEPS if p not in chosen])
    _write_manifest(run)
    if report:
        from .report import write_report  # matplotlib is only needed here

        try:
            write_report(directory, run)
        except Exception as e:  # noqa: BLE001 - the measurements are kept; `hetprobe report DIR` may retry
            run.report_error = f"{type(e).__name__}: {e}"
        run.report_s = time.monotonic() - start - run.wall_s
        _write_manifest(run)
    return run


def _run_and_record(run: Run, step: Step, show: Progress, timeout_s, start: float) -> None:
    """Runs one step into <its name>.jsonl, the manifest rewritten after it (a killed run keeps it)."""
    run.steps.append(step)
    try:
        run_step(step, run.directory / f"{step.name}.jsonl", run.directory, show, timeout_s)
    finally:
        run.wall_s = time.monotonic() - start
        _write_manifest(run)


def _baseline_table(baseline, node: Node, per_gpu_steps: list):
    """The per-GPU table of the baseline run directory, checked against this node's devices."""
    if not per_gpu_steps:
        raise UsageError("--baseline compares the per-GPU steps (notify, clock, bandwidth): do not skip them all")
    _, table, who = gpu_table.read_run(baseline, "--baseline")
    gpu_table.check_comparable({"gpus": node.gpus, "backend": node.backend, "names": node.names}, who, "this node")
    return table


def _compare_gpus(run: Run, baseline, reference, skipped: list) -> None:
    """The per-GPU table of the run, the GPUs flagged against the node's others and the baseline; a
    table that cannot be built is named in run.compare_error (the measurements stay)."""
    files = [run.directory / f"{p}.jsonl" for p in PER_GPU_STEPS] + [run.directory / "topology.json"]
    files = [f for f in files if f.exists()]
    try:
        table = gpu_table.per_gpu(load(files, errors="skip") if files else Results.empty())
    except Exception as e:  # noqa: BLE001 - a reader's bug must not lose the run; `hetprobe check` may retry
        run.compare_error = f"{type(e).__name__}: {e}"
        return
    run.per_gpu = gpu_table.table_records(table)
    run.anomalies = gpu_table.node_anomalies(table, run.tolerance)
    if reference is not None:
        outside = gpu_table.baseline_anomalies(table, reference, run.tolerance, skipped)
        run.anomalies += outside
        run.baseline = {"directory": str(baseline), "within_tolerance": not outside}


def _write_topology(directory: Path) -> None:
    """topology.json and topology.txt, the two `hetprobe topo` runs side by side (each discovers the node)."""
    running = []
    for name, extra in (("topology.json", ["--json"]), ("topology.txt", [])):
        with open(directory / name, "w") as f:
            running.append(
                subprocess.Popen([binary(), "topo"] + extra, stdout=f, stderr=subprocess.DEVNULL, env=launch_env())
            )
    for proc in running:
        proc.wait()


def _write_manifest(run: Run) -> None:
    manifest = {
        "tool": "hetprobe characterize",
        "command_line": sys.argv,
        "wall_s": run.wall_s,
        "report_s": run.report_s,
        "steps": [
            {
                "probe": s.probe,
                **({"launch": s.launch} if s.launch is not None else {}),
                "file": f"{s.name}.jsonl",
                "command": shlex.join(s.command),
                "status": s.status,
                "exit_code": s.exit_code,
                "wall_s": s.wall_s,
                "records": s.records,
                **({"error": s.error} if s.error else {}),
            }
            for s in run.steps
        ],
        **({"report_error": run.report_error} if run.report_error else {}),
        "launches": run.launches,
        "launches_asked": run.launches_asked,
        "gpus": run.gpus,
        "tolerance": run.tolerance,
        "per_gpu": run.per_gpu,
        "anomalies": run.anomalies,
        **({"baseline": run.baseline} if run.baseline else {}),
        **({"compare_error": run.compare_error} if run.compare_error else {}),
    }
    (run.directory / "characterize.json").write_text(json.dumps(manifest, indent=2) + "\n")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "directory",
        nargs="?",
        help="run directory to create (default: hetprobe-results/characterize-<host>-<UTC time>)",
    )
    p.add_argument(
        "--device",
        default="auto",
        help="backend: auto (a GPU if there is one, else host threads), cuda, hip, host (default: %(default)s)",
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
    for probe in ("notify", "clock", "bandwidth", "interference"):
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
            "Characterise this node: topology; on every GPU, one rank each, CPU<->GPU notification costs, the clock "
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
    a = p.parse_args(argv)
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
        sys.stdout.write(summary.read_text())
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
                f"every GPU within {gpu_table.tolerance_text(run.tolerance)}"
                if not outside
                else f"{len(outside)} number(s) outside {gpu_table.tolerance_text(run.tolerance)}:"
            )
        )
        for a in outside:
            print(f"OUTSIDE TOLERANCE: {gpu_table.anomaly_line(a)}")
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
