"""Which reader reads each record type: the rows its schema entry makes in `summary` and `samples`
(schema_rows.py), or another reader named here. Every record type of the
schema is read by one (tests/python/test_load.py), so none drops out unseen; hetprobe.load warns naming a
record read by none."""

from __future__ import annotations

from .schema_rows import schema_converter

# Record types with no rows in `summary`, and where they are read instead.
READ_ELSEWHERE = {
    ("bandwidth", "link"): "hetprobe.per_gpu (each GPU's link, ok or skipped)",
    ("gpus", "gpu_round"): "hetprobe.per_gpu (the per-GPU rounds)",
    ("gpus", "gpus_verdict"): "hetprobe.per_gpu and the report (the node verdict)",
    ("interference", "aggregate"): "Results.interference_ratios (C++'s aggregation stage makes them)",
}


def record_type(rec) -> tuple:
    """(probe, record): the key of schema_rows.schema_converter and READ_ELSEWHERE."""
    return rec.get("probe"), rec.get("record")


def unknown_type(rec) -> bool:
    """Whether this record (a header is none) makes no rows and is read by no reader named in READ_ELSEWHERE."""
    key = record_type(rec)
    known = key in READ_ELSEWHERE or schema_converter(key) is not None
    return rec.get("record") != "header" and not known
