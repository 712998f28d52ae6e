"""A record's rows in hetprobe.load's frames: a header's row of Results.headers, and any other record's
key columns, `summary` rows and `samples` chunks, as its record type's schema entry marks them
(schema_rows.py). Fields are read with data.fields' checked access, so a malformed record names its
field."""

from __future__ import annotations

from .fields import opt, strings
from .schema_rows import schema_converter


def warnings_text(rec) -> str | None:
    """A record's "warnings" (measurement conditions, spread) joined by "; "; "" when it has none,
    None when the record predates them (not checked)."""
    found = strings(rec, "warnings")
    return None if found is None else "; ".join(found)


def header_row(rec) -> dict:
    """One row of Results.headers from a header record (its fields checked: see data.fields)."""
    for path in ("device", "mpi", "config", "topology", "conditions"):
        opt(rec, path, "object")
    opt(rec, "ranks", "array")
    command = strings(rec, "command_line")
    return {
        "file": rec["_file"],
        "segment": rec["_segment"],
        "probe": opt(rec, "probe", "string"),
        "host": opt(rec, "host", "string"),
        "backend": opt(rec, "backend", "string"),
        "device": opt(rec, "device.name", "string"),
        "git_revision": opt(rec, "git_revision", "string"),
        "hetprobe_version": opt(rec, "hetprobe_version", "string"),
        "start_time_utc": opt(rec, "start_time_utc", "string"),
        "resumed": opt(rec, "resumed", "boolean"),
        "mpi_ranks": opt(rec, "mpi.ranks", "integer"),
        "mpi_single_copy": opt(rec, "mpi.transport.single_copy", "string"),
        "command_line": " ".join(command) if command is not None else None,
        "warnings": warnings_text(rec),
    }


def convert(rec, header, record_id: int):
    """(keys, rows, chunks) of one record, or None for a record type whose schema entry makes no row (read
    elsewhere, or one this reader does not know: record_types.py)."""
    fn = schema_converter((rec.get("probe"), rec.get("record")))
    if fn is None:
        return None
    keys, rows, chunks = fn(rec, header)
    device = header.get("device") or {}
    common = {
        "file": rec["_file"],
        "segment": rec["_segment"],
        "probe": rec["probe"],
        "record": rec["record"],
        "host": header.get("host"),
        "backend": header.get("backend"),
        "device": device.get("name"),
        "rank": opt(rec, "rank", "integer", 0),
        "record_id": record_id,
        "warnings": warnings_text(rec),
    }
    return {**common, **keys}, rows, chunks
