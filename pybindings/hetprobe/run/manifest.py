"""What a characterize run did, as it goes: its steps (Step), the run (Run) and characterize.json,
which Run.manifest() builds once for the file and for the report written while the run is in progress."""

from __future__ import annotations

import json
import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path

from ..data.steps import launch_name
from ..node import verdict as node_verdict


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
    tolerance: float = node_verdict.DEFAULT_TOLERANCE
    per_gpu: list = field(default_factory=list)  # the rows of hetprobe.node.gpus.per_gpu
    verdict: dict | None = None  # the node verdict (C++): every flag with its status, the per-GPU intervals
    anomalies: list = field(default_factory=list)  # what counts: confirmed and link flags, outside the baseline
    baseline: dict | None = None  # {"directory", "within_tolerance"} with --baseline
    compare_error: str | None = None  # why the per-GPU table could not be built
    launches: dict = field(default_factory=dict)  # {interference step: its launches run}
    launches_asked: int | None = None  # --launches; None: the default (DEFAULT_LAUNCHES)
    headline: dict | None = None  # the interference headline's numbers (C++'s headline_numbers)

    def outside_baseline(self) -> list[dict]:
        return [a for a in self.anomalies if a["reference_kind"] == "baseline"]

    def failed(self) -> list[Step]:
        return [s for s in self.steps if s.status == "failed"]

    def manifest(self) -> dict:
        """characterize.json: what ran (each step's command, status, exit code, wall time, records), the
        per-GPU table and the GPUs flagged. The report reads it from here while the run writes it."""
        return {
            "tool": "hetprobe characterize",
            "command_line": sys.argv,
            "wall_s": self.wall_s,
            "report_s": self.report_s,
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
                for s in self.steps
            ],
            **({"report_error": self.report_error} if self.report_error else {}),
            "launches": self.launches,
            "launches_asked": self.launches_asked,
            "gpus": self.gpus,
            "tolerance": self.tolerance,
            "per_gpu": self.per_gpu,
            "verdict": self.verdict,
            "headline": self.headline,
            "anomalies": self.anomalies,
            **({"baseline": self.baseline} if self.baseline else {}),
            **({"compare_error": self.compare_error} if self.compare_error else {}),
        }


def write_manifest(run: Run) -> None:
    (run.directory / "characterize.json").write_text(json.dumps(run.manifest(), indent=2) + "\n")
