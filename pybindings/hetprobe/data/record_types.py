"""Which reader reads each record type: a converter's rows in `summary` and `samples` (converters.CONVERTERS),
or another reader named here. Every record type of the schema is in one of the two (tests/python/test_load.py),
so none drops out unseen; hetprobe.load warns naming a record in neither."""

from __future__ import annotations

from .converters import CONVERTERS

# Record types with no rows in `summary`, and where they are read instead.
READ_ELSEWHERE = {
    ("bandwidth", "link"): "hetprobe.per_gpu (each GPU's link, ok or skipped)",
    ("gpus", "gpu_round"): "hetprobe.per_gpu (the per-GPU rounds)",
    ("gpus", "gpus_verdict"): "hetprobe.per_gpu and the report (the node verdict)",
}


def record_type(rec) -> tuple:
    """(probe, record): the key of CONVERTERS and READ_ELSEWHERE."""
    return rec.get("probe"), rec.get("record")


def unknown_type(rec) -> bool:
    """Whether this record (a header is none) is read by no converter and no reader named in READ_ELSEWHERE."""
    key = record_type(rec)
    return rec.get("record") != "header" and key not in CONVERTERS and key not in READ_ELSEWHERE
