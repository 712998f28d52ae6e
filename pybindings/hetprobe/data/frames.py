"""Records -> the `summary` and `samples` DataFrames of hetprobe.load (docs/results-schema.md).

Each record's schema entry (record_rows.py, schema_rows.py) gives the record's key columns, its summary rows
and its raw sample arrays; here they become frames. Frames always have the same columns, whatever
probes were loaded; a column that does not apply to a row holds NaN/None. Sample columns are built
with numpy, one array per column.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from . import schema

# record_id: the row's index in Results.records (ties summary rows, samples and records together).
COMMON = ["file", "segment", "probe", "record", "host", "backend", "device", "rank", "record_id"]
# From the schema (results.schema.json): the record fields marked "frame": "key" (what a row is a
# measurement of) and "extra" (per-row readings beside the statistics), and the Summary's fields.
# warnings: the record's own (its spread; measurement conditions are the header's), "; "-joined;
# "" when it has none, None for files from before they were recorded.
KEYS = list(schema.frame_columns("key"))
STATS = schema.summary_fields()
EXTRAS = list(schema.frame_columns("extra"))
SUMMARY_COLUMNS = COMMON + KEYS + ["metric", "unit"] + STATS + EXTRAS + ["warnings"]
SAMPLE_COLUMNS = COMMON + KEYS + ["metric", "unit", "sample", "value"]
HEADER_COLUMNS = ["file", "segment", *schema.frame_columns("header")]

_INT = {
    "segment",
    "rank",
    "record_id",
    "size_bytes",
    "bytes",
    "spacing_bytes",
    "ops_per_sample",
    "exchanges",
    "batch",
    "n",
    "samples_used",
    "samples_total",
    "sample",
    "mpi_ranks",
    "cube",
    "load_gpus",
    "rounds",
    "reps",
    "missed_writes",
}
_BOOL = {
    "contended",
    "unresolved",
    "below_timer_tick",
    "check_within_precision",
    "resumed",
    "mpi_across_hosts",
    "mpi_at_or_above_eager_limit",
}
_TEXT = {"payload_check", "label", "payload_writer", "effect", "mpi_sender_host", "mpi_receiver_host", "mpi_carrier"}
_TEXT |= {"numa_nodes"}  # a list, as the record has it
_FLOAT = set(STATS) - {"n"} | {"at_s", "value"} | (set(EXTRAS) - _INT - _BOOL - _TEXT)


def _column(name, values):
    """One column from a Python list, with the dtype its name calls for (ints with gaps become float)."""
    if name in _INT:
        if any(v is None for v in values):
            return np.array([np.nan if v is None else v for v in values], dtype=np.float64)
        return np.array(values, dtype=np.int64)
    if name in _FLOAT:
        return np.array([np.nan if v is None else v for v in values], dtype=np.float64)
    if name in _BOOL and not any(v is None for v in values):
        return np.array(values, dtype=bool)
    return pd.array(values, dtype=object) if all(v is None for v in values) else values


def frame(columns, rows: list[dict]) -> pd.DataFrame:
    """DataFrame with exactly `columns` from a list of row dicts (missing keys -> None/NaN)."""
    return pd.DataFrame({c: _column(c, [r.get(c) for r in rows]) for c in columns}, columns=columns)


def sample_frame(chunks: list[tuple[dict, np.ndarray]]) -> pd.DataFrame:
    """The samples frame from (constant columns, values) chunks: each constant repeated once per value."""
    lengths = np.array([len(v) for _, v in chunks], dtype=np.int64)
    data = {}
    for c in SAMPLE_COLUMNS[:-2]:
        per_chunk = _column(c, [const.get(c) for const, _ in chunks])
        if isinstance(per_chunk, np.ndarray):
            data[c] = np.repeat(per_chunk, lengths)
            continue
        repeated = np.repeat(np.array(per_chunk, dtype=object), lengths)
        # Text gets pandas' string dtype, as in the summary frame; bools with gaps stay object.
        text = c not in _BOOL and any(v is not None for v in per_chunk)
        data[c] = pd.array(repeated, dtype="str") if text else repeated
    starts = np.repeat(np.cumsum(lengths) - lengths, lengths)
    data["sample"] = np.arange(int(lengths.sum()), dtype=np.int64) - starts
    data["value"] = np.concatenate([v for _, v in chunks]) if chunks else np.array([], dtype=np.float64)
    return pd.DataFrame(data, columns=SAMPLE_COLUMNS)


def dataframes(rows: tuple[list, list, list]) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """(headers, summary, samples) from the header rows, summary rows and sample chunks of records."""
    header_rows, summary_rows, chunks = rows
    return frame(HEADER_COLUMNS, header_rows), frame(SUMMARY_COLUMNS, summary_rows), sample_frame(chunks)
