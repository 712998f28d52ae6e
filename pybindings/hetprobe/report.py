"""The report of a run directory: report.md with its PNG plots beside it, the
same as one self-contained report.html (images inlined), and summary.txt,
the few lines characterize prints. Every number comes from the run's
records; the text says how each was measured and with how many samples."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from .errors import UsageError
from .load import Results, load
from .report_render import Document
from .report_sections import clock_section, headline, interference_section, node_section, notify_section


def _manifest(directory: Path, run) -> dict | None:
    if run is not None:
        return {"wall_s": run.wall_s, "steps": [{"probe": s.probe, "status": s.status, "exit_code": s.exit_code,
                                                 "wall_s": s.wall_s, "records": s.records} for s in run.steps]}
    path = directory / "characterize.json"
    return json.loads(path.read_text()) if path.exists() else None


def write_report(directory, run=None) -> Path:
    """Writes report.md, report.html, the PNG plots and summary.txt into `directory`; returns report.md."""
    directory = Path(directory)
    if not directory.is_dir():
        raise UsageError(f"{directory} is not a run directory")
    results = load(directory)
    header = results.header()
    manifest = _manifest(directory, run)
    doc = Document(f"hetprobe node report: {header.get('host')}")
    device = header.get("device") or {}
    doc.para(f"Device **{device.get('name')}** (backend `{header.get('backend')}`), host `{header.get('host')}`, "
             f"started {header.get('start_time_utc')}, hetprobe {header.get('hetprobe_version')} "
             f"({header.get('git_revision')}).")
    if header.get("backend") == "host":
        doc.warn(f"This run used the host backend (device choice: {header.get('device_choice')}). CPU threads "
                 "played the GPU, so these numbers describe this CPU and its memory, not a GPU.")
    lines = headline(doc, results)
    node_section(doc, results, header)
    probes = set(results.summary["probe"]) if len(results.summary) else set()
    if "interference" in probes:
        interference_section(doc, results.probe("interference"), directory)
    if "notify" in probes:
        notify_section(doc, results.probe("notify"), directory)
    if "clock" in probes:
        clock_section(doc, results.probe("clock"), directory)
    _provenance(doc, results, manifest)
    (directory / "report.md").write_text(doc.markdown())
    (directory / "report.html").write_text(doc.html(directory))
    summary = [f"{header.get('host')}: {device.get('name')} (backend {header.get('backend')})"]
    if header.get("backend") == "host":
        summary.append("  no GPU used: CPU threads played the GPU (see the report)")
    summary += [f"  {line}" for line in lines]
    if manifest:
        for step in manifest["steps"]:
            if step["status"] != "ok":
                summary.append(f"  {step['probe']}: {step['status']} (exit code {step['exit_code']})")
    summary.append(f"  report: {directory / 'report.md'} and {directory / 'report.html'}")
    (directory / "summary.txt").write_text("\n".join(summary) + "\n")
    return directory / "report.md"


def _provenance(doc: Document, results: Results, manifest: dict | None) -> None:
    doc.h2("How this was measured")
    rows = []
    for record in results.records:
        if record.get("record") != "header":
            continue
        rows.append({"probe": record.get("probe"), "started (UTC)": record.get("start_time_utc"),
                     "revision": record.get("git_revision"), "ranks": (record.get("mpi") or {}).get("ranks"),
                     "command": " ".join(record.get("command_line") or [])})
    doc.table(pd.DataFrame(rows))
    if manifest:
        steps = pd.DataFrame(manifest["steps"])[["probe", "status", "exit_code", "records", "wall_s"]]
        doc.para(f"Wall time of the measurements (topology and every probe): {manifest['wall_s']:.1f} s.")
        doc.table(steps.rename(columns={"wall_s": "wall time (s)"}))
    doc.para("Every number above is computed from the records in this directory (JSON Lines, schema "
             "`docs/results-schema.md`; formulas in `docs/metrics.md`). Load them with "
             "`hetprobe.load(\"<this directory>\")`.")
