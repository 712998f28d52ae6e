"""The node verdict, as C++ computes it (bench/gpus/node_verdict.hpp, through _core): which GPU of a
run is off against the node's others (its gpus rounds, every launch, re-measured before a flag is
confirmed) or its PCIe link, and a run against a known-good node's runs. Python only finds a run's
files and reads the verdict; every rule, number and sentence comes from C++ (docs/metrics.md, "The
node verdict")."""

from __future__ import annotations

from pathlib import Path

from .. import _core
from ..data.jsonl import results_files
from ..data.paths import file_kind
from ..errors import UsageError

DEFAULT_TOLERANCE = _core.default_tolerance


def parse_tolerance(text, option: str = "--tolerance") -> float:
    """A tolerance as a fraction: "10%" or 0.1 (or "0.1") -> 0.1; UsageError for anything else."""
    if isinstance(text, bool):
        raise UsageError(f"{option} {text!r}: expected a fraction above 0 and below 1 (0.1) or a percent (10%)")
    return _core.parse_tolerance(str(text), option)


def tolerance_text(tolerance: float) -> str:
    return _core.tolerance_text(float(tolerance))


def run_files(path, what: str) -> list[str]:
    """The results files of a run directory, as paths for _core; UsageError, naming `what` (an option),
    for a missing path, a path that is not a directory, or a directory without results."""
    path = Path(path)
    kind = file_kind(path)
    if kind is None:
        raise UsageError(f"{what} {path}: no such run directory")
    if kind != "a directory":
        raise UsageError(f"{what} {path} is {kind}: give a run directory (hetprobe characterize writes one)")
    files = results_files(path)
    if not files:
        raise UsageError(f"{what} {path} is not a run directory: it holds no results (*.jsonl, *.jsonl.gz)")
    return [str(f) for f in files]


def node_verdict(run, tolerance: float = DEFAULT_TOLERANCE) -> dict:
    """The verdict of a run directory's GPUs against each other (docs/results-schema.md, gpus_verdict):
    "flags" (every GPU beyond the tolerance, with its status), "anomalies" (those confirmed on re-measure,
    and links below their maximum), "remeasure_gpus", "per_gpu" (each number and ratio with its interval)."""
    return _core.node_verdict(run_files(run, "RUN_DIR"), float(tolerance))


def baseline_verdict(run, baselines, tolerance: float = DEFAULT_TOLERANCE) -> dict:
    """A run directory against baseline run directories of one node: "outside" (the numbers worse than the
    baselines' worst by more than the tolerance), "compared", "not_judged"; UsageError for runs that
    cannot be compared (other GPUs, one baseline launch in all, no gpus rounds)."""
    paths = [baselines] if isinstance(baselines, (str, Path)) else list(baselines)
    return _core.baseline_verdict(
        run_files(run, "RUN_DIR"), [run_files(b, "--baseline") for b in _distinct(paths)], float(tolerance)
    )


def check_baseline_node(node, baselines) -> None:
    """UsageError where this node (characterize's Node: its GPU count, backend, names by ordinal) cannot be
    checked against the baseline run directories."""
    paths = [baselines] if isinstance(baselines, (str, Path)) else list(baselines)
    names = [node.names.get(i) or "" for i in range(node.gpus)]
    _core.check_baseline_node(
        node.gpus, node.backend or "", names, [run_files(b, "--baseline") for b in _distinct(paths)], "this node"
    )


def _distinct(paths: list) -> list:
    """The baseline directories, each once (a directory named twice is one run, not a range of two)."""
    if not paths:
        raise UsageError("--baseline: give at least one run directory")
    seen, out = set(), []
    for p in paths:
        key = Path(p).resolve()
        if key not in seen:
            seen.add(key)
            out.append(p)
    return out
