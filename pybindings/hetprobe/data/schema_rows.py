"""The rows of a record type, made from its schema entry: every record type's `summary` and `samples`
rows come from the marks of its entry (results.schema.json, or a probe's own
bench/<probe>/records.schema.json), so a new probe's records reach the frames with no line of Python
(docs/architecture.md, "Adding a probe"). The marks:

- "frame": "key" / "extra": a key column (what the row measures; the record's first such field of a
  column) or an extra column (a reading beside the statistics). A Summary marked so gives its median;
  in an array, the first item's field; "frame_default": the value where the record has none. An extra
  inside a Summary field belongs to that field's row.
- A Summary field (a `$ref` to summary, summary_with_samples or device_summary) at the top of the
  entry: a row of the metric of its name ("frame_metric": another; "frame_metric_from": the field
  that names it), in its unit, with the samples it keeps; none where it is null or absent, unless
  "frame_row": "always" (a row of NaN statistics: a skipped measurement keeps its row).
- "frame_samples": METRIC on an array (at any depth outside arrays): its values are METRIC's samples
  (the first such array a record has, of each metric).
- "frame_ticks": METRIC on a raw ticks object (raw_ticks): its values x ns_per_tick are METRIC's
  samples in ns, divided by "frame_ticks_per" (a number, or the integer field that holds it); with
  "frame_ticks_since": FIELD, the differences from FIELD's ticks (exact, as unsigned 64-bit).
- "frame_entries": COLUMN on an object of numbers: a row per entry, the entry's name in COLUMN, its
  value in the field's own column, statistics NaN.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from . import schema
from .fields import Malformed, article, is_json_type, json_type, need, number, numbers, opt
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


def _summary_ref(child) -> str | None:
    """The Summary definition a field holds ($ref, or a nullable anyOf of one), else None."""
    if not isinstance(child, dict):
        return None
    refs = [child.get("$ref")] + [part.get("$ref") for part in child.get("anyOf", []) if isinstance(part, dict)]
    return next((ref for ref in refs if ref in SUMMARIES), None)


def _json_types(node: dict) -> tuple[str, ...] | None:
    """The JSON types a field's schema allows, or None where it does not say."""
    if "enum" in node or "const" in node:
        values = node.get("enum", [node.get("const")])
        return tuple({"null" if v is None else json_type(v) for v in values})
    declared = node.get("type")
    if declared is None:
        return None
    return (declared,) if isinstance(declared, str) else tuple(declared)


@dataclass(frozen=True)
class _Column:
    """A field marked "frame": key or extra: where it is, its column, what it may hold."""

    path: tuple[str, ...]
    column: str
    types: tuple[str, ...] | None
    default: object
    median: bool  # a Summary: its median

    def read(self, rec: dict):
        """(found, value): the field's value in `rec` (its median, for a Summary), checked against its
        types; (False, default) where the record lacks it, or an object on the way."""
        value = rec
        for step in self.path:
            if step == "[]":
                value = value[0] if isinstance(value, list) and value else None
            else:
                value = value.get(step) if isinstance(value, dict) else None
            if value is None:
                break
        if value is None:
            return self.default is not None, self.default
        where = ".".join(self.path)
        if self.median:
            return True, stats_of(value, where)["median"]
        if self.types is not None and not any(is_json_type(value, t) for t in self.types):
            raise Malformed(where, f"expected {' or '.join(map(article, self.types))}, got {json_type(value)}")
        return True, value


def _is_summary(field: dict) -> bool:
    """Whether a resolved field is a Summary (summary's fields: n, median, ...)."""
    return {"n", "median"} <= set(field.get("properties", {}))


def _columns(node: dict, role: str) -> tuple[_Column, ...]:
    return tuple(
        _Column(path, field["frame_column"], _json_types(field), field.get("frame_default"), _is_summary(field))
        for path, field in schema.fields_where(node, lambda field: field.get("frame") == role)
    )


def _values(rec: dict, columns) -> dict:
    """{column: value} of the columns `rec` has (of several fields of one column, the first it has)."""
    out = {}
    for c in columns:
        if c.column not in out:
            found, value = c.read(rec)
            if found:
                out[c.column] = value
    return out


@dataclass(frozen=True)
class _Summary:
    """A Summary field at the top of a record type: a row of its metric."""

    field: str
    metric: str
    metric_from: str | None
    unit: str
    keeps_samples: bool
    always: bool
    extras: tuple[_Column, ...]  # extras inside it: its row's

    def row(self, rec: dict, extras: dict):
        value = rec.get(self.field)
        if value is None and not self.always:
            return None
        metric = need(rec, self.metric_from, "string") if self.metric_from else self.metric
        return metric, self.unit, stats_of(value, self.field), {**extras, **_values(rec, self.extras)}


def _summaries(definition: dict, extras: tuple[_Column, ...]) -> tuple[_Summary, ...]:
    return tuple(
        _Summary(
            name,
            child.get("frame_metric", name),
            child.get("frame_metric_from"),
            child.get("unit", ""),
            _summary_ref(child).endswith("summary_with_samples"),
            child.get("frame_row") == "always",
            tuple(c for c in extras if c.path[0] == name and len(c.path) > 1),
        )
        for name, child in definition.get("properties", {}).items()
        if _summary_ref(child) is not None
    )


def tick_differences(rec: dict, since: str, field: str) -> np.ndarray:
    """field's ticks less since's ticks, differenced as uint64 (exact), as int64."""
    start = numbers(rec, f"{since}.values", required=True, dtype=np.uint64)
    end = numbers(rec, f"{field}.values", required=True, dtype=np.uint64)
    if len(start) != len(end):
        raise Malformed(f"{field}.values", f"{len(end)} values for {len(start)} in {since}.values")
    return (end - start).view(np.int64)


def _ticks_chunk(rec: dict, field: str, node: dict):
    """(metric, "ns", values) of a raw ticks field marked "frame_ticks"; None where the record lacks it."""
    if not rec.get(field):
        return None
    per = node.get("frame_ticks_per", 1)
    divide = float(per if isinstance(per, (int, float)) else need(rec, per, "integer"))
    since = node.get("frame_ticks_since")
    if since:
        ticks = tick_differences(rec, since, field).astype(np.float64)
        scale = float(need(rec, f"{since}.ns_per_tick", "number"))
    else:
        ticks = numbers(rec, f"{field}.values", required=True)
        scale = float(need(rec, f"{field}.ns_per_tick", "number"))
    return node["frame_ticks"], "ns", ticks * scale / divide


def _sample_arrays(node: dict) -> tuple[tuple[tuple[str, ...], str, str, bool], ...]:
    """(path, metric, unit, nulls allowed) of each array marked "frame_samples", outside arrays."""
    return tuple(
        (path, field["frame_samples"], field.get("unit", ""), "null" in (_json_types(field.get("items", {})) or ()))
        for path, field in schema.fields_where(node, lambda field: "frame_samples" in field)
        if "[]" not in path
    )


def _array_chunks(rec: dict, arrays) -> list:
    chunks, seen = [], set()
    for path, metric, unit, nulls in arrays:
        if metric in seen:
            continue
        parent = rec
        for step in path[:-1]:
            parent = parent.get(step) if isinstance(parent, dict) else None
        if isinstance(parent, dict) and parent.get(path[-1]) is not None:
            chunks.append((metric, unit, numbers(rec, ".".join(path), nulls=nulls)))
            seen.add(metric)
    return chunks


def _entry_rows(rec: dict, field: str, node: dict, extras: dict) -> list:
    """A row per entry of an object field marked "frame_entries"."""
    entries = opt(rec, field, "object", {})
    column, unit = node["frame_entries"], node.get("unit", node.get("additionalProperties", {}).get("unit", ""))
    return [(field, unit, stats_of(None), {**extras, column: name, field: number(entries, name)}) for name in entries]


def _checks(definition: dict):
    """(required paths, sized arrays) a record must satisfy: the fields its definition requires and those
    its object fields require where the record has them (one level down); the arrays with a fixed size."""
    required = [(name,) for name in definition.get("required", [])]
    sized = []
    for name, child in definition.get("properties", {}).items():
        if not isinstance(child, dict):
            continue
        if "object" in (_json_types(child) or ()):
            required += [(name, inner) for inner in child.get("required", [])]
        if "minItems" in child or "maxItems" in child:
            sized.append((name, child.get("minItems", 0), child.get("maxItems")))
    return tuple(required), tuple(sized)


def _check(rec: dict, required, sized) -> None:
    for path in required:
        parent = rec.get(path[0]) if len(path) == 2 else rec
        if isinstance(parent, dict) and path[-1] not in parent:
            raise Malformed(".".join(path), "missing")
    for name, low, high in sized:
        value = rec.get(name)
        if isinstance(value, list) and not (low <= len(value) <= (high if high is not None else len(value))):
            wanted = f"{low}" if low == high else f"{low} to {high if high is not None else 'any'}"
            raise Malformed(name, f"expected {wanted} items, got {len(value)}")


@functools.cache
def schema_converter(key: tuple):
    """The converter of record type `key` ((probe, record)) made from its schema entry: rec -> (keys,
    rows, chunks), rows (metric, unit, stats, extras) and chunks (metric, unit, values); None where the
    schema has no such record type, or its entry makes no row."""
    name = schema.record_types().get(key)
    if name is None:
        return None
    node = {"$ref": f"#/$defs/{name}"}
    definition = schema.resolve(node)
    keys, all_extras = _columns(node, "key"), _columns(node, "extra")
    summaries = _summaries(definition, all_extras)
    properties = {k: schema.resolve(v) for k, v in definition.get("properties", {}).items() if isinstance(v, dict)}
    ticks = tuple((f, p) for f, p in properties.items() if "frame_ticks" in p)
    entries = tuple((f, p) for f, p in properties.items() if "frame_entries" in p)
    own = {c for s in summaries for c in s.extras} | {c for c in all_extras if c.path[0] in dict(entries)}
    extras = tuple(c for c in all_extras if c not in own)  # the record's, on each of its rows
    if not summaries and not entries:
        return None
    arrays = _sample_arrays(node)
    required, sized = _checks(definition)

    def convert(rec, header):
        _check(rec, required, sized)
        record_extras = _values(rec, extras)
        rows, chunks = [], []
        for s in summaries:
            if (row := s.row(rec, record_extras)) is not None:
                rows.append(row)
                if s.keeps_samples and isinstance(rec[s.field], dict) and "samples" in rec[s.field]:
                    chunks.append((row[0], s.unit, numbers(rec, f"{s.field}.samples")))
        for field, p in entries:
            rows += _entry_rows(rec, field, p, record_extras)
        chunks += [chunk for field, p in ticks if (chunk := _ticks_chunk(rec, field, p)) is not None]
        chunks += _array_chunks(rec, arrays)
        return _values(rec, keys), rows, chunks

    return convert
