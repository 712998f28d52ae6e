"""The report of a run directory: report.md with its PNG plots beside it, the
same as one self-contained report.html (images inlined), and summary.txt,
the few lines characterize prints. Every number comes from the run's
records; the text says how each was measured and with how many samples.

Any partial directory gets its report: a probe that failed or stopped keeps a
section built from its finished records, marked with the last error of its
log; a file that cannot be read is named with the reason. report.md opens with
the headline numbers, then one "Conditions and warnings" section: the backend
where it is not a GPU, what is missing, and each kind of warning the probes
recorded (the run's conditions, a record's spread) once, numbered as the ⚠N
marks beside the numbers they concern."""

from __future__ import annotations

import os
import re
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from ..data.jsonl import bounded_bytes, is_results_file, results_file, results_files, results_stem
from ..data.load import load
from ..data.paths import FileKind, file_kind
from ..data.results import Results
from ..data.steps import family, last_error, read_manifest, short_of_manifest, split_launch, step_name
from ..errors import UsageError
from ..node import gpus, verdict as node_verdict
from . import outputs
from .gpus import gpu_section, summary_lines
from .headline import headline
from .interference import interference_section
from .model import model_section
from .notes import MARK, Marks
from .render import Document
from .sections import clock_section, node_section, notify_section


@dataclass
class Written:
    """What write_report wrote, and why the report is incomplete (empty when it is complete)."""

    report: Path
    problems: list = field(default_factory=list)


def _manifest(directory: Path, run) -> tuple[dict | None, str | None]:
    """The run's characterize.json (or the manifest of `run`, characterize's Run, as it stands), and
    why it could not be read."""
    if run is not None:
        return run.manifest(), None
    return read_manifest(directory)


def _step_errors(directory: Path, manifest: dict | None) -> dict[str, tuple[dict, str]]:
    """{step name: (its manifest entry, the last error of its log)} of the steps that did not finish."""
    out = {}
    for step in (manifest or {}).get("steps", []):
        if step.get("status") != "ok":
            name = step_name(step)
            out[name] = (
                step,
                step.get("error") or last_error(directory / "logs" / f"{name}.log") or "its log names no error",
            )
    return out


def _problem(name: str, step: dict, error: str) -> str:
    probe, launch = split_launch(name)
    what = f"{probe} (launch {launch})" if "launch" in step or launch > 1 else probe
    return (
        f"{what} {step.get('status')} (exit code {step.get('exit_code')}) after {step.get('records', 0)} "
        f"record(s): {error.rstrip('.')}. Only its finished records are shown."
    )


def _reason(path: str, why: str) -> str:
    """A load error without the file's path in front ("line 5: field 'x': ...")."""
    if why.startswith(path + ":"):
        why = why[len(path) + 1 :]
        number, _, rest = why.partition(":")
        return f"line {number}:{rest}" if number.isdigit() else why.strip()
    return why


def _check_directory(directory: Path) -> None:
    """A run directory this process can write a report into (checked before anything is written)."""
    if file_kind(directory) != FileKind.DIRECTORY:
        raise UsageError(f"{directory} is not a run directory")
    if not os.access(directory, os.R_OK | os.X_OK):  # glob would find nothing, and call it no run directory
        raise UsageError(f"{directory}: permission denied: this user may not list the directory")
    if not results_files(directory) and not any(
        (directory / n).exists() for n in ("topology.json", "characterize.json")
    ):
        raise UsageError(
            f"{directory} is not a run directory: it holds no results (*.jsonl, *.jsonl.gz), topology.json or "
            "characterize.json"
        )
    if not os.access(directory, os.W_OK | os.X_OK):
        raise UsageError(f"{directory} is not writable: the report is written into the run directory")
    outputs.check(directory)


def _records_by_step(results: Results):
    """records_in for short_of_manifest: the records (not headers) read from each step's file, and its name."""
    counts: dict[str, list] = {}
    for r in results.records:
        if r.get("record") != "header":
            file = r.get("_file", "")
            counts.setdefault(results_stem(file), [0, os.path.basename(file)])[0] += 1
    return lambda name: tuple(counts[name]) if name in counts else None


def _first_header(results: Results) -> dict:
    try:
        return results.header()
    except UsageError:  # no probe left a header
        return {}


def write_report(directory, run=None) -> Written:
    """Writes report.md, report.html, the PNG plots and summary.txt into `directory` (any partial run
    directory); returns what was written and why the report is incomplete."""
    directory = Path(directory)
    _check_directory(directory)
    has_results = bool(results_files(directory)) or (directory / "topology.json").exists()
    results = load(directory, errors="skip") if has_results else Results.empty()
    header = _first_header(results)
    manifest, manifest_problem = _manifest(directory, run)
    errors = _step_errors(directory, manifest)
    failed = {name: _problem(name, step, error) for name, (step, error) in errors.items()}
    unreadable = {
        os.path.basename(f): f"{os.path.basename(f)} cannot be read: {_reason(f, why)}" for f, why in results.unreadable
    }
    for step in (manifest or {}).get("steps", []):
        name = f"{step_name(step)}.jsonl"
        if step.get("records") and not results_file(directory, step_name(step)).exists():
            unreadable[name] = f"{name} is missing (characterize.json says its step wrote {step['records']} record(s))"
    short = short_of_manifest(manifest, _records_by_step(results))
    unreadable.update({f"{name}.jsonl": why for name, why in short.items()})  # a .gz one is named in `why`
    problems = list(failed.values()) + list(unreadable.values()) + ([manifest_problem] if manifest_problem else [])
    for name, why in unreadable.items():  # a step's file (notify.jsonl) is named in its section too
        if is_results_file(name):
            step = results_stem(name)
            failed[step] = f"{failed[step]} {why}" if step in failed else why

    device = header.get("device") or {}
    host = header.get("host") or (results.topology or {}).get("host") or directory.name
    marks = Marks(results)
    # The headline numbers first, then what a reader must know before trusting them.
    what = f", {device.get('name')} (backend {header.get('backend')})" if header else ""
    doc = Document(f"hetprobe node report: {host}{what}", marks)
    table = gpus.per_gpu(results)
    tolerance, verdict, anomalies, baseline = _flags(manifest, table)
    first = results.only_rank(int(table["GPU"].min())) if len(table) > 1 else results  # the detail sections' GPU
    lines = headline(doc, first)
    conditions_at = len(doc.blocks)
    node_section(doc, results, header)
    ran = {family(s) for s in failed} | set(results.summary["probe"])
    if ran & set(gpus.PER_GPU_PROBES):
        gpu_section(doc, results, directory, table, verdict, anomalies, baseline)
    if "interference" in ran:
        interference_section(doc, results.probe("interference"), directory, failed)
        model_section(doc, directory)
    if "notify" in ran:
        notify_section(doc, first.probe("notify"), directory, [failed[s] for s in ("notify",) if s in failed])
    if "clock" in ran:
        clock_section(doc, first.probe("clock"), directory, [failed[s] for s in ("clock",) if s in failed])
    _provenance(
        doc,
        results,
        header,
        manifest,
        {probe: error for probe, (_, error) in errors.items()},
        unreadable,
        short,
    )
    doc.insert(conditions_at, _conditions_section(header, problems, marks))
    outputs.write_text(directory, "report.md", doc.markdown())
    outputs.write_text(directory, "report.html", doc.html(directory))
    lines += summary_lines(table, verdict, anomalies)
    outputs.write_text(directory, "summary.txt", "\n".join(_summary(directory, header, lines, problems, marks)) + "\n")
    return Written(directory / "report.md", problems)


_HOST_CHOICE = "; using the host backend"  # how bench/ ends the device choice of a run without a GPU


def host_backend_note(header: dict) -> str:
    """What a host backend run's numbers are, as the device choice says why it ran there."""
    choice = str(header.get("device_choice") or "")
    if choice.endswith(_HOST_CHOICE):
        why = choice[: -len(_HOST_CHOICE)]
        why = why[:1].upper() + why[1:]
    else:
        why = "The host backend was requested" if choice == "requested" else f"The host backend ran ({choice})"
    return (
        f"{why}, so CPU threads played the GPU: these numbers describe this CPU and its memory, not a GPU. "
        "The GPU's side of a flag is another CPU core: a flag read + write is a core fetching a line another core "
        "wrote, a round trip a cache line handed between two cores. The GPU timer is this host's steady_clock: the "
        "clock drift compares two clocks of one oscillator (the host clock was calibrated against it at start), and "
        "the precision is half such a hand-off. The loads are CPU threads moving memory."
    )


def _conditions_section(header: dict, problems: list, marks: Marks) -> Document:
    """The report's one place for what makes its numbers doubtful: the backend where it is not a GPU,
    what is missing, and every kind of warning the probes recorded, numbered as the marks are."""
    doc = Document("", marks)
    doc.h2("Conditions and warnings")
    if header.get("backend") == "host":
        doc.warn(host_backend_note(header))
    if problems:
        doc.warn("This run is incomplete; the sections below show what its finished records allow:")
        doc.bullets(problems)
    marks.write(doc)
    return doc


def _flags(manifest: dict | None, table) -> tuple[float, dict, list, dict | None]:
    """(tolerance, node verdict, anomalies, baseline check) as characterize recorded them; for a run that
    did not record them (an older or interrupted run), the node verdict C++ makes of its files at the
    default tolerance, and its anomalies."""
    manifest = manifest or {}
    try:
        tolerance = node_verdict.parse_tolerance(manifest.get("tolerance", node_verdict.DEFAULT_TOLERANCE))
    except UsageError:
        tolerance = node_verdict.DEFAULT_TOLERANCE
    verdict, anomalies = manifest.get("verdict"), manifest.get("anomalies")
    needed = {"gpu", "metric", "reference_kind", "line", "status"}
    if not isinstance(verdict, dict) or not isinstance(anomalies, list):
        verdict = table.attrs.get("verdict") or {"flags": [], "anomalies": [], "notes": [], "tolerance": tolerance}
        anomalies = verdict["anomalies"]
    if not all(isinstance(a, dict) and needed <= a.keys() for a in anomalies + verdict.get("flags", [])):
        verdict, anomalies = {"flags": [], "anomalies": [], "notes": [], "tolerance": tolerance}, []
    baseline = manifest.get("baseline") if isinstance(manifest.get("baseline"), dict) else None
    return tolerance, verdict, anomalies, baseline


def _summary(directory: Path, header: dict, lines: list, problems: list, marks: Marks) -> list[str]:
    device = header.get("device") or {}
    out = [
        f"{header.get('host')}: {device.get('name')} (backend {header.get('backend')})"
        if header
        else f"{directory}: no probe left a results header"
    ]
    if header.get("backend") == "host":
        out.append("  no GPU used: CPU threads played the GPU (see the report)")
    out += [f"  {line}" for line in lines]
    out += [
        f"  {MARK} measurement conditions: {k.worst()[0]} ({k.where()})" for k in marks.kinds.values() if k.condition
    ]
    out += [f"  INCOMPLETE: {p}" for p in problems]
    out.append(f"  report: {directory / 'report.md'} and {directory / 'report.html'}")
    return out


SUMMARY_WIDTH = 99  # a terminal's 100 columns, and the README's sample


def printed_summary(directory) -> str:
    """summary.txt as `hetprobe report` and characterize print it: each line wrapped to SUMMARY_WIDTH
    (the file keeps one line per item, for grep and batch jobs)."""
    text = bounded_bytes(Path(directory) / "summary.txt").decode(errors="replace")
    return "".join(part + "\n" for line in text.splitlines() for part in _wrapped(line))


def _wrapped(line: str) -> list[str]:
    """A summary line in lines of SUMMARY_WIDTH characters or fewer, each continuation indented four
    more than the line (a path or a word longer than that stays whole)."""
    indent = " " * (len(line) - len(line.lstrip(" ")))
    kept = _NUMBER_AND_UNIT.sub("\\1\xa0", line)  # textwrap breaks at ASCII spaces only
    parts = textwrap.wrap(
        kept, SUMMARY_WIDTH, subsequent_indent=indent + "    ", break_long_words=False, break_on_hyphens=False
    )
    return [part.replace("\xa0", " ") for part in parts] or [line]


_NUMBER_AND_UNIT = re.compile(r"(\d) (?=[^\W\d])")  # "8368 ns", "2 GPUs": a number stays with its unit


def _provenance(
    doc: Document,
    results: Results,
    header: dict,
    manifest: dict | None,
    errors: dict,
    unreadable: dict,
    short: dict,
) -> None:
    """The headers, the steps of characterize.json (a step whose file is in `unreadable`, {file name: why},
    is "file unusable", one in `short`, short_of_manifest's, "file cut"; never "ok") and the files left
    out."""
    doc.h2("How this was measured")
    if header:
        doc.para(
            f"Device **{(header.get('device') or {}).get('name')}** (backend `{header.get('backend')}`), host "
            f"`{header.get('host')}`, started {header.get('start_time_utc')}, hetprobe "
            f"{header.get('hetprobe_version')} ({header.get('git_revision')})."
        )
    rows = []
    for record in results.records:
        if record.get("record") != "header":
            continue
        rows.append(
            {
                "probe": record.get("probe"),
                "started (UTC)": record.get("start_time_utc"),
                "revision": record.get("git_revision"),
                "ranks": (record.get("mpi") or {}).get("ranks"),
                "command": " ".join(record.get("command_line") or []),
            }
        )
    if rows:
        doc.table(pd.DataFrame(rows))
    if manifest:
        listed = manifest.get("steps", [])
        launched = any("launch" in s for s in listed)  # runs from before the launches have no such column
        columns = ["probe"] + (["launch"] if launched else []) + ["status", "exit_code", "records", "wall_s"]
        steps = pd.DataFrame(listed).reindex(columns=columns)
        if launched:
            steps["launch"] = [s.get("launch", "") for s in listed]
        unusable = {results_stem(n): "file unusable" for n in unreadable if is_results_file(n)}
        unusable.update({n: "file cut" for n in short})
        if unusable:  # a step whose file cannot be read, or is cut, did not give this report all its numbers
            steps["status"] = [unusable.get(step_name(s), status) for s, status in zip(listed, steps["status"])]
        if errors:  # the last error of each failed step's log, beside it
            steps["error"] = [errors.get(step_name(s), "") for s in listed]
        if isinstance(manifest.get("wall_s"), (int, float)):
            doc.para(f"Wall time of the measurements (topology and every probe): {manifest['wall_s']:.1f} s.")
        doc.table(steps.rename(columns={"wall_s": "wall time (s)"}))
    if unreadable:
        doc.para("Files left out of this report:")
        doc.bullets(list(unreadable.values()))
    doc.para(
        "Every number above is computed from the records in this directory (JSON Lines, schema "
        "`docs/results-schema.md`; formulas in `docs/metrics.md`). Load them with "
        '`hetprobe.load("<this directory>")`.'
    )
