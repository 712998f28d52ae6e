"""Running probes from Python.

notify and clock run in this process through the compiled module (the CLI's
own option parser, so the options are the CLI's); the MPI probes run through
``mpirun`` or ``srun`` with the bundled ``hetprobe`` executable. Either way the
records go to a JSON Lines file as they are measured (so an interrupted run
keeps them) and come back as :class:`hetprobe.Results`.
"""

from __future__ import annotations

import difflib
import inspect
import json
import os
import shlex
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Callable

from .. import errors
from ..data.jsonl import Tail, records
from ..data.load import load
from ..data.paths import FileKind, check_output, file_kind
from ..data.results import Results
from ..errors import HetprobeError, Interrupted, MPIError, ProbeTimeout, UsageError

# The environment before this process initialises MPI: an MPI singleton adds
# its own variables, which a child mpirun must not inherit.
_LAUNCH_ENV = dict(os.environ)

RecordCallback = Callable[[dict], None]


def binary(name: str = "hetprobe") -> str:
    """Path of a bundled executable (``hetprobe`` or ``hetprobe-micro``).

    ``$HETPROBE_BIN_DIR`` overrides the package's own ``_bin`` folder (for a
    CMake build tree: ``build/bench``)."""
    folder = Path(os.environ.get("HETPROBE_BIN_DIR") or Path(__file__).parent.parent / "_bin")
    path = folder / name
    if not path.is_file() or not os.access(path, os.X_OK):
        raise UsageError(
            f"{path} not found: install the package with `pip install .` from a hetprobe checkout, "
            "or point HETPROBE_BIN_DIR at a folder holding the hetprobe executables"
        )
    return str(path)


def options_to_args(options: dict) -> list[str]:
    """CLI arguments from keywords: ``orders=["volatile", "fence"]`` -> ``--orders volatile,fence``;
    ``True`` -> a flag, ``False`` and ``None`` -> nothing."""
    args: list[str] = []
    for key, value in options.items():
        if value is None or value is False:
            continue
        flag = "--" + key.replace("_", "-")
        if value is True:
            args.append(flag)
        elif isinstance(value, (list, tuple)):
            args += [flag, ",".join(str(v) for v in value)]
        else:
            args += [flag, str(value)]
    return args


@cache
def cli_options(probe: str) -> tuple[str, ...]:
    """The long options of ``hetprobe PROBE`` as Python keywords (``check_after`` for ``--check-after``),
    read from the CLI's own parser through the compiled module, so they never drift."""
    try:
        names = _core().probe_options(probe)
    except UsageError:
        raise UsageError(f"no probe named {probe!r}: see `hetprobe --help`") from None
    keywords = [n[2:].replace("-", "_") for n in names]
    # --check-options runs nothing: a keyword for it would return no results (characterize calls the CLI's).
    return tuple(dict.fromkeys(n for n in keywords if n not in ("help", "check_options")))


def check_keywords(function, probe: str, options: dict) -> None:
    """TypeError, as Python gives for a misspelled argument, for a keyword that is neither one of
    `function`'s own parameters nor an option of ``hetprobe PROBE``; it names the valid keywords."""
    own = [n for n, p in inspect.signature(function).parameters.items() if p.kind is not p.VAR_KEYWORD]
    valid = [v for v in cli_options(probe) if v not in own]
    for key in options:
        if key not in valid:
            close = difflib.get_close_matches(key, valid + own, n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            raise TypeError(
                f"hetprobe.{function.__name__}() got an unexpected keyword argument '{key}'{hint}. "
                f"Valid keywords: {', '.join(own)}, and the options of `hetprobe {probe}`: "
                f"{', '.join(valid)}"
            )


def _core():
    try:
        from .. import _core as core
    except ImportError as e:
        raise UsageError("hetprobe._core is not built: install the package with `pip install .`") from e
    return core


def device_choices() -> tuple[str, ...]:
    """--device's names, as the C++ device registry has them: auto and every backend."""
    return tuple(_core().device_choices())


def _fresh_output(out: str | os.PathLike | None, probe: str) -> tuple[Path, bool]:
    if out is None:
        fd, name = tempfile.mkstemp(prefix=f"hetprobe-{probe}-", suffix=".jsonl")
        os.close(fd)
        return Path(name), True
    path = Path(out)
    if file_kind(path) == FileKind.REGULAR and path.stat().st_size > 0:
        raise UsageError(f"{path} already has results: choose another out=")
    return check_output(path, "out="), False  # a device, a directory or a FIFO is refused


def _run_in_process(probe: str, options: dict, out, progress: RecordCallback | None) -> Results:
    argv = [probe] + options_to_args(options)
    path, temporary = _fresh_output(out, probe)
    with open(path, "a", encoding="utf-8") as f:

        def on_record(text: str) -> None:
            f.write(text + "\n")
            f.flush()
            if progress:
                progress(json.loads(text))

        try:
            _core().run(argv, on_record)
        except KeyboardInterrupt as e:
            raise Interrupted(f"{probe} interrupted; its finished records are in {path}") from e
        except Exception:
            if temporary:
                path.unlink(missing_ok=True)
            raise
    results = load(path)
    if temporary:
        path.unlink(missing_ok=True)
    return results


def notify(out=None, progress: RecordCallback | None = None, **options) -> Results:
    """``hetprobe notify`` in this process: one flag read + write of a flag the other side wrote last (Elis et al.
    2024, Table 1: the handover part), the same in a loop on an owned line, round trips, mechanisms.

    Keywords are the CLI's options (``hetprobe.help("notify")``): e.g. ``parts="roundtrip"``,
    ``orders="volatile,fence"``, ``exchanges=1000``, ``device="host"``. ``out``: also keep the JSON
    Lines file there; ``progress(record)`` is called with every record as it is measured. Like the CLI,
    the run binds this process near the GPU (``bind="none"`` not to); the binding is given back after.
    A keyword that is not an option raises TypeError naming the valid ones."""
    check_keywords(notify, "notify", options)
    return _run_in_process("notify", options, out, progress)


def clock(out=None, progress: RecordCallback | None = None, **options) -> Results:
    """``hetprobe clock`` in this process: the device timer related to the host clock (offset, drift,
    precision). Keywords as ``hetprobe.help("clock")``: e.g. ``span=2``, ``samples=100``; another raises
    TypeError."""
    check_keywords(clock, "clock", options)
    return _run_in_process("clock", options, out, progress)


def topology(topology_file: str | os.PathLike | None = None) -> dict:
    """This node as hwloc describes it (``hetprobe topo --json``), or a saved ``lstopo --of xml`` file."""
    return json.loads(_core().topology(str(topology_file or "")))


def devices() -> dict:
    """The backends built in, their devices, and what ``device="auto"`` picks (``hetprobe devices --json``)."""
    return json.loads(_core().devices())


def help(probe: str) -> str:  # noqa: A001 - mirrors `hetprobe PROBE --help`
    """The CLI help of a probe: every option with its unit and default."""
    done = subprocess.run([binary(), probe, "--help"], capture_output=True, text=True)
    if done.returncode != 0 or f"hetprobe {probe} [OPTIONS]" not in done.stdout:  # not the main --help
        raise UsageError(f"no probe named {probe!r}: see `hetprobe --help`")
    return done.stdout


@cache
def _is_open_mpi(mpirun: str) -> bool:
    try:
        return "Open MPI" in subprocess.run([mpirun, "--version"], capture_output=True, text=True).stdout
    except OSError:
        return False


def launch_env() -> dict:
    """The environment for a launcher: this process's as it was before MPI started here; as root,
    Open MPI's consent to run as root."""
    env = dict(_LAUNCH_ENV)
    if os.geteuid() == 0:
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    return env


def launch_command(
    ranks: int = 2, launcher: str | None = None, hosts: str | None = None, launcher_args: Iterable[str] = ()
) -> list[str]:
    """The launcher prefix for `ranks` processes.

    ``launcher``: ``"mpirun"``, ``"srun"``, or a whole prefix such as ``"mpirun -np 2 --host a,b"``
    (used as given). Default: ``srun`` inside a Slurm job, else ``mpirun``. ``hosts``: a comma list of
    hosts (one rank each unless repeated). On one node Open MPI gets ``--oversubscribe``, so small
    machines whose cores are fewer than the ranks still run."""
    if ranks < 1:
        raise UsageError("ranks must be at least 1")
    if launcher and len(shlex.split(launcher)) > 1:
        return shlex.split(launcher) + list(launcher_args)
    env = launch_env()
    launcher = launcher or ("srun" if "SLURM_JOB_ID" in env and shutil.which("srun") else "mpirun")
    if not shutil.which(launcher):
        raise UsageError(f"launcher {launcher!r} not found on PATH")
    if Path(launcher).name == "srun":
        cmd = ["srun", "-n", str(ranks)]
        if hosts:
            cmd += ["--nodelist", hosts, "-N", str(len(set(hosts.split(","))))]
    else:
        cmd = [launcher, "-np", str(ranks)]
        if hosts:
            cmd += ["--host", hosts]
        elif _is_open_mpi(launcher):
            cmd.append("--oversubscribe")
    return cmd + list(launcher_args)


def follow(
    cmd: list[str],
    path: Path,
    on_record: RecordCallback | None,
    *,
    env: dict,
    stdout,
    stderr,
    timeout_s: float | None = None,
    poll_s: float = 0.2,
) -> int:
    """Runs `cmd` and calls on_record with each complete line the run appends to `path` (JSON Lines are
    written record by record), until it exits. Returns its exit code; kills it after `timeout_s`."""
    tail = Tail(path)

    def read_new() -> None:
        for record in tail.new():
            if on_record:
                on_record(record)

    start = time.monotonic()
    proc = subprocess.Popen(cmd, env=env, stdout=stdout, stderr=stderr)
    try:
        while proc.poll() is None:
            read_new()
            if timeout_s is not None and time.monotonic() - start > timeout_s:
                proc.kill()
                proc.wait()
                raise ProbeTimeout(
                    f"{shlex.join(cmd)} ran past {timeout_s} s and was stopped; its finished records are in {path}"
                )
            time.sleep(poll_s)
    except BaseException:
        if proc.poll() is None:
            proc.terminate()  # hetprobe keeps its finished points on SIGTERM
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
        raise
    read_new()
    return proc.returncode


@contextmanager
def error_channel(env: dict) -> Iterator[tuple[dict, Callable[[], list[dict]]]]:
    """What a launch of hetprobe says of its own failure: `env` with the error file set (the compiled
    module names the variable), and a function returning the errors recorded there, one dict per
    process that reported one ({kind, exit_code, message, rank, host}), first failure first. The log
    stays for people; the kind and the message come from here, never from the log's text."""
    fd, name = tempfile.mkstemp(prefix="hetprobe-errors-", suffix=".jsonl")
    os.close(fd)

    def recorded() -> list[dict]:
        return records(name)

    try:
        yield {**env, _core().error_file_variable: name}, recorded
    finally:
        Path(name).unlink(missing_ok=True)


def error_of(record: dict, context: str) -> HetprobeError:
    """The exception of a recorded error: the class its kind maps to (the compiled module's table of
    kinds), with its message and, from an MPI run, the rank and host that reported it."""
    kind = _core().error_kinds().get(record.get("kind"), {})
    where = f" [rank {record['rank']} on {record.get('host')}]" if record.get("rank") is not None else ""
    return getattr(errors, kind.get("exception", "HetprobeError"))(f"{context}: {record.get('message')}{where}")


def raise_for_exit(what: str, code: int, stderr_text: str, path: Path, recorded: list[dict] = ()) -> None:
    """A failed run as an exception: the kind and message the run recorded (error_channel), else by
    its exit code (2 usage, 130 interrupted, others a failed run). The log's tail goes with it."""
    if code == 0:
        return
    tail = "\n".join(stderr_text.strip().splitlines()[-15:])
    kept = f" (finished records are in {path})" if path.exists() and path.stat().st_size else ""
    context = f"{what} exited with code {code}{kept}"
    if recorded:
        error = error_of(recorded[0], context)
        error.args = (f"{error.args[0]}\n{tail}",)
        raise error
    message = f"{context}:\n{tail}"
    if code == 2:
        raise UsageError(message)
    if code == 130:
        raise Interrupted(message)
    raise MPIError(message)


def run_mpi(
    probe: str = "interference",
    ranks: int = 2,
    out=None,
    launcher: str | None = None,
    hosts: str | None = None,
    launcher_args: Iterable[str] = (),
    progress: RecordCallback | None = None,
    timeout_s: float | None = None,
    **options,
) -> Results:
    """Runs an MPI probe (``interference`` by default) under mpirun or srun and returns its results.

    Keywords after the launch settings are the probe's CLI options (``hetprobe.help("interference")``),
    e.g. ``sizes="1KiB:64MiB:x4"``, ``layouts="all"``, ``access="stream,stacked"``, ``reps=50``,
    ``resume=True``; another raises TypeError. ``out``: the results file (default: a temporary file,
    removed after loading)."""
    check_keywords(run_mpi, probe, options)
    if out is not None and options.get("resume"):
        path, temporary = Path(out), False
    else:
        path, temporary = _fresh_output(out, probe)
        path.unlink(missing_ok=True)  # the probe creates it, and refuses an existing non-empty one
    cmd = launch_command(ranks, launcher, hosts, launcher_args) + [binary(), probe, "--out", str(path)]
    cmd += options_to_args(options)
    with tempfile.TemporaryFile() as err, error_channel(launch_env()) as (env, recorded):
        code = follow(cmd, path, progress, env=env, stdout=subprocess.DEVNULL, stderr=err, timeout_s=timeout_s)
        err.seek(0)
        raise_for_exit(shlex.join(cmd), code, err.read().decode(errors="replace"), path, recorded())
    results = load(path)
    if temporary:
        path.unlink(missing_ok=True)
    return results
