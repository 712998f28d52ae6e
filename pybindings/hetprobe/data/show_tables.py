"""The tables `hetprobe show` prints, as DataFrames: computed by the probes' C++ table code (the one
owner of every derived column) through hetprobe._core, so a notebook and the CLI never disagree."""

from __future__ import annotations

import json

import pandas as pd


def _text_of(records: list, lines: list) -> str:
    """A file's records as JSON Lines: the raw lines as read (the C++ reader upgrades older versions
    itself), or the records without the loader's own fields where they were not read from a file."""
    out = []
    for i, rec in enumerate(records):
        raw = lines[i] if i < len(lines) else None
        if raw is None:
            raw = json.dumps({k: v for k, v in rec.items() if not k.startswith("_")})
        out.append(raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw)
    return "\n".join(out) + "\n"


def _texts_by_file(results) -> dict[str, str]:
    """{file name: its records as JSON Lines text}, in the order the files were loaded."""
    by_file: dict[str, tuple[list, list]] = {}
    for i, rec in enumerate(results.records):
        recs, lines = by_file.setdefault(rec.get("_file", "?"), ([], []))
        recs.append(rec)
        lines.append(results._lines[i] if i < len(results._lines) else None)
    return {name: _text_of(recs, lines) for name, (recs, lines) in by_file.items()}


def show_tables(results) -> dict[str, pd.DataFrame]:
    """{table name: DataFrame} of `hetprobe show --format json` for each results file in `results`, the
    files' rows one after the other with a leading `file` column (table names: interference, overhead,
    roundtrip, mechanisms, clock_batches, clock_fit, halo, bandwidth)."""
    from .. import _rules  # the compiled module: the tables are computed once, in C++

    rows: dict[str, list] = {}
    for name, text in _texts_by_file(results).items():
        for table, table_rows in _rules.report_tables(text, name).items():
            rows.setdefault(table, []).extend({"file": name, **row} for row in table_rows)
    return {table: pd.DataFrame(table_rows) for table, table_rows in rows.items()}


def pooled_table(results) -> pd.DataFrame:
    """`hetprobe show --pool --format json`'s table of the files in `results`, each file one launch of
    one command (interference or halo): computed by the probe's C++ pooling, raw floats."""
    from .. import _rules

    texts = _texts_by_file(results)
    tables = _rules.pooled_tables([(text, name) for name, text in texts.items()])
    return pd.DataFrame(next(iter(tables.values()), []))
