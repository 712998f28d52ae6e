"""Warnings beside the numbers of a report, and sections that survive missing records.

The probes record two kinds of warnings (docs/results-schema.md): a header's "warnings" say the
run's conditions made its numbers doubtful (other work on its CPUs, high load), a record's own say
its samples' spread is too wide or a value is under the step it is made of. One numbering serves a
whole report (Marks): ⚠N is one kind of warning wherever it stands, beside a headline number or in
a table's ⚠ column, and the report's "Conditions and warnings" section writes each kind once, with
its worst reading and where it was recorded.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field

import pandas as pd

from ..data.results import Results
from ..errors import UsageError
from .render import Document

MARK = "⚠"
# A number as the probes write one into a sentence (bench/core/noise.cpp): "12", "0.727", "5.601e+06".
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:e[+-]?\d+)?")


def _unique(items) -> list[str]:
    return list(dict.fromkeys(items))


def record_warnings(results: Results, record_ids) -> list[str]:
    """The records' own warnings (their spread), each once, in record order."""
    return _unique(w for i in sorted(set(int(r) for r in record_ids)) for w in results.records[i].get("warnings") or [])


def warned(results: Results, record_ids) -> list[str]:
    """Every warning that applies to numbers from these records: their own, then their runs' conditions."""
    ids = list(record_ids)
    return list(dict.fromkeys(record_warnings(results, ids) + condition_warnings(results, ids)))


def condition_warnings(results: Results, record_ids=None) -> list[str]:
    """The warnings of the headers of these records' runs (all runs when None), each once."""
    headers = results._segment_headers()
    if record_ids is None:
        segments = sorted(headers)
    else:
        segments = sorted({results.records[int(i)]["_segment"] for i in record_ids})
    return _unique(w for s in segments for w in headers[s].get("warnings") or [])


def conditions_by_warning(results: Results) -> dict[str, list[str]]:
    """{warning: [probe files it was recorded for]} over every header of `results`."""
    out: dict[str, list[str]] = {}
    for r in results.records:
        if r.get("record") == "header":
            for w in r.get("warnings") or []:
                name = os.path.basename(str(r.get("_file", "")))
                out.setdefault(w, [])
                if name not in out[w]:
                    out[w].append(name)
    return out


def _outside_parentheses(text: str) -> str:
    out, depth = [], 0
    for c in text:
        depth += (c == "(") - (c == ")")
        if depth == 0 and c != ")":
            out.append(c)
    return "".join(out)


def short(warning: str) -> str:
    """The reading of a warning sentence, for a summary line: its text before the last ": " outside
    parentheses, without them ("5 runnable threads on the 2 CPUs of this run (...; threshold: one
    per CPU): other work ..." -> "5 runnable threads on the 2 CPUs of this run"; "send_time_ns: the SSB
    median drifted by 123% across its rounds (...): the node's ..." keeps its reading's name)."""
    text = _outside_parentheses(warning)
    cut = text.rfind(": ")
    return " ".join((text if cut < 0 else text[:cut]).split()).rstrip(".")


def kind(warning: str) -> str:
    """What a warning says but for its readings: the sentence outside its parentheses (which hold
    thresholds and details such as "1 rank" or "2 ranks") with every number as "#"."""
    return _NUMBER.sub("#", " ".join(_outside_parentheses(warning).split()))


def _readings(warning: str) -> list[float]:
    return [float(x) for x in _NUMBER.findall(_outside_parentheses(warning))]


def _extremity(x: float) -> float:
    return math.inf if x == 0 else abs(math.log(abs(x)))


@dataclass
class Kind:
    """The readings of one kind of warning: (sentence, file it was recorded in), in record order."""

    condition: bool  # a header's: the node while a run started, not one record's samples
    readings: list[tuple[str, str]] = field(default_factory=list)

    def worst(self) -> tuple[str, str]:
        """The reading furthest out: at the first number that differs between the sentences (the
        reading; the others are the same thresholds), the one furthest from 1, above or below, as
        every warned reading lies beyond its threshold on its own side (a p90 40x the median, a p10
        0.1x it, 12 runnable threads, a time 0.7x a tick)."""
        numbers = [_readings(w) for w, _ in self.readings]
        for i in range(min(map(len, numbers))):
            if len({n[i] for n in numbers}) > 1:
                return self.readings[max(range(len(numbers)), key=lambda r: _extremity(numbers[r][i]))]
        return self.readings[0]

    def where(self) -> str:
        """ "in a.jsonl", or "the worst of 4 readings, in a.jsonl; also in b.jsonl, c.jsonl"."""
        _, worst = self.worst()
        if len(self.readings) == 1:
            return f"in {worst}"
        others = [f for f in _unique(f for _, f in self.readings) if f != worst]
        return f"the worst of {len(self.readings)} readings, in {worst}" + (
            f"; also in {', '.join(others)}" if others else ""
        )


def by_kind(readings) -> dict[str, Kind]:
    """{kind: its readings} of (sentence, file, is a condition) readings, in the order first seen."""
    out: dict[str, Kind] = {}
    for warning, file, condition in readings:
        out.setdefault(kind(warning), Kind(condition)).readings.append((warning, file))
    return out


class Marks:
    """The warning marks of one report. Every warning recorded in `results` is read up front, so the
    section that lists them can name each kind's worst reading wherever in the run it was; ⚠N is
    numbered the first time the report marks its kind, the run's conditions first (they open the
    sections of their runs), and a kind no number was marked with gets its number in the list."""

    def __init__(self, results: Results):
        # Files from before the warnings have no "warnings" field: nothing was checked, not nothing found.
        self.checked = any("warnings" in r for r in results.records)
        self.kinds = by_kind(
            (w, os.path.basename(str(r.get("_file", ""))), r.get("record") == "header")
            for r in results.records
            for w in r.get("warnings") or []
        )
        self.numbers: dict[str, int] = {}
        self.marked: set[str] = set()  # the kinds that stand beside a number somewhere
        for key, k in self.kinds.items():
            if k.condition:
                self._number(key)

    def _number(self, key: str) -> int:
        return self.numbers.setdefault(key, len(self.numbers) + 1)

    def mark(self, warnings: list[str]) -> str:
        """ "⚠1,3" for these warnings; "" for none."""
        for w in warnings:
            if kind(w) not in self.kinds:  # a warning of records outside `results` (not expected)
                self.kinds[kind(w)] = Kind(False, [(w, "these results")])
        self.marked.update(kind(w) for w in warnings)
        ids = sorted({self._number(kind(w)) for w in warnings})
        return f"{MARK}{','.join(map(str, ids))}" if ids else ""

    def write(self, doc: Document) -> None:
        """Each kind once, its number, worst reading and where: the run's conditions, then the samples'."""
        for key in self.kinds:
            self._number(key)
        order = sorted(self.kinds, key=self.numbers.__getitem__)
        for condition, intro in (
            (True, "The node when a probe started (marked atop its sections and beside its headline numbers):"),
            (False, "The samples behind single numbers (marked beside the number or in its table's ⚠ column):"),
        ):
            lines = [
                f"{MARK}{self.numbers[key]}: {self.kinds[key].worst()[0]} ({self.kinds[key].where()}"
                + ("" if key in self.marked else "; no number shown rests on these records alone")
                + ")"
                for key in order
                if self.kinds[key].condition == condition
            ]
            if lines:
                doc.para(intro)
                doc.bullets(lines)
        if not self.kinds:
            doc.para(
                "The probes recorded no warning about the node's conditions or their samples."
                if self.checked
                else "These files are from before the probes checked the node's conditions and their samples."
            )


def warned_suffix(warnings: list[str]) -> str:
    """Text to put after a number in summary.txt: " ⚠ <first warning's reading> (+N more)" (not all
    say the samples were noisy: a time under one cycle is not noise)."""
    if not warnings:
        return ""
    more = f" (+{len(warnings) - 1} more)" if len(warnings) > 1 else ""
    return f"  {MARK} {short(warnings[0])}{more}"


def flagged_table(doc: Document, table: pd.DataFrame, row_warnings: list[list[str]], index: bool = False) -> None:
    """The table with a ⚠ column marking each row's warnings (when any has some), by the report's numbers."""
    column = [doc.marks.mark(w) for w in row_warnings]
    if any(column):
        table = table.copy()
        levels = table.columns.nlevels  # a MultiIndex column needs its full key: ("⚠", "")
        table[(MARK,) + ("",) * (levels - 1) if levels > 1 else MARK] = column
    doc.table(table, index=index)


def warnings_by(results: Results, rows: pd.DataFrame, keys: list[str]) -> dict[tuple, list[str]]:
    """{key values: the warnings of the records of the summary `rows` with those values}."""
    out = {}
    if rows.empty:
        return out
    for key, part in rows.groupby(keys, sort=False, dropna=False):
        out[key if isinstance(key, tuple) else (key,)] = record_warnings(results, part["record_id"])
    return out


def conditions_note(doc: Document, results: Results) -> None:
    """The marks of the run conditions' warnings of `results`, at the top of its section."""
    found = doc.marks.mark(condition_warnings(results))
    if found:
        doc.warn(f"{found}: the conditions of this run (Conditions and warnings) apply to every number below.")


def guarded(doc: Document, what: str, build) -> object:
    """Runs build(); a section part that cannot be built from these records says why in the report
    instead of losing the report (UsageError: records missing; anything else: a reader's bug)."""
    try:
        return build()
    except UsageError as e:
        doc.para(f"*{what}: not available: {e}.*")
    except Exception as e:  # noqa: BLE001 - the main job must still leave its report
        doc.warn(
            f"{what} could not be written from these records ({type(e).__name__}: {e}). "
            "The records are in the run directory; please report this."
        )
    return None
