"""The node verdict, as C++ computes it (bench/gpus/node_verdict.hpp, through _core): which GPU of a
run is off against the node's others (its gpus rounds, every launch, re-measured before a flag is
confirmed) or its PCIe link, and a run against a known-good node's runs. Python only finds a run's
files and reads the verdict; every rule, number and sentence comes from C++ (docs/metrics.md, "The
node verdict")."""

from __future__ import annotations

import os
from pathlib import Path

from .. import _rules
from ..data.jsonl import read_jsonl, results_files, results_stem
from ..data.paths import FileKind, file_kind, path_argument
from ..data.steps import family, read_manifest, short_of_manifest, step_name
from ..errors import ResultsFileError, UsageError

DEFAULT_TOLERANCE = _rules.default_tolerance


def parse_tolerance(text, option: str = "--tolerance") -> float:
    """A tolerance as a fraction: "10%" or 0.1 (or "0.1") -> 0.1; UsageError for anything else."""
    if isinstance(text, bool):
        raise UsageError(f"{option} {text!r}: expected a fraction above 0 and below 1 (0.1) or a percent (10%)")
    return _rules.parse_tolerance(str(text), option)


def tolerance_text(tolerance: float) -> str:
    return _rules.tolerance_text(float(tolerance))


def run_files(path, what: str) -> list[str]:
    """The results files of a run directory, as paths for _core; UsageError, naming `what` (an option),
    for a missing path, a path that is not a directory, or a directory without results."""
    path = Path(path)
    kind = file_kind(path)
    if kind is None:
        raise UsageError(f"{what} {path}: no such run directory")
    if kind != FileKind.DIRECTORY:
        raise UsageError(f"{what} {path} is {kind}: give a run directory (hetprobe characterize writes one)")
    if not os.access(path, os.R_OK | os.X_OK):  # glob would find nothing, and call it no run directory
        raise UsageError(f"{what} {path}: permission denied: this user may not list the directory")
    files = results_files(path)
    if not files:
        raise UsageError(f"{what} {path} is not a run directory: it holds no results (*.jsonl, *.jsonl.gz)")
    return [str(f) for f in files]


# The probes whose records the verdict reads (bench/gpus/gpu_rounds.cpp).
_VERDICT_PROBES = ("gpus", "bandwidth")


def whole_run_files(path, what: str) -> list[str]:
    """run_files of a run that is judged against others (RUN_DIR of `hetprobe check`, each --baseline):
    also UsageError where its characterize.json cannot be read, or says a step wrote more records than
    the step's file of the gpus or bandwidth probe holds (cut at a line's end, which reads as whole; a
    file cut inside a line, or empty, _core refuses)."""
    files = run_files(path, what)
    manifest, problem = read_manifest(path)
    if problem:
        raise UsageError(f"{what} {path}: {problem}")
    steps = [s for s in (manifest or {}).get("steps", []) if family(step_name(s)) in _VERDICT_PROBES]
    short = short_of_manifest({"steps": steps}, lambda name: _records(files, name))
    if short:
        raise UsageError(
            f"{what}: {'; '.join(short.values())}: the files of a run that is checked, and of its "
            "baselines, must be whole; remove the step's file or give another run"
        )
    return files


def _records(files: list[str], name: str) -> tuple[int, str] | None:
    """(the records, not headers, of step `name`'s file among `files`; the file); None where it cannot
    be read whole, which _core refuses, naming it."""
    for f in files:
        if results_stem(f) == name:
            try:
                parsed, cut = read_jsonl(f)
            except ResultsFileError:
                return None
            return None if cut or not parsed else (sum(1 for _, _, r in parsed if r.get("record") != "header"), f)
    return None


def node_verdict(run, tolerance: float = DEFAULT_TOLERANCE) -> dict:
    """The verdict of a run directory's GPUs against each other (docs/results-schema.md, gpus_verdict):
    "flags" (every GPU beyond the tolerance, with its status), "anomalies" (those confirmed on re-measure,
    and links below their maximum), "remeasure_gpus", "per_gpu" (each number and ratio with its interval)."""
    return _rules.node_verdict(run_files(run, "RUN_DIR"), float(tolerance))


def baseline_verdict(run, baselines, tolerance: float = DEFAULT_TOLERANCE) -> dict:
    """A run directory against baseline run directories of one node: "outside" (the numbers worse than the
    baselines' worst by more than the tolerance), "compared", "not_judged"; UsageError for runs that
    cannot be compared (other GPUs, one baseline launch in all, no gpus rounds)."""
    paths = _baseline_paths(baselines)
    return _rules.baseline_verdict(
        whole_run_files(path_argument(run, "run"), "RUN_DIR"),
        [whole_run_files(b, "--baseline") for b in _distinct(paths)],
        float(tolerance),
    )


def check_baseline_node(node, baselines) -> None:
    """UsageError where this node (characterize's Node: its GPU count, backend, names by ordinal) cannot be
    checked against the baseline run directories."""
    paths = _baseline_paths(baselines)
    names = [node.names.get(i) or "" for i in range(node.gpus)]
    _rules.check_baseline_node(
        node.gpus, node.backend or "", names, [whole_run_files(b, "--baseline") for b in _distinct(paths)], "this node"
    )


def _baseline_paths(baselines) -> list[str]:
    """One baseline run directory or a list of them, each checked (UsageError naming the keyword)."""
    if isinstance(baselines, (str, os.PathLike)):
        return [path_argument(baselines, "baseline")]
    if not isinstance(baselines, (list, tuple)):
        raise UsageError(
            f"baseline: expected a run directory or a list of them, got {type(baselines).__name__} {baselines!r}"
        )
    return [path_argument(b, "baseline") for b in baselines]


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
