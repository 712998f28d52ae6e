"""The steps of characterize: which probe a step runs, the name of each launch of a step (its results
file, table and log are named after it), how many records each step will write, so that progress
can show done/total and the time left (the probe says so in its header, `planned_records`, counted
where it sweeps), and the last error of a step's log, which the run and the report both name."""

from __future__ import annotations

import json
import os
from pathlib import Path

from ..errors import ResultsFileError
from .jsonl import bounded_bytes
from .paths import file_kind


def launch_name(step: str, launch: int) -> str:
    """The name of a step's launch: the step's own for the first ("interference"), then
    "interference.launch2", ...; its files are <name>.jsonl, <name>.txt and logs/<name>.log."""
    from .. import _rules  # the compiled module: the rule is written once, in C++ (bench/aggregate/run_launches.hpp)

    return _rules.launch_file_stem(step, launch)


def split_launch(name) -> tuple[str, int]:
    """(step, launch) of a launch's name or of its file's ("interference.launch2.jsonl" ->
    ("interference", 2); "interference-rate" -> ("interference-rate", 1))."""
    from .. import _rules

    return tuple(_rules.split_launch(os.path.basename(str(name))))


def family(step: str) -> str:
    """The probe a step (or one of its launches) runs: "interference-rate.launch2" is the interference probe."""
    return split_launch(step)[0].split("-")[0]


def step_name(step: dict) -> str:
    """A characterize.json step's name, which its files carry: "interference.launch2" (runs from before
    the launches name only the probe)."""
    file = step.get("file")
    return file[: -len(".jsonl")] if isinstance(file, str) and file.endswith(".jsonl") else str(step.get("probe"))


def read_manifest(directory) -> tuple[dict | None, str | None]:
    """A run directory's characterize.json, and why it could not be read: (None, None) where there is none;
    read as every results file is (a regular file, bounded)."""
    path = Path(directory) / "characterize.json"
    if file_kind(path) is None:
        return None, None
    try:
        manifest = json.loads(bounded_bytes(path))
    except (OSError, ValueError, ResultsFileError) as e:
        return None, f"characterize.json cannot be read ({e})"
    steps = manifest.get("steps", []) if isinstance(manifest, dict) else None
    if not isinstance(steps, list) or not all(isinstance(s, dict) for s in steps):
        return None, "characterize.json is not a characterize manifest"
    return manifest, None


def short_of_manifest(manifest: dict | None, records_in) -> dict[str, str]:
    """{step name: why} for each step of characterize.json whose file holds fewer records than the step
    wrote: a file cut at the end of a line reads as whole, and only the manifest's count shows the loss.
    `records_in(step name)`: (the records, headers left out, that its file holds; the file), or None
    where it cannot say."""
    short = {}
    for step in (manifest or {}).get("steps", []):
        wrote = step.get("records")
        if not isinstance(wrote, int) or isinstance(wrote, bool):
            continue
        name = step_name(step)
        if (held := records_in(name)) is not None and held[0] < wrote:
            short[name] = f"{held[1]} holds {held[0]} of the {wrote} records that characterize.json says it wrote (cut)"
    return short


def expected_records(header: dict) -> int | None:
    """Records the probe will write after this header (None when it does not say)."""
    planned = header.get("planned_records")
    return planned if isinstance(planned, int) and not isinstance(planned, bool) else None


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
