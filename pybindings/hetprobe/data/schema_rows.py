"""A converter made from a record type's schema entry, for a probe with no converter of its own
(converters.CONVERTERS): the fields marked "frame": "key" and "extra" give its key and extra
columns, and each Summary field (a `$ref` to summary, summary_with_samples or device_summary) a row
of the metric of its name, in its unit, with the samples it keeps. A new probe's records so reach
`summary` and `samples` from its schema entry alone (docs/architecture.md, "Adding a probe")."""

from __future__ import annotations

import functools

import numpy as np

from . import schema
from .fields import Malformed, json_type, number, numbers, opt
from .frames import STATS

SUMMARIES = {f"#/$defs/{name}" for name in ("summary", "summary_with_samples", "device_summary")}


def stats_of(summary, path: str = "") -> dict:
    """A record's Summary object as floats (n as int); null statistics (unresolved) become NaN.
    `path` names the object in errors (its fields are checked to be numbers or null)."""
    if not isinstance(summary, dict):
        if summary is not None:
            raise Malformed(path, f"expected an object, got {json_type(summary)}")
        return {"n": 0, **{k: np.nan for k in STATS[1:]}}
    where = f"{path}." if path else ""
    try:
        return {"n": int(opt(summary, "n", "integer", 0)), **{k: number(summary, k) for k in STATS[1:]}}
    except Malformed as e:
        raise Malformed(where + e.path, e.problem) from None


def _marked_values(node: dict, rec, out: dict, role: str) -> None:
    """Adds {column: value} of the fields of `rec` under `node` marked "frame": role, depth first."""
    for name, child in schema.resolve(node).get("properties", {}).items():
        if not isinstance(child, dict) or not isinstance(rec, dict):
            continue
        if child.get("frame") == role:
            out[child.get("frame_column", name)] = rec.get(name)
        elif isinstance(rec.get(name), dict):
            _marked_values(child, rec[name], out, role)


@functools.cache
def _summary_fields(definition: str) -> tuple[tuple[str, str, bool], ...]:
    """(field, unit, keeps samples) of each Summary field at the top of a record type's definition."""
    properties = schema.schema()["$defs"][definition].get("properties", {})
    return tuple(
        (name, child.get("unit", ""), child["$ref"].endswith("summary_with_samples"))
        for name, child in properties.items()
        if isinstance(child, dict) and child.get("$ref") in SUMMARIES
    )


@functools.cache
def schema_converter(key: tuple):
    """The converter of record type `key` ((probe, record)) made from its schema entry, or None where
    the schema has no such record type, or its entry holds no Summary field."""
    definition = schema.record_types().get(key)
    if definition is None or not _summary_fields(definition):
        return None
    node = {"$ref": f"#/$defs/{definition}"}

    def convert(rec, header):
        keys, extras = {}, {}
        _marked_values(node, rec, keys, "key")
        _marked_values(node, rec, extras, "extra")
        rows, chunks = [], []
        for field, unit, keeps_samples in _summary_fields(definition):
            if field not in rec:
                continue
            rows.append((field, unit, stats_of(rec[field], field), extras))
            if keeps_samples and isinstance(rec[field], dict) and "samples" in rec[field]:
                chunks.append((field, unit, numbers(rec, f"{field}.samples")))
        return keys, rows, chunks

    return convert
