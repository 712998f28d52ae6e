"""Warnings beside the numbers of a report, and sections that survive missing records.

The probes record two kinds of warnings (docs/results-schema.md): a header's "warnings" say the
run's conditions made its numbers doubtful (other work on its CPUs, high load), a record's own say
its samples' spread is too wide. A table row or headline number built from records is marked ⚠N,
with warning N written under the table; the conditions open the report and each probe's section.
"""

from __future__ import annotations

import pandas as pd

from .errors import UsageError
from .load import Results
from .report_render import Document

MARK = "⚠"


def _unique(items) -> list[str]:
    return list(dict.fromkeys(items))


def record_warnings(results: Results, record_ids) -> list[str]:
    """The records' own warnings (their spread), each once, in record order."""
    return _unique(w for i in sorted(set(int(r) for r in record_ids)) for w in results.records[i].get("warnings") or [])


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
                name = str(r.get("_file", "")).rsplit("/", 1)[-1]
                out.setdefault(w, [])
                if name not in out[w]:
                    out[w].append(name)
    return out


def short(warning: str) -> str:
    """The reading of a warning sentence, for a summary line: its text before the first ": " outside
    parentheses, without them ("5 runnable threads on the 2 CPUs of this run (...; threshold: one
    per CPU): other work ..." -> "5 runnable threads on the 2 CPUs of this run")."""
    out, depth = [], 0
    for i, c in enumerate(warning):
        depth += (c == "(") - (c == ")")
        if depth == 0 and warning.startswith(": ", i):
            break
        if depth == 0 and c != ")":
            out.append(c)
    return " ".join("".join(out).split()).rstrip(".")


def noisy_suffix(warnings: list[str]) -> str:
    """Text to put after a number in summary.txt: " ⚠ noisy: <first warning> (+N more)"."""
    if not warnings:
        return ""
    more = f" (+{len(warnings) - 1} more)" if len(warnings) > 1 else ""
    return f"  {MARK} noisy: {short(warnings[0])}{more}"


class Marks:
    """Footnote numbers for the warnings of one table: mark(warnings) -> "⚠1,2"; write() lists them."""

    def __init__(self):
        self.numbers: dict[str, int] = {}

    def mark(self, warnings: list[str]) -> str:
        ids = [self.numbers.setdefault(w, len(self.numbers) + 1) for w in warnings]
        return f"{MARK}{','.join(map(str, ids))}" if ids else ""

    def write(self, doc: Document) -> None:
        if self.numbers:
            doc.bullets([f"{MARK}{n}: {w}" for w, n in self.numbers.items()])


def flagged_table(doc: Document, table: pd.DataFrame, row_warnings: list[list[str]], index: bool = False) -> None:
    """The table with a ⚠ column marking each row's warnings (when any has some), and the notes under it."""
    marks = Marks()
    column = [marks.mark(w) for w in row_warnings]
    if marks.numbers:
        table = table.copy()
        levels = table.columns.nlevels  # a MultiIndex column needs its full key: ("⚠", "")
        table[(MARK,) + ("",) * (levels - 1) if levels > 1 else MARK] = column
    doc.table(table, index=index)
    marks.write(doc)


def warnings_by(results: Results, rows: pd.DataFrame, keys: list[str]) -> dict[tuple, list[str]]:
    """{key values: the warnings of the records of the summary `rows` with those values}."""
    out = {}
    if rows.empty:
        return out
    for key, part in rows.groupby(keys, sort=False, dropna=False):
        out[key if isinstance(key, tuple) else (key,)] = record_warnings(results, part["record_id"])
    return out


def conditions_note(doc: Document, results: Results, what: str) -> None:
    """The run conditions' warnings of `results`, as a note at the top of a section."""
    found = condition_warnings(results)
    if found:
        doc.warn(f"{MARK} The conditions of the {what} run make its numbers doubtful: " + " ".join(found))


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
