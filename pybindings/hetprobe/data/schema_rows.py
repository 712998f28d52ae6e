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


def _value_paths(node: dict, role: str) -> tuple:
    """(path, column) of the fields of a record type marked "frame": role, outside arrays."""
    return tuple((path, column) for path, column in schema.marked_fields(node, role) if "[]" not in path)


def _parent(rec: dict, path: tuple):
    """The object of `rec` that holds the field at `path`, or None where the record lacks one on the way."""
    parent = rec
    for step in path[:-1]:
        parent = parent.get(step) if isinstance(parent, dict) else None
    return parent if isinstance(parent, dict) else None


def _values(rec: dict, paths: tuple) -> dict:
    """{column: value} of `rec` at each path; a path through an object the record lacks gives no column."""
    out = {}
    for path, column in paths:
        if (parent := _parent(rec, path)) is not None:
            out[column] = parent.get(path[-1])
    return out


def _summary_ref(child) -> str | None:
    """The Summary definition a field holds ($ref, or a nullable anyOf of one), else None."""
    if not isinstance(child, dict):
        return None
    refs = [child.get("$ref")] + [part.get("$ref") for part in child.get("anyOf", []) if isinstance(part, dict)]
    return next((ref for ref in refs if ref in SUMMARIES), None)


def _summary_fields(definition: str) -> tuple[tuple[str, str, str, bool], ...]:
    """(field, metric, unit, keeps samples) of each Summary field at the top of a record type's
    definition; the metric is the field's name unless it says another ("frame_metric")."""
    properties = schema.schema()["$defs"][definition].get("properties", {})
    return tuple(
        (
            name,
            child.get("frame_metric", name),
            child.get("unit", ""),
            _summary_ref(child).endswith("summary_with_samples"),
        )
        for name, child in properties.items()
        if _summary_ref(child) is not None
    )


def _sample_arrays(definition: str) -> tuple[tuple[str, str, str], ...]:
    """(field, metric, unit) of each array at the top of a record type's definition that holds a
    metric's samples outside its Summary ("frame_samples": the metric)."""
    properties = schema.schema()["$defs"][definition].get("properties", {})
    return tuple(
        (name, child["frame_samples"], child.get("unit", ""))
        for name, child in properties.items()
        if isinstance(child, dict) and "frame_samples" in child
    )


def _required_paths(definition: dict) -> tuple[tuple[str, ...], ...]:
    """The fields a record type's definition requires, and those its object fields require where the
    record has them (one level down): what a reader may count on, checked at load."""
    paths = [(name,) for name in definition.get("required", [])]
    for name, child in definition.get("properties", {}).items():
        if isinstance(child, dict) and child.get("type") == "object":
            paths += [(name, inner) for inner in child.get("required", [])]
    return tuple(paths)


@functools.cache
def schema_converter(key: tuple):
    """The converter of record type `key` ((probe, record)) made from its schema entry, or None where
    the schema has no such record type, or its entry holds no Summary field."""
    definition = schema.record_types().get(key)
    summaries = _summary_fields(definition) if definition is not None else ()
    if not summaries:
        return None
    node = {"$ref": f"#/$defs/{definition}"}
    key_paths, extra_paths = _value_paths(node, "key"), _value_paths(node, "extra")  # walked once, not per record
    required = _required_paths(schema.resolve(node))
    arrays = _sample_arrays(definition)

    def convert(rec, header):
        for path in required:
            if (parent := _parent(rec, path)) is not None and path[-1] not in parent:
                raise Malformed(".".join(path), "missing")
        keys, extras = _values(rec, key_paths), _values(rec, extra_paths)
        rows, chunks = [], []
        for field, metric, unit, keeps_samples in summaries:
            if rec.get(field) is None:  # absent, or null: nothing measured, no row
                continue
            rows.append((metric, unit, stats_of(rec[field], field), extras))
            if keeps_samples and isinstance(rec[field], dict) and "samples" in rec[field]:
                chunks.append((metric, unit, numbers(rec, f"{field}.samples")))
        for field, metric, unit in arrays:
            if rec.get(field) is not None:
                chunks.append((metric, unit, numbers(rec, field)))
        return keys, rows, chunks

    return convert
