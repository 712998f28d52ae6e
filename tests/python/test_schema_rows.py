"""A record type with no converter of its own reaches `summary` and `samples` from its schema entry
(hetprobe/data/schema_rows.py): how a new probe's records are read without a line in pybindings/."""

from __future__ import annotations

import copy
import re
import warnings

import pandas as pd
import pytest
from conftest import RUNS, jsonl_records, write_jsonl

from hetprobe.data import record_types, schema, schema_rows
from hetprobe.data.load import load
from hetprobe.errors import ResultsFileError

SKETCH = {
    "type": "object",
    "description": "A sketched probe's sample: an operation timed on the host",
    "properties": {
        "record": {"const": "sketch_sample"},
        "probe": {"const": "sketch"},
        "rank": {"type": "integer", "unit": "index"},
        "size_bytes": {"type": "integer", "unit": "bytes", "frame": "key", "description": "What was timed"},
        "reps": {"type": "integer", "unit": "count", "frame": "extra", "description": "Operations per sample"},
        "op_ns": {"$ref": "#/$defs/summary_with_samples", "unit": "ns", "description": "One operation"},
    },
}


@pytest.fixture
def sketch_schema(monkeypatch):
    """The schema with a sketched probe's entry, as adding a probe adds it: an anyOf line, an allOf rule, a $def."""
    grown = copy.deepcopy(schema.schema())
    grown["$defs"]["sketch_sample"] = SKETCH
    grown["anyOf"].append({"properties": {"probe": {"const": "sketch"}, "record": {"const": "sketch_sample"}}})
    grown["allOf"].append(
        {
            "if": {"properties": {"probe": {"const": "sketch"}, "record": {"const": "sketch_sample"}}},
            "then": {"$ref": "#/$defs/sketch_sample"},
        }
    )
    monkeypatch.setattr(schema, "schema", lambda: grown)
    cached = (schema_rows.schema_converter, schema.validator)  # of either schema
    for function in cached:
        function.cache_clear()
    yield
    for function in cached:
        function.cache_clear()


def sketch_header() -> dict:
    """A header of the sketched probe (a committed one, renamed)."""
    return {**jsonl_records(RUNS / "h200-bandwidth.jsonl")[0], "probe": "sketch", "config": {}}


@pytest.fixture
def marked_schema(sketch_schema):
    """The schema with the sketched record type using every mark (MARKED)."""
    schema.schema()["$defs"]["sketch_sample"] = MARKED
    schema_rows.schema_converter.cache_clear()


def test_a_new_probes_records_reach_summary_and_samples_from_its_schema_entry(tmp_path, sketch_schema):
    header = sketch_header()
    samples = [12.0, 10.0, 11.0, 40.0]
    sample = {"record": "sketch_sample", "probe": "sketch", "rank": 0, "size_bytes": 64, "reps": 100}
    stats = {"n": 4, "min": 10.0, "p10": 10.3, "median": 11.5, "p90": 31.6, "p99": 39.16, "max": 40.0}
    stats |= {"mean": 18.25, "stddev": 14.55}
    path = write_jsonl(tmp_path / "sketch.jsonl", [header, {**sample, "op_ns": {**stats, "samples": samples}}])
    assert schema.validator().is_valid(jsonl_records(path)[1])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a record the schema defines is no unknown record
        r = load(path)
    row = r.summary.iloc[0]
    assert (row["probe"], row["record"], row["metric"], row["unit"]) == ("sketch", "sketch_sample", "op_ns", "ns")
    assert (row["size_bytes"], row["reps"], row["median"], row["n"]) == (64, 100, 11.5, 4)
    assert r.samples["value"].tolist() == samples and set(r.samples["metric"]) == {"op_ns"}


def test_without_its_schema_entry_the_record_is_unknown(tmp_path):
    assert schema_rows.schema_converter(("sketch", "sketch_sample")) is None
    assert record_types.unknown_type({"probe": "sketch", "record": "sketch_sample"})


MARKED = {
    "type": "object",
    "description": "A sketched record that uses every mark of schema_rows.py",
    "properties": {
        **{k: SKETCH["properties"][k] for k in ("record", "probe", "rank", "size_bytes")},
        "side": {"enum": ["cpu", "gpu"], "frame": "key", "description": "A key with an enum"},
        "ops": {"type": "integer", "unit": "count", "description": "Operations per sample"},
        "devices": {
            "type": "array",
            "items": {"type": "object", "properties": {"target_gbs": {"type": "number", "frame": "extra"}}},
        },
        "torn": {"$ref": "#/$defs/summary", "unit": "ratio", "frame": "extra", "frame_column": "torn_fraction_median"},
        "op_ns": {"$ref": "#/$defs/device_summary", "unit": "ns", "description": "One operation"},
        "skipped_ns": {"anyOf": [{"$ref": "#/$defs/summary"}, {"type": "null"}], "unit": "ns", "frame_row": "always"},
        "start": {"$ref": "#/$defs/raw_ticks"},
        "end": {
            "$ref": "#/$defs/raw_ticks",
            "frame_ticks": "span_ns",
            "frame_ticks_since": "start",
            "frame_ticks_per": 2,
        },
        "samples": {"$ref": "#/$defs/raw_ticks", "frame_ticks": "op_ns", "frame_ticks_per": "ops"},
        "timeline": {
            "type": "object",
            "properties": {"at_ns": {"type": "array", "unit": "ns", "frame_samples": "at_ns"}},
        },
        "lower_bound_ns": {
            "type": "object",
            "additionalProperties": {"type": "number", "unit": "ns"},
            "frame": "extra",
            "frame_entries": "setup",
        },
    },
    "required": ["record", "probe", "size_bytes", "samples"],
}


def test_each_mark_makes_its_rows_and_samples(tmp_path, marked_schema):
    """The marks of schema_rows.py, each once: a key, a first item's extra, a Summary's median, a device
    Summary's own extras and key default, a row kept when null, raw ticks over a field, tick differences,
    nested samples and a row per entry."""
    ticks = {"unit": "host_ticks", "ns_per_tick": 0.5}
    rec = {
        "record": "sketch_sample",
        "probe": "sketch",
        "rank": 0,
        "size_bytes": 64,
        "side": "gpu",
        "ops": 4,
        "devices": [{"target_gbs": 12.5}, {"target_gbs": 99.0}],
        "torn": {
            "n": 1,
            "min": 0.25,
            "p10": 0.25,
            "median": 0.25,
            "p90": 0.25,
            "p99": 0.25,
            "max": 0.25,
            "mean": 0.25,
            "stddev": None,
        },
        "op_ns": {
            "n": 2,
            "min": 1.0,
            "p10": 1.0,
            "median": 1.5,
            "p90": 2.0,
            "p99": 2.0,
            "max": 2.0,
            "mean": 1.5,
            "stddev": 0.7,
            "resolution_ns": 0.125,
        },
        "skipped_ns": None,
        "start": {**ticks, "values": [2**63, 10]},
        "end": {**ticks, "values": [2**63 + 8, 14]},
        "samples": {**ticks, "values": [8, 12]},
        "timeline": {"at_ns": [1.0, 2.0, 3.0]},
        "lower_bound_ns": {"notify-stream isend": 700.0, "baseline": 900.0},
    }
    header = sketch_header()
    r = load(write_jsonl(tmp_path / "marked.jsonl", [header, rec]))
    rows = r.summary.set_index("metric")
    assert rows.loc["op_ns", "resolution_ns"] == 0.125 and rows.loc["op_ns", "unresolved"] == False  # noqa: E712
    assert rows.loc["op_ns", "target_gbs"] == 12.5 and rows.loc["op_ns", "torn_fraction_median"] == 0.25
    assert rows.loc["op_ns", "side"] == "gpu" and rows.loc["op_ns", "size_bytes"] == 64
    assert rows.loc["skipped_ns", "n"] == 0 and pd.isna(rows.loc["skipped_ns", "median"])  # kept, NaN
    bounds = r.summary.query("metric == 'lower_bound_ns'")
    assert dict(zip(bounds["setup"], bounds["lower_bound_ns"])) == {"notify-stream isend": 700.0, "baseline": 900.0}
    assert set(bounds["unit"]) == {"ns"} and bounds["median"].isna().all()
    samples = {m: g["value"].tolist() for m, g in r.samples.groupby("metric")}
    assert samples["op_ns"] == [8 * 0.5 / 4, 12 * 0.5 / 4]  # ticks x ns_per_tick / ops
    assert samples["span_ns"] == [8 * 0.5 / 2, 4 * 0.5 / 2]  # exact uint64 differences past 2**53
    assert samples["at_ns"] == [1.0, 2.0, 3.0]


@pytest.mark.parametrize(
    "change, named",
    [
        ({"side": 3}, "field 'side': expected a string, got number"),
        ({"size_bytes": "64"}, "field 'size_bytes': expected an integer, got string"),
        ({"samples": {"unit": "host_ticks", "ns_per_tick": 1.0}}, "field 'samples.values': missing"),
        ({"end": {"unit": "host_ticks", "ns_per_tick": 1.0, "values": [1]}}, "field 'end.values': 1 values for 2"),
        ({"ops": None}, "field 'ops': expected an integer, got null"),
    ],
)
def test_a_field_against_its_marks_is_named(tmp_path, marked_schema, change, named):
    ticks = {"unit": "host_ticks", "ns_per_tick": 1.0}
    rec = {
        "record": "sketch_sample",
        "probe": "sketch",
        "rank": 0,
        "size_bytes": 64,
        "side": "cpu",
        "ops": 2,
        "samples": {**ticks, "values": [4]},
        "start": {**ticks, "values": [1, 2]},
        "end": {**ticks, "values": [3, 4]},
    }
    header = sketch_header()
    with pytest.raises(ResultsFileError, match=re.escape(named)):
        load(write_jsonl(tmp_path / "bad.jsonl", [header, {**rec, **change}]))
