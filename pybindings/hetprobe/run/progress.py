"""Progress of a long run: a bar that redraws one line on a terminal, plain
timestamped lines in a batch log (no carriage returns to garble it)."""

from __future__ import annotations

import json
import time
from typing import TextIO


def record_label(record: dict) -> str:
    """A record's progress line, as the probe itself names it in its own progress lines (each probe's
    record_label in C++, through the compiled module): one owner for every label."""
    from .. import _rules

    return _rules.record_label(json.dumps(record)) or str(record.get("record"))


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

    def add(self, step: str) -> None:
        """A step decided on during the run (the gpus re-measure), counted from now on."""
        self.steps.append(step)

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
