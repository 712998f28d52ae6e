"""Launching characterize's steps: this node's devices (Node), the command of each step (its probe,
its preset's options and the user's, its launcher: one rank per device, or the interference pair),
and running one step into its results file, table and log while its records are followed."""

from __future__ import annotations

import json
import shlex
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..data.steps import expected_records, family, last_error
from ..errors import UsageError
from .manifest import Step
from .presets import PRESETS, overridden
from .probes import binary, error_channel, follow, launch_command, launch_env, options_to_args
from .progress import Progress, record_label


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
    names = {d.get("ordinal"): d.get("name") or "" for d in entry.get("list") or [] if isinstance(d, dict)}
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


@dataclass(frozen=True)
class StepOptions:
    """What characterize's options give each step's command: the backend, the preset (quick or default),
    the interference sweep's sizes and reps, how ranks are started (launcher, the pair's hosts as checked),
    and each probe's extra CLI options by probe name ("interference" for its four steps)."""

    device: str = "auto"
    quick: bool = False
    sizes: str | None = None
    reps: int | None = None
    launcher: str | None = None
    hosts: str | None = None
    probe_args: dict[str, tuple[str, ...]] = field(default_factory=dict)


def probe_command(
    step: str, options: StepOptions, out: Path, gpus: int = 1, launch: int = 1, extra_args=()
) -> list[str]:
    probe = family(step)
    base = [binary(), probe, "--out", str(out), "--quiet", "--device", options.device]
    given = list(options.probe_args.get(probe, ())) + list(extra_args)
    if probe == "interference" and options.sizes:
        given += ["--sizes", options.sizes]
    if probe == "interference" and options.reps:
        given += ["--reps", str(options.reps)]
    extra = overridden(options_to_args(PRESETS["quick" if options.quick else "default"][step]), given)
    if probe == "interference" and launch > 1 and "--no-host-stream" not in extra:  # the first launch measured it
        extra.append("--no-host-stream")
    if probe != "interference":
        return per_gpu_launcher(gpus, options.launcher) + base + extra
    try:
        return launch_command(2, options.launcher, options.hosts) + base + extra
    except UsageError as e:
        raise UsageError(f"{e}: the interference steps need it (--skip interference runs the others)") from None


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
    step.status = "ok" if step.exit_code == 0 and step.records > 0 else "failed"
    if step.exit_code == 0 and step.records == 0:  # exit 0 with nothing measured is no measurement
        step.error = "exit code 0 after 0 records: the step measured nothing"
    elif step.status != "ok":
        # The probe's own words (its recorded error), else the log's last error line.
        own = f"hetprobe: {errors[0]['kind']} error: {errors[0]['message']}" if errors else None
        step.error = own or last_error(log) or _exit_error(step.exit_code)
    progress.finish(step.name, step.status, step.records, step.wall_s, log if step.status != "ok" else None)


def write_topology(directory: Path) -> None:
    """topology.json and topology.txt, the two `hetprobe topo` runs side by side (each discovers the node)."""
    running = []
    for name, extra in (("topology.json", ["--json"]), ("topology.txt", [])):
        with open(directory / name, "w") as f:
            running.append(
                subprocess.Popen([binary(), "topo"] + extra, stdout=f, stderr=subprocess.DEVNULL, env=launch_env())
            )
    for proc in running:
        proc.wait()
