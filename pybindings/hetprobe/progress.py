"""Progress of a long run: a bar that redraws one line on a terminal, plain
timestamped lines in a batch log (no carriage returns to garble it)."""

from __future__ import annotations

import time
from typing import TextIO

from ._units import size_label


def _us(summary: dict | None) -> str:
    if not summary or summary.get("median") is None:
        return "n/a"
    return f"{summary['median'] / 1000:.2f} us"


def _ratio(record: dict) -> str:
    """ ", x1.12 (1.07-1.19) slowdown": a point's ratio to SSB, its 95% interval and what that claims."""
    ratio, ci = record.get("ratio_to_ssb_median"), record.get("ratio_to_ssb_ci95")
    if not isinstance(ratio, (int, float)):
        return ""
    interval = f" ({ci[0]:.2f}-{ci[1]:.2f})" if isinstance(ci, list) and len(ci) == 2 else ""
    effect = f" {record['effect']}" if record.get("effect") in ("slowdown", "speedup") else ""
    return f", x{ratio:.3g}{interval}{effect}"


def record_label(record: dict) -> str:
    """A short human description of a record, for progress output only."""
    kind = record.get("record")
    if kind == "point" and record.get("probe") == "interference":
        load = record.get("load_kind", "none")  # files from before the loads name none
        load = (
            ""
            if load == "none"
            else f" {load} x{record.get('load_gpus')}"
            + ("" if record.get("load_rate") == "1" else f" @{record.get('load_rate')}")
        )
        return (
            f"{size_label(record['size_bytes'])} {record['layout']} {record['access']}{load}: "
            f"MPI_Send median {_us(record.get('send_time_ns'))}{_ratio(record)}, {record.get('status')}"
        )
    if kind == "host_memory":
        return f"host memory: STREAM triad {record.get('best_triad_gbs', float('nan')):.1f} GB/s"
    setup = record.get("setup") or {}
    orders = f"{setup.get('cpu_order')}:{setup.get('gpu_order')}" if setup else ""
    if kind == "overhead":
        polled = ", other side polling" if record.get("contended") else ""
        return f"overhead {record.get('side')} {orders}{polled}"
    if kind == "roundtrip":
        return f"round trip {record.get('direction')} {orders}: median {_us(record.get('roundtrip_ns'))}"
    if kind == "mechanism":
        if record.get("status") == "skipped":
            return f"mechanism {record.get('mechanism')}: skipped"
        return f"mechanism {record.get('mechanism')}: median {_us(record.get('roundtrip_ns'))}"
    if kind == "clock_batch":
        return f"clock batch {record.get('batch')} ({record.get('role')}) at {record.get('at_s', 0):.1f} s"
    if kind == "point" and record.get("probe") == "bandwidth":
        return f"bandwidth {record.get('writer')}: median {record.get('median_gbs', float('nan')):.3g} GB/s"
    if kind == "link":
        if record.get("status") != "ok":
            return f"link: not read ({record.get('skipped_reason') or record.get('status')})"
        return (
            f"link: {record.get('current_speed_gts')} GT/s x{record.get('current_width')} of "
            f"{record.get('max_speed_gts')} GT/s x{record.get('max_width')}"
        )
    if kind == "clock_fit":
        return (
            f"clock fit: drift {record.get('drift_ppm', float('nan')):.2f} ppm, "
            f"precision {record.get('precision_ns', float('nan')):.0f} ns"
        )
    return str(kind)


def clock_text(seconds: float) -> str:
    """m:ss, or h:mm:ss from an hour."""
    s = int(max(seconds, 0))
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"


class Progress:
    """Reports steps to `stream`: ``bar=True`` redraws one line, else one line per update. Every line
    starts with the time since the run began; where a step's record count is known, its updates show
    done/total and the time left in the step (ETA), from the pace of its records so far. `steps`: the
    names of the run's steps, to say which one of how many is running. `clock`: seconds, monotonic."""

    def __init__(self, stream: TextIO, bar: bool, width: int = 28, steps=(), clock=time.monotonic):
        self.stream, self.bar, self.width = stream, bar, width
        self.steps = list(steps)
        self.clock = clock
        self.started = clock()
        self.step_started = self.started

    def _elapsed(self) -> str:
        return clock_text(self.clock() - self.started)

    def _position(self, step: str) -> str:
        return f" (step {self.steps.index(step) + 1} of {len(self.steps)})" if step in self.steps else ""

    def eta(self, done: int, total: int | None) -> str:
        """ "ETA m:ss" of the current step, "ETA unknown" before its first record or without a total."""
        if not total or done <= 0:
            return "ETA unknown"
        spent = self.clock() - self.step_started
        return f"ETA {clock_text(spent / done * max(total - done, 0))}"

    def start(self, step: str, total: int | None) -> None:
        self.step_started = self.clock()
        what = f"{total} records expected" if total else "records as they come; no ETA: their count is not known"
        self._line(f"{step}{self._position(step)}: started ({what})", final=not self.bar)

    def update(self, step: str, done: int, total: int | None, label: str) -> None:
        total = max(total, done) if total else total  # an estimate the run outgrew
        eta = f" {self.eta(done, total)}" if total else ""
        if self.bar and total:
            filled = int(self.width * min(done, total) / total)
            self._line(f"{step} [{'#' * filled}{'.' * (self.width - filled)}] {done}/{total}{eta} {label}")
        elif self.bar:
            self._line(f"{step} {done} {label}")
        else:
            count = f"{done}/{total}" if total else f"{done}"
            self._line(f"{step} {count}: {label}{f' [{eta.strip()}]' if eta else ''}", final=True)

    def finish(self, step: str, status: str, records: int, wall_s: float, log=None) -> None:
        where = f"; see {log}" if log else ""
        self._line(f"{step}: {status}, {records} records in {wall_s:.1f} s{where}", final=True)

    def _line(self, text: str, final: bool = False) -> None:
        text = f"[{self._elapsed()}] {text}"
        if self.bar:
            self.stream.write("\r\x1b[2K" + text + ("\n" if final else ""))
        else:
            self.stream.write(text + "\n")
        self.stream.flush()
