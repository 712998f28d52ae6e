"""The files the report writes into a run directory, each whole or not at all (data.paths.write_whole):
a link, a FIFO, a device or a directory in a file's place is refused, naming it, before anything is
written (check), and nothing is written through a link or outside the directory."""

from __future__ import annotations

from pathlib import Path

from ..data.paths import check_replaceable, write_whole
from ..plots.style import DPI

PLOTS = (
    "gpus.png",
    "interference_gpus.png",
    "interference_ratio.png",
    "interference_send_time.png",
    "interference_traffic.png",
    "notify_mechanisms.png",
    "notify_roundtrip.png",
    "clock.png",
)
OUTPUTS = ("report.md", "report.html", "summary.txt", "model.json", *PLOTS)
_WHO = "the report"


def check(directory: Path) -> None:
    """UsageError naming the first of the report's files whose place holds anything but a regular file."""
    for name in OUTPUTS:
        check_replaceable(directory / name, _WHO)


def _declared(name: str) -> None:
    if name not in OUTPUTS:  # a new file: name it in OUTPUTS, so that check() looks at its place first
        raise ValueError(f"{name}: not one of the report's files (report/outputs.py OUTPUTS)")


def write_text(directory: Path, name: str, text: str) -> Path:
    _declared(name)
    return write_whole(directory / name, lambda tmp: tmp.write_text(text, encoding="utf-8"), _WHO)


def save(fig, directory: Path, name: str) -> str:
    """The figure as a PNG in `directory`. Its constrained layout already fits it: bbox_inches="tight"
    would draw it twice (half of the report's time)."""
    _declared(name)
    write_whole(directory / name, lambda tmp: fig.savefig(tmp, dpi=DPI, format="png"), _WHO)
    return name
